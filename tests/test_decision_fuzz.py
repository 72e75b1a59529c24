"""The compiled loop decides IRIs in prefixed forms and the commonest bare PIDs under
bare-PID predicates itself (``compiled_decision`` and ``bare_pid_decision`` in
ldids/dumps/_scan.c); the Python loop asks ldids.passes.decision.decide about every term.
Differential fuzz of the two on generated terms of every scheme (benchmarks/fuzz_decision.py,
whose full run takes 10,000,000 terms): seeded and short here."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from ldids.dumps import stream, worker
from ldids.dumps.settings import Settings
from ldids.passes.config import Config

pytestmark = pytest.mark.skipif(not stream.COMPILED, reason="ldids.dumps._scan not built")


@pytest.fixture(scope="module")
def fuzz() -> Iterator[ModuleType]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import fuzz_decision

        yield fuzz_decision
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("seed", [11, 12])
def test_compiled_and_python_loops_agree_on_generated_terms(fuzz: ModuleType, seed: int) -> None:
    terms, rewritten, failures = fuzz.run(seed, 20_000)
    assert failures == [], "\n".join(failures[:10])
    assert terms == 20_000
    assert rewritten > 2_000  # the generated terms hold identifiers to rewrite


def test_the_law_catches_a_difference(fuzz: ModuleType) -> None:
    data = b"<http://a> <http://b> <oai:arXiv.org:hep-th/1> .\n"
    settings = Settings(Config())
    python = stream._in_python(worker._Worker(settings), data, 1)
    assert fuzz.differences(python, python) == []
    wrong = replace(python, output=b"<http://a> <http://b> <oai:arXiv.org:hep-th/1> .\n")
    assert any("output" in found for found in fuzz.differences(wrong, python))
    fewer = replace(python, links=[])
    assert any("links" in found for found in fuzz.differences(fewer, python))


class _Counting(worker._Worker):
    """A worker that records what Python is asked to decide."""

    asked: list[str]

    def decide(self, raw: str, bare_predicate: str | None, linkable: bool, subject: str | None = None) -> worker._Value:
        self.asked.append(raw)
        return super().decide(raw, bare_predicate, linkable, subject)


LINES = (
    b"<INFO:FEDORA/demo%3a1> <http://p> <oai:arXiv.org:hep-th/0001> .\n"
    b"<http://s> <http://p> <http://hdl.handle.net/1765/5> .\n"
    b"<http://s> <http://p> <info:fedora/demo:2> .\n"
    b"<http://s> <http://p> <https://PURL.org/poi/a.b/c> .\n"
)


def test_common_iris_are_decided_without_python() -> None:
    counting = _Counting(Settings(Config()))
    counting.asked = []
    result = stream._compiled(counting, LINES, 1)
    assert counting.asked == []
    assert result.output == (
        b"<info:fedora/demo:1> <http://p> <http://purl.org/poi/arXiv.org/hep-th/0001> .\n"
        b"<http://s> <http://p> <hdl:1765/5> .\n"
        b"<http://s> <http://p> <info:fedora/demo:2> .\n"
        b"<http://s> <http://p> <http://purl.org/poi/a.b/c> .\n"
    )
    assert sorted(result.links) == [
        "<hdl:1765/5> <http://www.w3.org/2002/07/owl#sameAs> <http://hdl.handle.net/1765/5> .",
        "<http://purl.org/poi/a.b/c> <http://www.w3.org/2002/07/owl#sameAs> <https://PURL.org/poi/a.b/c> .",
        "<http://purl.org/poi/arXiv.org/hep-th/0001> <http://www.w3.org/2002/07/owl#sameAs>"
        " <oai:arXiv.org:hep-th/0001> .",
        "<info:fedora/demo:1> <http://www.w3.org/2002/07/owl#sameAs> <INFO:FEDORA/demo%3a1> .",
    ]
    assert result.rewritten == {"info-fedora": 1, "oai": 1, "handle": 1, "poi": 1}


def test_python_decides_where_the_compiled_decision_is_off() -> None:
    """POIs of a Fedora-served namespace link to their objects too: Python decides those,
    and escaped or invalid IRIs."""
    counting = _Counting(Settings(Config(fedora_oai_namespaces=frozenset({"a.b"}))))
    counting.asked = []
    stream._compiled(counting, LINES, 1)
    assert "<https://PURL.org/poi/a.b/c>" in counting.asked
    counting = _Counting(Settings(Config()))
    counting.asked = []
    stream._compiled(counting, b"<http://s> <http://p> <oai:a\\u002Eb:c> .\n<http://s> <http://p> <oai:1b:c> .\n", 1)
    assert counting.asked == ["<oai:a\\u002Eb:c>", "<oai:1b:c>"]


DC = "<http://purl.org/dc/elements/1.1/identifier>"
XSD_STRING = "<http://www.w3.org/2001/XMLSchema#string>"
BARE = Config(bare_pid_predicates=frozenset({"http://purl.org/dc/elements/1.1/identifier"}))

# (subject, object under dc:identifier, the object written, or None: unchanged; what is
# counted besides the subject). The compiled loop decides these itself, from the subject's own decision.
BARE_PIDS = [
    # the subject's own namespace, in every scheme that carries one
    ("<info:fedora/demo:1>", '"demo:2"', '"info:fedora/demo:2"', "rewritten"),
    ("<INFO:FEDORA/demo%3a1>", '"demo:2"', '"info:fedora/demo:2"', "rewritten"),
    ("<info:fedora/demo:1/DS1>", '"demo:2"', '"info:fedora/demo:2"', "rewritten"),
    ("<http://purl.org/poi/a.b/demo:1>", '"demo:2"', '"info:fedora/demo:2"', "rewritten"),
    ("<oai:a.b:demo:1>", '"demo:2"', '"info:fedora/demo:2"', "rewritten"),
    # escapes' hex digits upper case; the datatype kept
    ("<info:fedora/demo:1>", '"demo:a%7eb"', '"info:fedora/demo:a%7Eb"', "rewritten"),
    ("<info:fedora/demo:1>", f'"demo:2"^^{XSD_STRING}', f'"info:fedora/demo:2"^^{XSD_STRING}', "rewritten"),
    # another namespace, or a subject that carries none: left alone
    ("<info:fedora/demo:1>", '"catkey:123"', None, "bare-pid-foreign-namespace"),
    ("<info:fedora/Demo:1>", '"demo:2"', None, "bare-pid-foreign-namespace"),
    ("<info:fedora/*/DS1>", '"demo:2"', None, "bare-pid-foreign-namespace"),
    ("<http://purl.org/poi/a.b/hep-th/1>", '"hep-th:2"', None, "bare-pid-foreign-namespace"),
    ("<http://example.org/s>", '"demo:2"', None, "bare-pid-foreign-namespace"),
    ("_:b", '"demo:2"', None, "bare-pid-foreign-namespace"),
    ("<info:fedora/demo:>", '"demo:2"', None, "bare-pid-foreign-namespace"),  # invalid subject
    ("<oai:a.b:demo%3A1>", '"demo:2"', None, "bare-pid-foreign-namespace"),  # invalid: ':' escaped
    # a URI scheme's name is no PID namespace
    ("<info:fedora/urn:1>", '"URN:isbn"', None, "bare-pid-uri-scheme"),
    # no identifier at all
    ("<info:fedora/demo:1>", '"demo:2"@en', None, None),
    ("<info:fedora/demo:1>", '"Record 2"', None, None),
    ("<info:fedora/demo:1>", '"http://example.org/x"', None, None),
    ("<info:fedora/demo:1>", '"2"^^<http://www.w3.org/2001/XMLSchema#integer>', None, None),
]


@pytest.mark.parametrize(("subject", "written", "expected", "counted"), BARE_PIDS)
def test_common_bare_pids_are_decided_without_python(
    subject: str, written: str, expected: str | None, counted: str | None
) -> None:
    counting = _Counting(Settings(BARE))
    counting.asked = []
    data = f"{subject} {DC} {written} .\n".encode()
    result = stream._compiled(counting, data, 1)
    assert [raw for raw in counting.asked if raw.startswith('"')] == []
    # The object as written (the subject may be rewritten too: its own decision)
    assert result.output.split(b" ", 2)[2] == f"{written if expected is None else expected} .\n".encode()
    if counted == "rewritten":
        assert result.rewritten["fedora-pid"] == 1
        assert result.left == {}
    elif counted is not None:
        assert result.left == {counted: 1}
    else:
        assert (result.rewritten["fedora-pid"], sum(result.left.values())) == (0, 0)
    assert result == stream._in_python(worker._Worker(Settings(BARE)), data, 1)


def test_python_decides_the_bare_pids_the_compiled_loop_leaves() -> None:
    """An escaped separator (perhaps another scheme's identifier, percent-encoded), an
    invalid PID, escapes in the literal or the subject, a prefixed form."""
    lines = (
        f'<info:fedora/demo:1> {DC} "demo%3A2" .\n'
        f'<info:fedora/demo:1> {DC} "demo::2" .\n'
        f'<info:fedora/demo:1> {DC} "demo:\\u0032" .\n'
        f'<info:fedora/demo\\u003A1> {DC} "demo:3" .\n'
        f'<info:fedora/demo:1> {DC} "info:fedora/demo:4" .\n'
    ).encode()
    counting = _Counting(Settings(BARE))
    counting.asked = []
    result = stream._compiled(counting, lines, 1)
    assert [raw for raw in counting.asked if raw.startswith('"')] == [
        '"demo%3A2"',
        '"demo::2"',
        '"demo:\\u0032"',
        '"demo:3"',
        '"info:fedora/demo:4"',
    ]
    assert result == stream._in_python(worker._Worker(Settings(BARE)), lines, 1)


def test_configured_namespaces_and_literals_to_iris() -> None:
    config = replace(BARE, pid_namespaces=frozenset({"ours"}), literals_to_iris=True)
    data = f'<http://example.org/s> {DC} "ours:1" .\n<info:fedora/demo:1> {DC} "demo:2" .\n'.encode()
    counting = _Counting(Settings(config))
    counting.asked = []
    result = stream._compiled(counting, data, 1)
    assert [raw for raw in counting.asked if raw.startswith('"')] == []
    assert (
        result.output
        == (
            f"<http://example.org/s> {DC} <info:fedora/ours:1> .\n<info:fedora/demo:1> {DC} <info:fedora/demo:2> .\n"
        ).encode()
    )
    assert result == stream._in_python(worker._Worker(Settings(config)), data, 1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="shared decisions need Linux")
def test_bare_pids_read_subjects_decided_by_another_process() -> None:
    """The subject's decision found in the run's shared table, not the process's memo."""
    data = "".join(f"{subject} {DC} {written} .\n" for subject, written, _, _ in BARE_PIDS).encode()
    settings = Settings(BARE)
    alone = stream._in_python(worker._Worker(settings), data, 1)
    with stream.shared_decisions(settings) as shared:
        assert shared
        stream._compiled(worker._Worker(settings), data, 1)  # fills the table
        second = worker._Worker(settings)
        found = stream._compiled(second, data, 1)
    assert (found.output, found.rewritten, found.left) == (alone.output, alone.rewritten, alone.left)


ITEM_ID = "<http://www.openarchives.org/OAI/2.0/itemID>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"

# Identity statements (Fedora's OAI itemID), and every link each calls for: that from subject
# to object (both valid identifiers in prefixed forms, read after rewriting, the object as an
# IRI), and those from a rewritten term's canonical IRI to the form it was written in.
IDENTITY_LINKS = [
    (
        "<INFO:FEDORA/demo%3a0> {} <https://purl.org/poi/example.org/item0> .",
        {
            "<info:fedora/demo:0> {} <http://purl.org/poi/example.org/item0> .",
            "<info:fedora/demo:0> {} <INFO:FEDORA/demo%3a0> .",
            "<http://purl.org/poi/example.org/item0> {} <https://purl.org/poi/example.org/item0> .",
        },
    ),
    (
        '<info:fedora/demo:1> {} "oai:example.org:item1" .',
        {
            "<info:fedora/demo:1> {} <http://purl.org/poi/example.org/item1> .",
            "<http://purl.org/poi/example.org/item1> {} <oai:example.org:item1> .",
        },
    ),
    # A literal in a language is no identifier literal, and is not rewritten; its text is one.
    ('<info:fedora/demo:1> {} "oai:example.org:item1"@en .', {"<info:fedora/demo:1> {} <oai:example.org:item1> ."}),
    # An xsd:token names its lexical form with its white space collapsed (XSD 1.1 Part 2
    # §3.4.3): the link is to that identifier, and the statement keeps its lexical form.
    (
        '<info:fedora/demo:1> {} " oai:example.org:item1 "^^<http://www.w3.org/2001/XMLSchema#token> .',
        {"<info:fedora/demo:1> {} <oai:example.org:item1> ."},
    ),
    ("<info:fedora/demo:1> {} <info:fedora/demo:1> .", set()),  # the same identifier
    ("<http://example.org/1> {} <info:fedora/demo:1> .", set()),  # a subject that is none
    ("<info:fedora/demo:1> {} <oai:bad> .", set()),  # an invalid object
    ("_:b {} <info:fedora/demo:1> .", set()),
]


@pytest.mark.parametrize(("line", "links"), IDENTITY_LINKS)
@pytest.mark.parametrize("crosswalk", [False, True], ids=["term-by-term", "graph-passes"])
@pytest.mark.parametrize("loop", ["compiled", "python"])
def test_identity_statements_link_subject_to_object(loop: str, crosswalk: bool, line: str, links: set[str]) -> None:
    settings = Settings(Config(), crosswalk=crosswalk)
    run = stream._compiled if loop == "compiled" else stream._in_python
    result = run(worker._Worker(settings), (line.format(ITEM_ID) + "\n").encode(), 1)
    assert set(result.links) == {link.format(SAME_AS) for link in links}


class _Called(worker._Worker):
    """A worker whose compiled canonicalizers the compiled loop cannot call directly
    (C to C, through the capsule ldids.schemes._canonical._api): each is wrapped in a
    Python function, so the loop calls it as it calls any callable, through Python."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)

        def wrapped(function: Callable[[str], str | None]) -> Callable[[str], str | None]:
            return lambda text: function(text)

        compiled = tuple(None if function is None else wrapped(function) for function in self.tables.compiled)
        self.tables = replace(self.tables, compiled=compiled)


@pytest.mark.skipif(not worker._compiled_decisions(Config()), reason="ldids.schemes._canonical not built")
def test_canonicalizers_called_directly_or_through_python_agree(fuzz: ModuleType) -> None:
    """The direct call is the canonicalizer's own function: the loop gives the same
    result, term for term, whichever way it calls it."""
    compared = 0
    for index, data in enumerate(fuzz.blocks(13, 6_000)):
        settings = Settings(fuzz.CONFIGS[index % len(fuzz.CONFIGS)], on_error="skip", quads=True)
        called = _Called(settings)
        if not called.tables.compiled:
            continue  # a configuration where the compiled decision is off
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            direct = stream._compiled(worker._Worker(settings), data, 1)
            through_python = stream._compiled(called, data, 1)
        assert fuzz.differences(direct, through_python) == []
        compared += 1
    assert compared > 0
