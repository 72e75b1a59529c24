"""The graph passes against before/after fixtures (tests/fixtures/passes/*), and the laws
of DESIGN.md §3 on every fixture: deterministic, idempotent, nothing lost."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from rdflib import Graph
from rdflib.compare import isomorphic
from rdflib.term import Node

from ldids.ntriples import Quad
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.passes.decision import REASONS
from ldids.passes.summary import schema
from ldids.rdf import crosswalk as crosswalk_io
from ldids.rdf import io as rdfio

FIXTURES = Path(__file__).parent / "fixtures" / "passes"
CASES = sorted(path.name for path in FIXTURES.iterdir())


def load(case: str) -> tuple[list[Quad], list[Quad], Config]:
    folder = FIXTURES / case
    before = next(folder.glob("before.*"))
    after = next(folder.glob("after.*"))
    config = Config.from_toml(folder / "config.toml") if (folder / "config.toml").exists() else Config()
    return rdfio.read([str(before)]).quads, rdfio.read([str(after)]).quads, config


def graphs(quads: list[Quad]) -> dict[Node | None, Graph]:
    found: dict[Node | None, Graph] = {}
    for s, p, o, g in quads:
        found.setdefault(g, Graph()).add((s, p, o))
    return found


def assert_same(got: list[Quad], expected: list[Quad]) -> None:
    got_graphs, expected_graphs = graphs(got), graphs(expected)
    assert set(got_graphs) == set(expected_graphs)
    for name, graph in expected_graphs.items():
        extra = set(got_graphs[name]) - set(graph)
        missing = set(graph) - set(got_graphs[name])
        assert isomorphic(got_graphs[name], graph), f"graph {name}: extra {extra}, missing {missing}"


def test_every_rule_has_a_fixture() -> None:
    assert set(CASES) >= {
        "iri-forms", "literals", "literals-to-iris", "bare-pids", "bare-handles", "pid-namespaces",
        "predicates", "invalid", "fedora-oai", "identity", "relations", "named-graphs", "merge",
    }  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_fixture(case: str) -> None:
    before, after, config = load(case)
    result = passes.normalize(before, config)
    assert_same(result.quads + result.links, after)


@pytest.mark.parametrize("case", CASES)
def test_laws(case: str) -> None:
    before, _, config = load(case)
    result = passes.normalize(before, config)
    out = result.quads + result.links
    # Nothing lost: every input statement, rewritten, is in the output; counts add up.
    steps = list(passes.rewrite(before, config))
    assert len(steps) == len(before) == result.quads_in
    assert all(step.after in set(result.quads) for step in steps)
    assert result.quads_in == len(result.quads) + result.merged
    # Idempotent: the second run rewrites nothing, links nothing new, changes nothing.
    again = passes.normalize(out, config)
    assert again.rewrites == []
    assert set(again.quads + again.links) == set(out)
    # Deterministic: the same input gives the same bytes.
    fmt = rdfio.resolve_format("nquads")
    assert rdfio.serialize(out, fmt) == rdfio.serialize(passes.normalize(before, config).quads + result.links, fmt)


def test_invalid_identifiers_are_reported_with_their_statement() -> None:
    before, _, config = load("invalid")
    result = passes.normalize(before, config)
    assert result.rewrites == []
    codes = {finding.problems[0].code for finding in result.findings}
    assert codes == {
        "oai.namespace-not-domain",
        "info-fedora.missing-separator",
        "oai.lowercase-hex",
        "handle.missing-local-name",
        "poi.port",
    }
    for finding in result.findings:
        assert finding.quad in before
        assert finding.term in finding.quad


def test_summary_counts() -> None:
    before, _, config = load("merge")
    summary = passes.normalize(before, config).summary().to_json()
    assert summary == {
        "statements": {"in": 3, "out": 2, "rewritten": 1, "merged": 1},
        "links": 1,
        "identifiers": {"rewritten": {"info-fedora": 1}, "invalid": {}, "left": {}},
        "bad_lines": 0,
        "skipped": {},
    }


def test_summary_counts_what_was_left_alone_and_why() -> None:
    before, _, config = load("bare-pid-policy")
    summary = passes.normalize(before, config).summary().to_json()
    assert summary["identifiers"] == {
        "rewritten": {"fedora-pid": 3, "oai": 2},  # the OAI subject, in both its statements
        "invalid": {},
        "left": {
            "bare-pid-foreign-namespace": 5,  # catkey, barcode, lccn; uuid under ex:record; catkey:7
            "bare-pid-percent-encoded": 1,
            "bare-pid-uri-scheme": 3,  # urn:, doi:, http:
        },
    }


@pytest.mark.parametrize("case", CASES)
def test_crosswalk_undoes_the_run(case: str) -> None:
    before, _, config = load(case)
    result = passes.normalize(before, config)
    rows = list(passes.crosswalk(result))
    lines = crosswalk_io.LineParser()
    restored = passes.undo(result.quads + result.links, rows, lines.quad)
    assert_same(restored, before)


def test_term_cache_is_bounded() -> None:
    config = Config()
    cache = passes.TermCache(config, size=10)
    quads = rdfio.read([str(FIXTURES / "iri-forms" / "before.ttl")]).quads
    for _ in range(5):
        list(passes.rewrite(quads, config, cache))
    assert len(cache._known) <= 10


def test_the_summary_schema_is_published_and_knows_every_reason() -> None:
    """The schema ships in the package, accepts what runs write, and lists exactly the
    reasons the decision gives for leaving a term alone (one source: decision.REASONS)."""
    published = schema()
    assert set(published["properties"]["identifiers"]["properties"]["left"]["propertyNames"]["enum"]) == set(REASONS)
    before, _, config = load("bare-pid-policy")
    document = passes.normalize(before, config).summary().to_json()
    jsonschema.validate(document, published)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**document, "identifiers": {**document["identifiers"], "left": {"made-up": 1}}}, published)
