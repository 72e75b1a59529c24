"""A streamed plan made with the cache of derived plans (ldids.shacl.plan_cache) gives exactly
the results of one derived afresh, on generated data with results of every shipped shape; a
cache file that is stale, corrupt or of another form is not used; the algebra's plain form
reads back equal; and a run whose queries are cached imports no SPARQL parser."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rdflib import Literal, URIRef, Variable
from rdflib.namespace import SH

from ldids.dumps import validation
from ldids.resources import shapes_graph
from ldids.shacl import algebra, dfa, plan_cache
from ldids.shacl.algebra import Op, PlainError, from_plain, parse_query, to_plain
from ldids.shacl.streamed import Plan, plan

SUBJECTS = ["<info:fedora/demo:1>", "<oai:arXiv.org:demo:3>", "<http://example.org/s>", "_:b1", "<INFO:FEDORA/x:1>"]
PREDICATES = [
    "<http://purl.org/dc/elements/1.1/identifier>",
    "<http://www.w3.org/2002/07/owl#sameAs>",
    "<http://example.org/p>",
]
OBJECTS = [
    "<info:fedora/demo:1>",
    "<info:fedora/demo%3a1>",
    "<INFO:FEDORA/demo:1/DS1>",
    "<info:fedora/de~mo:1>",
    '"info:fedora/demo:2"@en',
    "<oai:arXiv.org:hep-th/9901001>",
    "<oai:bad>",
    '"oai:arXiv.org:a%2fb"',
    "<http://purl.org:443/poi/arXiv.org/a>",
    "<HTTP://PURL.ORG:80/poi/arXiv.org/c>",
    "<http://purl.org/poi/bad/x>",
    "<hdl:100.102/ABCDEFABCDEFABCDEFABCDEFABCDEFAB>",
    "<HDL://1765/315>",
    "<http://hdl.handle.net:8080/1765/315>",
    '"demo:1"',
    '"demo:a b"',
    f'"demo%3A{"A" * 60}"',
    '"catkey:1"',
    "_:b2",
    '"42"^^<http://www.w3.org/2001/XMLSchema#integer>',
]


def _blocks(seed: int) -> list[bytes]:
    pick = random.Random(seed)
    lines = []
    for _ in range(500):
        subject, predicate, value = pick.choice(SUBJECTS), pick.choice(PREDICATES), pick.choice(OBJECTS)
        if predicate == PREDICATES[1] and pick.random() < 0.2:
            value = subject  # linked to itself
        lines.append(f"{subject} {predicate} {value} .\n")
    return [("".join(lines[at : at + 100])).encode() for at in range(0, len(lines), 100)]


def _rows(checks: Plan, seed: int) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    first = 1
    for block in _blocks(seed):
        rows += validation.check_statements(checks, block, first)[1]
        first += block.count(b"\n")
    return rows


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of this test's own, and a process that has read no cache yet."""
    monkeypatch.setenv("LDIDS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("LDIDS_NO_CACHE", raising=False)
    monkeypatch.setattr(plan_cache, "_store", None)
    return tmp_path / "cache"


class _Counted:
    """Counts the queries parsed and the automata made while it is installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsed = self.made = 0
        monkeypatch.setattr(plan_cache, "parse_query", self._counting(parse_query, "parsed"))
        monkeypatch.setattr(dfa, "search", self._counting(dfa.search, "made"))

    def _counting(self, function: Callable[..., object], name: str) -> Callable[..., object]:
        def counted(*args: object) -> object:
            setattr(self, name, getattr(self, name) + 1)
            return function(*args)

        return counted


#: One graph for every plan: a property shape is a blank node of it.
SHAPES = shapes_graph()


def _fresh(monkeypatch: pytest.MonkeyPatch) -> Plan:
    with monkeypatch.context() as patch:
        patch.setenv("LDIDS_NO_CACHE", "1")
        patch.setattr(plan_cache, "_store", None)
        return plan(SHAPES)


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built: no automata are used")
@pytest.mark.parametrize("seed", range(3))
def test_a_cached_plan_gives_the_results_of_a_fresh_one(
    cache: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    expected = _rows(_fresh(monkeypatch), seed)
    plan(SHAPES)  # writes the cache
    written = plan_cache.cache_file()
    assert written is not None
    assert written.is_file()
    monkeypatch.setattr(plan_cache, "_store", None)  # as a new process: read from the file
    counted = _Counted(monkeypatch)
    cached = plan(SHAPES)
    assert (counted.parsed, counted.made) == (0, 0), "nothing is derived again"
    assert _rows(cached, seed) == expected
    shapes = {str(row[4]) for row in expected}
    assert {str(shape) for shape in cached.shapes} <= shapes, "every streamed shape gives results"


SPOILS = (
    "truncated",
    "not JSON",
    "a byte changed",
    "another key (stale)",
    "an entry of another form",
    "an unknown kind of value",
    "automata not whole",
)


def _spoil(path: Path, how: str) -> None:
    header, body = path.read_bytes().split(b"\n", 1)
    fields, content = json.loads(header), json.loads(body)

    def write(new_header: dict[str, object], new_body: bytes) -> None:
        path.write_bytes(json.dumps(new_header).encode() + b"\n" + new_body)

    def signed(key: str, entry: object) -> None:
        new_body = json.dumps({**content, key: dict.fromkeys(content[key], entry)}).encode()
        write({**fields, "digest": hashlib.blake2b(new_body, digest_size=16).hexdigest()}, new_body)

    if how == "truncated":
        path.write_bytes(path.read_bytes()[: len(header) + 100])
    elif how == "not JSON":
        path.write_bytes(b"\x00\xff garbage")
    elif how == "a byte changed":
        write(fields, body.replace(b"Builtin_REGEX", b"Builtin_REGEY", 1))
    elif how == "another key (stale)":
        write({**fields, "key": "0" * 32}, body)
    elif how == "an entry of another form":
        signed("queries", ["op", 1])
    elif how == "an unknown kind of value":
        signed("queries", ["code", "print()"])
    else:
        signed("automata", ["AAAA", "AAAA"])


@pytest.mark.skipif(validation._scan is None, reason="the C extension is not built: no automata are used")
@pytest.mark.parametrize("how", SPOILS)
def test_a_spoilt_cache_is_not_used(cache: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    expected = _rows(_fresh(monkeypatch), 0)
    plan(SHAPES)
    path = plan_cache.cache_file()
    assert path is not None
    _spoil(path, how)
    monkeypatch.setattr(plan_cache, "_store", None)
    counted = _Counted(monkeypatch)
    checks = plan(SHAPES)
    assert counted.parsed + counted.made > 0, "derived again"
    assert _rows(checks, 0) == expected
    # And written again, whole: the next process derives nothing.
    monkeypatch.setattr(plan_cache, "_store", None)
    again = _Counted(monkeypatch)
    plan(SHAPES)
    assert (again.parsed, again.made) == (0, 0)


def test_no_cache_writes_nothing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LDIDS_NO_CACHE", "1")
    plan(SHAPES)
    assert plan_cache.cache_file() is None
    assert not cache.exists()


def test_the_cache_is_where_the_settings_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LDIDS_NO_CACHE", raising=False)
    monkeypatch.delenv("LDIDS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert plan_cache.cache_file().parent == tmp_path / "xdg" / "ldids"  # type: ignore[union-attr]
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: absolute paths only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert plan_cache.cache_file().parent == tmp_path / "home" / ".cache" / "ldids"  # type: ignore[union-attr]
    monkeypatch.setenv("LDIDS_CACHE_DIR", str(tmp_path / "mine"))
    assert plan_cache.cache_file().parent == tmp_path / "mine"  # type: ignore[union-attr]


def test_a_cached_run_imports_no_sparql_parser(cache: Path) -> None:
    program = (
        "import sys\n"
        "from ldids.dumps.validation import _shipped_plan, _selection\n"
        "_selection(_shipped_plan())\n"
        "print(sorted(m for m in ('pyparsing', 'rdflib.plugins.sparql.parser') if m in sys.modules))\n"
    )
    env = {**os.environ, "LDIDS_CACHE_DIR": str(cache)}

    def imported() -> str:
        run = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True)
        return run.stdout.strip()

    assert imported() == "['pyparsing', 'rdflib.plugins.sparql.parser']"  # the first run derives
    assert imported() == "[]"


def _queries() -> list[str]:
    return sorted(str(text) for text in shapes_graph().objects(None, SH.select))


@pytest.mark.parametrize("text", _queries(), ids=lambda text: " ".join(text.split())[:50])
def test_the_plain_form_reads_back_equal(text: str) -> None:
    parsed = parse_query(text)
    plain = to_plain(parsed)
    assert from_plain(json.loads(json.dumps(plain))) == parsed
    assert to_plain(from_plain(plain)) == plain


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        (Variable("this"), ["var", "this"]),
        (URIRef("urn:x"), ["iri", "urn:x"]),
        (Literal("a"), ["lit", "a", None, None]),
        (Literal("a", lang="en"), ["lit", "a", "en", None]),
        (
            Literal("1", datatype=URIRef("http://www.w3.org/2001/XMLSchema#integer")),
            ["lit", "1", None, "http://www.w3.org/2001/XMLSchema#integer"],
        ),
        ("!=", "!="),
        (None, None),
        ([Variable("a"), (Variable("b"),)], ["list", [["var", "a"], ["tuple", [["var", "b"]]]]]),
        (Op("Builtin_STR", {"arg": Variable("v")}), ["op", "Builtin_STR", {"arg": ["var", "v"]}]),
    ],
)
def test_plain_forms(value: object, plain: object) -> None:
    assert to_plain(value) == plain
    assert from_plain(plain) == value


@pytest.mark.parametrize(
    "plain", [["var"], ["var", 1], ["lit", "a", 1, None], ["op", "X", []], ["x", "y"], [], 1, {"a": 1}]
)
def test_what_is_no_plain_form(plain: object) -> None:
    with pytest.raises(PlainError):
        from_plain(plain)


def test_an_operator_is_told_by_its_name() -> None:
    # rdflib's CompValue left the name out of equality: isIRI(?v) was isBLANK(?v).
    assert Op("Builtin_isIRI", {"arg": Variable("v")}) != Op("Builtin_isBLANK", {"arg": Variable("v")})
    assert Op("Builtin_STR", {"arg": Variable("v")}) == Op("Builtin_STR", {"arg": Variable("v")})
    # A missing operand reads as its name, as CompValue's does.
    assert Op("Builtin_REGEX")["flags"] == "flags"
    assert algebra.Op.__hash__ is None
