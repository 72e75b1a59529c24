"""Detection precedence, the inspect contract (DESIGN.md §5), and one contract test run
over every registered scheme."""

from __future__ import annotations

import json
from typing import Any

import pytest

import ldids
from ldids.errors import ParseError
from ldids.schemes import handle
from ldids.schemes.registry import DEFAULT, PRECEDENCE, Registry, UnknownSchemeError


@pytest.mark.parametrize(
    ("text", "scheme", "bare_scheme"),
    [
        # Prefixed forms are found anywhere, bare or not.
        ("info:fedora/demo:1", "info-fedora", "info-fedora"),
        ("INFO:FEDORA/demo:1", "info-fedora", "info-fedora"),
        ("oai:arXiv.org:hep-th/9901001", "oai", "oai"),
        ("OAI:arXiv.org:x", "oai", "oai"),
        ("http://purl.org/poi/a.b/c", "poi", "poi"),
        ("https://PURL.org/poi/a.b/c", "poi", "poi"),
        ("hdl:1765/315", "handle", "handle"),
        ("hdl://100.102/F58FB49EB1F848F0A606E84CEF294BE5", "handle", "handle"),
        ("http://hdl.handle.net/1765/9", "handle", "handle"),
        # Bare forms only when asked about one string (DESIGN §2).
        ("demo:1", None, "fedora-pid"),
        ("demo%3A1", None, "fedora-pid"),
        ("100.102/F58FB49EB1F848F0A606E84CEF294BE5", None, "handle"),
        # Not claimed at all: generic bare handles, other URIs, plain words.
        ("1765/315", None, None),
        ("http://example.org/a:b", None, None),
        ("http://purl.org/other/a.b/c", None, None),
        # A URI scheme is never a PID namespace; another scheme's identifier percent-encoded
        # (as an OAI-PMH request carries it) is never a PID (DESIGN §2).
        ("urn:nbn:de:1", None, None),
        ("urn:isbn:0451450523", None, None),
        ("doi:10.1000/182", None, None),
        ("http:__example.org", None, None),
        ("oai%3Aarxiv.org%3Ahep-th%2F9901001", None, None),
        ("hdl%3A1765%2F315", None, None),
        ("info%3Afedora%2Fdemo%3A1", None, None),
        # Namespaces that are no URI scheme stay PIDs when asked about one string.
        ("catkey:123", None, "fedora-pid"),
        ("uuid:5035a48a-5e2e-486c-8127-2fa650842e46", None, "fedora-pid"),
        ("hello", None, None),
        ("", None, None),
        # Schemes and hosts are case-insensitive in ASCII only (RFC 3986 §3.1, §3.2.2):
        # dotless i, long s and KELVIN SIGN are not i, s and k.
        ("\u0131nfo:fedora/demo:1", None, None),
        ("oa\u0131:a.b:c", None, None),
        ("http\u017f://purl.org/poi/a.b/c", None, None),
        ("http://hdl.handle.ne\u0131/1765/9", None, None),
    ],
)
def test_detection(text: str, scheme: str | None, bare_scheme: str | None) -> None:
    assert ldids.detect(text, bare=False) == scheme
    assert ldids.detect(text) == bare_scheme


def test_a_resolver_host_matches_in_ascii_case_only() -> None:
    registry = Registry.build([handle.Resolver("kb.example.org")])
    assert registry["handle"].canonical("http://KB.example.org/1/2") == "hdl:1/2"
    # KELVIN SIGN lower-cases to "k" in Unicode, not in the RFC 3986 sense.
    with pytest.raises(ParseError):
        registry["handle"].parse("http://\u212ab.example.org/1/2")


CLAIM_SAMPLES = [
    "info:fedora/demo:1",
    "oai:a.b:c",
    "http://purl.org/poi/a.b/c",
    "hdl:1/2",
    "http://hdl.handle.net/1/2",
    "demo:1",
    "oai:1",
    "hdl:x",
    "info:1",
    "poi:a",
]


@pytest.mark.parametrize("text", CLAIM_SAMPLES)
def test_no_form_is_claimed_by_two_prefixed_schemes(text: str) -> None:
    claimed = [scheme.name for scheme in DEFAULT.schemes if scheme.claims(text)]
    assert len(claimed) <= 1, claimed


def test_precedence_table_orders_the_registry() -> None:
    assert DEFAULT.names == PRECEDENCE


def test_unknown_scheme_name() -> None:
    with pytest.raises(UnknownSchemeError, match="unknown scheme 'doi'"):
        DEFAULT["doi"]


# -- One contract, every scheme ----------------------------------------------------------

# One valid, not-yet-normalized text per scheme, with its normal form and canonical IRI.
CONTRACT = {
    "fedora-pid": ("demo%3a1%7e", "demo:1%7E", "info:fedora/demo:1%7E"),
    "info-fedora": ("INFO:FEDORA/demo%3a1/DS1", "info:fedora/demo:1/DS1", "info:fedora/demo:1/DS1"),
    "oai": (
        "oai:arXiv.org:hep-th/9901001",
        "oai:arXiv.org:hep-th/9901001",
        "http://purl.org/poi/arXiv.org/hep-th/9901001",
    ),
    "poi": ("HTTPS://purl.org/poi/arXiv.org/x", "http://purl.org/poi/arXiv.org/x", "http://purl.org/poi/arXiv.org/x"),
    "handle": (
        "HDL:100.102/f58fb49eb1f848f0a606e84cef294be5",
        "hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5",
        "hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5",
    ),
}
INVALID = {
    "fedora-pid": "demo:",
    "info-fedora": "info:fedora/*",
    "oai": "oai:wibble:1",
    "poi": "http://purl.org/poi/wibble/1",
    "handle": "hdl:1765",
}


def test_contract_covers_every_registered_scheme() -> None:
    assert set(CONTRACT) == set(DEFAULT.names) == set(INVALID)


@pytest.mark.parametrize("name", PRECEDENCE)
def test_scheme_contract(name: str) -> None:
    scheme = DEFAULT[name]
    text, normalized, iri = CONTRACT[name]
    assert scheme.check(text) == []
    value = scheme.parse(text)
    assert str(value) == normalized == scheme.normalize(text)
    assert scheme.to_iri(value) == iri == scheme.canonical(text) == scheme.canonical(normalized)
    assert scheme.normalize(normalized) == normalized
    assert scheme.parse(normalized) == value
    assert iri not in scheme.equivalents(value)
    assert scheme.is_normalized(normalized) or "%" in normalized or name == "oai"
    assert not scheme.is_normalized(INVALID[name])

    bad = INVALID[name]
    problems = scheme.check(bad)
    assert problems
    assert all(p.code.startswith(name) or p.code.startswith("pid") for p in problems)
    assert all(0 <= p.start <= p.end <= len(bad) for p in problems)
    with pytest.raises(ParseError) as caught:
        scheme.parse(bad)
    assert caught.value.problems == tuple(problems)
    assert isinstance(caught.value, ValueError)


# -- The inspect contract ----------------------------------------------------------------

KEYS = ["input", "valid", "scheme", "profile", "normalized", "canonical", "equivalents", "problems"]


def test_inspect_json_for_a_valid_oai_identifier() -> None:
    got = ldids.inspect("oai:arXiv.org:hep-th/9901001").to_json()
    assert list(got) == KEYS
    assert got == {
        "input": "oai:arXiv.org:hep-th/9901001",
        "valid": True,
        "scheme": "oai",
        "profile": None,
        "normalized": "oai:arXiv.org:hep-th/9901001",
        "canonical": "http://purl.org/poi/arXiv.org/hep-th/9901001",
        "equivalents": ["oai:arXiv.org:hep-th/9901001"],
        "problems": [],
    }


def test_inspect_json_for_an_invalid_identifier() -> None:
    got: dict[str, Any] = json.loads(json.dumps(ldids.inspect("oai:wibble.org:ab%3ccd").to_json()))
    assert got["valid"] is False
    assert got["scheme"] == "oai"
    assert got["normalized"] is got["canonical"] is None
    assert got["equivalents"] == []
    [problem] = got["problems"]
    assert (problem["code"], problem["start"], problem["end"]) == ("oai.lowercase-hex", 17, 20)
    assert problem["message"]


def test_inspect_cordra_profile_and_unrecognized() -> None:
    cordra = ldids.inspect("hdl:100.102/f58fb49eb1f848f0a606e84cef294be5")
    assert (cordra.profile, cordra.valid) == ("cordra", True)
    unknown = ldids.inspect("hello world").to_json()
    assert unknown["scheme"] is None
    assert unknown["valid"] is False
    assert unknown["problems"][0]["code"] == "unrecognized"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("urn:isbn:0451450523", "'urn' is a URI scheme"),
        ("doi:10.1000/182", "'doi' is a URI scheme"),
        ("http:__example.org", "'http' is a URI scheme"),
        ("oai%3Aarxiv.org%3Ahep-th%2F9901001", "percent-encoded"),
        ("hello world", ""),
    ],
)
def test_inspect_knows_what_it_does_not_know(text: str, why: str) -> None:
    """DESIGN §5: no scheme recognizes these; they are not invalid Fedora PIDs."""
    found = ldids.inspect(text).to_json()
    assert (found["scheme"], found["valid"], found["normalized"], found["canonical"]) == (None, False, None, None)
    [problem] = found["problems"]
    assert (problem["code"], problem["start"], problem["end"]) == ("unrecognized", 0, len(text))
    # The message names every scheme tried, says why where it can, and never offers a rewrite.
    assert "info-fedora, oai, poi, handle, fedora-pid" in problem["message"]
    assert why in problem["message"]
    assert "info:fedora/" not in problem["message"]


def test_inspect_with_an_explicit_scheme() -> None:
    # Detected as a bare PID, but asked about as an oai-identifier.
    result = ldids.inspect("something:arXiv.org:hep-th/9901001", "oai")
    assert (result.scheme, result.problems[0].code) == ("oai", "oai.scheme")


def test_registry_with_more_resolvers() -> None:
    registry = Registry.build((*handle.DEFAULT_RESOLVERS, handle.Resolver("hld.handle.net")))
    text = "http://hld.handle.net/100.102/F58FB49EB1F848F0A606E84CEF294BE5"
    assert ldids.detect(text) is None
    assert ldids.canonical(text, registry=registry) == "hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5"


def test_top_level_functions() -> None:
    assert ldids.normalize("demo%3a1") == "demo:1"
    assert ldids.canonical("demo%3a1") == "info:fedora/demo:1"
    assert str(ldids.parse("oai:a.b:c")) == "oai:a.b:c"
    assert ldids.check("oai:a.b:c") == []
    assert [p.code for p in ldids.check("nothing")] == ["unrecognized"]
    with pytest.raises(ParseError) as caught:
        ldids.canonical("nothing")
    assert caught.value.code == "unrecognized"
