"""The laws, as property tests (Hypothesis):

- normalizing twice equals normalizing once;
- canonical IRI -> parse -> the same identifier;
- POI <-> oai-identifier round trip;
- no input raises anything but ldids' own error type.
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldids
from ldids.errors import ParseError
from ldids.schemes import handle, info_fedora, oai, pid, poi
from ldids.schemes._chars import RFC3986_UNRESERVED, percent_encode
from ldids.schemes.registry import DEFAULT

settings.register_profile("default", max_examples=300, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

HEX = "0123456789abcdefABCDEF"


def escape(ch: str) -> st.SearchStrategy[str]:
    """One character as itself or as a %hh escape in random hex case."""
    octets = ch.encode()
    return st.sampled_from([str.upper, str.lower]).map(lambda case: "".join("%" + case(f"{b:02x}") for b in octets))


namespace_ids = st.text(string.ascii_letters + string.digits + "-.", min_size=1, max_size=12)
object_ids = st.lists(
    st.one_of(
        st.sampled_from(string.ascii_letters + string.digits + "-.~_"),
        st.tuples(st.sampled_from(HEX), st.sampled_from(HEX)).map(lambda t: "%" + "".join(t)),
    ),
    min_size=1,
    max_size=15,  # namespace 12 + separator 3 + 15 escapes of 3 = 60: within the 64 limit
).map("".join)
separators = st.sampled_from([":", "%3A", "%3a"])
pids = st.builds(lambda n, s, o: n + s + o, namespace_ids, separators, object_ids)

ncname_chars = st.sampled_from([*list(string.ascii_letters + string.digits + "-._"), "é", "中", "·", "𐀀"])
ncnames = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from([*list(string.ascii_letters + "_"), "é"]),
    st.text(ncname_chars, max_size=10),
).flatmap(lambda name: st.tuples(*[st.one_of(st.just(ch), escape(ch)) for ch in name]).map("".join))
parameter_text = st.text(string.ascii_letters + string.digits + "%-._~", max_size=5).filter(
    lambda t: "%" not in t
) | st.just("%C3%A9")
parameters = st.lists(st.tuples(st.text(string.ascii_letters, min_size=1, max_size=3), parameter_text), max_size=4).map(
    lambda pairs: "?" + "&".join(f"{k}={v}" for k, v in pairs) if pairs else ""
)
# A fragment is kept verbatim, so it must be one: a '%' in it starts an escape (RFC 3987 §2.2).
fragments = st.one_of(
    st.just(""),
    st.lists(st.sampled_from([*string.ascii_letters, "/", "-", "%2f", "%3A"]), max_size=8).map(
        lambda parts: "#" + "".join(parts)
    ),
)
info_prefixes = st.sampled_from(["info:fedora/", "INFO:FEDORA/", "Info:Fedora/"])
info_uris = st.one_of(
    st.builds(lambda p, pid_, f: p + pid_ + f, info_prefixes, pids, fragments),
    st.builds(lambda p, pid_, ds, f: p + pid_ + "/" + ds + f, info_prefixes, pids | st.just("*"), ncnames, fragments),
    st.builds(
        lambda p, pid_, bdef, m, q, f: f"{p}{pid_}/{bdef}/{m}{q}{f}",
        info_prefixes,
        pids | st.just("*"),
        pids,
        ncnames,
        parameters,
        fragments,
    ),
)

labels = st.builds(
    lambda a, b: a + b,
    st.sampled_from(string.ascii_letters),
    st.text(string.ascii_letters + string.digits + "-", max_size=6),
)
domains = st.lists(labels, min_size=2, max_size=4).map(".".join)
oai_ids = st.builds(oai.from_internal, domains, st.text(min_size=1, max_size=20))
pois = oai_ids.map(lambda value: str(poi.from_oai(value)))

handle_prefixes = st.sampled_from(["hdl:", "HDL:", "hdl://", "http://hdl.handle.net/", "HTTPS://HDL.HANDLE.NET:443/"])
naming_authorities = st.lists(st.integers(0, 99999).map(str), min_size=1, max_size=3).map(".".join)
cordra_locals = st.text(HEX, min_size=32, max_size=32)
# A handle is printable text (UCS-2 printable characters: CORDRA identifiers in URI syntax).
generic_locals = (
    st.text(min_size=1, max_size=15).filter(str.isprintable).map(lambda t: percent_encode(t, RFC3986_UNRESERVED))
)
handles = st.builds(
    lambda prefix, na, local, q, f: f"{prefix}{na}/{local}{q}{f}",
    handle_prefixes,
    naming_authorities,
    cordra_locals | generic_locals,
    st.sampled_from(["", "?x=1", "?A=%2f"]),
    st.sampled_from(["", "#f", "#Frag%3a"]),
)

# A bare text whose namespace is a URI scheme (FILE:a) or that is another scheme's identifier
# percent-encoded is no PID in any context (DESIGN.md §2, tests/test_policy*.py), and one whose
# namespace is a claimed prefix in any case (OAI:a, HDL:a: URI schemes compare
# case-insensitively, RFC 3986 §3.1) is that scheme's, here an invalid one: the laws are about
# identifiers.
bare_pids = pids.filter(lambda text: DEFAULT.foreign(text) is None and DEFAULT.detect(text) is DEFAULT["fedora-pid"])
identifiers = st.one_of(bare_pids, info_uris, oai_ids.map(str), pois, handles)


@given(identifiers)
def test_normalizing_twice_equals_normalizing_once(text: str) -> None:
    once = ldids.normalize(text)
    assert ldids.normalize(once) == once
    assert ldids.canonical(once) == ldids.canonical(text)
    # The fast path and the full scan agree.
    scheme = DEFAULT.detect(text)
    assert scheme is not None
    assert str(scheme.parse(once)) == once


@given(identifiers)
def test_canonical_iri_parses_to_the_same_identifier(text: str) -> None:
    iri = ldids.canonical(text)
    assert ldids.canonical(iri) == iri
    assert ldids.normalize(iri) == iri  # the canonical IRI is in normal form in its own syntax
    value = ldids.parse(text)
    again = ldids.parse(iri)
    if isinstance(value, pid.Pid):
        assert isinstance(again, info_fedora.InfoFedora)
        assert again.pid == value
        assert again.is_object
    elif isinstance(value, oai.OaiIdentifier):
        assert isinstance(again, poi.Poi)
        assert again.to_oai() == value
    elif isinstance(value, handle.Handle):
        assert isinstance(again, handle.Handle)
        assert (again.handle, again.query, again.fragment, again.profile) == (
            value.handle,
            value.query,
            value.fragment,
            value.profile,
        )
    else:
        assert again == value


@given(oai_ids)
def test_oai_poi_round_trip(value: oai.OaiIdentifier) -> None:
    purl = poi.from_oai(value)
    assert poi.to_oai(purl) == value
    assert poi.from_oai(poi.to_oai(str(purl))) == purl
    assert oai.parse(str(value)).iri == str(purl)


@given(domains, st.text(max_size=30))
def test_escaping_internal_identifiers_round_trips(domain: str, internal: str) -> None:
    try:
        internal.encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates are not text an internal identifier can hold
    if not internal:
        return
    value = oai.from_internal(domain, internal)
    assert oai.unescape_local(value.local) == internal
    assert oai.decode_request_argument(oai.request_argument(value)) == value


@given(st.text(max_size=80))
def test_arbitrary_text_raises_only_our_errors(text: str) -> None:
    for name in DEFAULT.names:
        scheme = DEFAULT[name]
        problems = scheme.check(text)
        assert all(0 <= p.start <= p.end <= len(text) for p in problems)
        try:
            value = scheme.parse(text)
        except ParseError as error:
            # Both outcomes are legal here; the law is about which error and what it says.
            assert error.problems == tuple(problems)  # noqa: PT017
        else:
            assert problems == []
            assert scheme.normalize(scheme.normalize(text)) == scheme.normalize(text) == str(value)
    result = ldids.inspect(text)
    assert result.valid == (not result.problems and result.scheme is not None)


mutations = st.builds(
    lambda text, at, insert: text[:at] + insert + text[at:],
    identifiers,
    st.integers(0, 60),
    st.text(max_size=3) | st.sampled_from(["%", "%z", "%3", ":", "/", "#", "?", "%C3", " "]),
)


@given(mutations)
def test_damaged_identifiers_raise_only_our_errors(text: str) -> None:
    try:
        once = ldids.normalize(text)
    except ParseError:
        return
    assert ldids.normalize(once) == once


# -- Shortcuts agree with the full scan --------------------------------------------------------


def any_case(text: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(text), max_size=len(text)).map(
        lambda flips: "".join(ch.upper() if flip else ch for ch, flip in zip(text, flips, strict=True))
    )


# Tails mix what the repairs must not be fooled by: separators, escapes in any case and
# validity, path/query/fragment delimiters, look-alike and non-ASCII characters.
tails = st.lists(
    st.sampled_from(
        [
            *"aZ09.-_~:/?#=&*%",
            *("%3a", "%3A", "%2d", "%2D", "%2e", "%41", "%5f", "%5F", "%7e", "%2F", "%30", "%25", "%C3%A9", "%zz"),
            *("é", "\u0131", " ", "DS1", "bdef:1/view"),
        ]
    ),
    max_size=8,
).map("".join)
hexes = st.text("0123456789abcdefABCDEF", min_size=30, max_size=34)
separators = st.sampled_from([":", "%3a", "%3A", "%3", "::", ""])
# Datastream ids with escapes: of name characters (decoded by the repair), of others, bad ones.
datastream_ids = st.lists(
    st.sampled_from([*"aZ09.-_~", "%2d", "%2E", "%30", "%41", "%5f", "%7A", "%7e", "%2F", "%3a", "%25", "%zz", "%4"]),
    min_size=1,
    max_size=6,
).map("".join)
shortcut_cases = st.one_of(
    st.builds("{}{}{}{}".format, any_case("info:fedora/"), namespace_ids, separators, tails),
    st.builds(
        "{}{}{}{}/{}{}".format,
        any_case("info:fedora/"),
        namespace_ids,
        separators,
        object_ids,
        datastream_ids,
        st.sampled_from(["", "/", "#f", "?a=b", "/x"]),
    ),
    st.builds("{}{}{}".format, namespace_ids, separators, tails),
    st.builds(
        "{}{}{}/{}".format,
        any_case("https://purl.org"),
        st.sampled_from(["/poi/", "/POI/", ":80/poi/", ":443/poi/", ":/poi/"]),
        domains,
        tails,
    ),
    st.builds("{}{}/{}{}".format, any_case("hdl:"), st.sampled_from(["100.102", "1765", "1.", "x"]), hexes, tails),
)


@settings(max_examples=3000)
@given(shortcut_cases)
def test_repaired_shortcuts_equal_the_full_scan(text: str) -> None:
    for scheme in (info_fedora.SCHEME, pid.SCHEME, poi.SCHEME, DEFAULT["handle"]):
        if not scheme.claims(text):
            continue
        try:
            expected: str | None = scheme.full_canonical(text)
        except ParseError:
            expected = None
        try:
            found: str | None = scheme.canonical(text)
        except ParseError:
            found = None
        assert found == expected, (scheme.name, text)
