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

from ldids.cli import main
from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.dumps.validation import Streamed, shipped_checks, validate_dump
from ldids.passes.config import Config
from ldids.resources import shapes_graph

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


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("links", ["inline", "links.nt", None])
def test_one_pass_gives_the_results_of_reading_the_output_back(tmp_path: Path, workers: int, links: str | None) -> None:
    data = tmp_path / "data.nt"
    data.write_text(_dump())
    output = tmp_path / "out.nt"
    links_file = None if links in (None, "inline") else str(tmp_path / links)
    checks = shipped_checks()
    summary = normalize_dump(
        [str(data)],
        str(output),
        Settings(Config()),
        workers=workers,
        links=links if links in (None, "inline") else links_file,
        block_size=4096,  # many blocks, checked by the processes that made them
        validation=checks,
    )
    outputs = [str(output)] + ([links_file] if links_file else [])
    read_back = validate_dump(outputs, shapes_graph(), block_size=4096)
    checks.sort()  # the results kept, listed in the verdict (as the command line does)
    assert _rows(checks) == _rows(read_back)
    assert checks.statements == read_back.statements == summary.lines_out + summary.links
    assert _counts(checks) == _counts(read_back)
    assert len(checks.verdict.violations) > 500
    assert max(v.line or 0 for v in checks.verdict.violations) > summary.lines_out - 300  # the last blocks too
    if links is not None:
        assert summary.links > 0


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
