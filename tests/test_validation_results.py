"""What a streamed validation keeps of its results: bounded, and the same as keeping them all.

The stores of :mod:`ldids.dumps.results` against Python's own set and sort, and a run that
keeps the first N results against the first N of a run that keeps every one."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph
from rdflib.compare import isomorphic
from rdflib.namespace import RDF, SH
from rdflib.term import URIRef

from ldids.cli.validate import write_report
from ldids.dumps import results
from ldids.dumps.results import Kept, Key, Seen
from ldids.dumps.validation import Streamed, validate_dump
from ldids.resources import shapes_graph
from ldids.shacl.validate import Verdict


@given(st.lists(st.binary(min_size=16, max_size=16), max_size=3000))
@settings(max_examples=60, deadline=None)
def test_seen_is_a_set_of_digests(digests: list[bytes]) -> None:
    seen, reference = Seen(), set()
    for digest in digests:
        assert seen.add(digest) == (digest[:8] not in reference)
        reference.add(digest[:8])
    assert len(seen) == len(reference)


@pytest.mark.parametrize(
    ("digests", "answers"),
    [
        # 0 is the empty slot's value: a digest of eight zero bytes is stored as 1
        ([bytes(16), bytes(16)], [True, False]),
        # only the first eight bytes count
        ([b"a" * 8 + b"x" * 8, b"a" * 8 + b"y" * 8], [True, False]),
        # slots collide (the same low bits) and probe on
        ([(i << 20).to_bytes(8, "little") for i in range(1, 6)] * 2, [True] * 5 + [False] * 5),
    ],
)
def test_seen_table(digests: list[bytes], answers: list[bool]) -> None:
    seen = Seen()
    assert [seen.add(digest) for digest in digests] == answers


@pytest.mark.parametrize(
    ("value", "digest"),
    [
        (-1, b"\xff" * 8),
        (-(1 << 63), bytes(7) + b"\x80"),
        ((1 << 64) + 2, b"\x02" + bytes(7)),
        (5 + (3 << 64), b"\x05" + bytes(7)),
    ],
)
def test_seen_hash_is_its_low_64_bits(value: int, digest: bytes) -> None:
    # hash() gives negative values too: as two's complement, the low 64 bits are the digest
    seen = Seen()
    assert seen.add_hash(value)
    assert not seen.add(digest + b"tail")
    assert seen.add(bytes([digest[0] ^ 1]) + digest[1:])


def test_seen_remembers_the_last_generation_at_least() -> None:
    digests = [hashlib.blake2b(str(i).encode(), digest_size=16).digest() for i in range(5000)]
    seen = Seen(generation=1000)
    assert all(seen.add(digest) for digest in digests[:2500])
    # 0 to 999 filled the first generation, 1000 to 1999 the second (0 to 999 forgotten)
    assert len(seen) == 1500
    assert not any(seen.add(digest) for digest in digests[1000:2500])
    assert all(seen.add(digest) for digest in digests[:1000])  # forgotten: new again
    # 2000 to 2499 and 0 to 499 filled a generation, 1000 to 1999 forgotten
    assert not any(seen.add(digest) for digest in digests[2000:2500] + digests[:1000])
    assert all(seen.add(digest) for digest in digests[1000:2000])


_DIGESTS = st.one_of(
    st.integers(-300, 300),  # 0 (stored as 1), negatives (two's complement), small: collisions
    st.integers(-(1 << 70), 1 << 70),
    st.sampled_from([(i << 20) for i in range(1, 8)]),  # the same low bits: slots probe on
)


@contextlib.contextmanager
def _pure_python() -> Iterator[None]:
    """LDIDS_PURE_PYTHON set for the block, as it was after (hypothesis runs a test many
    times in one function-scoped fixture: monkeypatch would not undo it between them)."""
    previous = os.environ.get("LDIDS_PURE_PYTHON")
    os.environ["LDIDS_PURE_PYTHON"] = "1"
    try:
        yield
    finally:
        os.environ.pop("LDIDS_PURE_PYTHON")
        if previous is not None:
            os.environ["LDIDS_PURE_PYTHON"] = previous


@given(st.lists(st.lists(_DIGESTS, max_size=600), max_size=6), st.sampled_from([1, 7, 64, 100, 1 << 19]))
@settings(max_examples=120, deadline=None)
def test_seen_insert_is_add_hash_in_turn(blocks: list[list[int]], generation: int) -> None:
    # The compiled insert of a block of digests (seen_insert in _scan.c, between the turns and
    # growths of the tables) and the pure-Python one, against add_hash of each in turn.
    pytest.importorskip("ldids.dumps._scan")
    compiled, pure, reference = Seen(generation), Seen(generation), Seen(generation)
    for block in blocks:
        expected = [int(reference.add_hash(digest)) for digest in block]
        assert list(compiled.insert(block)) == expected
        with _pure_python():
            assert list(pure.insert(block)) == expected
        assert len(compiled) == len(pure) == len(reference)


@given(st.lists(_DIGESTS, max_size=700), st.sampled_from([1024, 2048]))
@settings(max_examples=80, deadline=None)
def test_a_grown_table_is_the_same_compiled_or_not(digests: list[int], size: int) -> None:
    # A table grows by its values added again in C (seen_insert), as the Python loop of its
    # reference adds them: slot for slot the same table, for values that probe on (the same
    # low bits) and that wrap around its end.
    pytest.importorskip("ldids.dumps._scan")
    table = results._table(size)
    for digest in digests[: size // 2]:
        value = (digest & ((1 << 64) - 1)) or 1
        table[results._slot(table, value)] = value
    compiled = results._grown(table)
    with _pure_python():
        reference = results._grown(table)
    assert compiled == reference
    assert sorted(value for value in compiled if value) == sorted(value for value in table if value)


def test_a_block_past_the_bar_is_only_counted_and_one_below_it_is_listed() -> None:
    # Once the first results are known (the bar), a block whose every row comes after it is
    # counted and not offered; a block with a row before it (here a line before the bar's,
    # given after a later one) still lists that row.
    shape, component = URIRef("urn:shape"), SH.PatternConstraintComponent

    def rows(lines: list[int]) -> list[tuple[object, ...]]:
        return [(n, f"<urn:x{n}>", None, f"<urn:x{n}>", shape, component, "m", SH.Violation, None) for n in lines]

    run = Streamed(Verdict(True), max_results=2)
    run.add(300, rows(list(range(2, 300))), "f.nt")  # type: ignore[arg-type]
    assert run.bar is not None, "the first two are known"
    offered: list[object] = []
    offer = run._kept.offer

    def counted(key: Key, item: object) -> None:
        offered.append(key)
        offer(key, item)  # type: ignore[arg-type]

    run._kept.offer = counted  # type: ignore[method-assign]
    run.add(2, rows([400, 500]), "f.nt")  # type: ignore[arg-type]
    assert offered == []
    run.add(2, rows([600, 1]), "f.nt")  # type: ignore[arg-type]
    assert len(offered) == 2
    assert [violation.line for violation in run.results()] == [1, 2]
    assert sum(run.verdict.counts.values()) == 298 + 4


@given(st.lists(st.integers(1, 300), max_size=3000), st.sampled_from([1, 7, 64, 100]))  # 0 is stored as 1
@settings(max_examples=80, deadline=None)
def test_seen_generations_against_two_sets(numbers: list[int], generation: int) -> None:
    # A reference of the generations: two sets, the young one becoming the old one when it
    # holds ``generation`` (the tables forgotten are emptied and used again, many times over).
    seen, young, old = Seen(generation=generation), set[int](), set[int]()
    for number in numbers:
        new = number not in young and number not in old
        assert seen.add(number.to_bytes(8, "little") + bytes(8)) == new
        if new:
            young.add(number)
            if len(young) >= generation:
                old, young = young, set()
    assert len(seen) == len(young) + len(old)


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 30), st.integers()), max_size=2000),
    st.none() | st.integers(0, 40),
    st.sampled_from([10, 64, 10**6]),
    st.sampled_from([2, 3, 64]),
)
@settings(max_examples=120, deadline=None)
def test_kept_are_the_first_of_a_stable_sort(
    items: list[tuple[str, int, int]], limit: int | None, spill: int, runs: int
) -> None:
    saved, results.MAX_RUNS = results.MAX_RUNS, runs  # runs merged into one as they pile up
    try:
        kept: Kept[int] = Kept(limit, spill)
        for shape, line, value in items:
            kept.offer((shape, "f", line, ""), value)
        everything = [value for _, _, value in sorted(items, key=lambda item: (item[0], item[1]))]
        assert list(kept.first()) == everything[:limit]
        assert list(kept.first()) == everything[:limit]  # read again from the start
        assert len(kept._runs) < runs
        kept.close()
    finally:
        results.MAX_RUNS = saved


def _dump(path: Path, records: int) -> None:
    # Each record: a bad OAI identifier as subject of three statements (one result each
    # shape, given again by each statement), a bad handle as object.
    path.write_text(
        "".join(
            f"<oai:bad{i}> <http://x/p> <hdl:{i}> .\n"
            f"<oai:bad{i}> <http://x/q> <http://x/o> .\n"
            f"<oai:bad{i}> <http://x/r> <http://x/o{i % 7}> .\n"
            for i in range(records)
        )
    )


def _listed(run: object) -> list[tuple[str, str, int | None, str]]:
    return [(v.shape, str(v.focus), v.line, str(v.value)) for v in run.verdict.violations]  # type: ignore[attr-defined]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("keep", [0, 1, 7, 300])
def test_a_run_keeping_n_keeps_the_first_n_of_a_run_keeping_all(tmp_path: Path, workers: int, keep: int) -> None:
    data = tmp_path / "d.nt"
    _dump(data, 400)
    everything = validate_dump([str(data)], shapes_graph(), workers=workers, block_size=2048)
    some = validate_dump([str(data)], shapes_graph(), workers=workers, block_size=2048, max_results=keep)
    assert len(everything.verdict.violations) == everything.verdict.total > 800
    assert _listed(some) == _listed(everything)[:keep]
    assert some.verdict.counts == everything.verdict.counts
    assert sorted(_listed(everything)) == sorted(set(_listed(everything)))  # each result once


def test_results_spilled_and_written_as_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "d.nt"
    _dump(data, 400)
    listed = validate_dump([str(data)], shapes_graph(), block_size=2048)
    monkeypatch.setattr(results, "SPILL", 100)  # runs of 100 results on disk, merged
    streamed = validate_dump([str(data)], shapes_graph(), block_size=2048, workers=2, listed=False)
    assert streamed.verdict.violations == []
    assert len(streamed._kept._runs) > 5
    assert list(streamed.results()) == listed.verdict.violations
    for fmt, limit in (("json", None), ("json", 7), ("text", None), ("text", 7)):
        expected, written = io.StringIO(), io.StringIO()
        write_report(listed.verdict, fmt, expected, limit)
        write_report(streamed.verdict, fmt, written, limit, results=streamed.results())
        assert written.getvalue() == expected.getvalue()
    document = io.StringIO()
    write_report(listed.verdict, "json", document, 7)
    assert json.loads(document.getvalue()) == {**listed.verdict.to_json(7), "not_streamable": []}
    turtle = io.StringIO()
    write_report(streamed.verdict, "turtle", turtle, None, results=streamed.results())
    graph = Graph().parse(data=turtle.getvalue(), format="turtle")
    assert len(list(graph.subjects(RDF.type, SH.ValidationResult))) == listed.verdict.total
    assert isomorphic(graph, listed.verdict.report_graph())
    streamed.close()


def test_abort_stops_reading(tmp_path: Path) -> None:
    data = tmp_path / "d.nt"
    _dump(data, 20_000)
    run = validate_dump([str(data)], shapes_graph(), block_size=4096, abort=True, max_results=1)
    assert not run.verdict.conforms
    assert len(run.verdict.violations) == 1
    assert 0 < run.statements < 1000  # a block or so, not 60,000 statements


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "ldids", "validate", *args], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    return done.stdout


def test_the_report_lists_the_first_results_of_the_full_report(tmp_path: Path) -> None:
    data = tmp_path / "d.nt"
    _dump(data, 300)
    full = json.loads(_cli(str(data), "-f", "json", "--all"))
    first = json.loads(_cli(str(data), "-f", "json", "--limit", "5", "-w", "2"))
    assert first["results"] == full["results"][:5]
    assert first["violations"] == full["violations"] == len(full["results"])
    assert first["truncated"] is True
    text = _cli(str(data), "--limit", "5").splitlines()
    assert len([line for line in text if line.startswith(f"{data}:")]) == 5


@pytest.mark.parametrize(
    "written",
    [
        '"hdl:1765/x"',
        '""',
        '"caf\u00e9 \u00e0 la \u2028"',
        '"a\\"b"',
        '"tab\\there"',
        '"x"@en',
        '"01"^^<http://www.w3.org/2001/XMLSchema#integer>',
        '"x"^^<http://www.w3.org/2001/XMLSchema#anyURI>',
        "<info:fedora/demo:1>",
        "_:b1",
    ],
)
def test_a_results_term_is_rdflibs_of_its_n_triples(written: str) -> None:
    # Results cross processes as N-Triples text; a simple literal with no escape is read
    # without a parse: the same node as pyoxigraph's reading, converted, gives.
    import pyoxigraph as ox

    from ldids.dumps.validation import _node
    from ldids.shacl.value import to_rdflib

    parsed = next(iter(ox.parse(f"<urn:x> <urn:x> {written} .".encode(), ox.RdfFormat.N_TRIPLES))).object
    node = _node(written)
    assert node == to_rdflib(parsed)
    assert type(node) is type(to_rdflib(parsed))
