"""The compiled selection's test of "the group gives nothing" (ldids.shacl.streamed,
_Group.packed, run by select_lines in ldids/dumps/_scan.c) is exact on one side: a statement
it passes over gives no result of that group in the Python checks, for statements drawn from
identifier-like terms, bare PIDs around the length limits, and edits of both."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldids.dumps import validation
from ldids.resources import shapes_graph
from ldids.shacl.prefilter import prefilter
from ldids.shacl.streamed import MEMO_LIMIT, plan

_scan = pytest.importorskip("ldids.dumps._scan")

PLAN = plan(shapes_graph())
SIEVE = prefilter(PLAN)
PACKED = [index for index, group in enumerate(PLAN.groups()) if group.packed() is not None]
DC = "<http://purl.org/dc/elements/1.1/identifier>"
PREDICATES = [DC, "<http://www.w3.org/2002/07/owl#sameAs>", "<http://example.org/p>"]
TEXTS = [
    "info:fedora/demo:1",
    "info:fedora/demo%3a1/DS1",
    "INFO:FEDORA/demo:1",
    "oai:arXiv.org:hep-th/9901001",
    "oai:bad",
    "http://purl.org/poi/arXiv.org/a",
    "https://purl.org:443/poi/arXiv.org/b",
    "hdl:1765/315",
    "hdl:100.102/abcdefabcdefabcdefabcdefabcdefab",
    "https://hdl.handle.net/1765/315",
    "http://example.org/s",
    "demo:1",
    "demo%3a1",
    "demo:" + "A" * 59,
    "demo:" + "A" * 60,
    "demo%3A" + "A" * 59,
    "demo%3a" + "A" * 60,
    "demo:" + "é" * 30,
    "demo:é",
    "catkey:1",
    "urn:isbn:1",
    "demo:a b",
]
WRITTEN = ["<{}>", '"{}"', '"{}"^^<http://www.w3.org/2001/XMLSchema#anyURI>', '"{}"@en', "_:b{}"]


def _texts() -> st.SearchStrategy[str]:
    def edit(text: str) -> st.SearchStrategy[str]:
        return st.integers(0, len(text)).flatmap(
            lambda at: st.sampled_from(
                [text, text[:at], text.upper(), text + "é", text[:at] + "%3A" + text[at:], text[:at] + "/x" + text[at:]]
            )
        )

    return st.sampled_from(TEXTS).flatmap(edit)


def _term(kinds: list[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(kinds), _texts()).map(
        lambda pair: (
            pair[0].format("".join(c for c in pair[1] if c.isalnum()) or "x")
            if pair[0].startswith("_")
            else pair[0].format(pair[1].replace(" ", "%20") if pair[0].startswith("<") else pair[1])
        )
    )


#: Subjects that carry the namespace "demo" (or none), and values around the PID's limits.
PID_SUBJECTS = [
    "<info:fedora/demo:1>",
    "<info:fedora/demo%3A1/DS1>",
    "<oai:arXiv.org:demo:3>",
    "<http://purl.org/poi/x.org/demo:2>",
    "<http://example.org/s>",
]
PIDS = [text for text in TEXTS if text.startswith("demo")]


@settings(max_examples=1500, deadline=None)
@given(subject=_term(["<{}>", "_:b{}"]), predicate=st.sampled_from(PREDICATES), value=_term(WRITTEN))
def test_a_statement_passed_over_gives_the_group_nothing(subject: str, predicate: str, value: str) -> None:
    _passed_over_gives_nothing(f"{subject} {predicate} {value} .\n".encode())


@settings(max_examples=1500, deadline=None)
@given(
    subject=st.sampled_from(PID_SUBJECTS),
    value=st.tuples(st.sampled_from(WRITTEN[:4]), st.sampled_from(PIDS), st.integers(-3, 3), st.sampled_from("A%é:"))
    # a bare PID cut short by up to 3 characters, or lengthened by up to 3 of one
    .map(lambda drawn: drawn[0].format(drawn[1][: len(drawn[1]) + drawn[2]] + drawn[3] * max(drawn[2], 0))),
)
def test_a_bare_pid_passed_over_gives_nothing(subject: str, value: str) -> None:
    _passed_over_gives_nothing(f"{subject} {DC} {value} .\n".encode())


def _passed_over_gives_nothing(line: bytes) -> None:
    try:
        triple = next(iter(ox.parse(line, ox.RdfFormat.N_TRIPLES)))
    except SyntaxError:
        return
    # Every predicate's class known (as after the Python side has seen it), a fresh memo.
    classes = dict([SIEVE.predicate_class(triple.predicate)])
    _, _, indexes, masks, _, _ = _scan.select_lines(
        line, SIEVE.groups, SIEVE.any_escape, {}, MEMO_LIMIT, classes, SIEVE.probes
    )
    groups = PLAN.groups()
    for index in PACKED:
        if indexes and masks[0] >> index & 1:
            continue
        assert PLAN.check((triple.subject, triple.predicate, triple.object), groups[index].bit) == [], line


def test_the_probed_groups() -> None:
    # The syntax shapes' groups (subjects, objects) and the dc:identifier target's.
    assert len(PACKED) == 3
    assert validation._scan is not None
