"""The IRI law: every canonical form ldids writes is an IRI that RDF tools take as it is.

For valid identifiers of every scheme, generated in every written form the scheme accepts,
the canonical form (``DEFAULT[scheme].canonical(text)``, and ``parse(text).iri``):

(a) fully matches the RFC 3987 §2.2 grammar transcribed below;
(b) is accepted by ``pyoxigraph.NamedNode``;
(c) is accepted by rdflib: ``_is_valid_uri`` holds and ``URIRef`` logs no warning;
(d) is a fixed point: its own canonical form is itself.

The same must hold for any text at all that a scheme accepts (damaged identifiers,
arbitrary strings): whatever ldids writes, it writes an IRI.

About "absolute": RFC 3987's ``absolute-IRI`` production has no fragment, while RDF 1.1
Concepts §3.2 calls an IRI with a scheme absolute and lets it carry a fragment, and
DESIGN.md §1 keeps fragments (Fedora's ``info:fedora/fedora-system:def/model#hasModel``,
handle and CORDRA fragments). So the part before '#' must be an ``absolute-IRI`` and the
whole an ``IRI`` (``IRI = absolute-IRI [ "#" ifragment ]``, by the two productions).
"""

from __future__ import annotations

import logging
import re
import string
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pyoxigraph
import pytest
import rdflib
import rdflib.term
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ldids.errors import ParseError
from ldids.schemes._chars import ncname_patterns
from ldids.schemes.registry import DEFAULT

# -- RFC 3987 §2.2, production by production ---------------------------------------------
#
# Written out here from the RFC, apart from the library's own character classes, so that
# it checks them rather than repeats them. IP-literal and IPv4address are RFC 3986 §3.2.2.

_SUB_DELIMS = re.escape("!$&'()*+,;=")
_PCT_ENCODED = r"%[0-9A-Fa-f]{2}"
# ucschar = %xA0-D7FF / %xF900-FDCF / %xFDF0-FFEF / %x10000-1FFFD / ... / %xE1000-EFFFD
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    + "".join(f"{chr(plane << 16)}-{chr((plane << 16) | 0xFFFD)}" for plane in range(1, 14))
    + "\U000e1000-\U000efffd"
)
# iprivate = %xE000-F8FF / %xF0000-FFFFD / %x100000-10FFFD
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
# iunreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" / ucschar
_IUNRESERVED = rf"A-Za-z0-9\-._~{_UCSCHAR}"
# ipchar = iunreserved / pct-encoded / sub-delims / ":" / "@"
_IPCHAR = rf"(?:[{_IUNRESERVED}{_SUB_DELIMS}:@]|{_PCT_ENCODED})"
# scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*"
# dec-octet, IPv4address, h16, ls32, IPv6address (RFC 3986 §3.2.2)
_DEC_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
_IPV4 = rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}"
_H16 = r"[0-9A-Fa-f]{1,4}"
_LS32 = rf"(?:{_H16}:{_H16}|{_IPV4})"
_IPV6 = "|".join(
    [
        rf"(?:{_H16}:){{6}}{_LS32}",
        rf"::(?:{_H16}:){{5}}{_LS32}",
        rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
        rf"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
        rf"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
        rf"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
        rf"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
        rf"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
        rf"(?:(?:{_H16}:){{0,6}}{_H16})?::",
    ]
)
# IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ); IP-literal = "[" ... "]"
_IP_LITERAL = rf"\[(?:{_IPV6}|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~{_SUB_DELIMS}:]+)\]"
# ireg-name = *( iunreserved / pct-encoded / sub-delims ); ihost; iuserinfo; iauthority
_IREG_NAME = rf"(?:[{_IUNRESERVED}{_SUB_DELIMS}]|{_PCT_ENCODED})*"
_IHOST = rf"(?:{_IP_LITERAL}|{_IPV4}|{_IREG_NAME})"
_IUSERINFO = rf"(?:[{_IUNRESERVED}{_SUB_DELIMS}:]|{_PCT_ENCODED})*"
_IAUTHORITY = rf"(?:{_IUSERINFO}@)?{_IHOST}(?::[0-9]*)?"
# ihier-part = "//" iauthority ipath-abempty / ipath-absolute / ipath-rootless / ipath-empty
_ISEGMENT = rf"{_IPCHAR}*"
_ISEGMENT_NZ = rf"{_IPCHAR}+"
_IHIER_PART = (
    rf"(?://{_IAUTHORITY}(?:/{_ISEGMENT})*"
    rf"|/(?:{_ISEGMENT_NZ}(?:/{_ISEGMENT})*)?"
    rf"|{_ISEGMENT_NZ}(?:/{_ISEGMENT})*"
    r"|)"
)
# iquery = *( ipchar / iprivate / "/" / "?" ); ifragment = *( ipchar / "/" / "?" )
_IQUERY = rf"(?:{_IPCHAR}|[{_IPRIVATE}/?])*"
_IFRAGMENT = rf"(?:{_IPCHAR}|[/?])*"

#: absolute-IRI = scheme ":" ihier-part [ "?" iquery ]
ABSOLUTE_IRI = re.compile(rf"{_SCHEME}:{_IHIER_PART}(?:\?{_IQUERY})?")
#: IRI = scheme ":" ihier-part [ "?" iquery ] [ "#" ifragment ]
IRI = re.compile(rf"{_SCHEME}:{_IHIER_PART}(?:\?{_IQUERY})?(?:#{_IFRAGMENT})?")


@pytest.mark.parametrize(
    ("text", "is_iri"),
    [
        ("info:fedora/fedora-system:def/model#hasModel", True),
        ("hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5?x=%2f#a/b?c", True),
        ("http://purl.org/poi/arXiv.org/hep-th/9901001", True),
        ("http://user:pw@[2001:db8::7]:8080/a;b?c=d", True),
        ("http://[v7.x:y]/", True),
        ("http://192.0.2.1/", True),
        ("http://例え.テスト/パス?クエリ#断片", True),
        ("hdl:1/a?\ue000", True),  # iprivate: in a query only
        ("urn:isbn:0451450523", True),
        ("hdl:", True),  # ipath-empty
        ("hdl:1/a b", False),
        ("hdl:1/a#b#c", False),
        ("hdl:1/a[b", False),
        ("hdl:1/a?b]", False),
        ("hdl:1/a%zz", False),
        ("hdl:1/a%2", False),
        ("hdl:1/a#\ue000", False),
        ("hdl:1/a?\ufffe", False),
        ("hdl:1/a<b>", False),
        ("hdl:1/a\x85", False),
        ("http://[::1/", False),
        ("http://[1:2:3:4:5:6:7:8:9]/", False),
        ("1hdl:1/a", False),
        ("//hdl.handle.net/1/a", False),
        ("1765/315", False),
    ],
)
def test_the_grammar_is_rfc_3987(text: str, is_iri: bool) -> None:
    # Held against pyoxigraph's own RFC 3987 parser too, so the transcription is checked.
    assert (IRI.fullmatch(text) is not None) is is_iri
    try:
        pyoxigraph.NamedNode(text)
    except ValueError:
        accepted = False
    else:
        accepted = True
    assert accepted is is_iri


def test_absolute_iri_has_no_fragment() -> None:
    assert ABSOLUTE_IRI.fullmatch("info:fedora/demo:1?x") is not None
    assert ABSOLUTE_IRI.fullmatch("info:fedora/demo:1#x") is None


# -- The law -------------------------------------------------------------------------------


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _rdflib_warnings() -> Iterator[list[logging.LogRecord]]:
    """What rdflib.term logs at WARNING and above meanwhile (URIRef warns by logging)."""
    handler = _Records()
    logger = logging.getLogger("rdflib.term")
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)


def is_rfc3987_iri(text: str) -> bool:
    """An IRI whose part before '#' is an absolute-IRI (see the module docstring)."""
    return IRI.fullmatch(text) is not None and ABSOLUTE_IRI.fullmatch(text.partition("#")[0]) is not None


def assert_iri(iri: str) -> None:
    """(a), (b), (c) and (d) for one canonical form."""
    assert is_rfc3987_iri(iri), iri
    assert pyoxigraph.NamedNode(iri).value == iri
    assert rdflib.term._is_valid_uri(iri), iri
    with _rdflib_warnings() as logged, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(rdflib.URIRef(iri)) == iri
    assert logged == [], iri
    # Found again in graph data (a prefixed form), and already canonical there.
    scheme = DEFAULT.detect(iri, bare=False)
    assert scheme is not None, iri
    assert scheme.canonical(iri) == iri
    assert scheme.parse(iri).iri == iri


def assert_law(scheme: str, text: str) -> None:
    iri = DEFAULT[scheme].canonical(text)
    assert DEFAULT[scheme].parse(text).iri == iri
    assert DEFAULT.canonical(text, scheme) == iri
    assert_iri(iri)


# -- Valid identifiers, in every written form ------------------------------------------------

_HEX = "0123456789abcdefABCDEF"
_ALNUM = string.ascii_letters + string.digits


def _any_case(text: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(text), max_size=len(text)).map(
        lambda flips: "".join(ch.upper() if flip else ch.lower() for ch, flip in zip(text, flips, strict=True))
    )


def _escaped(ch: str, cases: tuple[Callable[[str], str], ...] = (str.upper, str.lower)) -> st.SearchStrategy[str]:
    """``ch`` as its UTF-8 octets, each ``%hh``, hex digits in a case drawn from ``cases``."""
    octets = ch.encode("utf-8")
    return st.sampled_from(cases).map(lambda case: "".join(case(f"%{octet:02x}") for octet in octets))


def _raw_or_escaped(ch: str) -> st.SearchStrategy[str]:
    return st.one_of(st.just(ch), _escaped(ch))


_any_escape = st.builds("%{}{}".format, st.sampled_from(_HEX), st.sampled_from(_HEX))
# Characters beyond ASCII, planes 0-16, no surrogates (not text).
_non_ascii = st.characters(min_codepoint=0x80, exclude_categories=["Cs"])
_ucschar = st.one_of(
    *(st.characters(min_codepoint=low, max_codepoint=high) for low, high in [(0xA0, 0xD7FF), (0xF900, 0xFDCF)]),
    *(st.characters(min_codepoint=low, max_codepoint=high) for low, high in [(0xFDF0, 0xFFEF), (0x10000, 0x1FFFD)]),
    # Planes 2-14 up to U+xFFFD, without U+E0000-E0FFF (tags and variation selectors).
    st.characters(min_codepoint=0x20000, max_codepoint=0xEFFFD).filter(
        lambda ch: ord(ch) & 0xFFFF <= 0xFFFD and not 0xE0000 <= ord(ch) <= 0xE0FFF
    ),
)
_iprivate = st.sampled_from(["\ue000", "\uf8ff", "\U000f0000", "\U0010fffd"])


def _tail(component: str) -> st.SearchStrategy[str]:
    """A valid iquery or ifragment as people write them: ASCII, escapes, IRI characters."""
    tokens = [st.sampled_from([*_ALNUM, *"-._~!$&'()*+,;=:@/?"]), _any_escape, _ucschar]
    if component == "query":
        tokens.append(_iprivate)
    return st.lists(st.one_of(*tokens), max_size=8).map("".join)


# Fedora PIDs: namespace-id ":" object-id, the separator also as %3A/%3a, escapes in any case.
_pid_namespaces = st.text(_ALNUM + "-.", min_size=1, max_size=10)
_object_ids = st.lists(st.one_of(st.sampled_from(_ALNUM + "-.~_"), _any_escape), min_size=1, max_size=15).map(
    "".join  # at most 10 + 1 + 15 * 3 = 56 characters normalized: within the limit of 64
)
pids = st.builds("{}{}{}".format, _pid_namespaces, st.sampled_from([":", "%3A", "%3a"]), _object_ids)

# info:fedora URIs: datastream ids and method names are XML NCNames, any character raw (an
# IRI) or as escaped UTF-8 octets; the chosen characters include ones that are NCName but
# not ucschar (U+FFFD, U+EFFFF), which must come out escaped.
_ncname, _ncname_character = ncname_patterns()
_name_start = st.one_of(
    st.sampled_from([*string.ascii_letters, "_", "é", "中", "\U00010000", "\ufffd", "\U000effff"]),
    _non_ascii.filter(lambda ch: _ncname.fullmatch(ch) is not None),
)
_name_rest = st.one_of(
    _name_start,
    st.sampled_from([*string.digits, "-", ".", "·", "\u0300", "\u203f"]),
    _non_ascii.filter(lambda ch: _ncname_character.fullmatch(ch) is not None),
)
ncnames = st.builds(lambda first, rest: [first, *rest], _name_start, st.lists(_name_rest, max_size=6)).flatmap(
    lambda chars: st.tuples(*[_raw_or_escaped(ch) for ch in chars]).map("".join)
)
_parameter_parts = st.lists(
    st.one_of(st.sampled_from([*_ALNUM, *"-._~!$'()*+,;:@/?"]), _any_escape, _non_ascii), min_size=1, max_size=5
).map("".join)
_parameters = st.lists(
    st.builds("{}{}".format, _parameter_parts, st.one_of(st.just(""), _parameter_parts.map("=".__add__), st.just("="))),
    min_size=1,
    max_size=4,
).map(lambda pairs: "?" + "&".join(pairs))
_fragments = st.one_of(st.just(""), _tail("fragment").map("#".__add__))
_info_prefix = _any_case("info:fedora/")
info_uris = st.one_of(
    st.builds("{}{}{}".format, _info_prefix, pids, _fragments),
    st.builds("{}{}/{}{}".format, _info_prefix, pids | st.just("*"), ncnames, _fragments),
    st.builds(
        "{}{}/{}/{}{}{}".format,
        _info_prefix,
        pids | st.just("*"),
        pids,
        ncnames,
        st.one_of(st.just(""), _parameters),
        _fragments,
    ),
)

# OAI identifiers and POIs: a domain name, then uric characters; escapes (upper-case hex)
# only of characters outside the RFC 2396 reserved and unreserved sets.
_labels = st.builds("{}{}".format, st.sampled_from(string.ascii_letters), st.text(_ALNUM + "-", max_size=6))
domains = st.lists(_labels, min_size=2, max_size=4).map(".".join)
_uric = _ALNUM + ";/?:@&=+$,-_.!~*'()"
_escapable = st.one_of(st.sampled_from(list(' "#%<>[]\\^`{|}\x00\x7f')), _non_ascii)
_oai_locals = st.lists(
    st.one_of(st.sampled_from(_uric), _escapable.flatmap(lambda ch: _escaped(ch, (str.upper,)))),
    min_size=1,
    max_size=10,
).map("".join)
oai_ids = st.builds("oai:{}:{}".format, domains, _oai_locals)
_poi_prefix = st.one_of(
    st.builds("{}{}/poi/".format, _any_case("http://purl.org"), st.sampled_from(["", ":", ":80", ":0080"])),
    st.builds("{}{}/poi/".format, _any_case("https://purl.org"), st.sampled_from(["", ":", ":443"])),
)
pois = st.builds("{}{}/{}".format, _poi_prefix, domains, _oai_locals)

# Handles. CORDRA: digit-segment naming authority, 32 hex digits in any case, an optional
# URI query and fragment. Generic: any naming authority without '/', any local name.
_cordra_authorities = st.lists(st.integers(0, 99999).map(str), min_size=1, max_size=3).map(".".join)
_guids = st.text("0123456789abcdefABCDEF", min_size=32, max_size=32)
_awkward = st.sampled_from(list('#? %"<>[]\\^`{|}:@/.é中\U0001f600\ufffe\ue000'))
_generic_authorities = st.one_of(
    st.sampled_from(["1765", "10.1000", "20.500.12345", "0.NA"]),
    st.text(st.one_of(st.sampled_from(_ALNUM + "."), _awkward, _non_ascii), min_size=1, max_size=8),
).filter(lambda na: "/" not in na)
_generic_locals = st.text(st.one_of(st.sampled_from(_ALNUM), _awkward, _non_ascii), min_size=1, max_size=12)
_PCHAR = _ALNUM + "-._~!$&'()*+,;=:@"
_REG_NAME = _ALNUM + "-._~!$&'()*+,;="


def _uri_encoded(text: str, safe: str) -> st.SearchStrategy[str]:
    """``text`` written into a URI: what is not ``safe`` escaped (non-ASCII may stay raw, as
    in an IRI), what is safe raw or needlessly escaped; hex digits in any case."""

    def one(ch: str) -> st.SearchStrategy[str]:
        if ch in safe or (ord(ch) >= 0x80 and re.fullmatch(f"[{_UCSCHAR}]", ch)):
            return _raw_or_escaped(ch)
        return _escaped(ch)

    return st.tuples(*[one(ch) for ch in text]).map("".join)


_resolver_bases = st.builds(
    "{}{}{}/".format,
    st.sampled_from(["http://", "https://", "HTTP://", "Https://"]),
    _any_case("hdl.handle.net"),
    st.sampled_from(["", ":"]),
)


#: What a written handle names: (naming authority, local name, query, fragment).
HandleParts = tuple[str, str, "str | None", "str | None"]


def _optional(component: str) -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), _tail(component))


def _written_tail(query: str | None, fragment: str | None) -> str:
    return ("" if query is None else f"?{query}") + ("" if fragment is None else f"#{fragment}")


@st.composite
def handle_uris(draw: st.DrawFn) -> tuple[str, HandleParts]:
    """A handle in its path, host or HTTP-resolver encoding, and what it names."""
    if draw(st.booleans()):
        authority, local = draw(_cordra_authorities), draw(_guids)
        named = local.upper()  # "SHALL be normalized to all uppercase hexadecimal digits"
    else:
        authority, local = draw(_generic_authorities), draw(_generic_locals)
        named = local
    # What the encoding spells is a handle: printable text, as a bare one is (UCS-2
    # printable characters, CORDRA identifiers in URI syntax).
    assume((authority + local).isprintable())
    form = draw(st.sampled_from(["path", "host", "http"]))
    if form == "host":
        prefix, authority_safe = draw(_any_case("hdl://")), _REG_NAME
    else:
        prefix = draw(_any_case("hdl:") if form == "path" else _resolver_bases)
        authority_safe = _PCHAR
    encoded_authority = draw(_uri_encoded(authority, authority_safe))
    encoded_local = draw(_uri_encoded(local, _PCHAR + "/"))
    query, fragment = draw(_optional("query")), draw(_optional("fragment"))
    text = f"{prefix}{encoded_authority}/{encoded_local}{_written_tail(query, fragment)}"
    return text, (authority, named, query, fragment)


_BARE_CORDRA_SHAPE = re.compile(r"[0-9]+(?:\.[0-9]+)*/[0-9A-Fa-f]{32}(?=[?#]|$)")


@st.composite
def bare_handles(draw: st.DrawFn) -> tuple[str, HandleParts]:
    """A bare handle, as a caller asking for the handle scheme by name may write one, and
    what it names: a CORDRA one with its query and fragment ("CORDRA Identifiers as
    Handles": localname = path [ "?" query ] [ "#" fragment ]), or any printable generic
    one, taken literally: its '?' and '#' are characters of the local name."""
    if draw(st.booleans()):
        authority, guid = draw(_cordra_authorities), draw(_guids)
        query, fragment = draw(_optional("query")), draw(_optional("fragment"))
        return f"{authority}/{guid}{_written_tail(query, fragment)}", (authority, guid.upper(), query, fragment)
    authority, local = draw(_generic_authorities), draw(_generic_locals)
    text = f"{authority}/{local}"
    # A bare text that starts like "scheme:" is no bare handle (the scan says so), and one
    # shaped like a CORDRA id is one, drawn above.
    assume(text.isprintable())
    assume(re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", text) is None)
    assume(_BARE_CORDRA_SHAPE.match(text) is None)
    return text, (authority, local, None, None)


def _text(case: tuple[str, HandleParts]) -> str:
    return case[0]


valid_identifiers = st.one_of(
    st.tuples(st.just("fedora-pid"), pids),
    st.tuples(st.just("info-fedora"), info_uris),
    st.tuples(st.just("oai"), oai_ids),
    st.tuples(st.just("poi"), pois),
    st.tuples(st.just("handle"), handle_uris().map(_text)),
    st.tuples(st.just("handle"), bare_handles().map(_text)),
)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(valid_identifiers)
def test_every_canonical_form_is_an_iri(case: tuple[str, str]) -> None:
    scheme, text = case
    assert_law(scheme, text)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(handle_uris(), bare_handles()))
def test_every_canonical_handle_names_the_handle_written(case: tuple[str, HandleParts]) -> None:
    # A '#', '?' or '%' of a local name is escaped in the IRI, never read as a delimiter
    # there: the IRI names the handle that was written, with its query and fragment.
    text, named = case
    assert_law("handle", text)
    value = DEFAULT["handle"].parse(DEFAULT["handle"].canonical(text))
    assert (value.naming_authority, value.local_name, value.query, value.fragment) == named


# -- Whatever a scheme accepts, it writes an IRI -----------------------------------------------

_damage = st.sampled_from(
    ["%", "%z", "%2", "#", "?", " ", "[", "]", "<", '"', "\ufffe", "\ue000", "\x85", "é", "/", ":", "%C3", "%25"]
)
_damaged = st.builds(
    lambda text, at, insert: text[:at] + insert + text[at:],
    st.one_of(pids, info_uris, oai_ids, pois, handle_uris().map(_text), bare_handles().map(_text)),
    st.integers(0, 80),
    st.lists(_damage, min_size=1, max_size=3).map("".join),
)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_damaged, st.text(max_size=40)))
def test_whatever_is_accepted_is_written_as_an_iri(text: str) -> None:
    for name in DEFAULT.names:
        try:
            DEFAULT[name].canonical(text)
        except ParseError:
            continue
        assert_law(name, text)
