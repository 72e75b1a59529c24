"""An RDF/XML file's well-formedness checked in another process while pyoxigraph parses it
(ldids.rdf.xmlcheck) says what lxml says reading in step: the same error, line and column,
no output, and the same statements when the file is well-formed.

Each malformed document below is one pyoxigraph's RDF/XML parser accepts (XML 1.0 §2.2
characters, §2.4 ``]]>`` in text, §2.5 ``--`` in comments, §2.8 the XML
declaration only first, a document cut short, and names Namespaces in XML 1.0 does not
allow): only lxml's check stands between them and statements written.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pyoxigraph
import pytest
from lxml import etree

from ldids.cli import main
from ldids.dumps import pieces
from ldids.dumps.rdf_stream import Parsed
from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.errors import InputError
from ldids.passes.config import Config
from ldids.rdf import wellformed, xmlcheck

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/vocab#"\n'
    '         xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
)
RECORD = (
    '  <rdf:Description rdf:about="info:fedora/demo%3A{n}">\n'
    "    <dc:identifier>demo:{n}</dc:identifier>\n"
    '    <ex:handle rdf:resource="http://hdl.handle.net/1765/{n}"/>\n'
    "  </rdf:Description>\n"
)
TAIL = "</rdf:RDF>\n"


def document(records: int, *, bad: str = "", at: int = 0) -> str:
    """``records`` descriptions, ``bad`` put in the text of record ``at``'s first property."""
    parts = [HEAD]
    for n in range(records):
        record = RECORD.format(n=n)
        if n == at and bad:
            record = record.replace(f">demo:{n}<", f">demo:{n}{bad}<")
        parts.append(record)
    return "".join(parts) + TAIL


#: Past the first 64 KiB, which lxml reads whole before pyoxigraph starts (the prolog's check).
RECORDS = 2000
GOOD = document(RECORDS)
MALFORMED = {
    "a control character": document(RECORDS, bad="\x01", at=1200),
    "a NUL": document(RECORDS, bad="\x00", at=1500),
    "a noncharacter": document(RECORDS, bad="\ufffe", at=1000),
    "]]> in text": document(RECORDS, bad=" ]]> ", at=1900),
    "-- in a comment": GOOD.replace(TAIL, "<!-- a -- b -->\n" + TAIL),
    "a second XML declaration": GOOD.replace(
        '  <rdf:Description rdf:about="info:fedora/demo%3A1999"', '<?xml version="1.0"?>\n  <rdf:Description', 1
    ),
    "cut short": GOOD[: GOOD.index("  <rdf:Description", len(GOOD) // 2)],
}


def _changed(n: int, old: str, new: str) -> str:
    record = RECORD.format(n=n)
    return GOOD.replace(record, record.replace(old, new))


#: Well-formed XML that is not namespace-well-formed, so not RDF/XML (Namespaces in XML 1.0
#: §3 QNames, §5 the empty name and ``xmlns``, §6.3 one attribute of a name, §7 PI targets).
#: pyoxigraph reads each; lxml's check with no tree does not say what is wrong with them.
NOT_NAMESPACED = {
    "a name with no local part": _changed(1300, "<ex:handle ", "<ex: "),
    "a name of two colons": _changed(1400, "<ex:handle ", "<ex:handle:x "),
    "a local part that starts with a digit": _changed(1500, "<ex:handle ", "<ex:1handle "),
    "a prefix bound to the empty name": _changed(1600, "<rdf:Description ", '<rdf:Description xmlns:q="" '),
    "one attribute twice, by its namespace": _changed(
        1700, "<rdf:Description ", f'<rdf:Description xmlns:q="{RDF}" q:about="http://example.org/c" '
    ),
    "a colon in a PI target": GOOD.replace(TAIL, "<?a:b c?>\n" + TAIL),
}
MALFORMED.update(NOT_NAMESPACED)


@pytest.mark.parametrize("why", sorted(MALFORMED))
def test_pyoxigraph_alone_would_accept_each(why: str) -> None:
    """Why the check is there: each document gives statements in pyoxigraph."""
    data = MALFORMED[why].encode("utf-8")
    assert list(pyoxigraph.parse(data, format=pyoxigraph.RdfFormat.RDF_XML))


def normalized(path: Path, output: Path, beside: bool, monkeypatch: pytest.MonkeyPatch) -> InputError | bytes:
    # The document is small: it is checked beside its parse only when the size from which a
    # file is checked so is lowered (to 0), as it would be for a file of 8 MiB and more.
    monkeypatch.setattr(xmlcheck, "SEPARATE_FROM", 0 if beside else 1 << 62)
    try:
        normalize_dump([str(path)], str(output), Settings(Config()), statements=Parsed({str(path): "xml"}))
    except InputError as error:
        return error
    return output.read_bytes()


@pytest.mark.parametrize("why", sorted(MALFORMED))
def test_a_malformed_file_is_the_same_error_either_way(
    why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "bad.rdf"
    source.write_bytes(MALFORMED[why].encode("utf-8"))
    found: dict[bool, tuple[str | None, int | None, int | None, str]] = {}
    for beside in (False, True):
        output = tmp_path / f"out-{beside}.nt"
        error = normalized(source, output, beside, monkeypatch)
        assert isinstance(error, InputError), f"{why}: written, beside={beside}"
        assert error.message.startswith("malformed XML: ")
        assert not output.exists()
        found[beside] = (error.source, error.line, error.column, error.message)
    assert found[True] == found[False]
    line = found[True][1]
    assert line is not None
    assert line > 4000  # where the fault is, past the first 64 KiB


def test_a_well_formed_file_gives_the_same_statements_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "good.rdf"
    source.write_text(GOOD, encoding="utf-8")
    in_step = normalized(source, tmp_path / "a.nt", False, monkeypatch)
    beside = normalized(source, tmp_path / "b.nt", True, monkeypatch)
    assert isinstance(in_step, bytes)
    assert in_step == beside
    assert in_step.count(b"\n") == 4 * RECORDS  # two statements a record, and a link from each identifier's other form


def test_the_check_on_its_own(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.rdf", tmp_path / "bad.rdf"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(MALFORMED["a control character"], encoding="utf-8")
    ran = subprocess.run([sys.executable, "-m", "ldids.rdf.xmlcheck", str(good)], capture_output=True, check=False)
    assert (ran.returncode, ran.stdout) == (0, b"")
    ran = subprocess.run([sys.executable, "-m", "ldids.rdf.xmlcheck", str(bad)], capture_output=True, check=False)
    assert ran.returncode == 1
    assert b'"line": 4805, "column": 29' in ran.stdout  # 3 lines of head, 4 a record: record 1200's second line
    assert xmlcheck.check_file(str(good)) is None


@pytest.mark.parametrize("why", sorted(MALFORMED))
def test_the_script_beside_says_what_lxml_says_in_step(why: str, tmp_path: Path) -> None:
    """ldids.rdf.wellformed run as the check beside runs it (no site, no ldids package, a
    stripped environment) gives the message, line and column of the check in this process."""
    source = tmp_path / "bad.rdf"
    source.write_bytes(MALFORMED[why].encode("utf-8"))
    expected = xmlcheck.check_file(str(source))
    assert expected is not None
    check = xmlcheck.Check(str(source), "shown.rdf")
    found = check.verdict()
    assert found is not None
    assert (found.source, found.message, found.line, found.column) == (
        "shown.rdf",
        expected.message,
        expected.line,
        expected.column,
    )


def test_the_script_beside_imports_neither_site_nor_ldids(tmp_path: Path) -> None:
    """What keeps its start-up cheap: it runs where neither is importable."""
    good = tmp_path / "good.rdf"
    good.write_text(GOOD, encoding="utf-8")
    lxml_folder = str(Path(etree.__file__).resolve().parent.parent)
    script = str(Path(wellformed.__file__).resolve())
    probe = (
        "import atexit, runpy, sys; atexit.register(lambda: print(sorted(sys.modules)));"
        " sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    ran = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe, script, lxml_folder, str(good)],
        capture_output=True,
        check=False,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    loaded = ran.stdout.decode().split("\n")[-2]
    assert "lxml.etree" in loaded
    assert "'site'" not in loaded
    assert "ldids" not in loaded


def test_a_check_that_cannot_run_is_not_a_pass(tmp_path: Path) -> None:
    """A file gone before its check reads it: the check fails, and says so."""
    check = xmlcheck.Check(str(tmp_path / "gone.rdf"), "gone.rdf")
    found = check.verdict()
    assert found is not None
    assert found.message.startswith("could not check the XML (exit 1: FileNotFoundError")


def test_a_large_file_cut_short_fails_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Past the size from which the check runs beside the parse, as a user runs it."""
    text = document(xmlcheck.SEPARATE_FROM // len(RECORD) + 100)
    cut = text[: text.index("  <rdf:Description", len(text) - 1000)]
    source, output = tmp_path / "big.rdf", tmp_path / "out.nt"
    source.write_text(cut, encoding="utf-8")
    assert source.stat().st_size >= xmlcheck.SEPARATE_FROM
    code = main(["normalize", str(source), "-o", str(output), "--workers", "2"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"ldids: {source}:{cut.count(chr(10)) + 1}:1: malformed XML: Premature end of data" in err
    assert not output.exists()


@pytest.mark.parametrize("why", sorted(NOT_NAMESPACED))
def test_a_namespace_error_is_the_same_on_every_path(
    why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """lxml's tree parser (standard input, documents with XML literals) refuses each; the
    fast check, the check beside, the whole graph's reading and the pieces say the same."""
    data = MALFORMED[why].encode("utf-8")
    with pytest.raises(etree.XMLSyntaxError) as raised:
        etree.fromstring(data)
    line, column = raised.value.position
    parser = wellformed.checker()
    parser.feed(data)
    parser.close()  # the fast check alone: no error
    source = tmp_path / "bad.rdf"
    source.write_bytes(data)
    expected = f"{source}:{line}:{column}: malformed XML: {wellformed.without_position(raised.value.msg)}"
    runs = {
        "in step": ["normalize", str(source), "-t", "nt", "--workers", "1"],
        "the whole graph": ["normalize", str(source), "-o", str(tmp_path / "out.ttl")],
        "validate": ["validate", str(source)],
    }
    monkeypatch.setattr(xmlcheck, "SEPARATE_FROM", 0)  # the check beside, for the file of 8 MiB and more
    for run, argv in runs.items():
        assert main(argv) == 2, run
        assert capsys.readouterr().err.splitlines()[-1] == f"ldids: {expected}", run
    assert not (tmp_path / "out.ttl").exists()
    assert pieces.cut(str(source), "xml", None, 4096, least=0) is not None  # read in pieces, 2 workers:
    statements = Parsed({str(source): "xml"}, workers=2, cut=True, piece=4096, cut_from=0)
    with pytest.raises(InputError) as failed:
        normalize_dump([str(source)], str(tmp_path / "out.nt"), Settings(Config()), workers=2, statements=statements)
    assert f"{failed.value}" == expected
    assert not (tmp_path / "out.nt").exists()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["normalize", "-", "--input-format", "xml", "-t", "nt"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"ldids: {expected.replace(str(source), '<stdin>')}"


def test_without_the_compiled_look_every_document_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree parser's reading is the reference the compiled look stands in for."""
    monkeypatch.setattr(wellformed, "_suspect", None)
    monkeypatch.setattr(wellformed, "_looked_up", True)
    for text in NOT_NAMESPACED.values():
        with pytest.raises(wellformed.MalformedError):
            wellformed.check(io.BytesIO(text.encode("utf-8")))
    wellformed.check(io.BytesIO(GOOD.encode("utf-8")))


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        (
            "Opening and ending tag mismatch: Description line 2 and RDF, line 2, column 49",
            "Opening and ending tag mismatch: Description line 2 and RDF",
        ),
        ("Failed to parse QName 'p:', line 1, column 127", "Failed to parse QName 'p:'"),
        ("Premature end of data in tag RDF line 1", "Premature end of data in tag RDF line 1"),
        ("a value, line 3, column x", "a value, line 3, column x"),
        ("", ""),
    ],
)
def test_an_error_says_its_place_once(message: str, kept: str) -> None:
    """The error's own line and column say where; lxml's message ends with them again."""
    assert wellformed.without_position(message) == kept
