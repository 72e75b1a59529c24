"""Fedora ``info:fedora/`` URIs (scheme ``info-fedora``): objects and disseminations.

Spec: "Fedora Identifiers", section "Digital Object & Dissemination URIs"::

    "info:fedora/" object-pid                                  ; an object
    "info:fedora/" (object-pid / "*") "/" datastream-id        ; a datastream dissemination
    "info:fedora/" (object-pid / "*") "/" bdef-pid "/" method  ; a method dissemination

Datastream ids and method names are XML NCNames; characters not safe in an info URI are
escaped as one to four UTF-8 octets. Normalization: normalize the PID parts; un-escape
escapes that need none; upper-case remaining escapes; sort parameters by name, then
value, in UTF-8 order. Decided in DESIGN.md §1: scheme and namespace are case-insensitive
(RFC 4452); a second segment containing ``:`` is a behaviour-definition PID and needs a
method; a ``#fragment`` is kept verbatim (Fedora's vocabulary IRIs use one). Decided here:
``*`` alone names nothing and is invalid; parameters are only defined for method
disseminations, so a query elsewhere is invalid; raw non-ASCII NCName characters (as IRIs
may carry them) are percent-encoded as UTF-8, the RFC 3987 §3.1 IRI-to-URI mapping.

>>> str(parse("INFO:FEDORA/demo%3a1/bdef:1/view?b=2&a=1"))
'info:fedora/demo:1/bdef:1/view?a=1&b=2'
>>> str(parse("info:fedora/demo:1/D%53%C3%a9"))
'info:fedora/demo:1/DS%C3%A9'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from ldids.errors import Problem
from ldids.schemes import pid as pid_module
from ldids.schemes._chars import (
    ALPHANUM,
    ASCII_ALPHA,
    HEX_ANY,
    RFC3986_PCHAR,
    RFC3986_UNRESERVED,
    URI_TAIL_ASCII_PATTERN,
    ascii_lower,
    describe,
    iri_component_errors,
    ncname_patterns,
    percent_encode,
)
from ldids.schemes.pid import Pid
from ldids.schemes.scheme import Scheme, compiled_canonical

__all__ = ["PREFIX", "SCHEME", "InfoFedora", "check", "claims", "normalize", "parse"]

PREFIX = "info:fedora/"
CODE = "info-fedora"

# ASCII NCName characters are all RFC 3986 unreserved, so they never need escaping.
_SAFE_NCNAME_ASCII = ALPHANUM | frozenset("-._")
# Raw characters allowed in a parameter name or value; "&" and "=" delimit them.
_PARAMETER_RAW = (RFC3986_PCHAR | frozenset("/?")) - frozenset("&=")

_PID = r"(?=[^/?#]{3,64}(?:[/#]|$))[A-Za-z0-9.\-]+:(?:[A-Za-z0-9.~_\-]|%[0-9A-F]{2})+"
_NCNAME_ASCII = r"[A-Za-z_][A-Za-z0-9._\-]*"
# A fragment is kept verbatim: the fast path takes those that already are an ASCII
# ifragment (RFC 3987 §2.2); any other gets the full scan.
_FRAGMENT = rf"(?:#{URI_TAIL_ASCII_PATTERN})?"
_QUERY = r"(?:\?(?P<query>[A-Za-z0-9._~\-=&]+))?"
#: Already-normalized URIs without escapes: the fast path (parameter order is checked apart).
NORMALIZED_RE = re.compile(
    rf"info:fedora/(?:{_PID}|\*(?=/))(?:/{_NCNAME_ASCII}|/{_PID}/{_NCNAME_ASCII}{_QUERY})?{_FRAGMENT}"
)
_ASCII_NCNAME = re.compile(_NCNAME_ASCII)
_BDEF_SHAPE = re.compile(r":|%3[aA]")

Parameters = tuple[tuple[str, "str | None"], ...]


@dataclass(frozen=True, slots=True)
class InfoFedora:
    """A normalized info:fedora URI. ``pid`` is None for the ``*`` wildcard."""

    pid: Pid | None
    datastream: str | None = None
    bdef: Pid | None = None
    method: str | None = None
    parameters: Parameters = ()
    fragment: str | None = None

    def __str__(self) -> str:
        parts = [PREFIX, "*" if self.pid is None else str(self.pid)]
        if self.datastream is not None:
            parts += ["/", self.datastream]
        if self.bdef is not None and self.method is not None:
            parts += ["/", str(self.bdef), "/", self.method]
        if self.parameters:
            parts += ["?", "&".join(name if value is None else f"{name}={value}" for name, value in self.parameters)]
        if self.fragment is not None:
            parts += ["#", self.fragment]
        return "".join(parts)

    @property
    def iri(self) -> str:
        return str(self)

    @property
    def profile(self) -> None:
        return None

    @property
    def is_object(self) -> bool:
        """True for a plain object URI (no dissemination, no fragment)."""
        return self.pid is not None and self.datastream is None and self.method is None and self.fragment is None


def _ncname(text: str, start: int, end: int, what: str) -> tuple[str, list[Problem]]:
    """Normalize the escapes of an NCName segment and check what it decodes to."""
    if _ASCII_NCNAME.fullmatch(text, start, end):
        return text[start:end], []  # the common case: nothing escaped, nothing to check
    out: list[str] = []
    decoded: list[tuple[str, int, int]] = []  # (character, input start, input end)
    problems: list[Problem] = []
    position = start
    while position < end:
        ch = text[position]
        if ch != "%":
            if ord(ch) < 0x80:
                out.append(ch)
            else:
                out.append(percent_encode(ch))
            decoded.append((ch, position, position + 1))
            position += 1
            continue
        # A run of escapes is decoded as UTF-8: one to four octets per character.
        run_end = position
        while (
            run_end + 3 <= end
            and text[run_end] == "%"
            and text[run_end + 1] in HEX_ANY
            and text[run_end + 2] in HEX_ANY
        ):
            run_end += 3
        if run_end == position:
            problems.append(
                Problem(
                    f"{CODE}.bad-escape", "'%' must be followed by two hex digits", position, min(position + 3, end)
                )
            )
            position += 1
            continue
        try:
            chars = bytes.fromhex(text[position:run_end].replace("%", "")).decode("utf-8")
        except UnicodeDecodeError:
            problems.append(Problem(f"{CODE}.bad-utf8", f"the escapes in this {what} are not UTF-8", position, run_end))
            position = run_end
            continue
        offset = position
        for decoded_char in chars:
            width = 3 * len(decoded_char.encode("utf-8"))
            if decoded_char in _SAFE_NCNAME_ASCII:
                out.append(decoded_char)  # a needless escape: un-escape it
            else:
                out.append(percent_encode(decoded_char))
            decoded.append((decoded_char, offset, offset + width))
            offset += width
        position = run_end
    if problems:
        return "", problems
    if not decoded:
        return "", [Problem(f"{CODE}.empty-segment", f"the {what} is empty", start, end)]
    name = "".join(ch for ch, _, _ in decoded)
    ncname, ncname_character = ncname_patterns()
    if ncname.fullmatch(name) is None:
        first, first_start, first_end = decoded[0]
        if ncname.fullmatch(first) is None:
            message = f"a {what} must start with a letter or '_' (an XML NCName), not {describe(first)}"
            span = (first_start, first_end)
        else:
            bad = next(item for item in decoded[1:] if ncname_character.fullmatch(item[0]) is None)
            message = f"{describe(bad[0])} is not allowed in a {what} (an XML NCName)"
            span = (bad[1], bad[2])
        code = "datastream-id" if what == "datastream id" else "method-name"
        return "", [Problem(f"{CODE}.{code}", message, *span)]
    return "".join(out), []


def _parameter_part(text: str, start: int, end: int) -> tuple[str, list[Problem]]:
    out: list[str] = []
    position = start
    while position < end:
        ch = text[position]
        if ch == "%":
            digits = text[position + 1 : position + 3]
            if position + 3 > end or not all(d in HEX_ANY for d in digits):
                return "", [
                    Problem(
                        f"{CODE}.bad-escape", "'%' must be followed by two hex digits", position, min(position + 3, end)
                    )
                ]
            char = chr(int(digits, 16))
            out.append(char if char in RFC3986_UNRESERVED else "%" + digits.upper())
            position += 3
            continue
        if ch in _PARAMETER_RAW or ch == "=":
            out.append(ch)
        elif ord(ch) >= 0x80:
            out.append(percent_encode(ch))
        else:
            return "", [
                Problem(
                    f"{CODE}.parameter-character",
                    f"{describe(ch)} must be escaped in a parameter",
                    position,
                    position + 1,
                )
            ]
        position += 1
    return "".join(out), []


def _parameters(text: str, start: int, end: int) -> tuple[Parameters, list[Problem]]:
    found: list[tuple[str, str | None]] = []
    problems: list[Problem] = []
    position = start
    for chunk in text[start:end].split("&"):
        chunk_end = position + len(chunk)
        equals = chunk.find("=")
        name_end = chunk_end if equals < 0 else position + equals
        if name_end == position:
            # Point at the delimiter ('?' or '&') that opens the nameless parameter.
            problems.append(
                Problem(f"{CODE}.empty-parameter", "a parameter needs a name", position - 1, max(chunk_end, position))
            )
        else:
            name, name_problems = _parameter_part(text, position, name_end)
            value: str | None = None
            value_problems: list[Problem] = []
            if equals >= 0:
                value, value_problems = _parameter_part(text, name_end + 1, chunk_end)
            problems += name_problems + value_problems
            found.append((name, value))
        position = chunk_end + 1

    # Alphabetized by name, then value, in UTF-8 order (the spec): compare the octets.
    def order(item: tuple[str, str | None]) -> tuple[bytes, bytes, bool]:
        name, value = item
        return unquote_to_bytes(name), unquote_to_bytes(value or ""), value is not None

    return tuple(sorted(found, key=order)), problems


def _scan(text: str) -> tuple[InfoFedora | None, list[Problem]]:
    if ascii_lower(text[:12]) != PREFIX:
        return None, [
            Problem(f"{CODE}.prefix", "an info:fedora URI starts with 'info:fedora/'", 0, min(len(text), 12) or 0)
        ]
    problems: list[Problem] = []
    hash_at = text.find("#", 12)
    body_end = len(text) if hash_at < 0 else hash_at
    fragment = None if hash_at < 0 else text[hash_at + 1 :]
    if fragment is not None:
        # Kept verbatim, so it must already be an RFC 3987 §2.2 ifragment: the canonical
        # IRI carries it as it is.
        for position in iri_component_errors(text, hash_at + 1, len(text), "fragment"):
            if text[position] == "%":
                problems.append(
                    Problem(
                        f"{CODE}.bad-escape",
                        "'%' must be followed by two hex digits",
                        position,
                        min(position + 3, len(text)),
                    )
                )
            else:
                problems.append(
                    Problem(
                        f"{CODE}.fragment-character",
                        f"{describe(text[position])} cannot appear in a fragment",
                        position,
                        position + 1,
                    )
                )
    query_at = text.find("?", 12, body_end)
    path_end = body_end if query_at < 0 else query_at

    bounds: list[tuple[int, int]] = []
    segment_start = 12
    for segment in text[12:path_end].split("/"):
        bounds.append((segment_start, segment_start + len(segment)))
        segment_start += len(segment) + 1
    if len(bounds) > 3:
        start = bounds[3][0] - 1
        return None, [
            Problem(
                f"{CODE}.extra-segment",
                "an info:fedora URI has at most three path segments (pid/bdef-pid/method)",
                start,
                path_end,
            )
        ]

    object_pid: Pid | None = None
    first_start, first_end = bounds[0]
    if text[first_start:first_end] == "*":
        if len(bounds) == 1:
            problems.append(
                Problem(
                    f"{CODE}.wildcard-alone",
                    "'*' stands for any object only in a dissemination URI ('info:fedora/*/DS1')",
                    first_start,
                    first_end,
                )
            )
    else:
        object_pid, found = pid_module.scan(text, first_start, first_end, CODE)
        problems += found

    datastream = method = None
    bdef: Pid | None = None
    if len(bounds) >= 2:
        second_start, second_end = bounds[1]
        # DESIGN.md §1: a second segment that holds ':' is a behaviour-definition PID (an
        # NCName, a datastream id, holds none), whatever else it holds: checked as a PID.
        if _BDEF_SHAPE.search(text, second_start, second_end):
            bdef, found = pid_module.scan(text, second_start, second_end, CODE)
            problems += found
            if len(bounds) == 2:
                problems.append(
                    Problem(
                        f"{CODE}.missing-method",
                        "a behaviour-definition PID must be followed by '/' and a method name",
                        second_start,
                        second_end,
                    )
                )
            else:
                method, found = _ncname(text, *bounds[2], "method name")
                problems += found
        elif len(bounds) == 3:
            start = bounds[2][0] - 1
            problems.append(
                Problem(
                    f"{CODE}.extra-segment",
                    "a datastream id ends the URI; only a behaviour-definition PID is followed by a method",
                    start,
                    path_end,
                )
            )
        else:
            datastream, found = _ncname(text, second_start, second_end, "datastream id")
            problems += found

    parameters: Parameters = ()
    if query_at >= 0:
        if method is None and not any(p.code == f"{CODE}.missing-method" for p in problems):
            problems.append(
                Problem(
                    f"{CODE}.unexpected-parameters",
                    "parameters are defined only for method disseminations",
                    query_at,
                    body_end,
                )
            )
        else:
            parameters, found = _parameters(text, query_at + 1, body_end)
            problems += found
    if problems:
        return None, problems
    return InfoFedora(object_pid, datastream or None, bdef, method or None, parameters, fragment), []


def _parameters_in_order(match: re.Match[str]) -> bool:
    """Fast-path companion of NORMALIZED_RE: escape-free parameters, named and sorted."""
    query = match.group("query")
    if query is None:
        return True
    keys = []
    for chunk in query.split("&"):
        name, equals, value = chunk.partition("=")
        if not name:
            return False
        keys.append((name, value, bool(equals)))
    return keys == sorted(keys)


_REPAIRABLE = re.compile(r"(?ai:info:fedora/)([A-Za-z0-9.\-]+)(?::|%3[aA])")
# A datastream id (one segment, nothing after it) with escaped name characters in it.
_ESCAPED_DATASTREAM = re.compile(r"/[A-Za-z0-9._\-]*%[0-9A-Fa-f]{2}[A-Za-z0-9._%\-]*")
_ESCAPED_NAME_CHARACTER = re.compile(r"%(2[DdEe]|3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]|7[0-9Aa])")


def _repair(text: str) -> str | None:
    """The prefix in lower case, the object PID's separator unescaped, and the escaped name
    characters of a datastream id decoded (``INFO:FEDORA/demo%3a1/DS%2d1`` ->
    ``info:fedora/demo:1/DS-1``; a datastream id is an XML NCName, in which an escape names
    the character it encodes: RFC 3986 §6.2.2.2)."""
    match = _REPAIRABLE.match(text)
    if match is None:
        return None
    rest = text[match.end() :]
    # Only the path is repaired: a '/' or an escape after '?' or '#' belongs to the query or
    # the fragment, and a fragment is kept verbatim (DESIGN.md §1), so the datastream id must
    # end where the path does.
    path_end = len(rest)
    for delimiter in "?#":
        at = rest.find(delimiter, 0, path_end)
        if at >= 0:
            path_end = at
    slash = rest.find("/", 0, path_end)
    if slash >= 0 and _ESCAPED_DATASTREAM.fullmatch(rest, slash, path_end) is not None:
        datastream = _ESCAPED_NAME_CHARACTER.sub(lambda escape: chr(int(escape.group(1), 16)), rest[slash:path_end])
        rest = rest[:slash] + datastream + rest[path_end:]
    return f"{PREFIX}{match.group(1)}:{rest}"


SCHEME: Scheme[InfoFedora] = Scheme(
    CODE,
    _scan,
    precedence=10,
    prefix=PREFIX,  # RFC 4452: "info" and the namespace "fedora" in any case
    prefilter=(PREFIX,),
    # A canonical info:fedora IRI holds a normalized PID (namespace ':' object-id) or '*'.
    pid_namespace=lambda iri: None if iri.startswith("info:fedora/*") else iri[len(PREFIX) :].split(":", 1)[0],
    normalized=NORMALIZED_RE,
    normalized_check=_parameters_in_order,
    iri_of_normalized=str,
    repair=_repair,
    # The ASCII forms, compiled; what it leaves (non-ASCII text, escapes of UTF-8 octets in
    # names...) goes to the fast path and the scan above. Its classes: PID parts (pid.py),
    # ASCII NCName characters (XML 1.0 §2.3 minus ':'), parameter characters, and the ASCII
    # characters of an RFC 3987 §2.2 ifragment (ipchar, '/', '?').
    compiled=compiled_canonical(
        CODE,
        prefix=PREFIX,
        pid_max_length=pid_module.MAX_LENGTH,
        namespace=pid_module.NAMESPACE_CHARS,
        object_id=pid_module.OBJECT_ID_CHARS,
        name_start=ASCII_ALPHA | frozenset("_"),
        name=_SAFE_NCNAME_ASCII,
        unreserved=RFC3986_UNRESERVED,
        parameter=_PARAMETER_RAW | frozenset("="),  # '=' also inside a value
        fragment=RFC3986_PCHAR | frozenset("/?"),
    ),
)
claims = SCHEME.claims
check = SCHEME.check
parse = SCHEME.parse
normalize = SCHEME.normalize
