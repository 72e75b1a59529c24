"""Streamed validation of the shipped shapes gives pyshacl's results (DESIGN.md §6b).

Data are generated from tables of valid and invalid forms of every scheme, with violations
of every shipped shape injected; pyshacl validates the whole graph, the streamed checks each
statement as it comes; their results are held equal on (focus, path, value, shape,
component)."""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph
from rdflib.namespace import RDF, SH
from rdflib.term import BNode, Node, URIRef

from ldids.dumps import validation
from ldids.dumps.results import LEAST
from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.dumps.validation import validate_dump
from ldids.errors import InputError
from ldids.ntriples import quad_line
from ldids.passes.config import Config
from ldids.resources import shapes_graph
from ldids.shacl.prefilter import needles
from ldids.shacl.pyregex import to_python
from ldids.shacl.streamed import plan
from ldids.shacl.validate import Verdict, validate

#: The ``selections`` fixture (tests/conftest.py): the compiled plan, and each path's results
#: with the first line that gives them.
Selections = Callable[..., tuple[Any, dict[tuple[object, ...], int], dict[tuple[object, ...], int]]]

SHAPES = "https://w3id.org/ldids/shapes#"
DC = "<http://purl.org/dc/elements/1.1/identifier>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
LONG = "A" * 60
#: Terms (N-Triples) valid and invalid for every scheme, canonical or not.
OBJECTS = [
    "<info:fedora/demo:1>",
    "<info:fedora/demo%3a1>",
    "<INFO:FEDORA/demo:1/DS1>",
    "<info:fedora/demo:1/9bad>",
    "<info:fedora/de~mo:1>",
    '"info:fedora/demo:2"',
    '"info:fedora/demo:2"@en',
    "<oai:arXiv.org:hep-th/9901001>",
    "<oai:bad>",
    '"oai:arXiv.org:a%2fb"',
    '"oai:x.org:ok"^^<http://www.w3.org/2001/XMLSchema#anyURI>',
    "<http://purl.org/poi/arXiv.org/a>",
    "<http://purl.org:443/poi/arXiv.org/a>",
    "<https://purl.org/poi/arXiv.org/b>",
    "<HTTP://PURL.ORG:80/poi/arXiv.org/c>",
    "<http://purl.org/poi/bad/x>",
    "<hdl:1765/315>",
    "<hdl:100.102/abcdefabcdefabcdefabcdefabcdefab>",
    "<hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAB>",
    "<HDL://1765/315>",
    "<https://hdl.handle.net/1765/315>",
    "<http://hdl.handle.net:8080/1765/315>",
    '"hdl:1765"',
    "<http://example.org/other>",
    '"just text"',
    '"42"^^<http://www.w3.org/2001/XMLSchema#integer>',
]
SUBJECTS = ["<info:fedora/demo:1>", "<info:fedora/other:2>", "<oai:arXiv.org:demo:3>", "<http://example.org/s>", "_:b1"]
BARE = [
    "demo:1",
    "demo%3a1",
    "demo:a b",
    f"demo:{LONG[:59]}",
    f"demo:{LONG}",
    f"demo%3A{LONG[:59]}",
    f"demo%3a{LONG}",
    "other:2",
    "demo:",
    "catkey:1",
]


def _dump(seed: int, count: int = 400) -> str:
    pick = random.Random(seed)
    lines = []
    for _ in range(count):
        subject = pick.choice(SUBJECTS)
        kind = pick.random()
        if kind < 0.25:
            lines.append(f'{subject} {DC} "{pick.choice(BARE)}" .')
        elif kind < 0.35:
            obj = pick.choice([*OBJECTS[:5], subject, '"a literal"'])
            lines.append(f"{subject} {SAME_AS} {obj} .")
        else:
            lines.append(f"{subject} <http://example.org/p> {pick.choice(OBJECTS)} .")
    return "\n".join(lines) + "\n"


def _key(violation: object, shapes: Graph) -> tuple[str, str, str, str, str]:
    shape = violation.shape  # type: ignore[attr-defined]
    if not shape.startswith(SHAPES):  # an anonymous property shape: named by its path
        shape = f"property {violation.path}"  # type: ignore[attr-defined]
    # Blank node labels are each parser's own: one blank node is in the data.
    focus, value = (_text(violation.focus), _text(violation.value))  # type: ignore[attr-defined]
    return (focus, str(violation.path), value, shape, str(violation.component))  # type: ignore[attr-defined]


def _text(node: object) -> str:
    return "_:b1" if isinstance(node, BNode) else str(node)


def _keys(verdict: Verdict) -> set[tuple[str, str, str, str, str]]:
    return {_key(v, shapes_graph()) for v in verdict.violations}


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("workers", [1, 2])
def test_streamed_results_equal_pyshacl(tmp_path: Path, seed: int, workers: int) -> None:
    text = _dump(seed)
    data = tmp_path / "d.nt"
    data.write_text(text)
    graph = Graph().parse(data=text, format="nt")
    expected = validate([(s, p, o, None) for s, p, o in graph])
    streamed = validate_dump([str(data)], shapes_graph(), workers=workers, block_size=4096)
    assert streamed.not_streamable == []
    assert _keys(streamed.verdict) == _keys(expected)
    # Violations of every shape were injected.
    shapes = {v[3] for v in _keys(expected)}
    named = {str(s) for s in shapes_graph().subjects(RDF.type, SH.NodeShape)}
    assert named <= shapes
    assert "property http://www.w3.org/2002/07/owl#sameAs" in shapes


def _report(streamed: validation.Streamed) -> list[tuple[object, ...]]:
    return [
        (v.line, str(v.focus), str(v.value), str(v.path), v.shape, str(v.component), v.message)
        for v in streamed.verdict.violations
    ]


@pytest.mark.parametrize("quads", [False, True], ids=["triples", "quads"])
@pytest.mark.parametrize("ending", ["\n", ""], ids=["line-break", "none"])
def test_every_worker_count_reports_the_same_results_at_the_same_lines(
    tmp_path: Path, quads: bool, ending: str
) -> None:
    # One process reads the blocks itself; workers read byte ranges of a plain file (each the
    # lines that start in it) and blocks of a compressed one: the same report, to the line.
    import gzip

    lines = _dump(3, count=600).splitlines()
    if quads:
        lines = [line[:-2] + f" <urn:g{n % 3}> ." if n % 4 else line for n, line in enumerate(lines)]
    text = "\n".join(lines) + ending
    plain, packed = tmp_path / "d.nq", tmp_path / "d.nq.gz"
    plain.write_text(text, encoding="utf-8")
    packed.write_bytes(gzip.compress(text.encode()))
    shapes = shapes_graph()  # one graph: a property shape is a blank node of it
    one = validate_dump([str(plain)], shapes, block_size=1 << 20)
    assert len({v.line for v in one.verdict.violations}) >= 20
    for path in (plain, packed):
        for workers in (1, 2, 3):
            streamed = validate_dump([str(path)], shapes, workers=workers, block_size=300)
            assert streamed.statements == one.statements == len(lines)
            assert _report(streamed) == _report(one)
            assert streamed.verdict.counts == one.verdict.counts


def _distinct(seed: int, count: int) -> str:
    # A result on most lines, each of its own focus: the report's bar comes down while the
    # workers still have tasks given before it did.
    pick = random.Random(seed)
    lines = []
    for n in range(count):
        subject = f"<http://example.org/s{pick.randrange(count)}>"
        lines.append(
            f"{subject} {pick.choice([DC, SAME_AS])} {pick.choice(OBJECTS)} ." if n % 5 else f'{subject} {DC} "x" .'
        )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("limit", [0, 1, 9, 200, None])
def test_workers_leave_out_only_rows_the_report_turns_away(tmp_path: Path, limit: int | None) -> None:
    # The rows of results past the report's bar stay in the worker: the counts, the results
    # listed and their lines are those of one process, whatever the limit.
    # Read as byte ranges by the workers, and (compressed) read here and handed over in blocks.
    import gzip

    data, packed = tmp_path / "d.nt", tmp_path / "d.nt.gz"
    data.write_text(_distinct(11, 8000), encoding="utf-8")
    packed.write_bytes(gzip.compress(data.read_bytes()))
    shapes = shapes_graph()
    one = validate_dump([str(data)], shapes, max_results=limit)
    assert sum(one.verdict.counts.values()) > 2 * (limit or 0) + 256  # past the bound: the bar comes down
    for path in (data, packed):
        for workers in (2, 3):
            streamed = validate_dump([str(path)], shapes, workers=workers, block_size=2048, max_results=limit)
            assert streamed.verdict.counts == one.verdict.counts
            assert [(v.file, *row) for v, row in zip(streamed.verdict.violations, _report(streamed), strict=True)] == [
                (str(path), *row) for row in _report(one)
            ]


@pytest.mark.parametrize("compressed", [False, True], ids=["ranges", "blocks"])
@pytest.mark.parametrize("workers", [2, 3])
def test_a_result_listed_from_late_in_the_file_crosses_from_its_worker(
    tmp_path: Path, workers: int, compressed: bool
) -> None:
    # Thousands of results of the shape listed last, then one of the shape listed first, on
    # the last line: given after the bar came down, its row is before the bar, and is sent.
    lines = [f'<http://example.org/s{n}> {SAME_AS} "a literal" .' for n in range(6000)]
    lines.append(f"<http://example.org/late> {DC} <https://hdl.handle.net/1765/315> .")
    import gzip

    data = tmp_path / ("d.nt.gz" if compressed else "d.nt")
    data.write_bytes((gzip.compress if compressed else bytes)(("\n".join(lines) + "\n").encode()))
    streamed = validate_dump([str(data)], shapes_graph(), workers=workers, block_size=4096, max_results=3)
    assert streamed.verdict.counts[f"{SHAPES}CanonicalIdentifier"] == 1
    first = streamed.verdict.violations[0]
    assert (first.shape, first.line, str(first.focus)) == (
        f"{SHAPES}CanonicalIdentifier",
        6001,
        "https://hdl.handle.net/1765/315",
    )
    assert [v.line for v in streamed.verdict.violations[1:]] == [1, 2]


@pytest.mark.parametrize("at", [0.05, 0.5, 0.95])
def test_a_worker_sends_the_rows_before_the_bar_and_the_shape_of_each(
    monkeypatch: pytest.MonkeyPatch, at: float
) -> None:
    # A bar early in the report's order (no shape before the bar's: the rows past its line
    # are cut off at once), in the middle, and late.
    block = _distinct(12, 300).encode()
    shapes_ = shapes_graph()

    def check(*args: Any) -> Any:
        monkeypatch.setattr(validation, "_PLAN", plan(shapes_))  # a plan checks a term once
        return validation._check_block(block, *args)

    count, rows, digests, lines, shapes = check()
    assert shapes is None
    assert rows
    assert None not in rows
    assert digests is not None
    assert lines == 300
    keys = sorted(
        validation._order(validation._shown(row[4]), "d.nt", row[0], row[1]) for row in rows if row is not None
    )
    bar = keys[int(len(keys) * at)]
    left = check("d.nt", bar)
    assert (left[0], left[2], left[3]) == (count, digests, lines)
    assert left[4] == [row[4] for row in rows if row is not None]
    assert [row for row in left[1] if row is not None] == [
        row
        for row in rows
        if row is not None and validation._order(validation._shown(row[4]), "d.nt", row[0], row[1]) < bar
    ]
    assert left[1].count(None) == sum(key >= bar for key in keys) > 0
    assert check("d.nt", LEAST)[1] == [None] * len(rows)


def test_a_worker_sends_a_row_on_the_bar_s_line_whose_focus_comes_before(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two results of the shape listed first on one line: the bar the second, the first is
    # before it and is sent; later lines are not, nor results of shapes listed after.
    lines = [
        f"<http://example.org/a> {DC} <oai:bad> .",
        "<https://hdl.handle.net/1765/1> <http://example.org/p> <https://hdl.handle.net/1765/2> .",
        "<https://hdl.handle.net/1765/3> <http://example.org/p> <https://hdl.handle.net/1765/4> .",
    ]
    monkeypatch.setattr(validation, "_PLAN", plan(shapes_graph()))
    canonical = f"{SHAPES}CanonicalIdentifier"
    bar = (canonical, "d.nt", 2, "<https://hdl.handle.net/1765/2>")
    _, rows, _, _, shapes = validation._check_block(("\n".join(lines) + "\n").encode(), "d.nt", bar)
    sent = [(row[0], row[1], str(row[4])) for row in rows if row is not None]
    assert sent == [(1, "<oai:bad>", canonical), (2, "<https://hdl.handle.net/1765/1>", canonical)]
    assert shapes is not None
    assert len(rows) == len(shapes) == 6  # and the OAI identifier's syntax, on line 1


def test_tasks_are_given_to_the_workers_in_turn() -> None:
    # Taken in the order given, one at a time, with two in flight a worker: each worker
    # gets as many (ties went to the first, which then had two in three).
    team = validation._Workers(2, "")
    given = []
    try:
        window = deque([team.submit(_large, 1) for _ in range(4)])
        for _ in range(60):
            window.popleft()()
            window.append(team.submit(_large, 1))
            given.append(team._turn)
        while window:
            window.popleft()()
    finally:
        team.close()
    assert abs(given.count(0) - given.count(1)) <= 1


@pytest.mark.parametrize("workers", [1, 2])
def test_a_malformed_line_deep_in_a_file_is_reported_at_its_line(tmp_path: Path, workers: int) -> None:
    lines = _dump(4, count=500).splitlines()
    lines[377] = "<http://example.org/s> <p> <o> ."
    data = tmp_path / "d.nt"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        validate_dump([str(data)], shapes_graph(), workers=workers, block_size=256)
    assert raised.value.line == 378
    assert raised.value.column == 24  # the predicate, relative
    assert raised.value.source == str(data)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_malformed_line_after_lines_a_cr_ends_is_reported_as_normalize_reports_it(
    tmp_path: Path, workers: int
) -> None:
    line = "<http://example.org/s> <http://example.org/p> <hdl:1765/1> ."
    data = tmp_path / "d.nt"
    data.write_bytes(((line + "\r") * 300 + (line + "\r\n") * 200 + "<http://example.org/s> <p> <o> .\n").encode())
    with pytest.raises(InputError) as validated:
        validate_dump([str(data)], shapes_graph(), workers=workers, block_size=256)
    with pytest.raises(InputError) as normalized:
        normalize_dump([str(data)], str(tmp_path / "out.nt"), Settings(Config()), workers=workers, block_size=256)
    assert (validated.value.line, validated.value.column) == (501, 24)
    assert (normalized.value.line, normalized.value.column) == (501, 24)


@pytest.mark.parametrize("abort", [False, True])
def test_the_workers_end_with_the_run(tmp_path: Path, abort: bool) -> None:
    # A run on workers leaves no process behind, at its end or when it stops early (--abort:
    # the workers still at a task are ended).
    import multiprocessing

    data = tmp_path / "d.nt"
    data.write_text(_dump(5, count=3000), encoding="utf-8")
    before = set(multiprocessing.active_children())  # other tests' pools, in this process
    streamed = validate_dump([str(data)], shapes_graph(), workers=3, block_size=512, abort=abort)
    assert not streamed.verdict.conforms
    assert set(multiprocessing.active_children()) <= before


def _large(size: int) -> Any:
    return b"x" * size  # more than a pipe holds: its worker waits until it is read


def _late(*_: object) -> None:
    raise TimeoutError("the workers did not end")


@pytest.mark.parametrize("counted", [True, False])
def test_workers_answering_when_the_run_stops_are_ended(counted: bool) -> None:
    # A run stopped by an error or Ctrl-C while a worker writes a result no one will read
    # ends that worker, even one counted idle: Ctrl-C once a task's bytes are written,
    # before it was counted, left the run waiting for that worker forever (CI).
    before = signal.signal(signal.SIGALRM, _late)
    signal.alarm(20)
    try:
        team = validation._Workers(2, "")
        team.submit(_large, 1 << 22)
        if not counted:
            team._waiting[:] = [0, 0]
        team.__exit__(KeyboardInterrupt)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert not any(process.is_alive() for process in team._processes)


@pytest.mark.parametrize(("stop", "said"), [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")])
def test_a_stopped_validation_leaves_no_worker(stop: signal.Signals, said: str, tmp_path: Path) -> None:
    # Interrupted (Ctrl-C reaches the whole process group) or terminated once its workers
    # are under way: exit 128 + signal, one line said, no traceback, no process left.
    data = tmp_path / "d.nt"
    data.write_text(_dump(7, count=400) * 800, encoding="utf-8")
    command = [sys.executable, "-c", "from ldids.cli import run; run()", "validate", str(data), "-w", "2"]
    running = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        assert running.stderr is not None
        children = Path(f"/proc/{running.pid}/task/{running.pid}/children")
        deadline = time.monotonic() + 30
        while not children.read_text().split() and time.monotonic() < deadline:
            time.sleep(0.005)
        os.killpg(running.pid, stop)
        assert running.wait(timeout=30) == 128 + stop
        time.sleep(0.5)
        with pytest.raises(ProcessLookupError):
            os.killpg(running.pid, 0)  # no process of the group is left
        assert running.stderr.read().decode() == f"ldids: {said}\n"
    finally:  # a run left hanging fails the test, not the suite
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.pid, signal.SIGKILL)
        running.wait()
        assert running.stderr is not None
        running.stderr.close()


def test_spawned_workers_report_what_one_process_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Where processes are not forked (Windows), the workers plan again from the shapes'
    # text and make no digests (their hash key is their own): the coordinator makes them.
    import multiprocessing

    data = tmp_path / "d.nt"
    data.write_text(_dump(8, count=800), encoding="utf-8")
    shapes = shapes_graph()
    one = validate_dump([str(data)], shapes, block_size=1024)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    spawned = validate_dump([str(data)], shapes, workers=2, block_size=1024)
    assert any(not str(shape).startswith("http") for shape in one.verdict.counts)  # a property shape
    assert spawned.verdict.counts == one.verdict.counts
    assert [(v.line, str(v.focus), str(v.component)) for v in spawned.verdict.violations] == [
        (v.line, str(v.focus), str(v.component)) for v in one.verdict.violations
    ]


def test_the_shipped_plan_names_its_shapes_alike_in_every_process() -> None:
    # A normalize worker started afresh plans the shipped shapes itself: its results must
    # name the property shapes (blank nodes) the process that adds them up names.
    block = b'<info:fedora/demo:1> <http://www.w3.org/2002/07/owl#sameAs> "a literal" .\n'
    named = [
        {str(row[4]) for row in validation.check_statements(validation._shipped_plan(), block, 1)[1]} for _ in range(2)
    ]
    assert any(not shape.startswith("http") for shape in named[0])  # the owl:sameAs property shape
    assert named[0] == named[1]


def _broken(path: str, start: int, stop: int, *_: object) -> object:
    raise ValueError(f"bytes {start} to {stop}")


def test_a_worker_that_fails_fails_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An error in a worker is raised where its result is taken, not lost with the worker.
    monkeypatch.setattr(validation, "_check_range", _broken)
    data = tmp_path / "d.nt"
    data.write_text(_dump(6), encoding="utf-8")
    with pytest.raises(ValueError, match="bytes 0 to"):
        validate_dump([str(data)], shapes_graph(), workers=2, block_size=512)


def test_results_say_where() -> None:
    data = Path(__file__).parent / "data" / "streamed.nt"
    streamed = validate_dump([str(data)], shapes_graph())
    where = {(v.line, str(v.focus), v.shape.rsplit("#", 1)[-1]) for v in streamed.verdict.violations}
    assert where == {
        (4, "demo:a b", "FedoraPidSyntax"),
        (5, "oai:bad", "OaiIdentifierSyntax"),
        (5, "oai:bad", "CanonicalIdentifier"),
        (6, "hdl:1765/abcdefabcdefabcdefabcdefabcdefab", "CanonicalIdentifier"),
        (7, "info:fedora/demo:1", "SameAsLink"),
    }
    assert {v.file for v in streamed.verdict.violations} == {str(data)}
    assert streamed.statements == 6


def test_max_results_keeps_counting(tmp_path: Path) -> None:
    data = tmp_path / "d.nt"
    data.write_text("".join(f"<http://x/s> <http://x/p> <oai:bad{i}> .\n" for i in range(50)))
    streamed = validate_dump([str(data)], shapes_graph(), max_results=3)
    assert len(streamed.verdict.violations) == 3
    assert streamed.verdict.per_shape()[SHAPES + "OaiIdentifierSyntax"] == 50
    assert streamed.verdict.total == 100


def test_shapes_that_are_not_local_are_named() -> None:
    shapes = Graph().parse(
        data="""@prefix sh: <http://www.w3.org/ns/shacl#> .
        <urn:x:Counted> a sh:NodeShape ; sh:targetSubjectsOf <urn:x:p> ;
            sh:property [ sh:path <urn:x:q> ; sh:minCount 1 ] .
        <urn:x:Classy> a sh:NodeShape ; sh:targetClass <urn:x:C> ; sh:pattern "^a" .
        <urn:x:Local> a sh:NodeShape ; sh:targetObjectsOf <urn:x:p> ; sh:maxLength 3 .""",
        format="turtle",
    )
    checks = plan(shapes)
    assert [str(node) for node in checks.shapes] == ["urn:x:Local"]
    assert {str(node) for node, _ in checks.not_streamable} == {"urn:x:Counted", "urn:x:Classy"}
    assert all(reason for _, reason in checks.not_streamable)
    found = list(checks.findings((URIRef("urn:x:s"), URIRef("urn:x:p"), URIRef("urn:x:long"))))
    assert [(str(f[0]), str(f[4])) for f in found] == [("urn:x:long", str(SH.MaxLengthConstraintComponent))]


def test_the_quad_line_round_trip_is_what_is_validated() -> None:
    # The generated lines are N-Triples that rdflib and pyoxigraph both read.
    graph = Graph().parse(data=_dump(3, 50), format="nt")
    assert all(quad_line((s, p, o, None)) for s, p, o in graph)


def test_validate_and_normalize_validate_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ldids.cli import main

    data = Path(__file__).parent / "data" / "streamed.nt"
    assert main(["validate", str(data), "-w", "2"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "does not conform: 5 results"
    assert f"{data}:5: Violation: oai:bad: not a valid oai-identifier" in out
    clean = tmp_path / "clean.nt"
    clean.write_text("<info:fedora/demo:1> <http://x/p> <http://purl.org/poi/arXiv.org/a> .\n")
    assert main(["validate", str(clean)]) == 0
    output = tmp_path / "out.nt"
    assert main(["normalize", str(data), "-o", str(output), "-q", "--validate"]) == 1
    assert "not a valid oai-identifier" in capsys.readouterr().err
    assert main(["normalize", str(clean), "-o", str(output), "-q", "--validate"]) == 0


def test_named_graphs_give_no_deprecation_warning() -> None:
    # pytest turns warnings into errors (pyproject): rdflib's Dataset.default_context would fail this.
    graph = URIRef("urn:x:g")
    verdict = validate(
        [
            (URIRef("urn:x:s"), URIRef("urn:x:p"), URIRef("oai:bad"), graph),
            (URIRef("urn:x:s"), URIRef("urn:x:p"), URIRef("oai:bad2"), None),
        ]
    )
    assert {str(v.focus) for v in verdict.violations} == {"oai:bad", "oai:bad2"}


# -- The prefilter (ldids/shacl/prefilter.py) is sound ----------------------------------------
#
# The needles of a regular expression are held against texts generated to match it
# (Hypothesis); the compiled selection of lines against checking every statement, over
# statements of every scheme's forms (valid, invalid, in mixed ASCII case) with escapes
# (\u0041) that may spell a needle's character.


NEEDLES = [
    # (regular expression, flags, needles: (text, any ASCII case))
    ("^[iI][nN][fF][oO]:[fF][eE][dD][oO][rR][aA]/", "", {("info:fedora/", True)}),
    ("^[oO][aA][iI]:", "", {("oai:", True)}),
    ("^oai:[a-z]+$", "", {("oai:", False)}),
    # Python's parser takes "h" out of both alternatives: put back.
    ("^([hH][dD][lL]:|[hH][tT][tT][pP][sS]?://[hH][dD][lL]\\.[hH][aA][nN][dD][lL][eE]\\.[nN][eE][tT])", "", None),
    ("^[hH][tT][tT][pP][sS]?://[pP][uU][rR][lL]\\.[oO][rR][gG](:[0-9]*)?/poi/", "", {("://purl.org", True)}),
    ("(ab)+cde", "", {("cde", False)}),
    ("(abc)+d", "", {("abc", False)}),
    ("a?b*", "", None),
    ("a|.", "", None),
    ("[0-9]+", "", None),
    # Under the flag i, i, k and s also match İ, ı, the Kelvin sign and the long s: no
    # ASCII needle holds them.
    ("^info:fedora/", "i", {("nfo:fedora/", True)}),
    ("^risky", "i", {("r", True)}),
    ("^ask", "", {("ask", False)}),
    ("caf\u00e9", "", {("caf\u00e9", False)}),
    ("caf\u00e9", "i", {("caf", True)}),
]


@pytest.mark.parametrize(("regex", "flags", "expected"), NEEDLES)
def test_needles(regex: str, flags: str, expected: set[tuple[str, bool]] | None) -> None:
    found = needles(to_python(regex, flags))
    if regex.startswith("^([hH][dD][lL]"):
        assert found == frozenset({("hdl:", True), ("://hdl.handle.net", True)})
    else:
        assert found == (None if expected is None else frozenset(expected))


def _contains(text: str, found: frozenset[tuple[str, bool]]) -> bool:
    folded = text.translate({code: code + 32 for code in range(ord("A"), ord("Z") + 1)})
    return any((needle in folded) if fold else (needle in text) for needle, fold in found)


SHAPE_REGEXES = sorted(
    {group.regex.pattern: group.regex for group in plan(shapes_graph()).anywhere if group.regex is not None}.values(),
    key=lambda regex: regex.pattern,
) + [to_python(regex, flags) for regex, flags, _ in NEEDLES]


@pytest.mark.parametrize("regex", SHAPE_REGEXES, ids=lambda regex: regex.pattern[:40])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_every_match_holds_a_needle(regex: re.Pattern[str], data: st.DataObject) -> None:
    found = needles(regex)
    if found is None:
        return
    text = data.draw(st.from_regex(regex))
    assert _contains(text, found), (text, found)


# -- Lines: the compiled selection against every statement checked -------------------------


def _escape(term: str, pick: random.Random) -> str:
    """The term with some characters of its text written as \\u or \\U escapes."""
    if term.startswith("_:"):
        return term
    close = term.index(">") if term.startswith("<") else term.rindex('"')
    body = "".join(
        (f"\\u{ord(c):04X}" if pick.random() < 0.5 else f"\\U{ord(c):08x}")
        if c.isalnum() and pick.random() < 0.2
        else c
        for c in term[1:close]
    )
    return term[0] + body + term[close:]


def _mixed_case(term: str, pick: random.Random) -> str:
    if term.startswith("_:"):
        return term
    return "".join(c.swapcase() if c.isascii() and pick.random() < 0.3 else c for c in term)


def _lines(seed: int, count: int = 600) -> list[str]:
    pick = random.Random(seed)
    lines = []
    predicates = ["<http://example.org/p>", DC, SAME_AS, "<http://example.org/q>"]
    for _ in range(count):
        subject = pick.choice([*SUBJECTS, *OBJECTS[:-3]])
        if subject.startswith('"'):
            subject = "<" + subject.split('"')[1] + ">"
        predicate = pick.choice(predicates)
        kind = pick.random()
        if predicate == DC and kind < 0.7:
            value = f'"{pick.choice(BARE)}"'
        elif predicate == SAME_AS and kind < 0.2:
            value = subject  # linked to itself
        else:
            value = pick.choice(OBJECTS)
        terms = [subject, predicate, value]
        if pick.random() < 0.3:
            terms = [_mixed_case(term, pick) if i != 1 else term for i, term in enumerate(terms)]
        if pick.random() < 0.2:
            terms = [_escape(term, pick) for term in terms]
        if pick.random() < 0.1:
            terms.append(pick.choice(["<http://example.org/g>", "_:g1"]))
        lines.append(" ".join(terms) + " .")
        if pick.random() < 0.05:
            lines.append(pick.choice(["", "# a comment with info:fedora/x:1"]))
    return lines


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built")
@pytest.mark.parametrize("seed", range(6))
def test_selected_lines_give_every_result(seed: int, selections: Selections) -> None:
    lines = _lines(seed)
    data = ("\n".join(lines) + "\n").encode()
    blocks = [data[: len(data) // 2].rsplit(b"\n", 1)[0] + b"\n"]
    blocks.append(data[len(blocks[0]) :])
    compiled, found, expected = selections(blocks)
    assert expected, "the generated lines give results"
    assert found == expected
    # Most lines are passed over: the prefilter is not everything.
    sieve, _, _ = validation._selection(compiled)
    assert all(predicate is not None or gate >= 0 for predicate, _, _, gate, _, _ in sieve.groups)
    assert any(folded for *_, folded, _ in sieve.groups)


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built")
@pytest.mark.parametrize("seed", range(3))
def test_selected_lines_give_every_result_whatever_ends_the_lines(seed: int, selections: Selections) -> None:
    """A line ends at LF, CR LF or CR (N-Triples §7); a statement is numbered by the LFs
    before it on both paths (the Python one counted a line that a CR ended with the next)."""
    pick = random.Random(seed)
    data = "".join(line + pick.choice(["\n", "\r\n", "\r"]) for line in _lines(seed)).encode()
    cut = data.index(b"\n", len(data) // 2) + 1  # blocks end at an LF (ldids.dumps.blocks)
    _, found, expected = selections([data[:cut], data[cut:]])
    assert expected, "the generated lines give results"
    assert found == expected


def _copies(shapes: Graph, count: int) -> Graph:
    """The shapes and ``count`` copies of each named shape (with blank nodes of its own)."""
    more = Graph()
    for triple in shapes:
        more.add(triple)
    for copy in range(count):
        nodes: dict[Node, Node] = {}

        def renamed(node: Node, copy: int = copy, nodes: dict[Node, Node] = nodes) -> Node:
            if isinstance(node, BNode):
                return nodes.setdefault(node, BNode())
            if isinstance(node, URIRef) and str(node).startswith(SHAPES):
                return URIRef(f"urn:copy{copy}:{str(node)[len(SHAPES) :]}")
            return node

        for s, p, o in shapes:
            more.add((renamed(s), p, renamed(o)))
    return more


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built")
def test_selected_lines_give_every_result_with_more_automata_than_run_at_once(selections: Selections) -> None:
    """A group reads the first byte of a term to answer most of its automata at once where it
    has at most 32 (ldids/dumps/_scan.c, first_bytes); past that, each is run: the results are
    the same."""
    shapes = _copies(shapes_graph(), 3)
    counts = []
    for group in plan(shapes).groups():
        rules = group.packed()
        if rules is not None:
            counts.append(sum((gate is not None) + sum(len(way) - 2 for way in ways) for _, _, gate, _, ways in rules))
    assert max(counts) > 32
    lines = _lines(11)
    data = ("\n".join(lines) + "\n").encode()
    _, found, expected = selections([data], shapes)
    assert len(expected) > 100
    assert found == expected


@pytest.fixture(params=[True, False], ids=["product", "lanes"])
def products(request: pytest.FixtureRequest) -> Any:
    """The automata that read a term run as their product, or each in a lane (the way before
    products, ldids/dumps/_scan.c: run_together), for the test and set back after it."""
    scan = validation._scan
    assert scan is not None
    before = scan.set_products(request.param)
    yield request.param
    scan.set_products(before)


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built")
@pytest.mark.parametrize("copies", [0, 3, 7])
@pytest.mark.parametrize("seed", range(3))
def test_the_automata_as_one_product_or_each_in_a_lane_give_every_result(
    copies: int, seed: int, products: bool, selections: Selections
) -> None:
    """The automata that read one term run as one product automaton (up to 64 of them), or
    each in a lane: both give what the Python checks give. 3 copies of the shipped shapes are
    40 automata on a term (one product, as many states as one copy's), 7 are 80 (lanes)."""
    shapes = _copies(shapes_graph(), copies) if copies else shapes_graph()
    lines = _lines(20 + seed)
    data = ("\n".join(lines) + "\n").encode()
    cut = data.index(b"\n", len(data) // 2) + 1
    _, found, expected = selections([data[:cut], data[cut:]], shapes)
    assert len(expected) > 50
    assert found == expected
    if products:
        assert validation._scan is not None
        assert any(size is not None for size in validation._scan.product_sizes())


def _absolute(text: str) -> bool:
    """Is ``text`` an IRI an N-Triples IRIREF may hold (RFC 3987, absolute)?"""
    try:
        list(ox.parse(f"<{text}> <urn:p> <urn:o> .".encode(), ox.RdfFormat.N_TRIPLES))
    except SyntaxError:
        return False
    return True


def _alike(seed: int, count: int = 900) -> list[str]:
    """Lines whose terms begin as the terms before them do (a dump's next subject, a sorted
    run of links), parting at every place: before, at and past where an automaton stops (a
    byte no pattern takes, a text longer than the one before or than 124 bytes, the product's
    memory of a text), and the same texts in other kinds and other places, literals with an
    escape among them."""
    pick = random.Random(seed)
    heads = [
        "info:fedora/demo:",
        "INFO:FEDORA/demo%3a",
        "oai:arXiv.org:hep-th/",
        "http://purl.org/poi/arXiv.org/",
        "https://purl.org/poi/example.org/item",
        "hdl:100.102/",
        "hdl:1765/",
        "http://hdl.handle.net/1765/",
    ]
    tails = ["1", "12", "9901001", "abcdefabcdefabcdefabcdefabcdefab", "ABCDEFABCDEFABCDEFABCDEFABCDEFAB", "a" * 130]
    changes = ["a", "Z", "0", "9", ":", "%3a", "/", "~", "-", ".", "_", "\u00e9", ""]
    lines = []
    last = {head: head + tails[0] for head in heads}
    head = heads[0]
    for number in range(count):
        if pick.random() < 0.3:
            head = pick.choice(heads)
        if pick.random() < 0.2:
            text = head + pick.choice(tails)
        else:  # the last text of this head, a byte of it changed, or cut, or carried on
            text = last[head]
            at = pick.randint(0, len(text))
            kept = text[at + pick.randint(0, 1) :] if pick.random() < 0.8 else ""
            text = text[:at] + pick.choice(changes) + kept
        last[head] = text
        iri = f"<{text}>" if _absolute(text) else f"<urn:x:{number}>"  # a literal may be anything
        where = pick.random()
        if where < 0.4:
            lines.append(f"{iri} <http://example.org/p> <urn:o{number}> .")
        elif where < 0.7:
            lines.append(f"<urn:s{number}> <http://example.org/p> {iri} .")
        elif where < 0.75:
            lines.append(f'<urn:s{number}> <http://example.org/p> "{text}" .')
        elif where < 0.8:  # an ECHAR spells a character no pattern takes: the text is not as written
            at = pick.randint(0, len(text))
            escape = pick.choice(["\\t", "\\n", '\\"', "\\\\"])
            lines.append(f'<urn:s{number}> <http://example.org/p> "{text[:at]}{escape}{text[at:]}" .')
        elif where < 0.9:
            lines.append(f"{iri} {SAME_AS} <{pick.choice(heads)}{pick.choice(tails)}> .")
        else:
            lines.append(f'<info:fedora/demo:{number}> {DC} "{text[-20:]}" .')
    return lines


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built")
@pytest.mark.parametrize("seed", range(4))
def test_a_text_read_on_from_where_it_parts_from_the_last_gives_every_result(
    seed: int, products: bool, selections: Selections
) -> None:
    """The product reads a text that begins as the last one it read (with the same first
    bytes) on from the state where the two part (ldids/dumps/_scan.c, run_product): the
    results are the Python checks', for texts that part anywhere, in blocks of any size."""
    lines = _alike(seed)
    data = ("\n".join(lines) + "\n").encode()
    cuts = sorted({0, len(data), *(data.index(b"\n", len(data) * k // 5) + 1 for k in range(1, 5))})
    _, found, expected = selections([data[a:b] for a, b in itertools.pairwise(cuts)])
    assert len(expected) > 100
    assert found == expected


def _counting_shapes(periods: list[int]) -> Graph:
    """Shapes each of whose dc:identifier values starting with x must be x and then a multiple
    of ``period`` characters: the product of their automata has a state for each combination
    of the counts (the product of the periods, and more), each automaton few."""
    shapes = "\n".join(
        f"""<urn:shape:{period}> a sh:NodeShape ; sh:target [ a sh:SPARQLTarget ; sh:select \"\"\"
            SELECT DISTINCT ?this WHERE {{ ?s <http://purl.org/dc/elements/1.1/identifier> ?this
              FILTER (isLiteral(?this) && REGEX(STR(?this), "^x")) }}\"\"\" ] ;
            sh:pattern "^x(.{{{period}}})*$" ."""
        for period in periods
    )
    return Graph().parse(data="@prefix sh: <http://www.w3.org/ns/shacl#> .\n" + shapes, format="turtle")


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built")
@pytest.mark.parametrize(("periods", "product"), [([2, 3], True), ([2, 3, 5, 7, 11, 13], False)])
def test_a_product_past_its_bound_runs_in_lanes(periods: list[int], product: bool, selections: Selections) -> None:
    """Automata whose product would pass 4,096 states (PRODUCT_LIMIT) run each in a lane; the
    results are the Python checks' either way."""
    shapes = _counting_shapes(periods)
    packed = [rules for group in plan(shapes).groups() if (rules := group.packed()) is not None]
    assert packed, "the shapes' rules have automata"
    pick = random.Random(len(periods))
    values = ["x" + "".join(pick.choices("ab\u00e9\u4e2d", k=pick.randint(0, 40))) for _ in range(400)]
    lines = [f'<urn:s{n}> {DC} "{value}" .' for n, value in enumerate(values)]
    scan = validation._scan
    assert scan is not None
    before = len(scan.product_sizes())
    _, found, expected = selections([("\n".join(lines) + "\n").encode()], shapes)
    assert len(expected) > 300
    assert found == expected
    made = scan.product_sizes()[before:]
    assert made, "the automata of the shapes were put together"
    assert all((size is not None) == product for size in made)


@pytest.mark.parametrize("pure", [False, True])
@pytest.mark.parametrize(
    ("bad", "column", "why"),
    [
        ("<http://example.org/s> <p> <o> .", 24, "the predicate: not an absolute IRI"),
        ("<http://example.org/s> <http://example.org/p> <HDL:", 47, "expected the object"),
        ('<http://example.org/s> <http://example.org/p> "x" <http://e.org/g> <http://e.org/h> .', 68, "expected '.'"),
    ],
)
def test_a_malformed_line_is_reported_where_it_is(
    bad: str, column: int, why: str, pure: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its line in the file, and the column and reason ldids' grammar gives (as normalize
    reports a bad line), on both paths: not the parser's place in the lines it was given."""
    if pure:
        monkeypatch.setenv("LDIDS_PURE_PYTHON", "1")
    data = b"<http://example.org/s> <http://example.org/p> <hdl:1765/1> .\r\n\r\n" + bad.encode() + b"\n"
    with pytest.raises(InputError) as raised:
        validation.check_statements(plan(shapes_graph()), data, 10)
    assert (raised.value.line, raised.value.column) == (12, column)
    assert raised.value.message.startswith(f"not an N-Quads statement: {why}")
    assert "Parser error" not in raised.value.message


def test_each_result_counted_once_as_pyshacl_counts_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Results cross processes as N-Triples text; the set of those reported is pyshacl's over
    # the data as ldids reads it: each term once, "01" and "1" of xsd:integer two terms (RDF
    # 1.1 §3.3: two lexical forms; rdflib would make them one when it reads, which ldids
    # stops it doing), and a language tag in any case one.
    import pyshacl
    import rdflib

    monkeypatch.setattr(rdflib, "NORMALIZE_LITERALS", False)

    shapes = Graph().parse(
        data="""@prefix sh: <http://www.w3.org/ns/shacl#> .
        <urn:x:Short> a sh:NodeShape ; sh:targetObjectsOf <urn:x:p> ; sh:maxLength 0 .""",
        format="turtle",
    )
    objects = [
        '"01"^^<http://www.w3.org/2001/XMLSchema#integer>',
        '"1"^^<http://www.w3.org/2001/XMLSchema#integer>',
        '"01"',
        '"1"',
        '"1"@en',
        '"1"@EN',
        '"a\\"b\\\\c\\n\\u00e9"',
        "<urn:x:o%20\u00e9>",
        "<urn:x:o>",
        "_:o",
    ]
    text = "".join(f"<urn:x:s{i % 3}> <urn:x:p> {obj} .\n" for i, obj in enumerate(objects * 2))
    data = tmp_path / "d.nt"
    data.write_text(text, encoding="utf-8")
    _, report, _ = pyshacl.validate(Graph().parse(data=text, format="nt"), shacl_graph=shapes)

    def n3(node: object) -> str:  # blank node labels are each parser's own
        return "_:" if isinstance(node, BNode) else node.n3()  # type: ignore[attr-defined]

    expected = {n3(focus) for focus in report.objects(None, SH.focusNode)}
    for workers in (1, 2):
        streamed = validate_dump([str(data)], shapes, workers=workers, block_size=64)
        assert streamed.verdict.counts["urn:x:Short"] == len(expected) == 9
        assert sorted(n3(v.focus) for v in streamed.verdict.violations) == sorted(expected)


# -- The compiled selection's test of a new term: "its group's rules give nothing" ------------

#: How a term with a given text is written, of each kind a group's kind tests tell apart.
KINDS = [
    "<{}>",
    '"{}"',
    '"{}"^^<http://www.w3.org/2001/XMLSchema#anyURI>',
    '"{}"@en',
    '"{}"^^<http://www.w3.org/2001/XMLSchema#integer>',
]
GATED = [group for group in plan(shapes_graph()).anywhere if group.nothing is not None]


def _term(written: str) -> object:
    return next(iter(ox.parse(f"<urn:s> <urn:p> {written} .".encode(), ox.RdfFormat.N_TRIPLES))).object


def test_the_shipped_groups_have_a_test_of_nothing() -> None:
    # The groups of terms anywhere (subjects, objects) are those of the shipped syntax shapes.
    assert len(GATED) == 2
    assert all(group.probe() is not None for group in GATED)
    # The owl:sameAs shape's groups give nothing or something by the terms' kinds and
    # equality alone (nodeKind, and the query of a link to itself): a table, not a parse.
    same_as = plan(shapes_graph()).by_predicate[ox.NamedNode("http://www.w3.org/2002/07/owl#sameAs")]
    assert [group.signature is not None for group in same_as] == [True, True]
    # The dc:identifier target's BINDs and REPLACEs go the whole way, unless the subject does
    # not match the regular expressions its IF tests (a gate the FILTER implies: on the
    # subject), or the value holds the shape's checks (its sh:or of a pattern and a length,
    # as automata: the object's), or the value is one the FILTER excludes (its two !REGEX: a
    # URI with an authority, a prefixed scheme's identifier), two ways more.
    identifier = plan(shapes_graph()).by_predicate[ox.NamedNode("http://purl.org/dc/elements/1.1/identifier")]
    packed = [rules or () for rules in (group.packed() for group in identifier)]
    shapes = [[(test, gate, focus, len(ways)) for test, gate, _, focus, ways in rules] for rules in packed]
    assert shapes == [[(-1, 0, 2, 4)]]


@pytest.mark.parametrize("group", GATED, ids=lambda group: str(group.positions))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_a_term_the_test_passes_gives_nothing(group: object, data: st.DataObject) -> None:
    """Exact on one side: a text the test matches gives nothing, whatever the term's kind;
    texts drawn from the gates (identifier-like), the shipped forms, and edits of both."""
    sources = [regex for regex in SHAPE_REGEXES if needles(regex) is not None]
    drawn = data.draw(
        st.one_of(
            st.sampled_from([term.split('"')[1] if term.startswith('"') else term[1:-1] for term in OBJECTS]),
            st.sampled_from(sources).flatmap(lambda regex: st.from_regex(regex)),
        )
    )
    cut = data.draw(st.integers(0, len(drawn)))
    text = data.draw(st.sampled_from([drawn, drawn[:cut], drawn.upper(), drawn + "#x", drawn.replace(":", "%3a")]))
    text = "".join(c for c in text if c not in '<>"{}|^`\\' and (c.isprintable() and c.strip()))
    written = data.draw(st.sampled_from(KINDS)).format(text)
    if written.startswith("<") and not text:
        return
    try:
        term = _term(written)
    except SyntaxError:
        return
    if group.nothing.match(text) is not None:  # type: ignore[attr-defined]
        assert group._fresh(term) == (), written  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "nothing"),
    [
        # canonical and valid: every shape that selects it holds
        ("info:fedora/demo:1", True),
        ("http://purl.org/poi/arXiv.org/a", True),
        ("hdl:1765/315", True),
        ("http://example.org/other", True),  # no gate: no shape selects it
        ("just text", True),
        # not canonical, or not valid: a shape that selects it reports it
        ("INFO:FEDORA/demo:1", False),
        ("info:fedora/demo%3a1", False),
        ("oai:arXiv.org:hep-th/9901001", False),
        ("hdl:100.102/abcdefabcdefabcdefabcdefabcdefab", False),
        ("https://hdl.handle.net/1765/315", False),
        ("info:fedora/demo:1\n", False),
    ],
)
def test_the_test_of_nothing(text: str, nothing: bool) -> None:
    for group in GATED:
        assert (group.nothing.match(text) is not None) == nothing  # type: ignore[union-attr]
