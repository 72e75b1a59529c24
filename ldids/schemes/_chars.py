"""Character classes and scanners shared by the schemes.

The OAI identifier format and the POI both restrict the "general, absolute URI" syntax of
RFC 2396 and reuse its ``reserved``/``unreserved``/``uric`` sets; info:fedora URIs and
handles are written in RFC 3986 terms. The sets are spelled out here once.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterator
from typing import Literal

from ldids.errors import Problem

ASCII_ALPHA = frozenset(string.ascii_letters)
ALPHANUM = frozenset(string.ascii_letters + string.digits)
HEX_UPPER = frozenset("0123456789ABCDEF")
HEX_ANY = frozenset(string.hexdigits)

# RFC 2396 §2.2 and §2.3, as copied into the OAI identifier and POI texts.
RFC2396_RESERVED = frozenset(";/?:@&=+$,")
RFC2396_MARK = frozenset("-_.!~*'()")
RFC2396_UNRESERVED = ALPHANUM | RFC2396_MARK

# RFC 3986 §2.3 unreserved and §3.3 pchar (without pct-encoded).
RFC3986_UNRESERVED = ALPHANUM | frozenset("-._~")
RFC3986_SUB_DELIMS = frozenset("!$&'()*+,;=")
RFC3986_PCHAR = RFC3986_UNRESERVED | RFC3986_SUB_DELIMS | frozenset(":@")

# Regex fragments for the fast paths of the OAI and POI schemes (same ABNF in both texts).
DOMAIN_PATTERN = r"[A-Za-z][A-Za-z0-9\-]*(?:\.[A-Za-z][A-Za-z0-9\-]*)+"
URIC_UNESCAPED_PATTERN = r"[A-Za-z0-9;/?:@&=+$,\-_.!~*'()]"

# Characters that may not stand unescaped anywhere in an IRI (RFC 3987 §2.2 excludes
# them from every production): controls, space and the "unwise" delimiters.
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20\x7f-\x9f<>"{}|\\^`]')


# RFC 3987 §2.2: the non-ASCII characters an IRI may hold unescaped. ucschar anywhere
# (in iunreserved); iprivate in an iquery only. Surrogates, the noncharacters U+FDD0-FDEF
# and U+xFFFE/U+xFFFF, and the specials U+FFF0-FFFD are in neither.
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    "\U00010000-\U0001fffd\U00020000-\U0002fffd\U00030000-\U0003fffd\U00040000-\U0004fffd"
    "\U00050000-\U0005fffd\U00060000-\U0006fffd\U00070000-\U0007fffd\U00080000-\U0008fffd"
    "\U00090000-\U0009fffd\U000a0000-\U000afffd\U000b0000-\U000bfffd\U000c0000-\U000cfffd"
    "\U000d0000-\U000dfffd\U000e1000-\U000efffd"
)
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
# ipchar without pct-encoded, in ASCII: unreserved, sub-delims, ":" and "@" (RFC 3987 §2.2).
_IPCHAR_ASCII = r"A-Za-z0-9\-._~!$&'()*+,;=:@"
#: An ASCII-only iquery or ifragment (``*( ipchar / "/" / "?" )``, escapes in either hex
#: case): the fast paths' tails; a tail with other characters gets the full scan. Written
#: as runs between escapes, so that the regex engine takes a run at a time.
URI_TAIL_ASCII_PATTERN = rf"[{_IPCHAR_ASCII}/?]*(?:%[0-9A-Fa-f]{{2}}[{_IPCHAR_ASCII}/?]*)*"
_NOT_IN_COMPONENT = {
    # iquery = *( ipchar / iprivate / "/" / "?" ); ifragment = *( ipchar / "/" / "?" ).
    "query": re.compile(rf"%(?![0-9A-Fa-f]{{2}})|[^%{_IPCHAR_ASCII}/?{_UCSCHAR}{_IPRIVATE}]"),
    "fragment": re.compile(rf"%(?![0-9A-Fa-f]{{2}})|[^%{_IPCHAR_ASCII}/?{_UCSCHAR}]"),
}


def iri_component_errors(text: str, start: int, end: int, component: Literal["query", "fragment"]) -> Iterator[int]:
    """Offsets where ``text[start:end]`` stops being an RFC 3987 §2.2 ``iquery`` or
    ``ifragment``: a character the production does not allow (a second '#', '[', ']',
    a space, a noncharacter...) or a '%' that is not followed by two hex digits.

    Query and fragment are kept as they are written (DESIGN.md §1), so what cannot stand
    in an IRI there is reported, never repaired."""
    for match in _NOT_IN_COMPONENT[component].finditer(text, start, end):
        yield match.start()


#: An absolute IRI in the plainest shape RFC 3987 §2.2 allows: a scheme, an authority (if
#: any) of iuserinfo, ireg-name and port, then ipchar, "/" and "?" with well-formed escapes
#: (iprivate in the query), and a fragment. IP literals are left out: a text that does not
#: match may still be an IRI, one that matches is one.
_HOST_CHAR = rf"(?:[A-Za-z0-9\-._~!$&'()*+,;={_UCSCHAR}]|%[0-9A-Fa-f]{{2}})"
_USER_CHAR = rf"(?:[A-Za-z0-9\-._~!$&'()*+,;=:{_UCSCHAR}]|%[0-9A-Fa-f]{{2}})"
_PLAIN_IRI = rf"""[A-Za-z][A-Za-z0-9+.\-]*:
    (?://(?:{_USER_CHAR}*@)?{_HOST_CHAR}*(?::[0-9]*)?(?=[/?\#]|$)|(?!//))
    (?:[{_IPCHAR_ASCII}/{_UCSCHAR}]|%[0-9A-Fa-f]{{2}})*
    (?:\?(?:[{_IPCHAR_ASCII}/?{_UCSCHAR}{_IPRIVATE}]|%[0-9A-Fa-f]{{2}})*)?
    (?:\#(?:[{_IPCHAR_ASCII}/?{_UCSCHAR}]|%[0-9A-Fa-f]{{2}})*)?"""


def is_plain_iri(text: str) -> bool:
    """Whether ``text`` is an absolute IRI of the plain shape of ``_PLAIN_IRI``."""
    return re.fullmatch(_PLAIN_IRI, text, re.VERBOSE) is not None  # compiled when first used


_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


def ascii_lower(text: str) -> str:
    """``text`` with A-Z in lower case and nothing else changed.

    Schemes and hosts are case-insensitive in ASCII only (RFC 3986 §3.1, §3.2.2): str.lower
    would also map KELVIN SIGN to "k" and DOTTED CAPITAL I to "i" plus a combining dot."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def iri_forbidden(text: str) -> Iterator[int]:
    """Offsets of characters that cannot stand in any IRI."""
    for match in _IRI_FORBIDDEN.finditer(text):
        yield match.start()


def describe(ch: str) -> str:
    """A character as people read it in an error message: ``'<'`` or ``U+00A0``."""
    if ch.isprintable() and not ch.isspace():
        return repr(ch)
    return f"U+{ord(ch):04X}"


def check_domain_namespace(text: str, start: int, end: int, prefix: str) -> list[Problem]:
    """Problems with ``text[start:end]`` as an OAI/POI ``namespace-identifier``.

    namespace-identifier = domainname-word "." domainname
    domainname           = domainname-word [ "." domainname ]
    domainname-word      = alpha *( alphanum | "-" )

    (OAI identifier format §2; POI §2.) The XSD pattern of the OAI text asks for labels of
    two or more characters after the first; the ABNF, which is normative, does not.
    """
    problems: list[Problem] = []
    if start == end:
        return [Problem(f"{prefix}.empty-namespace", "the namespace-identifier is empty", start, end)]
    label_start = start
    labels = 0
    for position in range(start, end + 1):
        if position < end and text[position] != ".":
            continue
        labels += 1
        if label_start == position:
            problems.append(
                Problem(
                    f"{prefix}.empty-label",
                    "a domain name label is empty",
                    label_start,
                    position + 1 if position < end else position,
                )
            )
        elif text[label_start] not in ASCII_ALPHA:
            problems.append(
                Problem(
                    f"{prefix}.label-start",
                    "a domain name label must start with a letter (A-Z, a-z)",
                    label_start,
                    label_start + 1,
                )
            )
        for offset in range(label_start + 1, position):
            ch = text[offset]
            if ch not in ALPHANUM and ch != "-":
                problems.append(
                    Problem(
                        f"{prefix}.namespace-character",
                        f"{describe(ch)} is not allowed in a domain name label (letters, digits, '-')",
                        offset,
                        offset + 1,
                    )
                )
        label_start = position + 1
    if labels < 2 and not problems:
        problems.append(
            Problem(
                f"{prefix}.namespace-not-domain",
                "the namespace-identifier must be a domain name with at least two labels (example.org)",
                start,
                end,
            )
        )
    return problems


def check_uric_run(text: str, start: int, prefix: str) -> list[Problem]:
    """Problems with ``text[start:]`` as ``1*uric`` under the OAI/POI escaping rules.

    Every character must be reserved, unreserved or an escape "%" hex hex whose hex digits
    are upper case; characters in the reserved and unreserved sets must not be escaped
    (OAI identifier format §2, POI §2).
    """
    problems: list[Problem] = []
    end = len(text)
    if start >= end:
        return [Problem(f"{prefix}.empty-local-identifier", "the local-identifier is empty", start, end)]
    position = start
    while position < end:
        ch = text[position]
        if ch == "%":
            digits = text[position + 1 : position + 3]
            if len(digits) < 2 or not all(d in HEX_ANY for d in digits):
                problems.append(
                    Problem(
                        f"{prefix}.bad-escape",
                        "'%' must be followed by two hex digits",
                        position,
                        position + 1 + len(digits),
                    )
                )
                position += 1
                continue
            span_end = position + 3
            if not all(d in HEX_UPPER for d in digits):
                problems.append(
                    Problem(
                        f"{prefix}.lowercase-hex",
                        f"escapes must use upper-case hex digits (%{digits.upper()}, not %{digits})",
                        position,
                        span_end,
                    )
                )
            decoded = chr(int(digits, 16))
            if decoded in RFC2396_RESERVED:
                problems.append(
                    Problem(
                        f"{prefix}.escaped-reserved",
                        f"reserved character {decoded!r} must not be escaped",
                        position,
                        span_end,
                    )
                )
            elif decoded in RFC2396_UNRESERVED:
                problems.append(
                    Problem(
                        f"{prefix}.escaped-unreserved",
                        f"unreserved character {decoded!r} must not be escaped",
                        position,
                        span_end,
                    )
                )
            position = span_end
            continue
        if ch not in RFC2396_RESERVED and ch not in RFC2396_UNRESERVED:
            problems.append(
                Problem(
                    f"{prefix}.invalid-character",
                    f"{describe(ch)} is not allowed in the local-identifier; escape it as {percent_encode(ch)}",
                    position,
                    position + 1,
                )
            )
        position += 1
    return problems


@functools.cache
def _unsafe_run(safe: frozenset[str]) -> re.Pattern[str]:
    """A regex for runs of characters outside ``safe`` (safe sets are few and fixed)."""
    if not safe:
        return re.compile(r"[\s\S]+")
    return re.compile("[^" + "".join(re.escape(ch) for ch in sorted(safe)) + "]+")


def _escape_run(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8", "surrogatepass"))


def percent_encode(text: str, safe: frozenset[str] = frozenset()) -> str:
    """UTF-8 percent-encode every character of ``text`` not in ``safe``, upper-case hex.

    >>> percent_encode("a b/é", ALPHANUM | frozenset("/"))
    'a%20b/%C3%A9'
    """
    return _unsafe_run(safe).sub(_escape_run, text)


def escape_spans(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of each syntactically complete ``%HH`` escape in ``text[start:end]``."""
    stop = len(text) if end is None else end
    position = text.find("%", start, stop)
    while position != -1:
        if position + 3 <= stop and text[position + 1] in HEX_ANY and text[position + 2] in HEX_ANY:
            yield position, position + 3
            position = text.find("%", position + 3, stop)
        else:
            position = text.find("%", position + 1, stop)


# XML 1.0 (Fifth Edition) §2.3 NameStartChar and NameChar, minus ":" (Namespaces in XML
# §3, NCName). Fedora datastream ids and method names are NCNames.
_NCNAME_START = (
    "A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_NCNAME_REST = _NCNAME_START + r"\-.0-9\u00b7\u0300-\u036f\u203f-\u2040"


@functools.cache
def ncname_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(an NCName, one NCName character), compiled when first asked for: the Unicode
    ranges take ~20 ms to compile, and only the full scan of a datastream id needs them
    (not the fast path, nor a program that never meets one)."""
    return re.compile(f"[{_NCNAME_START}][{_NCNAME_REST}]*"), re.compile(f"[{_NCNAME_REST}]")
