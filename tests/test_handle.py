"""Handles and CORDRA identifiers: every URI encoding in the two CORDRA texts, generic
handles from real data, resolvers and minting."""

from __future__ import annotations

import uuid

import pytest

from ldids.errors import ParseError
from ldids.schemes import handle
from ldids.schemes.registry import DEFAULT

GUID = "F58FB49EB1F848f0A606E84CEF294BE5"  # as the spec writes it: one lower-case 'f'
GUID_UPPER = "F58FB49EB1F848F0A606E84CEF294BE5"

# The spec's two example resolvers (sic: "hld.handle.net" is the text's own spelling).
SPEC_RESOLVERS = (
    *handle.DEFAULT_RESOLVERS,
    handle.Resolver("hld.handle.net"),
    handle.Resolver("arrow.resolver.au.gov:2641", "hdl"),
)
SPEC = handle.make_scheme(SPEC_RESOLVERS)


@pytest.mark.parametrize(
    ("text", "normalized", "form"),
    [
        # "Encoding CORDRA Identifiers in URI Syntax": host, path and both HTTP encodings.
        (f"hdl://100.102/{GUID}", f"hdl://100.102/{GUID_UPPER}", "host"),
        (f"hdl:100.102/{GUID}", f"hdl:100.102/{GUID_UPPER}", "path"),
        (f"http://hld.handle.net/100.102/{GUID}", f"http://hld.handle.net/100.102/{GUID_UPPER}", "http"),
        (
            f"http://arrow.resolver.au.gov:2641/hdl/100.102/{GUID}",
            f"http://arrow.resolver.au.gov:2641/hdl/100.102/{GUID_UPPER}",
            "http",
        ),
        # "The URI scheme SHALL be case insensitive."
        (f"HDL:100.102/{GUID}", f"hdl:100.102/{GUID_UPPER}", "path"),
        (f"Hdl://100.102/{GUID}", f"hdl://100.102/{GUID_UPPER}", "host"),
        # The spec documents' own CORDRA ids ("CORDRA ID: H [2000.01/...]"), as URIs.
        ("hdl:2000.01/F58FB49EB1F848F0A606E84CEF294BE5", "hdl:2000.01/F58FB49EB1F848F0A606E84CEF294BE5", "path"),
        ("hdl:2000.01/f58fb49eb1f848f0a606e84cef294be5", "hdl:2000.01/F58FB49EB1F848F0A606E84CEF294BE5", "path"),
        # Optional query and fragment, kept byte for byte.
        (f"hdl:100.102/{GUID}?Version=2&x=%2f#Part%3a1", f"hdl:100.102/{GUID_UPPER}?Version=2&x=%2f#Part%3a1", "path"),
        (f"hdl:100.102/{GUID}#frag", f"hdl:100.102/{GUID_UPPER}#frag", "path"),
        # Resolver scheme and host are case-insensitive; the default port is dropped.
        (f"HTTPS://HDL.Handle.Net:443/100.102/{GUID}", f"https://hdl.handle.net/100.102/{GUID_UPPER}", "http"),
    ],
)
def test_cordra_encodings(text: str, normalized: str, form: str) -> None:
    value = SPEC.parse(text)
    assert str(value) == normalized
    assert value.form == form
    assert value.profile == "cordra"
    tail = normalized[normalized.index(GUID_UPPER) + 32 :]
    assert value.iri == f"hdl:{value.naming_authority}/{GUID_UPPER}{tail}"
    assert value.iri.startswith("hdl:100.102/") or value.iri.startswith("hdl:2000.01/")
    assert SPEC.normalize(normalized) == normalized


@pytest.mark.parametrize(
    "text",
    [
        # The spec documents' own CORDRA ids ("CORDRA ID: H [2000.01/...]"), as URIs.
        "hdl:2000.01/EEF4DF17361A42E2B975E554663B70C3",
        "hdl:2000.01/F4FBE5D290194191AAD3A1EFE79D6C5A",
        "hdl:2000.01/FFEE9F72B00C4189B137ECD34188B94E",
        "hdl:2000.01/A3D8BE7457C943FFB66ED4583059A8BA",
    ],
)
def test_the_specs_own_ids(text: str) -> None:
    value = handle.parse(text)
    assert (value.profile, str(value), value.iri) == ("cordra", text, text)


def test_all_cordra_encodings_share_one_canonical_iri() -> None:
    forms = [
        f"hdl://100.102/{GUID}",
        f"hdl:100.102/{GUID}",
        f"http://hld.handle.net/100.102/{GUID}",
        f"http://arrow.resolver.au.gov:2641/hdl/100.102/{GUID}",
        f"https://hdl.handle.net/100.102/{GUID.lower()}",
    ]
    assert {SPEC.canonical(text) for text in forms} == {f"hdl:100.102/{GUID_UPPER}"}


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # Real data (pyoai's DSpace responses): generic handles, not CORDRA, case kept.
        ("hdl:1765/315", "hdl:1765/315"),
        ("http://hdl.handle.net/1765/9", "hdl:1765/9"),
        ("https://hdl.handle.net/1765/9", "hdl:1765/9"),
        # Other generic handles keep their case: DOIs, UUIDs with hyphens, short hex.
        ("hdl:10.1000/ABC.def", "hdl:10.1000/ABC.def"),
        (
            "hdl:20.500.12345/f58fb49e-b1f8-48f0-a606-e84cef294be5",
            "hdl:20.500.12345/f58fb49e-b1f8-48f0-a606-e84cef294be5",
        ),
        ("hdl:100.102/abcdef", "hdl:100.102/abcdef"),
        # A 32-hex local name under a non-numeric naming authority is no CORDRA id.
        ("hdl:0.NA/f58fb49eb1f848f0a606e84cef294be5", "hdl:0.NA/f58fb49eb1f848f0a606e84cef294be5"),
        # Resolver URLs are percent-decoded; written back into a URI, needless escapes go.
        ("http://hdl.handle.net/1765/%41bc", "hdl:1765/Abc"),
        ("http://hdl.handle.net/10.1000/a%2Fb", "hdl:10.1000/a/b"),
        ("hdl:1765/café", "hdl:1765/caf%C3%A9"),
        ("hdl:1765/caf%c3%a9", "hdl:1765/caf%C3%A9"),
        ("hdl:1765/a%3Fb", "hdl:1765/a%3Fb"),
        ("hdl:1765/a/b/c", "hdl:1765/a/b/c"),
        # A resolver path that decodes to '#', ' ', '?', '%', '"' or '<': each is escaped
        # again in the IRI, never read as a delimiter there.
        ("https://hdl.handle.net/1765/a%23b%20c%3f%25%22%3C", "hdl:1765/a%23b%20c%3F%25%22%3C"),
        # ... while the URL's own query and fragment stay query and fragment.
        ("http://hdl.handle.net/1765/a%23b?q=1#frag", "hdl:1765/a%23b?q=1#frag"),
        # Raw IRI characters in a query or fragment are kept as written.
        ("hdl:1765/9?é=\ue000#é", "hdl:1765/9?é=\ue000#é"),
    ],
)
def test_generic_handles(text: str, canonical: str) -> None:
    value = handle.parse(text)
    assert value.profile is None
    assert value.iri == canonical
    assert handle.SCHEME.canonical(text) == canonical


def test_equivalents_are_the_other_uri_encodings() -> None:
    value = handle.parse("hdl:1765/315")
    assert handle.SCHEME.equivalents(value) == (
        "hdl://1765/315",
        "https://hdl.handle.net/1765/315",
        "http://hdl.handle.net/1765/315",
    )
    with_arrow = SPEC.equivalents(SPEC.parse(f"hdl:100.102/{GUID}"))
    assert f"http://arrow.resolver.au.gov:2641/hdl/100.102/{GUID_UPPER}" in with_arrow
    assert f"hdl:100.102/{GUID_UPPER}" not in with_arrow


def test_bare_handles_parse_when_asked_for_by_name() -> None:
    value = handle.parse("2000.01/eef4df17361a42e2b975e554663b70c3")
    assert (value.form, value.profile, str(value)) == ("bare", "cordra", "2000.01/EEF4DF17361A42E2B975E554663B70C3")
    assert handle.parse("1765/315").iri == "hdl:1765/315"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2000.01/EEF4DF17361A42E2B975E554663B70C3", True),
        ("100.102/f58fb49eb1f848f0a606e84cef294be5?x#y", True),
        ("1765/315", False),
        ("1/2", False),
        ("100.102/F58FB49EB1F848F0A606E84CEF294BE", False),
        ("100.102/F58FB49EB1F848F0A606E84CEF294BE55", False),
        ("a.102/F58FB49EB1F848F0A606E84CEF294BE5", False),
    ],
)
def test_bare_cordra_claim(text: str, expected: bool) -> None:
    assert handle.claims_bare_cordra(text) is expected


@pytest.mark.parametrize(
    ("text", "code", "span"),
    [
        ("hdl:1765", "handle.missing-local-name", (4, 8)),
        ("hdl:/315", "handle.empty-naming-authority", (4, 5)),
        ("hdl:1765/", "handle.empty-local-name", (8, 9)),
        ("hdl:1765/a b", "handle.invalid-character", (10, 11)),
        ("hdl:1765/a<b", "handle.invalid-character", (10, 11)),
        ("hdl:1765/%zz", "handle.bad-escape", (9, 12)),
        ("hdl:1765/%C3", "handle.bad-utf8", (9, 12)),
        # The escapes that are no UTF-8, not the whole component.
        ("hdl:1765/abcdef%e9", "handle.bad-utf8", (15, 18)),
        ("hdl:1765/a%C3%28b", "handle.bad-utf8", (10, 13)),
        # What the escapes spell is the handle, printable text as a bare one must be
        # (UCS-2 printable characters: CORDRA identifiers in URI syntax).
        ("hdl:1765/a%0Ab", "handle.invalid-character", (10, 13)),
        ("hdl:17%0A65/1", "handle.invalid-character", (6, 9)),
        ("https://hdl.handle.net/1765/a%00b", "handle.invalid-character", (29, 32)),
        ("hdl:1765/a%7F", "handle.invalid-character", (10, 13)),
        ("hdl:1765/a%C2%85", "handle.invalid-character", (10, 16)),
        ("hdl:17%2F65/1", "handle.naming-authority-character", (4, 11)),
        ("hdl:1765/1?a b", "handle.invalid-character", (12, 13)),
        ("http://example.org/1765/1", "handle.unknown-resolver", (7, 18)),
        ("doi:10.1000/1", "handle.scheme", (0, 3)),
        # Query and fragment are kept as written, so they must be an RFC 3987 iquery and
        # ifragment: no bad escape, no '[' ']', no second '#', no noncharacter, and a
        # private-use character in a query only.
        ("hdl:1765/1?%zz", "handle.bad-escape", (11, 14)),
        ("hdl:1765/1#50%", "handle.bad-escape", (13, 14)),
        ("hdl:1765/1?a[b", "handle.invalid-character", (12, 13)),
        ("hdl:1765/1#a#b", "handle.invalid-character", (12, 13)),
        ("hdl:1765/1?\ufffe", "handle.invalid-character", (11, 12)),
        ("hdl:1765/1#\ue000", "handle.invalid-character", (11, 12)),
        (f"https://hdl.handle.net/100.102/{GUID}?%", "handle.bad-escape", (64, 65)),
        # A bare CORDRA id has a URI query ("CORDRA Identifiers as Handles"): the same rules.
        (f"100.102/{GUID}?a b", "handle.invalid-character", (42, 43)),
    ],
)
def test_invalid(text: str, code: str, span: tuple[int, int]) -> None:
    problems = handle.check(text)
    assert problems
    assert (problems[0].code, (problems[0].start, problems[0].end)) == (code, span)
    # Not on the shortcut either: an invalid identifier is never rewritten.
    with pytest.raises(ParseError):
        handle.SCHEME.canonical(text)


def test_resolver_segment_is_required_when_configured() -> None:
    problems = SPEC.check(f"http://arrow.resolver.au.gov:2641/100.102/{GUID}")
    assert [p.code for p in problems] == ["handle.resolver-segment"]


def test_only_configured_resolvers_are_claimed() -> None:
    assert handle.SCHEME.claims("http://hdl.handle.net/1765/9")
    assert handle.SCHEME.claims("HTTPS://HDL.HANDLE.NET:443/1765/9")
    assert not handle.SCHEME.claims(f"http://hld.handle.net/100.102/{GUID}")
    assert SPEC.claims(f"http://hld.handle.net/100.102/{GUID}")
    assert not handle.SCHEME.claims("http://hdl.handle.net.evil.org/1765/9")


def test_mint_from_a_given_uuid() -> None:
    value = handle.mint("100.102", uuid.UUID("f58fb49e-b1f8-48f0-a606-e84cef294be5"))
    assert str(value) == f"hdl:100.102/{GUID_UPPER}"
    assert value.profile == "cordra"


def test_mint_random_identifiers_are_distinct_cordra_ids() -> None:
    minted = {str(handle.mint("2000.01")) for _ in range(50)}
    assert len(minted) == 50
    for text in minted:
        value = handle.parse(text)
        assert value.profile == "cordra"
        assert value.local_name == value.local_name.upper()
        assert uuid.UUID(value.local_name).variant == uuid.RFC_4122


@pytest.mark.parametrize("authority", ["", "100.", "a.1", "100/102", "100..102"])
def test_mint_refuses_non_cordra_naming_authorities(authority: str) -> None:
    with pytest.raises(ParseError) as caught:
        handle.mint(authority)
    assert caught.value.code == "handle.cordra-naming-authority"


def test_mint_refuses_non_dce_uuids() -> None:
    microsoft = uuid.UUID("f58fb49e-b1f8-48f0-c606-e84cef294be5")  # variant bits 110
    with pytest.raises(ParseError) as caught:
        handle.mint("100.102", microsoft)
    assert caught.value.code == "handle.uuid-variant"


@pytest.mark.parametrize(
    ("text", "literal", "iri"),
    [
        # A bare handle is not a URI: '%' is an ordinary character of the handle (RFC 3650).
        ("1765/a%20b", "1765/a%20b", "hdl:1765/a%2520b"),
        ("1765/café", "1765/café", "hdl:1765/caf%C3%A9"),
        # Found by benchmarks/fuzz_core.py: decoding here once broke idempotence.
        ("i%3afo:fedora/*/example:1/index", "i%3afo:fedora/*/example:1/index", "hdl:i%253afo:fedora/*/example:1/index"),
        # '#' and '?' are characters of a bare generic handle too, not URI delimiters: the
        # IRI escapes them, as it does ' ', '"' and '<' ("Encoding CORDRA Identifiers in
        # URI Syntax": the handle is UTF-8, written into a URI segment).
        ("1765/a#b", "1765/a#b", "hdl:1765/a%23b"),
        ("1765/a?b#c", "1765/a?b#c", "hdl:1765/a%3Fb%23c"),
        ('1765/a b"<c>', '1765/a b"<c>', "hdl:1765/a%20b%22%3Cc%3E"),
        ("1765/100%", "1765/100%", "hdl:1765/100%25"),
        ("1765/#", "1765/#", "hdl:1765/%23"),
        ("a#b/c", "a#b/c", "hdl:a%23b/c"),
        # CORDRA-shaped but for the naming authority: a generic handle.
        (f"1x/{GUID}#f", f"1x/{GUID}#f", f"hdl:1x/{GUID}%23f"),
    ],
)
def test_bare_handles_are_literal(text: str, literal: str, iri: str) -> None:
    value = handle.parse(text)
    assert (value.form, value.handle, value.iri) == ("bare", literal, iri)
    assert (value.query, value.fragment) == (None, None)
    assert DEFAULT.canonical(text, "handle") == iri
    assert handle.normalize(handle.normalize(text)) == handle.normalize(text) == literal
    assert handle.parse(iri).handle == literal


def test_a_bare_cordra_id_has_a_query_and_a_fragment() -> None:
    # "CORDRA Identifiers as Handles": localname = path [ "?" query ] [ "#" fragment ], and
    # the path encoding writes them as the URI's query and fragment.
    value = handle.parse(f"100.102/{GUID.lower()}?v=2#f")
    assert (value.form, value.profile, value.handle) == ("bare", "cordra", f"100.102/{GUID_UPPER}")
    assert (value.query, value.fragment) == ("v=2", "f")
    assert DEFAULT.canonical(f"100.102/{GUID.lower()}?v=2#f", "handle") == f"hdl:100.102/{GUID_UPPER}?v=2#f"


def test_bare_handles_must_be_printable() -> None:
    assert [p.code for p in handle.check("1765/a\x17b")] == ["handle.invalid-character"]
