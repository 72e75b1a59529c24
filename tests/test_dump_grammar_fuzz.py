"""The streamed dump's statement grammar against pyoxigraph, the reference (DESIGN.md §6a).

A line is a statement for the stream (compiled and in Python) exactly when pyoxigraph's
strict N-Triples/N-Quads parser reads it as RDF 1.1, and then with the same terms: a seeded
differential fuzz of generated and mutated lines (benchmarks/fuzz_dump_grammar.py, which
runs the same at any size), and the lines it once found. Bad lines never stop a run that
skips them; an input cut short always does.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import random
import sys
import time
from pathlib import Path

import pytest

from ldids.cli import main
from ldids.dumps import stream, worker
from ldids.dumps.run import normalize_dump
from ldids.dumps.settings import Settings
from ldids.passes.config import Config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
try:
    import fuzz_dump_grammar as fuzz
finally:
    sys.path.pop(0)

pytestmark = pytest.mark.skipif(
    not stream.COMPILED and os.environ.get("LDIDS_ALLOW_NO_EXTENSION") == "1",
    reason="ldids.dumps._scan not built (allowed by LDIDS_ALLOW_NO_EXTENSION=1)",
)


def test_the_stream_reads_what_pyoxigraph_reads() -> None:
    assert stream.COMPILED, "ldids.dumps._scan was not built"
    report = fuzz.run(120_000, seed=20_240_601)
    assert report.lines == 120_000
    # Enough of each kind that both sides of every check are met.
    assert report.accepted > 40_000
    assert report.refused > 40_000
    assert not report.kinds, "\n".join(report.disagreements)


L = "<http://a.example/s> <http://a.example/p> "
LINES = [
    # Escapes that name no character: bad lines, never an exception.
    L + '"\\U00110000" .',
    L + "<http://a.example/\\U00110000> .",
    L + '"\\uD800" .',
    L + '"\\udfff" .',
    L + "<http://a.example/\\U0000DC00> .",
    L + '"\\U0010FFFF" .',
    L + '"\\\\U00110000" .',  # an escaped backslash, then text
    L + '"\\\\\\U00110000" .',
    # IRIs: RFC 3987, after the escapes are read.
    L + "<http://a.example/\\u0020> .",
    L + "<http://a.example/%zz> .",
    L + "<http://a.example/a%2> .",
    L + "<relative> .",
    L + "<//a.example/x> .",
    L + "<1a:b> .",
    L + "<a:b:c> .",
    L + "<http://a.example/a#b#c> .",
    L + "<http://a.example/\ue000> .",
    L + "<http://a.example/?\ue000> .",
    L + "<http://a.example/\ufffe> .",
    L + "<http://u:p@a.example:80/> .",
    L + "<http://u@v@a.example/> .",
    L + "<http://a.example:8x/> .",
    L + "<http://a.example:/> .",
    L + "<http://[::1]/> .",
    L + "<http://[::1]:8080/> .",
    L + "<http://[::1]x/> .",
    L + "<http://[1:2:3:4:5:6:7::]/> .",
    L + "<http://[::ffff:1.2.3.4]/> .",
    L + "<http://[::ffff:01.2.3.4]/> .",
    L + "<http://[1:2:3:4:5:6:7:1.2.3.4]/> .",
    L + "<http://[fe80::1%25eth0]/> .",
    L + "<http://[v7.a:b]/> .",
    L + "<http://[v7.]/> .",
    L + "<http://a[b]/> .",
    # Language tags: BCP 47.
    L + '"x"@en-GB .',
    L + '"x"@en-a .',
    L + '"x"@i-klingon .',
    L + '"x"@x-abcdefgh .',
    L + '"x"@x-abcdefghi .',
    L + '"x"@abcdefghi .',
    L + '"x"@en-aaa-bbb-ccc-ddd .',
    L + '"x"@en--ltr .',  # RDF 1.2's base direction: not RDF 1.1
    # A literal is three terminals; white space may stand between them.
    L + '"x" @en .',
    L + '"x"\t^^ <http://a.example/d> .',
    L + '"x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .',
    L + '"x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#lang\\u0053tring> .',
    # A line ends at CR, LF or CR LF; a comment holds any bytes but those.
    L + "<http://a.example/o> .\r" + L + "<http://a.example/o> .",
    L + "<http://a.example/o> .\r\r",
    "# a comment\rnot a comment",
    L + "<http://a.example/o> . # \udc80\udcff",
    "# \udc80",
    L + "<http://a.example/\udc80> .",
    # RDF 1.2's triple terms.
    L + "<<( <http://a.example/s> <http://a.example/p> <http://a.example/o> )>> .",
]


@pytest.mark.parametrize("quads", [False, True], ids=["nt", "nq"])
def test_lines_it_once_found(quads: bool) -> None:
    report = fuzz.Report()
    fuzz.check([line.encode("utf-8", "surrogateescape") for line in LINES], quads, report)
    assert not report.kinds, "\n".join(report.disagreements)
    assert report.accepted > 15


@pytest.mark.parametrize(
    "line",
    [
        L + "<http://a.example/" + "a%20" * 25_000 + "\\u0020> .",
        L + "<http://a.example/" + "ab" * 50_000 + " .",
        L + '"x"' + " " * 50_000 + "@",
        L + '"' + "\\t" * 50_000 + '\\q" .',
    ],
)
def test_long_bad_lines_are_refused_at_once(line: str) -> None:
    """No regex of the grammar backtracks over a long line that fails near its end."""
    data = line.encode() + b"\n"
    for loop in (stream._in_python, stream._compiled):
        started = time.monotonic()
        result = loop(worker._Worker(Settings(Config(), on_error="skip")), data, 1)
        assert len(result.bad) == 1
        assert time.monotonic() - started < 2


def test_a_rewritten_statement_reads_its_literal_compactly() -> None:
    """White space between a literal's terminals is no part of it: decided as "x"^^<d> is."""
    data = b'<info:fedora/demo%3a1> <http://b> "oai:a.b:c" \t^^ <http://www.w3.org/2001/XMLSchema#anyURI> .\n'
    settings = Settings(Config())
    compiled = stream._compiled(worker._Worker(settings), data, 1)
    python = stream._in_python(worker._Worker(settings), data, 1)
    any_uri = b"<http://www.w3.org/2001/XMLSchema#anyURI>"
    expected = b'<info:fedora/demo:1> <http://b> "http://purl.org/poi/a.b/c"^^' + any_uri + b" .\n"
    assert bytes(compiled.output) == bytes(python.output) == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_skipping_bad_lines_never_stops_a_run(workers: int, tmp_path: Path) -> None:
    """Every bad line is listed with its line and column, and the rest is written."""
    lines = fuzz.generate(random.Random(5), 6_000, quads=True)
    data = b"".join(line + b"\n" for line in lines)
    source = tmp_path / "dump.nq"
    source.write_bytes(data)
    errors = tmp_path / "errors.tsv"
    settings = Settings(Config(), quads=True, on_error="skip")
    summary = normalize_dump(
        [str(source)], str(tmp_path / "out.nq"), settings, workers=workers, block_size=4096, error_file=str(errors)
    )
    expected = stream._in_python(worker._Worker(settings), data, 1)
    rows = errors.read_bytes().decode("utf-8").split("\n")[:-1]
    assert summary.bad_lines == len(rows) == len(expected.bad) > 1_000
    assert [tuple(row.split("\t")[:3]) for row in rows] == [
        (str(source), str(bad.line), str(bad.column)) for bad in expected.bad
    ]
    assert summary.lines_in == expected.lines
    assert summary.statements == expected.statements > 1_000


def _cut(data: bytes, how: str) -> bytes:
    if how == "gz":
        return gzip.compress(data)[:-40]
    if how == "bz2":
        return bz2.compress(data)[:-40]
    return data + b"<http://a.example/s> <http://a.example/p> <http://a.exa"


@pytest.mark.parametrize("on_error", ["stop", "skip"])
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("how", ["plain", "stdin", "gz", "bz2"])
def test_an_input_cut_short_exits_2(
    how: str, workers: str, on_error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(b"<http://a.example/s%d> <http://a.example/p> <http://a.example/o> .\n" % i for i in range(3000))
    cut = _cut(data, how)
    if how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(cut)))
        source = "-"
    else:
        path = tmp_path / f"dump.nt{'' if how in ('plain', 'stdin') else '.' + how}"
        path.write_bytes(cut)
        source = str(path)
    out, errors = tmp_path / "out.nt", tmp_path / "errors.tsv"
    args = ["normalize", source, "-i", "nt", "-o", str(out), "--workers", workers, "-q", "--on-error", on_error]
    assert main([*args, "--error-file", str(errors)], io.StringIO()) == 2
    assert not out.exists()
    assert not errors.exists()


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("ending", [b"<http://a.example/s> <http://a.example/p> <http://a.example/o> .", b"# the end"])
def test_a_last_line_without_a_line_break_is_fine_if_whole(workers: str, ending: bytes, tmp_path: Path) -> None:
    path = tmp_path / "dump.nt"
    path.write_bytes(b"<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n" * 100 + ending)
    out = tmp_path / "out.nt"
    assert main(["normalize", str(path), "-o", str(out), "--workers", workers, "-q"], io.StringIO()) == 0
    assert out.read_bytes() == path.read_bytes() + b"\n"
