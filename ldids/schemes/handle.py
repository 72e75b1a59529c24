"""Handles (scheme ``handle``), with the CORDRA profile: ``hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5``.

Specs: "CORDRA Identifiers as Handles" and "Encoding CORDRA Identifiers in URI Syntax"::

    handle      = naming-authority "/" local-name
    path form   = "hdl" ":" segment "/" segment [ "?" query ] [ "#" fragment ]
    host form   = "hdl" ":" "//" reg-name "/" segment [ "?" query ] [ "#" fragment ]
    HTTP form   = "http" ":" "//" authority "/" [ segment "/" ] segment "/" segment [...]

A CORDRA identifier has a naming authority of digit segments joined by "." and a local
name of exactly 32 hex digits (a DCE UUID), processed case-insensitively and normalized
to upper case; it may carry a query and a fragment. The ``hdl`` scheme is
case-insensitive. Decided in DESIGN.md §1: other handles (``hdl:1765/315``, DOIs, UUIDs
with hyphens) are valid generic handles that keep their case; query and fragment are kept
byte for byte; resolver URLs are percent-decoded to get the handle, and a handle is
percent-encoded where it is written into a URI; known HTTP resolvers are configurable,
``hdl.handle.net`` (http and https) is known by default. Decided here: a '/' inside a
generic local name stays a '/' (RFC 3650 local names may contain it, and every resolver
writes it so), and a bare ``NA/local`` (a "URI suffix reference") is parsed only when a
caller asks for the handle scheme by name: it is never machine-detected in RDF. A bare
handle is no URI: '%', '?' and '#' in it are characters of the handle, written into the
canonical IRI as ``%25``, ``%3F`` and ``%23`` (``1765/a#b`` -> ``hdl:1765/a%23b``); only a
CORDRA-shaped one has a query and a fragment, which its local name defines. A query or
fragment of a handle URI is kept as written, so it must already be an RFC 3987 iquery or
ifragment: ``hdl:1765/1?%zz`` is reported, not rewritten.

>>> str(parse("HDL://100.102/f58fb49eb1f848f0a606e84cef294be5"))
'hdl://100.102/F58FB49EB1F848F0A606E84CEF294BE5'
>>> parse("https://hdl.handle.net/1765/315").iri
'hdl:1765/315'
"""

from __future__ import annotations

import re
import uuid as uuid_module
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ldids.errors import ParseError, Problem
from ldids.schemes._chars import (
    HEX_ANY,
    RFC3986_PCHAR,
    RFC3986_SUB_DELIMS,
    RFC3986_UNRESERVED,
    URI_TAIL_ASCII_PATTERN,
    ascii_lower,
    describe,
    iri_component_errors,
    iri_forbidden,
    percent_encode,
)
from ldids.schemes.scheme import Scheme, compiled_canonical

__all__ = [
    "BARE_CORDRA_CLAIM",
    "DEFAULT_RESOLVERS",
    "SCHEME",
    "Handle",
    "Resolver",
    "check",
    "claims_bare_cordra",
    "make_scheme",
    "mint",
    "normalize",
    "parse",
]

Form = Literal["path", "host", "http", "bare"]

CORDRA_NAMING_AUTHORITY = re.compile(r"[0-9]+(?:\.[0-9]+)*")
CORDRA_LOCAL_NAME = re.compile(r"[0-9A-Fa-f]{32}")
_HTTP = re.compile(r"(https?)://([^/?#]*)/", re.IGNORECASE | re.ASCII)
_DEFAULT_PORTS = {"http": "80", "https": "443"}

# Escape-free text that is safe in every handle URI component (pchar without ':' '@').
_PLAIN = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=]*")
_REG_NAME_SAFE = RFC3986_UNRESERVED | RFC3986_SUB_DELIMS
_SEGMENT_SAFE = RFC3986_PCHAR
_LOCAL_SAFE = RFC3986_PCHAR | frozenset("/")

# Query and fragment are kept as written, so the fast path takes only tails that already
# are an RFC 3987 iquery/ifragment (ASCII ones; others get the full scan).
_URI_TAIL = rf"(?:\?{URI_TAIL_ASCII_PATTERN})?(?:#{URI_TAIL_ASCII_PATTERN})?"
# Handles already normal, without escapes, after their form's prefix: the fast path. A
# 32-hex local name with any lower-case digit is left to the full scan, which upper-cases it.
_NORMALIZED_HANDLE = (
    r"[0-9]+(?:\.[0-9]+)*/"
    r"(?:[0-9A-F]{32}(?=[?#]|$)|(?![0-9A-Fa-f]{32}(?:[?#]|$))[A-Za-z0-9\-._~!$&'()*+,;=:@/]+)" + _URI_TAIL
)


def _authority_key(scheme: str, authority: str) -> str:
    """Authority in comparable form: lower case, empty or default port dropped (RFC 3986 §6.2.3)."""
    authority = ascii_lower(authority)
    host, colon, port = authority.rpartition(":")
    if colon and (port == "" or port.lstrip("0") == _DEFAULT_PORTS.get(ascii_lower(scheme))):
        return host
    return authority


@dataclass(frozen=True, slots=True)
class Resolver:
    """An HTTP handle resolver: its authority (host[:port]) and required first segment, if any."""

    authority: str
    segment: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "authority", _authority_key("http", self.authority))

    def base(self, scheme: str) -> str:
        """The URL prefix a handle is appended to: ``scheme://authority/[segment/]``."""
        lead = f"{self.segment}/" if self.segment else ""
        return f"{scheme}://{self.authority}/{lead}"


#: The CNRI proxy, known without configuration (DESIGN.md §1).
DEFAULT_RESOLVERS: tuple[Resolver, ...] = (Resolver("hdl.handle.net"),)


@dataclass(frozen=True, slots=True)
class Handle:
    """A handle as written in one of its forms; ``str()`` is that form normalized."""

    naming_authority: str
    local_name: str
    query: str | None = None
    fragment: str | None = None
    form: Form = "path"
    #: For the HTTP form: "scheme://authority/[segment/]", normalized.
    resolver_base: str | None = None

    @property
    def handle(self) -> str:
        """The handle itself, not URI-encoded: ``naming-authority "/" local-name``."""
        return f"{self.naming_authority}/{self.local_name}"

    @property
    def profile(self) -> Literal["cordra"] | None:
        is_cordra = CORDRA_NAMING_AUTHORITY.fullmatch(self.naming_authority) and CORDRA_LOCAL_NAME.fullmatch(
            self.local_name
        )
        return "cordra" if is_cordra else None

    def _encoded(self, naming_authority_safe: frozenset[str]) -> str:
        tail = "" if self.query is None else f"?{self.query}"
        tail += "" if self.fragment is None else f"#{self.fragment}"
        naming_authority = percent_encode(self.naming_authority, naming_authority_safe)
        return f"{naming_authority}/{percent_encode(self.local_name, _LOCAL_SAFE)}{tail}"

    @property
    def iri(self) -> str:
        """The path encoding, ``hdl:NA/local``: the canonical IRI."""
        return "hdl:" + self._encoded(_SEGMENT_SAFE)

    def in_form(self, form: Form, resolver_base: str | None = None) -> str:
        """This handle written in another form."""
        if form == "path":
            return self.iri
        if form == "host":
            return "hdl://" + self._encoded(_REG_NAME_SAFE)
        if form == "http":
            return (resolver_base or self.resolver_base or "https://hdl.handle.net/") + self._encoded(_SEGMENT_SAFE)
        tail = "" if self.query is None else f"?{self.query}"
        return self.handle + tail + ("" if self.fragment is None else f"#{self.fragment}")

    def __str__(self) -> str:
        return self.in_form(self.form)


#: A bare CORDRA-shaped handle (digit-segment NA, 32 hex digits). Only ``inspect``, asked
#: about one string, claims these (DESIGN.md §2).
BARE_CORDRA_CLAIM = r"[0-9]+(?:\.[0-9]+)*/[0-9A-Fa-f]{32}(?=[?#]|$)"
_BARE_CORDRA = re.compile(BARE_CORDRA_CLAIM)


def claims_bare_cordra(text: str) -> bool:
    """Whether ``text`` is a bare CORDRA-shaped handle."""
    return _BARE_CORDRA.match(text) is not None


def _decode(text: str, start: int, end: int, safe_raw: frozenset[str], what: str) -> tuple[str, list[Problem]]:
    """Percent-decode ``text[start:end]`` of a handle URI as UTF-8."""
    chunk = text[start:end]
    if _PLAIN.fullmatch(chunk):
        return chunk, []  # nothing escaped, nothing forbidden: the common case
    problems = [
        Problem(
            "handle.invalid-character",
            f"{describe(chunk[offset])} cannot appear in a handle URI; escape it",
            start + offset,
            start + offset + 1,
        )
        for offset in iri_forbidden(chunk)
    ]
    raw = bytearray()
    spans: list[tuple[int, int]] = []  # the characters of the text each byte of raw was written as
    position = start
    while position < end:
        ch = text[position]
        if ch == "%":
            if position + 3 <= end and text[position + 1] in HEX_ANY and text[position + 2] in HEX_ANY:
                raw.append(int(text[position + 1 : position + 3], 16))
                spans.append((position, position + 3))
                position += 3
                continue
            problems.append(
                Problem("handle.bad-escape", "'%' must be followed by two hex digits", position, min(position + 3, end))
            )
        elif ch not in safe_raw and ord(ch) < 0x80 and not problems:
            problems.append(
                Problem(
                    "handle.invalid-character", f"{describe(ch)} must be escaped in the {what}", position, position + 1
                )
            )
        encoded = ch.encode("utf-8", "surrogatepass")
        raw.extend(encoded)
        spans.extend([(position, position + 1)] * len(encoded))
        position += 1
    if problems:
        return "", problems
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        # Where: the escapes of the bytes that are no UTF-8.
        at, to = spans[error.start][0], spans[max(error.end - 1, error.start)][1]
        return "", [Problem("handle.bad-utf8", f"the escapes in the {what} are not UTF-8", at, to)]
    # What the escapes spell is the handle: printable text, as a bare handle must be
    # (UCS-2 printable characters: the CORDRA identifiers in URI syntax text, Handle syntax).
    byte = 0
    for ch in decoded:
        if not ch.isprintable():
            at, to = spans[byte][0], spans[byte + len(ch.encode("utf-8", "surrogatepass")) - 1][1]
            return "", [Problem("handle.invalid-character", f"{describe(ch)} is not a printable character", at, to)]
        byte += len(ch.encode("utf-8", "surrogatepass"))
    return decoded, []


def _literal(text: str, start: int, end: int) -> tuple[str, list[Problem]]:
    """A bare handle is no URI: taken as written ('%' is an ordinary character, RFC 3650),
    but it must be printable text."""
    for position in range(start, end):
        ch = text[position]
        if not ch.isprintable():
            return "", [
                Problem(
                    "handle.invalid-character", f"{describe(ch)} is not a printable character", position, position + 1
                )
            ]
    return text[start:end], []


def _check_tail(text: str, query_at: int, hash_at: int) -> list[Problem]:
    """Problems with the query (after ``query_at``) and fragment (after ``hash_at``), -1 if
    absent. Both are kept byte for byte (DESIGN.md §1) and written into the canonical IRI,
    so each must already be an RFC 3987 §2.2 iquery / ifragment."""
    problems: list[Problem] = []
    parts: list[tuple[int, int, Literal["query", "fragment"]]] = []
    if query_at >= 0:
        parts.append((query_at + 1, hash_at if hash_at >= 0 else len(text), "query"))
    if hash_at >= 0:
        parts.append((hash_at + 1, len(text), "fragment"))
    for start, end, component in parts:
        for position in iri_component_errors(text, start, end, component):
            if text[position] == "%":
                problems.append(
                    Problem(
                        "handle.bad-escape",
                        "'%' must be followed by two hex digits",
                        position,
                        min(position + 3, end),
                    )
                )
            else:
                problems.append(
                    Problem(
                        "handle.invalid-character",
                        f"{describe(text[position])} cannot appear in a URI {component}",
                        position,
                        position + 1,
                    )
                )
    return problems


def _scan_with(resolvers: dict[str, str | None], text: str) -> tuple[Handle | None, list[Problem]]:
    form: Form
    resolver_base: str | None = None
    lowered = ascii_lower(text[:6])
    if lowered.startswith("hdl://"):
        form, start = "host", 6
    elif lowered.startswith("hdl:"):
        form, start = "path", 4
    elif (match := _HTTP.match(text)) is not None:
        scheme, authority = ascii_lower(match.group(1)), _authority_key(match.group(1), match.group(2))
        if authority not in resolvers:
            known = ", ".join(sorted(resolvers)) or "none"
            return None, [
                Problem(
                    "handle.unknown-resolver",
                    f"{authority!r} is not a known handle resolver (known: {known})",
                    match.start(2),
                    match.end(2),
                )
            ]
        form, start = "http", match.end()
        segment = resolvers[authority]
        resolver_base = Resolver(authority, segment).base(scheme)
        if segment is not None:
            if not text.startswith(f"{segment}/", start):
                return None, [
                    Problem(
                        "handle.resolver-segment",
                        f"this resolver's paths start with '{segment}/'",
                        start,
                        min(len(text), start + len(segment) + 1),
                    )
                ]
            start += len(segment) + 1
    elif re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", text) and "/" not in text.split(":", 1)[0]:
        end = text.index(":")
        return None, [
            Problem("handle.scheme", "a handle URI uses the 'hdl' scheme (or a known resolver's http(s) URL)", 0, end)
        ]
    else:
        form, start = "bare", 0

    if form == "bare" and _BARE_CORDRA.match(text) is None:
        # A bare handle is no URI: '?' and '#' are characters of its local name like any
        # other (RFC 3650), percent-encoded where the handle is written into a URI. Only a
        # CORDRA local name has a query and a fragment ("CORDRA Identifiers as Handles":
        # localname = path [ "?" query ] [ "#" fragment ]).
        query_at = hash_at = -1
    else:
        query_at = text.find("?", start)
        hash_at = text.find("#", start)
        if hash_at >= 0 and (query_at < 0 or query_at > hash_at):
            query_at = -1
    path_end = min(p for p in (query_at, hash_at, len(text)) if p >= 0)
    slash = text.find("/", start, path_end)
    problems: list[Problem] = []
    if slash < 0:
        return None, [
            Problem(
                "handle.missing-local-name",
                "a handle is naming-authority '/' local-name, and there is no '/'",
                start,
                path_end,
            )
        ]
    if form == "bare":
        naming_authority, found = _literal(text, start, slash)
        problems += found
        local_name, found = _literal(text, slash + 1, path_end)
    else:
        naming_authority, found = _decode(
            text, start, slash, _REG_NAME_SAFE if form == "host" else _SEGMENT_SAFE, "naming authority"
        )
        problems += found
        local_name, found = _decode(text, slash + 1, path_end, _LOCAL_SAFE, "local name")
    problems += found
    if slash == start:
        problems.append(Problem("handle.empty-naming-authority", "the naming authority is empty", start, start + 1))
    elif not problems and "/" in naming_authority:
        problems.append(
            Problem(
                "handle.naming-authority-character", "'/' (escaped) cannot appear in a naming authority", start, slash
            )
        )
    if slash + 1 == path_end:
        problems.append(Problem("handle.empty-local-name", "the local name is empty", slash, slash + 1))
    problems += _check_tail(text, query_at, hash_at)
    if problems:
        return None, problems
    query = text[query_at + 1 : hash_at if hash_at > query_at else len(text)] if query_at >= 0 else None
    fragment = text[hash_at + 1 :] if hash_at >= 0 else None
    if CORDRA_NAMING_AUTHORITY.fullmatch(naming_authority) and CORDRA_LOCAL_NAME.fullmatch(local_name):
        # "The path component SHALL be normalized to all uppercase hexadecimal digits."
        local_name = local_name.upper()
    return Handle(naming_authority, local_name, query, fragment, form, resolver_base), []


def make_scheme(resolvers: Iterable[Resolver] = DEFAULT_RESOLVERS) -> Scheme[Handle]:
    """The handle scheme for a set of known HTTP resolvers."""
    known = tuple(resolvers)
    table = {resolver.authority: resolver.segment for resolver in known}

    def scan(text: str) -> tuple[Handle | None, list[Problem]]:
        return _scan_with(table, text)

    def equivalents(value: Handle) -> tuple[str, ...]:
        forms = [value.in_form("host")]
        forms += [value.in_form("http", resolver.base(scheme)) for resolver in known for scheme in ("https", "http")]
        return tuple(forms)

    # The claim: the hdl scheme in any case, or a known resolver's host in any case with
    # any port (a wrong port is then reported by the scan, not silently left alone).
    host_names = sorted({authority.split(":")[0] for authority in table})
    hosts = "|".join(re.escape(host) for host in host_names)
    prefix = rf"hdl:|https?://({hosts})(:[0-9]*)?/" if hosts else "hdl:"
    # Normal forms: lower-case hdl:, hdl:// or a resolver's base exactly as it is written.
    base_urls = [resolver.base(scheme) for resolver in known for scheme in ("http", "https")]
    bases = "".join("|" + re.escape(base) for base in base_urls)
    normalized = re.compile(rf"(?:hdl:(?://)?{bases}){_NORMALIZED_HANDLE}")

    def iri_of_normalized(text: str) -> str:
        # On the fast path every form encodes the handle the same way after its prefix.
        if text.startswith("hdl://"):
            return "hdl:" + text[6:]
        if text.startswith("hdl:"):
            return text
        base = next(base for base in base_urls if text.startswith(base))
        return "hdl:" + text[len(base) :]

    # The compiled canonicalizer knows one resolver without a leading segment, and is
    # bound to the default set alone: with resolvers configured, Python decides.
    compiled = None
    if known == DEFAULT_RESOLVERS and len(known) == 1 and known[0].segment is None:
        compiled = compiled_canonical(
            "handle",
            scheme="hdl",
            resolver=known[0].authority,
            http_port=_DEFAULT_PORTS["http"],
            https_port=_DEFAULT_PORTS["https"],
            reg_name=_REG_NAME_SAFE,
            segment=_SEGMENT_SAFE,
            local=_LOCAL_SAFE,
            # The ASCII characters of an RFC 3987 §2.2 iquery / ifragment: ipchar, '/', '?'.
            tail=RFC3986_PCHAR | frozenset("/?"),
        )

    return Scheme(
        "handle",
        scan,
        precedence=40,
        prefix=prefix,
        prefilter=("hdl:", *host_names),
        bare_claim=BARE_CORDRA_CLAIM,
        normalized=normalized,
        iri_of_normalized=iri_of_normalized,
        repair=_repair,
        equivalents=equivalents,
        compiled=compiled,
    )


_REPAIRABLE = re.compile(r"(?ai:hdl:)([0-9]+(?:\.[0-9]+)*/)([0-9A-Fa-f]{32}(?=$|[?#]))?")


def _repair(text: str) -> str | None:
    """``HDL:`` in lower case, and a CORDRA local name (32 hex digits) in upper case."""
    match = _REPAIRABLE.match(text)
    if match is None:
        return None
    guid = match.group(2)
    return f"hdl:{match.group(1)}{'' if guid is None else guid.upper()}{text[match.end() :]}"


SCHEME = make_scheme()
check = SCHEME.check
parse = SCHEME.parse
normalize = SCHEME.normalize


def mint(naming_authority: str, uuid: uuid_module.UUID | None = None) -> Handle:
    """A new CORDRA identifier for ``naming_authority`` from a DCE UUID (random if not given).

    The local name is the UUID's 32 hex digits in upper case ("CORDRA Identifiers as
    Handles": generated by the DCE UUID/GUID algorithm, semantically opaque).

    >>> str(mint("100.102", uuid_module.UUID("f58fb49e-b1f8-48f0-a606-e84cef294be5")))
    'hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5'
    """
    if CORDRA_NAMING_AUTHORITY.fullmatch(naming_authority) is None:
        raise ParseError(
            naming_authority,
            [
                Problem(
                    "handle.cordra-naming-authority",
                    "a CORDRA naming authority is digit segments joined by '.' (100.102)",
                    0,
                    len(naming_authority),
                )
            ],
        )
    value = uuid or uuid_module.uuid4()
    if value.variant != uuid_module.RFC_4122:
        raise ParseError(
            str(value),
            [Problem("handle.uuid-variant", "the UUID is not of the DCE (RFC 4122) variant", 0, len(str(value)))],
        )
    return Handle(naming_authority, value.hex.upper())
