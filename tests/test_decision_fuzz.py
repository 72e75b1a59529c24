"""The compiled loop decides IRIs in prefixed forms itself (``compiled_decision`` in
ldids/dumps/_scan.c); the Python loop asks ldids.passes.decision.decide about every term.
Differential fuzz of the two on generated terms of every scheme (benchmarks/fuzz_decision.py,
whose full run takes 10,000,000 terms): seeded and short here."""

from __future__ import annotations

import sys
from collections.abc import Iterator
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
