"""The compiled canonicalizers (ldids/schemes/_canonical.c) against the Python reference.

A compiled canonicalizer may answer ``Scheme.canonical`` for a text, or say None ("ask
Python"); it must never answer for a text Python rejects, nor answer otherwise than
Python. Generated terms of every kind check that (benchmarks/fuzz_canonical.py, whose
generator this runs at CI size); tables check that the fast path does fire for the forms
real data is full of, what it leaves to Python, and that ``LDIDS_PURE_PYTHON=1`` turns it
off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ldids.errors import ParseError
from ldids.schemes import handle, scheme
from ldids.schemes.registry import DEFAULT, Registry

ROOT = Path(__file__).resolve().parents[1]

# The test machines have a C compiler: a missing extension there is a build failure, not a
# reason to test less. A run under LDIDS_PURE_PYTHON tests the Python paths alone.
pytestmark = [
    pytest.mark.skipif(
        scheme._canonical is None and os.environ.get("LDIDS_ALLOW_NO_EXTENSION") == "1",
        reason="ldids.schemes._canonical not built (allowed by LDIDS_ALLOW_NO_EXTENSION=1)",
    ),
    pytest.mark.skipif(scheme.PURE_PYTHON, reason="LDIDS_PURE_PYTHON is set: the compiled path is off"),
]


@pytest.fixture(scope="module")
def fuzz(benchmark_module: Callable[[str], ModuleType]) -> ModuleType:
    """benchmarks/fuzz_canonical.py: the term generator and the law."""
    return benchmark_module("fuzz_canonical")


def test_the_extension_is_built_and_on() -> None:
    assert scheme._canonical is not None, "ldids.schemes._canonical was not built"
    for name in ("info-fedora", "oai", "poi", "handle"):
        assert DEFAULT[name].compiled is not None, name


# -- Generated terms -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compiled_answers_are_python_answers(fuzz: ModuleType, seed: int) -> None:
    """100,000 terms a seed: every compiled answer is None or Python's, and the compiled
    path answers for most of the valid terms of each scheme (it is no dead code)."""
    tally = fuzz.run(seed, 100_000)
    assert tally.failures == [], "\n".join(tally.failures[:20])
    for name in fuzz.COMPILED:
        # Python's valid terms that the compiled path leaves are non-ASCII, over-length,
        # UTF-8 in names and handles, or bare handles: a minority of what is generated.
        assert tally.valid[name] > 0.15 * tally.written[name], name
        assert tally.answered[name] > 0.8 * tally.valid[name], (name, tally.answered[name], tally.valid[name])


def test_one_character_mutations_of_common_forms(fuzz: ModuleType) -> None:
    tally = fuzz.sweep()
    assert tally.terms > 500_000
    assert tally.failures == [], "\n".join(tally.failures[:20])


def test_the_law_catches_a_wrong_answer(fuzz: ModuleType) -> None:
    """The checker itself: an answer for an invalid text, and a different answer, are caught."""
    reference = DEFAULT["oai"].reference()
    wrong = DEFAULT["oai"].reference()
    wrong.compiled = lambda text: text.upper()
    tally = fuzz.Tally()
    fuzz.check("oai:arXiv.org:hep-th/9901001", "oai", [("oai", wrong, reference)], tally)
    fuzz.check("OAI:arXiv.org:hep-th/9901001", "oai", [("oai", wrong, reference)], tally)
    assert len(tally.failures) == 2
    assert "Python raises ParseError" in tally.failures[1]


# -- Tables -----------------------------------------------------------------------------------

COMMON = [
    # The forms of benchmarks/dump.py, and their neighbours.
    ("info-fedora", "info:fedora/demo:5", "info:fedora/demo:5"),
    ("info-fedora", "INFO:FEDORA/demo:5", "info:fedora/demo:5"),
    ("info-fedora", "info:fedora/demo%3a21621", "info:fedora/demo:21621"),
    ("info-fedora", "INFO:FEDORA/demo:21621/DS%2d1", "info:fedora/demo:21621/DS-1"),
    ("info-fedora", "info:fedora/demo:1%7e/D%53", "info:fedora/demo:1%7E/DS"),
    ("info-fedora", "info:fedora/*/example:1/index", "info:fedora/*/example:1/index"),
    ("info-fedora", "INFO:FEDORA/demo%3a1/bdef:1/view?b=2&a=1", "info:fedora/demo:1/bdef:1/view?a=1&b=2"),
    ("info-fedora", "info:fedora/d:1/b:1/m?a=%2f&a&a=&%41=1", "info:fedora/d:1/b:1/m?A=1&a&a=&a=%2F"),
    ("info-fedora", "info:fedora/fedora-system:def/model#hasModel", "info:fedora/fedora-system:def/model#hasModel"),
    ("oai", "oai:arXiv.org:hep-th/9901001", "http://purl.org/poi/arXiv.org/hep-th/9901001"),
    ("oai", "oai:an.oai.org:ab%3Ccd:e", "http://purl.org/poi/an.oai.org/ab%3Ccd:e"),
    ("poi", "https://PURL.ORG/poi/arXiv.org/hep-th/9901001", "http://purl.org/poi/arXiv.org/hep-th/9901001"),
    ("poi", "HTTP://purl.org:0080/poi/a.b/c", "http://purl.org/poi/a.b/c"),
    ("poi", "https://purl.org:443/poi/a.b/c/d", "http://purl.org/poi/a.b/c/d"),
    ("poi", "http://purl.org/poi/example.org/item5", "http://purl.org/poi/example.org/item5"),
    ("handle", "http://hdl.handle.net/1765/9594", "hdl:1765/9594"),
    ("handle", "HTTPS://HDL.HANDLE.NET:443/1765/a%2Fb", "hdl:1765/a/b"),
    ("handle", "hdl:1765/9594", "hdl:1765/9594"),
    ("handle", "HDL:1765/caf%65", "hdl:1765/cafe"),
    ("handle", "hdl:100.102/612dd2726f5b4d7c9e0a3b1c2d3e4f50", "hdl:100.102/612DD2726F5B4D7C9E0A3B1C2D3E4F50"),
    (
        "handle",
        "hdl://100.102/f58fb49eb1f848f0a606e84cef294be5?q=%7e#f",
        "hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5?q=%7e#f",
    ),
    ("handle", "hdl:10.1000/a%20b%3a", "hdl:10.1000/a%20b:"),
]


@pytest.mark.parametrize(("name", "text", "iri"), COMMON)
def test_the_fast_path_fires_for_the_common_forms(
    name: str, text: str, iri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = DEFAULT[name]
    compiled = found.compiled
    assert compiled is not None
    assert compiled(text) == iri == found.reference().canonical(text) == found.full_canonical(text)
    # ...and Scheme.canonical, which every caller uses, takes it.
    answered: list[str | None] = []

    def spy(text: str) -> str | None:
        answered.append(compiled(text))
        return answered[-1]

    monkeypatch.setattr(found, "compiled", spy)
    assert DEFAULT.canonical(text) == iri
    assert answered == [iri]


LEFT_TO_PYTHON = [
    # Valid, but outside the compiled subset.
    ("info-fedora", "info:fedora/demo:1/Dé"),
    ("info-fedora", "info:fedora/demo:1/D%C3%A9"),
    ("info-fedora", "info:fedora/demo:1#é"),
    ("oai", "oai:arXiv.org:" + "a" * 1100),
    ("handle", "1765/315"),  # a bare handle
    ("handle", "hdl:1765/caf%C3%A9"),
    # Invalid: Python reports them.
    ("info-fedora", "info:fedora/demo:1?x=1"),
    ("info-fedora", "info:fedora/demo:1/bdef:1"),
    ("info-fedora", "info:fedora/*"),
    ("info-fedora", "info:fedora/demo:1/D%20S"),
    ("info-fedora", "info:fedora/demo:" + "1" * 60),
    ("info-fedora", "info:fedora/d:1/b:1/m?&a"),
    ("oai", "OAI:arXiv.org:hep-th/9901001"),
    ("oai", "oai:arXiv.org:ab%2fcd"),
    ("oai", "oai:arXiv.org:ab%2Fcd"),
    ("oai", "oai:1arXiv.org:x"),
    ("poi", "http://purl.org:443/poi/a.b/c"),
    ("poi", "http://purl.org/POI/a.b/c"),
    ("handle", "hdl:1765/1?%zz"),
    ("handle", "hdl:1765%2F1/2"),
    ("handle", "http://hdl.handle.net:8080/1765/1"),
    ("handle", "http://u@hdl.handle.net/1765/1"),
]


@pytest.mark.parametrize(("name", "text"), LEFT_TO_PYTHON)
def test_what_the_compiled_path_leaves_to_python(name: str, text: str) -> None:
    compiled = DEFAULT[name].compiled
    assert compiled is not None
    assert compiled(text) is None
    try:
        expected: str | None = DEFAULT[name].reference().canonical(text)
    except ParseError:
        expected = None
    # Either way Scheme.canonical gives Python's answer.
    if expected is None:
        with pytest.raises(ParseError):
            DEFAULT[name].canonical(text)
    else:
        assert DEFAULT[name].canonical(text) == expected


def test_a_str_subclass_is_left_to_python() -> None:
    """rdflib terms are str subclasses that compare unequal to str: their canonical IRIs
    are whatever type Python's code makes of them."""

    class Term(str):
        pass

    compiled = DEFAULT["info-fedora"].compiled
    assert compiled is not None
    assert compiled(Term("info:fedora/demo:1")) is None


def test_answers_leak_no_references() -> None:
    text = "info:fedora/demo:1"  # answered with itself
    changed = "INFO:FEDORA/demo:1"  # answered with a new str
    invalid = "info:fedora/demo:1?x"  # None
    compiled = DEFAULT["info-fedora"].compiled
    assert compiled is not None
    before = [sys.getrefcount(value) for value in (text, changed, invalid, None)]
    for _ in range(10_000):
        compiled(text)
        compiled(changed)
        compiled(invalid)
    after = [sys.getrefcount(value) for value in (text, changed, invalid, None)]
    assert after[:3] == before[:3]
    assert abs(after[3] - before[3]) < 100  # None is shared by the whole process


def test_declarations_are_checked() -> None:
    compiled_module = scheme._canonical
    assert compiled_module is not None
    with pytest.raises(ValueError, match="no compiled canonicalizer"):
        compiled_module.canonicalizer("toy", {})
    with pytest.raises(TypeError, match="missing declaration"):
        compiled_module.canonicalizer("oai", {"scheme": "oai"})
    declarations: dict[str, Any] = {
        "scheme": "oai",
        "poi_prefix": "http://purl.org/poi/",
        "label_start": "ab",
        "label": "ab",
        "reserved": ":",
        "unreserved": "a",
    }
    assert compiled_module.canonicalizer("oai", declarations)("oai:a.b:a") == "http://purl.org/poi/a.b/a"
    with pytest.raises(TypeError, match="unknown declarations"):
        compiled_module.canonicalizer("oai", {**declarations, "extra": "x"})
    with pytest.raises(TypeError, match="ASCII str"):
        compiled_module.canonicalizer("oai", {**declarations, "label": "é"})
    with pytest.raises(ValueError, match="poi_prefix"):
        compiled_module.canonicalizer("oai", {**declarations, "poi_prefix": "ftp://x/"})


# -- Only the default schemes, and only their default configuration ---------------------------


def test_other_resolvers_are_decided_in_python() -> None:
    more = Registry.build(resolvers=(*handle.DEFAULT_RESOLVERS, handle.Resolver("example.org:2641", "hdl")))
    assert more["handle"].compiled is None
    assert more.canonical("http://example.org:2641/hdl/1765/1") == "hdl:1765/1"
    none = Registry.build(resolvers=())
    assert none["handle"].compiled is None
    with pytest.raises(ParseError):
        none.canonical("http://hdl.handle.net/1765/1")
    # The default resolver written otherwise is the default set.
    assert Registry.build(resolvers=(handle.Resolver("HDL.handle.net:80"),))["handle"].compiled is not None


def test_a_scheme_of_ones_own_has_no_compiled_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "data"))
    registry = Registry.build(modules=("toy_scheme",))
    assert registry["toy"].compiled is None
    assert registry["fedora-pid"].compiled is None
    assert registry.canonical("TOY:c0ffee") == "https://toy.example/id/C0FFEE"


PROBE = """
import json
from ldids.schemes.registry import DEFAULT
forms = {forms!r}
print(json.dumps({{
    "compiled": {{name: DEFAULT[name].compiled is not None for name in DEFAULT.names}},
    "canonical": [DEFAULT.canonical(text) for _, text, _ in forms],
}}))
"""


def probe(pure: str | None) -> dict[str, Any]:
    environment = {key: value for key, value in os.environ.items() if key != "LDIDS_PURE_PYTHON"}
    if pure is not None:
        environment["LDIDS_PURE_PYTHON"] = pure
    done = subprocess.run(
        # -P: the installed package, not the source tree of the working directory (where, in
        # a clone installed without --editable, no extension is built).
        [sys.executable, "-P", "-c", PROBE.format(forms=COMMON)],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_ldids_pure_python_turns_the_compiled_path_off() -> None:
    on, off = probe(None), probe("1")
    assert on["compiled"] == {name: name in {"info-fedora", "oai", "poi", "handle"} for name in DEFAULT.names}
    assert off["compiled"] == dict.fromkeys(DEFAULT.names, False)
    assert on["canonical"] == off["canonical"] == [iri for _, _, iri in COMMON]
