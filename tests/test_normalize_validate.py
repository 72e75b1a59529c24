"""``ldids normalize --validate`` checks the output as it is made, in the same pass: its results
are those of ``ldids validate`` reading the output back (file, line, focus, path, value, shape,
component), over many blocks, 1 and 2 workers, links inline or in a file of their own."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph
from rdflib.compare import to_canonical_graph

from ldids.cli import main
from ldids.dumps import pool, sorting, validation
from ldids.dumps.run import DumpSummary, normalize_dump
from ldids.dumps.stream import Settings
from ldids.dumps.validation import Streamed, shipped_checks, validate_dump
from ldids.passes.config import Config
from ldids.resources import shapes_graph
from ldids.shacl.streamed import plan

P = "<http://example.org/p>"
DC = "<http://purl.org/dc/elements/1.1/identifier>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
LITERAL = '"a literal"'
#: Objects that conform once normalized, and some that do not (invalid forms are left alone).
OBJECTS = [
    "<info:fedora/demo%3a{n}>",
    "<INFO:FEDORA/demo:{n}/DC>",
    "<info:fedora/demo:{n}/9bad>",
    "<oai:arXiv.org:demo:{n}>",
    "<oai:bad{n}>",
    "<https://hdl.handle.net/1765/{n}>",
    '"hdl:{n}"',
    "<http://purl.org/poi/bad/{n}>",
    '"just text {n}"',
]


def _dump(count: int = 3000, seed: int = 7) -> str:
    pick = random.Random(seed)
    lines = []
    for n in range(count):
        subject = pick.choice([f"<info:fedora/demo:{n}>", f"<oai:arXiv.org:demo:{n}>", f"_:b{n % 50}"])
        kind = pick.random()
        if kind < 0.2:
            lines.append(f'{subject} {DC} "{pick.choice(["demo:{n}", "demo:a {n}", "demo%3A{n}"]).format(n=n)}" .')
        elif kind < 0.3:
            linked = pick.choice([subject, LITERAL, "<info:fedora/demo:1>"])
            lines.append(f"{subject} {SAME_AS} {linked} .")
        else:
            lines.append(f"{subject} {P} {pick.choice(OBJECTS).format(n=n)} .")
    return "\n".join(lines) + "\n"


def _rows(run: Streamed) -> list[tuple[str, ...]]:
    """Each result; an anonymous property shape (its label is each parse's own) by its path."""
    return sorted(
        (v.file or "", str(v.line), str(v.focus), str(v.path), str(v.value), _shape(v.shape), str(v.component))
        for v in run.verdict.violations
    )


def _counts(run: Streamed) -> dict[str, int]:
    return {_shape(shape): count for shape, count in run.verdict.counts.items()}


def _shape(shape: str) -> str:
    return shape if shape.startswith("https://w3id.org/ldids/shapes#") else "anonymous"


def _one_pass(
    data: Path, output: Path, links: str | None, workers: int, shapes: Graph
) -> tuple[Streamed, DumpSummary, list[str]]:
    """``normalize --validate`` of ``data``, its results held to those of ``validate`` reading
    the outputs back with ``shapes``; the run's checks, its summary and its outputs."""
    checks = shipped_checks()
    summary = normalize_dump(
        [str(data)],
        str(output),
        Settings(Config()),
        workers=workers,
        links=links,
        block_size=4096,  # many blocks, checked by the processes that made them
        validation=checks,
    )
    outputs = [str(output)] + ([links] if links not in (None, "inline") else [])
    read_back = validate_dump(outputs, shapes, block_size=4096)
    checks.sort()  # the results kept, listed in the verdict (as the command line does)
    assert _rows(checks) == _rows(read_back)
    assert checks.statements == read_back.statements == summary.lines_out + summary.links
    assert _counts(checks) == _counts(read_back)
    return checks, summary, outputs


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("links", ["inline", "links.nt", None])
def test_one_pass_gives_the_results_of_reading_the_output_back(tmp_path: Path, workers: int, links: str | None) -> None:
    data = tmp_path / "data.nt"
    data.write_text(_dump())
    where = links if links in (None, "inline") else str(tmp_path / links)
    checks, summary, _ = _one_pass(data, tmp_path / "out.nt", where, workers, shapes_graph())
    assert len(checks.verdict.violations) > 500
    assert max(v.line or 0 for v in checks.verdict.violations) > summary.lines_out - 300  # the last blocks too
    if links is not None:
        assert summary.links > 0


# A shape the links do not conform to (the shipped shapes hold every link ldids makes): an
# object of owl:sameAs in the hdl: form, which ldids writes only as a subject (canonical).
LINK_OBJECTS = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<urn:test:LinkObjects> a sh:NodeShape ; sh:targetObjectsOf owl:sameAs ;
    sh:pattern "^hdl:" ; sh:message "a link to another form than hdl:" .
"""


@pytest.mark.skipif(sorting._compiled is None, reason="the halves are merged by the compiled MergedRuns")
@pytest.mark.parametrize("links", ["inline", "links.nt"])
def test_links_merged_in_halves_are_checked_as_one_process_checks_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: str
) -> None:
    """With 2 workers one of them merges the upper half of the links (ldids.dumps.pool):
    it checks them too, and what it finds is what one process finds, on the same lines."""
    shapes = shapes_graph()
    shapes.parse(data=LINK_OBJECTS, format="turtle")
    monkeypatch.setattr(validation, "_PLAN", None)  # restored after: the next test's plan is the shipped one
    monkeypatch.setattr(validation, "_shipped_plan", lambda: plan(to_canonical_graph(shapes)))
    data = tmp_path / "data.nt"
    # Without links in the data (a run that has them merges its links alone, to leave those out).
    data.write_text("".join(line + "\n" for line in _dump().splitlines() if SAME_AS not in line))
    halves: list[int] = []

    def run(workers: int) -> tuple[Streamed, int, list[str]]:
        folder = tmp_path / str(workers)
        folder.mkdir()
        where = "inline" if links == "inline" else str(folder / links)
        checks, summary, outputs = _one_pass(data, folder / "out.nt", where, workers, shapes)
        return checks, summary.lines_out, outputs

    alone, before_links, outputs = run(1)
    in_links = [
        v
        for v in alone.verdict.violations
        if v.shape == "urn:test:LinkObjects"
        and (v.file == outputs[-1] if links != "inline" else (v.line or 0) > before_links)
    ]
    assert len(in_links) > 1000  # nearly every link, in both halves
    monkeypatch.setattr(pool, "_SPLIT_AT", 0)
    merged_upper = pool._Pool.merged_upper

    def counted(self: pool._Pool) -> pool._Upper:
        upper = merged_upper(self)
        halves.append(upper.checked)
        return upper

    monkeypatch.setattr(pool._Pool, "merged_upper", counted)
    both, _, _ = run(2)
    assert len(halves) == 1
    assert halves[0] > 500  # the worker checked the upper half
    assert _rows(both) == [(row[0].replace(f"{tmp_path}/1/", f"{tmp_path}/2/"), *row[1:]) for row in _rows(alone)]
    assert _counts(both) == _counts(alone)
    assert both.statements == alone.statements


@pytest.mark.parametrize("workers", [1, 2])
def test_one_pass_numbers_lines_as_reading_back_whatever_ends_them(tmp_path: Path, workers: int) -> None:
    """Lines that end in LF, CR LF or a CR alone (N-Triples §7, EOL), kept so in the output:
    the results name the same lines in one pass as read back (a CR alone counted as a line
    break by both, as normalize, pyoxigraph and rapper count it)."""
    pick = random.Random(3)
    data = tmp_path / "data.nt"
    data.write_bytes("".join(line + pick.choice(["\n", "\r\n", "\r"]) for line in _dump().splitlines()).encode())
    checks, summary, _ = _one_pass(data, tmp_path / "out.nt", "inline", workers, shapes_graph())
    assert len(checks.verdict.violations) > 500
    assert max(v.line or 0 for v in checks.verdict.violations) > summary.lines_out - 300


def test_turtle_in_standard_output_out(tmp_path: Path) -> None:
    turtle = tmp_path / "data.ttl"
    turtle.write_text(
        "<info:fedora/demo:1> <http://example.org/p> <oai:bad> , <INFO:FEDORA/demo%3a2> .\n"
        '<info:fedora/demo:1> <http://purl.org/dc/elements/1.1/identifier> "demo:a b" .\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", "-q", "--validate", str(turtle), "-o", "-", "-t", "nt"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "<info:fedora/demo:2>" in done.stdout  # normalized, and written
    assert "<stdout>:1: Violation: oai:bad: not a valid oai-identifier" in done.stderr
    assert "<stdout>:3: Violation: demo:a b: not a valid Fedora PID" in done.stderr


def test_validate_is_refused_on_dask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.nt"
    data.write_text(_dump(10))
    code = main(["normalize", "--validate", "--dask", "local", str(data), "-o", str(tmp_path / "out")], io.StringIO())
    assert code == 2
    assert "--validate checks a run here, not on Dask" in capsys.readouterr().err
