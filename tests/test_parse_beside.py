"""A large Turtle, TriG or RDF/XML file is parsed in a process of its own (ldids.dumps.parse_beside):
the same output bytes, the same errors, and nothing written when the parse fails."""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

import pytest

from ldids.cli import main
from ldids.dumps import parse_beside
from ldids.errors import InputError

TURTLE = """\
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix ex: <http://example.org/> .
@base <http://example.org/base/> .
<info:fedora/demo:1> dc:identifier "demo:1", "demo%3A2" ;
    ex:p <INFO:FEDORA/demo%3a1/DC>, <oai:arXiv.org:demo:1>, <https://hdl.handle.net/1765/315>,
         <http://purl.org:80/poi/arXiv.org/x>, <relative>, _:b1 ;
    ex:label "tab\\there", "caf\\u00E9"@FR, "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
_:b1 ex:q <HDL:1765/abc> .
"""
TRIG = "@prefix ex: <http://example.org/> .\nex:g { <oai:arXiv.org:a:1> ex:p <hdl:1/2> . }\n" + TURTLE
RDF_XML = """\
<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/"
         xmlns:ex="http://example.org/" xml:base="http://example.org/base/">
  <rdf:Description rdf:about="info:fedora/demo:1">
    <dc:identifier>demo:1</dc:identifier>
    <ex:p rdf:resource="INFO:FEDORA/demo%3a1/DC"/>
    <ex:p rdf:resource="relative"/>
    <ex:p rdf:nodeID="b1"/>
    <ex:label xml:lang="FR">caf\u00e9</ex:label>
  </rdf:Description>
  <rdf:Description rdf:nodeID="b1"><ex:q rdf:resource="HDL:1765/abc"/></rdf:Description>
</rdf:RDF>
"""
DOCUMENTS = {"ttl": TURTLE, "trig": TRIG, "rdf": RDF_XML, "ttl.gz": TURTLE}


def _write(folder: Path, suffix: str, text: str) -> Path:
    path = folder / f"data.{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    return path


def _normalize(path: Path, output: Path, *argv: str) -> int:
    return main(["normalize", "--quiet", str(path), "-o", str(output), *argv], io.StringIO())


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file parsed beside: the paths, as the processes are started."""
    paths: list[str] = []
    original = parse_beside.Beside.__init__
    monkeypatch.setattr(parse_beside, "_cores", lambda: 64)  # a core left free, whatever the machine

    def spy(self: parse_beside.Beside, path: str, *args: object, **kwargs: object) -> None:
        paths.append(path)
        original(self, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parse_beside.Beside, "__init__", spy)
    return paths


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("suffix", list(DOCUMENTS))
def test_the_same_bytes_as_in_step(
    suffix: str, workers: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: list[str]
) -> None:
    data = _write(tmp_path, suffix, DOCUMENTS[suffix])
    out = ".nq" if suffix == "trig" else ".nt"
    assert _normalize(data, tmp_path / f"in-step{out}", "--workers", workers) == 0
    assert started == []  # a small file is parsed in step
    monkeypatch.setattr(parse_beside, "BESIDE_FROM", 0)
    assert _normalize(data, tmp_path / f"beside{out}", "--workers", workers) == 0
    assert started == [str(data)]
    beside = (tmp_path / f"beside{out}").read_bytes()
    assert beside == (tmp_path / f"in-step{out}").read_bytes()
    assert b"<info:fedora/demo:1/DC>" in beside  # normalized, not only copied


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        ("ttl", TURTLE + "<info:fedora/demo:2> <http://example.org/p> .\n"),
        ("trig", TRIG + "<http://example.org/g> { <a> <b> }\n"),
        ("rdf", RDF_XML[: RDF_XML.index("</rdf:RDF>")]),  # cut short: pyoxigraph alone takes it
        ("rdf", RDF_XML.replace("caf\u00e9", "caf\u0001")),  # a control character XML forbids
        ("ttl.gz", TURTLE.replace("<relative>", "<rel ative>")),
    ],
)
def test_the_same_error_as_in_step_and_no_output(
    suffix: str,
    text: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    started: list[str],
) -> None:
    data = _write(tmp_path, suffix, text)
    assert _normalize(data, tmp_path / "in-step.nq") == 2
    in_step = capsys.readouterr().err
    monkeypatch.setattr(parse_beside, "BESIDE_FROM", 0)
    assert _normalize(data, tmp_path / "beside.nq", "--workers", "2") == 2
    assert started == [str(data)]
    assert capsys.readouterr().err == in_step
    assert f"{data}:" in in_step  # the file, and where in it
    assert sorted(path.name for path in tmp_path.iterdir()) == [data.name]


def test_a_parse_that_fails_otherwise_says_so(tmp_path: Path) -> None:
    data = _write(tmp_path, "ttl", TURTLE)
    lines = parse_beside.Beside(str(data), "no-such-format", "shown.ttl", base=None, rename_blank_nodes=False)
    with pytest.raises(
        InputError, match=r"^shown\.ttl: could not parse the file \(exit 1: KeyError: 'no-such-format'\)"
    ):
        lines.read()


def test_closing_early_ends_the_parse(tmp_path: Path) -> None:
    body = "".join(f"<info:fedora/demo:{n}> <http://example.org/p> <hdl:1/{n}> .\n" for n in range(200_000))
    data = _write(tmp_path, "ttl", body)
    lines = parse_beside.Beside(str(data), "turtle", str(data), base=None, rename_blank_nodes=False)
    assert lines.read(100).startswith(b"<info:fedora/demo:0> ")
    process = lines._process
    assert process is not None
    lines.close()
    assert process.returncode is not None  # ended and waited for: no process left behind
    assert lines.closed


def test_what_is_worth_a_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = _write(tmp_path, "ttl", TURTLE)
    monkeypatch.setattr(parse_beside, "_cores", lambda: 4)
    assert not parse_beside.worth_it(str(small), 1)
    assert not parse_beside.worth_it("-", 1)  # standard input is read once, by this process
    assert not parse_beside.worth_it(str(tmp_path / "missing.ttl"), 1)
    monkeypatch.setattr(parse_beside, "BESIDE_FROM", small.stat().st_size)
    assert parse_beside.worth_it(str(small), 1)
    assert parse_beside.worth_it(str(small), 3)
    assert not parse_beside.worth_it(str(small), 4)  # the workers take every core: parsed in step
    assert not parse_beside.worth_it(str(tmp_path), 1)  # a folder is no file


def test_progress_counts_statements_where_the_bytes_are_read_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], started: list[str]
) -> None:
    data = _write(tmp_path, "ttl", TURTLE)
    monkeypatch.setattr(parse_beside, "BESIDE_FROM", 0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the meter shows on a terminal only
    monkeypatch.delenv("CI", raising=False)
    assert main(["normalize", "--progress", str(data), "-o", str(tmp_path / "out.nt")], io.StringIO()) == 0
    assert started == [str(data)]
    shown = capsys.readouterr().err.split("\r")[-1].splitlines()[0]  # the meter's last words
    assert shown.startswith("12 lines  ")
    assert "MB read" not in shown  # this process reads none of the file's bytes: no figure it cannot know
