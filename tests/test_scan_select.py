"""select_lines (ldids/dumps/_scan.c) on blocks shaped like dumps and like normalize's output:
the lines of one subject in a row, and the owl:sameAs links at the end of a file in blocks of
their own. What the compiled selection finds equals what the Python checks find on every
statement (each result and the first line that gives it); a predicate first met in a block
is asked of the Python tests at once, as the Python side would tell it."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from typing import Any

import pyoxigraph as ox
import pytest

from ldids.resources import shapes_graph
from ldids.shacl.prefilter import prefilter
from ldids.shacl.streamed import MEMO_LIMIT, plan

#: The ``selections`` fixture (tests/conftest.py): the compiled plan, and each path's results
#: with the first line that gives them.
Selections = Callable[[Iterable[bytes]], tuple[Any, dict[tuple[object, ...], int], dict[tuple[object, ...], int]]]

_scan = pytest.importorskip("ldids.dumps._scan")

SHAPES = shapes_graph()
DC = "<http://purl.org/dc/elements/1.1/identifier>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
PREDICATES = [DC, SAME_AS, "<http://example.org/p>", "<http://example.org/q>"]
#: Texts of identifiers valid and not, canonical and not, and of other things.
TEXTS = [
    "info:fedora/demo:1",
    "info:fedora/demo:1/DS1",
    "info:fedora/demo%3a1",
    "INFO:FEDORA/demo:1",
    "info:fedora/bad",
    "oai:arXiv.org:hep-th/9901001",
    "oai:bad",
    "http://purl.org/poi/arXiv.org/a",
    "HTTP://purl.org/poi/arXiv.org/a",
    "hdl:1765/315",
    "hdl:1765",
    "hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAB",
    "hdl:100.102/abcdefabcdefabcdefabcdefabcdefab",
    "https://hdl.handle.net/1765/315",
    "http://example.org/s",
    "demo:1",
    "demo%3a1",
    "demo:" + "A" * 60,
    "demo:a b",
    "hdl:1765/\u00e9t\u00e9",
    "info:fedora/demo:1\tDC",
]
XSD = "http://www.w3.org/2001/XMLSchema#"
# Literals whose results select_lines makes itself (plain, xsd:string, xsd:anyURI) and those
# it leaves to the parse (a language tag, another datatype).
WRITTEN = [
    "<{}>",
    '"{}"',
    '"{}"@en',
    "_:b{}",
    f'"{{}}"^^<{XSD}string>',
    f'"{{}}"^^<{XSD}anyURI>',
    f'"{{}}"^^<{XSD}integer>',
]


def _term(pick: random.Random, kinds: list[str]) -> str:
    kind = pick.choice(kinds)
    # An IRI has a scheme (a relative one makes the line a bad one, reported either way).
    text = pick.choice([text for text in TEXTS if re.match("[A-Za-z][A-Za-z0-9+.-]*:", text) or kind[0] != "<"])
    if kind.startswith("_"):
        return kind.format("".join(c for c in text if c.isalnum()))
    return kind.format(text.replace(" ", "%20").replace("\t", "%09") if kind.startswith("<") else text)


def _dump(seed: int, entities: int = 120, graphs: bool = False) -> bytes:
    """Entities of 1 to 12 statements each, their subject repeated line after line, then
    owl:sameAs links between forms of the identifiers seen (as normalize writes them); with
    ``graphs``, most statements in a named graph (N-Quads)."""
    pick = random.Random(seed)
    lines, links = [], []
    for _ in range(entities):
        subject = _term(pick, ["<{}>", "<{}>", "_:b{}"])
        graph = pick.choice(["", " <urn:g1>", " <http://example.org/g\u00e9>", " _:g1"]) if graphs else ""
        for _ in range(pick.randint(1, 12)):
            predicate = pick.choice(PREDICATES)
            value = _term(pick, WRITTEN)
            if predicate == DC and pick.random() < 0.5:
                value = f'"{pick.choice(TEXTS[15:])}"'
            lines.append(f"{subject} {predicate} {value}{graph} .")
            if value.startswith("<") and pick.random() < 0.3:
                links.append(f"{value} {SAME_AS} {_term(pick, ['<{}>'])} .")
    return ("\n".join(lines + links) + "\n").encode()


def _blocks(data: bytes, size: int) -> list[bytes]:
    found, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start + size)
        end = len(data) if end < 0 else end + 1
        found.append(data[start:end])
        start = end
    return found


@pytest.mark.parametrize("size", [200, 2000, 1 << 20])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("graphs", [False, True], ids=["triples", "quads"])
def test_compiled_selection_finds_what_every_statement_gives(
    seed: int, size: int, graphs: bool, selections: Selections
) -> None:
    _, found, expected = selections(_blocks(_dump(seed, graphs=graphs), size))
    assert found == expected


# -- Results select_lines makes itself (ldids.shacl.streamed._Group.rows) -----------------------

P = "<http://example.org/p>"


@pytest.mark.parametrize(
    ("line", "results"),
    [
        # A focus the canonical-form shape and a syntax shape report: made, subject and object.
        (f"<urn:s> {P} <INFO:FEDORA/demo:1> .", 1),
        (f"<info:fedora/bad> {P} <urn:o> .", 2),
        (f'<urn:s> {P} "HDL:1765/x"^^<{XSD}string> .', 1),
        (f'<urn:s> {P} "Hdl:1765/\u00e9t\u00e9"^^<{XSD}anyURI> <urn:g> .', 1),
        (f'<urn:s> {P} "OAI:bad" _:g .', 2),
        # Canonical: nothing to make, nothing selected.
        (f"<urn:s> {P} <info:fedora/demo:1> .", 0),
        # Left to the parse (None): a language tag, another datatype, an escape, a tab
        # (pyoxigraph writes it \t).
        (f'<urn:s> {P} "INFO:FEDORA/demo:1"@en .', None),
        (f'<urn:s> {P} "INFO:FEDORA/demo:1"^^<{XSD}integer> .', None),
        (f'<urn:s> {P} "INFO:FEDORA/demo:\\u0031" .', None),
        (f'<urn:s> {P} "hdl:1765/a\tb" .', None),
    ],
)
def test_the_results_made_are_those_of_the_checks(line: str, results: int | None, selections: Selections) -> None:
    """A line whose results select_lines makes is not selected, and its rows are the Python
    checks' (the whole row: focus, value and graph as pyoxigraph writes them, shape,
    component, message, severity); a line it cannot make them for is parsed."""
    sieve = prefilter(plan(SHAPES))
    block = (line + "\n").encode()
    classes = dict([sieve.predicate_class(ox.NamedNode(P[1:-1]))])
    _, _, indexes, _, rows, _ = _scan.select_lines(
        block, sieve.groups, sieve.any_escape, {}, MEMO_LIMIT, classes, sieve.probes, None, False, sieve.made
    )
    _, found, expected = selections([block])
    assert found == expected
    if results is None:
        assert (indexes, rows) == ([0], [])
    else:
        assert indexes == []
        assert len(rows) == len(expected) == results


def _links(count: int) -> bytes:
    # normalize's links: a canonical Handle to the form it was written in (hex letters in
    # each, which the two write in two cases).
    numbers = range(0xABC000, 0xABC000 + count)
    return "".join(f"<hdl:100.102/{n:032X}> {SAME_AS} <hdl:100.102/{n:032x}> .\n" for n in numbers).encode()


def test_a_predicate_new_in_a_block_is_told_at_once() -> None:
    checks = plan(SHAPES)
    sieve = prefilter(checks)
    assert sieve.tests, "the canonical-form shape tests the predicate (it leaves owl:sameAs objects alone)"
    block = _links(500)
    classes: dict[bytes, bytes] = {}
    _, _, indexes, _, _, _ = _scan.select_lines(
        block, sieve.groups, sieve.any_escape, {}, MEMO_LIMIT, classes, sieve.probes, sieve.written_class
    )
    # What the Python side would have added once it had parsed a line of the block.
    assert classes == dict([sieve.predicate_class(ox.NamedNode(SAME_AS[1:-1]))])
    assert indexes == []
    # Not told, the block's lines of that predicate all reach the Python checks.
    _, _, indexes, _, _, _ = _scan.select_lines(
        block, sieve.groups, sieve.any_escape, {}, MEMO_LIMIT, {}, sieve.probes, None
    )
    assert len(indexes) == 500
    # Told, a class full of predicates takes no more; the lines are then parsed.
    full = {f"<urn:p{n}>".encode(): b"\x01" for n in range(3)}
    _, _, indexes, _, _, _ = _scan.select_lines(
        block, sieve.groups, sieve.any_escape, {}, 3, full, sieve.probes, sieve.written_class
    )
    assert len(full) == 3
    assert len(indexes) == 500


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (SAME_AS, b"\x00"),
        ("<http://example.org/p>", b"\x01"),
        (DC, b"\x01"),
        ("<not an iri>", None),
    ],
)
def test_a_predicate_as_written(written: str, expected: bytes | None) -> None:
    sieve = prefilter(plan(SHAPES))
    assert sieve.written_class(written.encode()) == expected


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("graphs", [False, True], ids=["triples", "quads"])
def test_the_digests_made_with_the_rows_are_those_of_the_rows(seed: int, graphs: bool) -> None:
    # select_lines makes a digest beside each row it makes (hash() of the row's terms, as
    # ldids.dumps.validation._digests makes it), Python the rest: each the row's own.
    from ldids.dumps import validation

    hashed, unhashed, first, made_here = plan(SHAPES), plan(SHAPES), 1, 0
    for block in _blocks(_dump(seed, graphs=graphs), 2000):
        _, rows, digests = validation._check(hashed, block, first, hashed=True)
        assert digests == validation._digests(rows)
        assert rows == validation.check_statements(unhashed, block, first)[1]
        made_here += len(rows)
        first += block.count(b"\n")
    assert made_here > 50
