"""The N-Triples/N-Quads statement grammar (RDF 1.1 N-Triples §7, N-Quads §7) as regexes,
and what the regexes cannot say: that every IRI is an absolute IRI (RFC 3987), every
escape a Unicode scalar value, every language tag well-formed (BCP 47, RFC 5646 §2.2.9).

With it: a term's text parsed, and where and why a line is not a statement. It stands apart
from the per-line loop (:mod:`ldids.dumps.stream`): the compiled loop has the grammar in C
and needs these only for the rare lines it hands back to Python.

A line is a statement exactly when pyoxigraph's N-Triples/N-Quads parser (its default,
strict mode: the W3C suites' reference here, as for ldids' graph readers) reads it as RDF
1.1: the IRI and language tag checks below follow its libraries (oxiri, oxilangtag), and
benchmarks/fuzz_dump_grammar.py and tests/test_dump_grammar_fuzz.py hold the two equal.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from rdflib.term import Node

__all__ = [
    "Grammar",
    "compact_literal",
    "diagnose",
    "grammar",
    "iri_problem",
    "language_problem",
    "term_problem",
    "well_formed",
]

_HEX4, _HEX8 = r"[0-9A-Fa-f]{4}", r"[0-9A-Fa-f]{8}"
# Loops are unrolled (a run of plain characters, then escapes each followed by a run):
# Python's re is several times faster on that than on a per-character alternation.
_IRI_PLAIN = r'[^\x00-\x20<>"{}|^`\\]*'
_IRI = rf"<{_IRI_PLAIN}(?:\\(?:u{_HEX4}|U{_HEX8}){_IRI_PLAIN})*>"
_PN_START = (
    "A-Za-z0-9_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_REST = _PN_START + "\\-\u00b7\u0300-\u036f\u203f-\u2040"
# Terminals match longest first (N-Triples §7): a label takes every label character it can
# and gives back only trailing dots, so "_:a_" is one label, never "_:a" then "_".
_BNODE = rf"_:[{_PN_START}](?:[{_PN_REST}.]*[{_PN_REST}])?(?![{_PN_REST}.]*[{_PN_REST}])"
_STRING_PLAIN = r'[^"\\\n\r]*'
_STRING = rf'"{_STRING_PLAIN}(?:\\(?:[tbnrf"\'\\]|u{_HEX4}|U{_HEX8}){_STRING_PLAIN})*"'
_WS = r"[ \t]*+"  # possessive: a term never starts with white space, and long runs cost no backtracking
# A literal is not one terminal but up to three (N-Triples [6] literal): white space may
# stand between them, as between any two terminals.
_LITERAL = rf"{_STRING}(?:{_WS}@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*|{_WS}\^\^{_WS}{_IRI})?"
_NOTHING = re.compile(r"[ \t]*(?:#.*)?")
_EXPECTED = {"subject": "an IRI or blank node", "predicate": "an IRI", "object": "an IRI, blank node or literal"}
_END = re.compile(rf"{_WS}\.{_WS}(?:#.*)?$")


# The terms most of a dump holds, known good at a glance (the C loop takes the same short cut
# for IRIs): IRIs in ASCII, written without escapes, their authority (if any) a plain host,
# nothing in them that some part of an IRI refuses but a well-formed percent-encoding, at
# most one "#"; literals without \\u or \\U escapes, in a plain language (en, en-GB, es-419)
# or of a datatype such an IRI names (not rdf:langString).
# Unrolled (a run, then percent-encodings each followed by a run): no two ways to match the
# same text, so a long IRI that fails near its end does not make the regex backtrack for ever.
_ASCII_PART = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*(?:%[0-9A-Fa-f]{2}[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*)*"
_COMMON_IRI = (
    rf"<[A-Za-z][A-Za-z0-9+\-.]*:(?://[A-Za-z0-9\-._~!$&'()*+,;=]*(?=[/?#>])|(?!//)){_ASCII_PART}(?:#{_ASCII_PART})?>"
)
_COMMON_LITERAL = (
    rf'"{_STRING_PLAIN}(?:\\[tbnrf"\'\\]{_STRING_PLAIN})*"'
    r"(?:@[a-zA-Z]{2,3}(?:-[a-zA-Z]{2}|-[0-9]{3})?(?![a-zA-Z0-9-])"
    rf"|\^\^(?!<http://www\.w3\.org/1999/02/22-rdf-syntax-ns#(?:dir)?[lL]angString>){_COMMON_IRI})?"
)


class Grammar(NamedTuple):
    statement: re.Pattern[str]  # one whole statement; groups: subject, predicate, object, graph, comment
    pieces: tuple[tuple[str, re.Pattern[str]], ...]  # subject, predicate, object one by one
    graph: re.Pattern[str]
    #: A statement of the commonest terms, all known good (well_formed need not look at them);
    #: the same groups.
    common: re.Pattern[str]


@functools.cache
def grammar() -> Grammar:
    """The statement grammar's regexes, compiled when first needed: the blank node label's
    Unicode ranges take ~0.1 s to compile, and the compiled loop needs them only for the
    rare lines it hands back to Python."""
    term = rf"{_IRI}|{_BNODE}"
    return Grammar(
        re.compile(rf"{_WS}({term}){_WS}({_IRI}){_WS}({term}|{_LITERAL}){_WS}(?:({term}){_WS})?\.{_WS}(#.*)?"),
        (
            ("subject", re.compile(rf"{_WS}({term})")),
            ("predicate", re.compile(rf"{_WS}({_IRI})")),
            ("object", re.compile(rf"{_WS}({term}|{_LITERAL})")),
        ),
        re.compile(rf"{_WS}({term})"),
        re.compile(
            rf"{_WS}({_COMMON_IRI}|{_BNODE}){_WS}({_COMMON_IRI}){_WS}({_COMMON_IRI}|{_BNODE}|{_COMMON_LITERAL})"
            rf"{_WS}(?:({_COMMON_IRI}|{_BNODE}){_WS})?\.{_WS}(#.*)?"
        ),
    )


_UNDECODED = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)
_ESCAPE = re.compile(rf"\\(?:u({_HEX4})|U({_HEX8})|([tbnrf\"'\\]))")
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        return chr(int(code, 16)) if code else _ECHAR[match.group(3)]

    return _ESCAPE.sub(one, text)


def _parse_term(raw: str) -> Node:
    from rdflib.term import BNode, URIRef

    from ldids.ntriples import exact_literal

    if raw[0] == "<":
        return URIRef(_unescape(raw[1:-1]))
    if raw[0] == "_":
        return BNode(raw[2:])
    raw = compact_literal(raw)
    close = raw.rindex('"')
    lexical = _unescape(raw[1:close])
    rest = raw[close + 1 :]
    if rest.startswith("@"):
        return exact_literal(lexical, language=rest[1:])
    if rest.startswith("^^"):
        return exact_literal(lexical, datatype=_unescape(rest[3:-1]))
    return exact_literal(lexical)


def compact_literal(raw: str) -> str:
    """A literal as written, without white space between its terminals (``"x" ^^ <d>`` is
    ``"x"^^<d>``): the form the rest of ldids reads. Other terms are returned as they are."""
    if raw[0] != '"' or raw[-1] == '"':
        return raw
    close = raw.rindex('"')  # no '"' after the string: an IRI and a language tag hold none
    rest = raw[close + 1 :]
    if " " not in rest and "\t" not in rest:
        return raw
    return raw[: close + 1] + rest.replace(" ", "").replace("\t", "")


def diagnose(line: str, quads: bool) -> tuple[int, str]:
    """Where (1-based column) and why a line is not a statement."""
    position = 0
    rules = grammar()
    for name, piece in rules.pieces:
        found = piece.match(line, position)
        if found is None:
            column = position + len(line[position:]) - len(line[position:].lstrip(" \t")) + 1
            return column, f"expected the {name} ({_EXPECTED[name]})"
        problem = term_problem(found.group(1))
        if problem is not None:
            return found.start(1) + 1, f"the {name}: {problem}"
        position = found.end()
    graph = rules.graph.match(line, position)
    if graph is not None:
        if not quads:
            return graph.start(1) + 1, "an N-Triples statement has three terms (use N-Quads for graph names)"
        problem = term_problem(graph.group(1))
        if problem is not None:
            return graph.start(1) + 1, f"the graph name: {problem}"
        position = graph.end()
    if _END.match(line, position) is None:
        column = position + len(line[position:]) - len(line[position:].lstrip(" \t")) + 1
        return column, "expected '.' to end the statement"
    return 1, "not a statement"


def _why_bad(body: str, quads: bool) -> tuple[int, str]:
    """Column (1-based) and message for a line that is not a statement; ``body`` decoded
    with surrogateescape, so bytes that were not UTF-8 are lone surrogates (in a comment
    after a statement they may stand, as pyoxigraph reads them)."""
    match = grammar().statement.fullmatch(body)
    checked = len(body) if match is None or match.start(5) < 0 else match.start(5)
    not_utf8 = _UNDECODED.search(body, 0, checked)
    if not_utf8 is not None:
        return not_utf8.start() + 1, "not UTF-8"
    if match is not None and match.group(4) is not None and not quads:
        return match.start(4) + 1, "an N-Triples statement has three terms (use N-Quads for graph names)"
    return diagnose(body, quads)


# -- What the regexes cannot say ----------------------------------------------------------------
#
# Each check answers None for a good term, else why not. A term's escapes are checked first
# (a \\U escape past U+10FFFF or of a UTF-16 surrogate names no character, N-Triples §2.3);
# an IRI is checked once unescaped, as RFC 3987 §2.2 reads it.


def well_formed(match: re.Match[str]) -> bool:
    """Whether a statement the regex matched holds terms RDF 1.1 allows (see :func:`term_problem`)."""
    for raw in match.group(1, 2, 3, 4):
        if raw is None or raw[0] == "_" or (raw[-1] == '"' and "\\" not in raw):
            continue  # no term, a blank node, a simple literal without escapes: all good
        if _known_term_problem(raw) is not None:
            return False
    return True


def term_problem(raw: str) -> str | None:
    """Why a term the regex matched (an IRI, blank node or literal, as written) is not one
    RDF 1.1 allows, or None if it is."""
    if raw[0] == "<":
        return _iri_term_problem(raw)
    if raw[0] == "_":
        return None
    raw = compact_literal(raw)
    close = raw.rindex('"')
    if "\\" in raw[:close]:
        problem = _escapes_problem(raw[1:close])
        if problem is not None:
            return problem
    rest = raw[close + 1 :]
    if rest.startswith("@"):
        return language_problem(rest[1:])
    if rest.startswith("^^"):
        problem = _iri_term_problem(rest[2:])
        if problem is not None:
            return f"the datatype: {problem}"
        if rest[3:-1] in _LANGUAGE_DATATYPES or _unescape(rest[3:-1]) in _LANGUAGE_DATATYPES:
            return "a literal without a language tag cannot have the datatype rdf:langString (RDF 1.1 §3.3)"
    return None


# A dump says the same predicates, datatypes, language tags and subjects again and again.
_known_term_problem = functools.lru_cache(maxsize=4096)(term_problem)

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_LANGUAGE_DATATYPES = frozenset({_RDF + "langString", _RDF + "dirLangString"})


def _escapes_problem(text: str) -> str | None:
    for escape in _ESCAPE.finditer(text):  # left to right: "\\\\U00110000" is a backslash, then text
        code = escape.group(1) or escape.group(2)
        if code is None:
            continue
        value = int(code, 16)
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            return f"the escape {escape.group()} names no character (a surrogate, or past U+10FFFF)"
    return None


def _iri_term_problem(raw: str) -> str | None:
    text = raw[1:-1]
    if "\\" in text:
        problem = _escapes_problem(text)
        if problem is not None:
            return problem
        text = _unescape(text)
    elif _PLAIN_IRI.fullmatch(text) is not None:
        return None  # the common case, known good without the full check
    problem = iri_problem(text)
    return None if problem is None else f"not an absolute IRI (RFC 3987): {problem}"


# RFC 3987 §2.2, as oxiri (pyoxigraph's IRI library) checks it.
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    + "".join(f"{chr(plane << 16)}-{chr((plane << 16) | 0xFFFD)}" for plane in range(1, 14))
    + "\U000e1000-\U000efffd"
)
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_UNRESERVED_SUB_DELIMS = "A-Za-z0-9\\-._~!$&'()*+,;="


def _component(extra: str) -> re.Pattern[str]:
    """The first character a component may not hold (or a "%" without two hex digits)."""
    return re.compile(rf"%(?![0-9A-Fa-f]{{2}})|[^%{_UNRESERVED_SUB_DELIMS}{extra}{_UCSCHAR}]")


_USERINFO_BAD, _HOST_BAD = _component(":"), _component("")
_PATH_BAD, _QUERY_BAD, _FRAGMENT_BAD = _component(":@/"), _component(f":@/?{_IPRIVATE}"), _component(":@/?")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*")
# IP-literals (RFC 3987 §2.2, RFC 3986 §3.2.2) as Rust's Ipv6Addr reads them: groups of one
# to four hex digits, "::" for one or more zero groups, dotted IPv4 in the last 32 bits
# (octets without leading zeros); IPvFuture.
_HEX_GROUP = re.compile(r"[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f])")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])(?![0-9])"
_IPV4 = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}")
_IP_FUTURE = re.compile(rf"[vV][0-9A-Fa-f]+\.[{_UNRESERVED_SUB_DELIMS}:]+")
# An IRI known good at a glance: scheme, reg-name authority, path, query and fragment of
# unreserved, sub-delims, ":" and "@" (and "/", "?"), percent-encodings well formed.
_PC = rf"(?:[{_UNRESERVED_SUB_DELIMS}:@]|%[0-9A-Fa-f]{{2}})"
_PLAIN_IRI = re.compile(
    rf"[A-Za-z][A-Za-z0-9+\-.]*:"
    rf"(?://(?:[{_UNRESERVED_SUB_DELIMS}]|%[0-9A-Fa-f]{{2}})*(?::[0-9]*)?(?=[/?#]|$)|(?!//))"
    rf"(?:{_PC}|/)*(?:\?(?:{_PC}|[/?])*)?(?:#(?:{_PC}|[/?])*)?"
)


def _bad(pattern: re.Pattern[str], text: str, what: str) -> str | None:
    found = pattern.search(text)
    if found is None:
        return None
    if found.group() == "%":
        return f"'%' not followed by two hex digits in the {what}"
    return f"{found.group()!r} (U+{ord(found.group()):04X}) may not stand in the {what}"


def iri_problem(iri: str) -> str | None:
    """Why ``iri`` (unescaped) is not an absolute IRI (RFC 3987 §2.2), or None if it is.

    >>> iri_problem("http://example.org/a%20b?q#f") is None
    True
    >>> iri_problem("demo:1/%zz")
    "'%' not followed by two hex digits in the path"
    """
    colon = iri.find(":")
    if colon < 0:
        return "a relative IRI (no scheme); N-Triples and N-Quads IRIs are absolute"
    if _SCHEME.fullmatch(iri, 0, colon) is None:
        return f"{iri[:colon]!r} is not a scheme"
    path_start = colon + 1
    path_end = len(iri)
    for mark in "?#":
        found = iri.find(mark, path_start)
        if 0 <= found < path_end:
            path_end = found
    query_end = iri.find("#", path_end)
    query_end = len(iri) if query_end < 0 else query_end
    if iri.startswith("//", path_start) and path_start + 2 <= path_end:
        slash = iri.find("/", path_start + 2, path_end)
        authority_end = path_end if slash < 0 else slash
        problem = _authority_problem(iri[path_start + 2 : authority_end])
        if problem is not None:
            return problem
        path_start = authority_end
    return (
        _bad(_PATH_BAD, iri[path_start:path_end], "path")
        or (_bad(_QUERY_BAD, iri[path_end + 1 : query_end], "query") if query_end > path_end else None)
        or (_bad(_FRAGMENT_BAD, iri[query_end + 1 :], "fragment") if query_end < len(iri) else None)
    )


def _authority_problem(authority: str) -> str | None:
    at = authority.find("@")
    if at >= 0:
        problem = _bad(_USERINFO_BAD, authority[:at], "user information")
        if problem is not None:
            return problem
        authority = authority[at + 1 :]
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            return "'[' without ']' in the host"
        address = authority[1:close]
        if address[:1] in ("v", "V"):
            if _IP_FUTURE.fullmatch(address) is None:
                return f"[{address}] is not an IPvFuture address"
        elif not _ipv6(address):
            return f"[{address}] is not an IPv6 address"
        port = authority[close + 1 :]
        if port and (port[0] != ":" or not _digits(port[1:])):
            return f"{port!r} after the IP address is not a port"
        return None
    colon = authority.find(":")
    if colon >= 0:
        if not _digits(authority[colon + 1 :]):
            return f"the port {authority[colon + 1 :]!r} is not digits"
        authority = authority[:colon]
    return _bad(_HOST_BAD, authority, "host")


def _digits(text: str) -> bool:
    return all("0" <= c <= "9" for c in text)


def _ipv6(text: str) -> bool:
    """Whether ``text`` is an IPv6 address as Rust's ``Ipv6Addr::from_str`` reads one."""

    def groups(position: int, limit: int) -> tuple[int, int, bool]:
        # (where reading stopped, groups read, ended with an IPv4 address)
        for index in range(limit):
            start = position
            if index > 0:
                if not text.startswith(":", position):
                    return position, index, False
                start += 1
            if index < limit - 1:  # an IPv4 address takes two groups
                four = _IPV4.match(text, start)
                if four is not None:
                    return four.end(), index + 2, True
            group = _HEX_GROUP.match(text, start)
            if group is None:
                return position, index, False
            position = group.end()
        return position, limit, False

    position, head, head_ipv4 = groups(0, 8)
    if head == 8:
        return position == len(text)
    if head_ipv4 or not text.startswith("::", position):
        return False
    position, _, _ = groups(position + 2, 7 - head)
    return position == len(text)


# BCP 47 well-formedness (RFC 5646 §2.1, §2.2.9), as oxilangtag checks it.
# Irregular and regular grandfathered tags (RFC 5646 §2.2.8), in lower case.
_GRANDFATHERED = frozenset({
    "art-lojban", "cel-gaulish", "en-gb-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak", "i-klingon",
    "i-lux", "i-mingo", "i-navajo", "i-pwn", "i-tao", "i-tay", "i-tsu", "no-bok", "no-nyn", "sgn-be-fr", "sgn-be-nl",
    "sgn-ch-de", "zh-guoyu", "zh-hakka", "zh-min", "zh-min-nan", "zh-xiang",
})  # fmt: skip
_ALPHA = re.compile(r"[A-Za-z]+")
_DIGIT = re.compile(r"[0-9]+")
_ALPHANUM = re.compile(r"[A-Za-z0-9]+")
# Where in a tag a subtag is read (RFC 5646 §2.1: language, extlang, script, region,
# variants, extensions, private use).
_LANGUAGE, _EXTLANG, _SCRIPT, _REGION, _EXTENSION, _EXTENSION_EMPTY, _PRIVATE, _PRIVATE_EMPTY = range(8)


def language_problem(tag: str) -> str | None:
    """Why ``tag`` (after the "@") is not a well-formed BCP 47 language tag, or None.

    >>> language_problem("de-CH-1901") is None
    True
    >>> language_problem("en-a")
    'an extension or private use (en-a) has no subtags'
    """
    if tag.lower() in _GRANDFATHERED:
        return None
    if tag[:2] in ("x-", "X-"):
        for subtag in tag[2:].split("-"):
            if _ALPHANUM.fullmatch(subtag) is None:
                return f"{tag} is not a private use tag"
            if len(subtag) > 8:
                return f"the subtag {subtag} is longer than 8 characters"
        return None
    state = None
    extlangs = 0
    for subtag in tag.split("-"):
        size = len(subtag)
        alpha = _ALPHA.fullmatch(subtag) is not None
        alphanum = _ALPHANUM.fullmatch(subtag) is not None
        if size == 0:
            return f"an empty subtag in {tag}"
        if size > 8:
            return f"the subtag {subtag} is longer than 8 characters"
        if state is None:
            if size < 2 or not alpha:
                return f"{subtag} is not a primary language subtag (2 to 8 letters)"
            state = _LANGUAGE if size < 4 else _EXTLANG
        elif state in (_PRIVATE, _PRIVATE_EMPTY):
            if not alphanum:
                return f"{subtag} is not a private use subtag"
            state = _PRIVATE
        elif size == 1 and alphanum:
            if state == _EXTENSION_EMPTY:
                return f"an extension ({tag}) has no subtags"
            state = _PRIVATE_EMPTY if subtag in ("x", "X") else _EXTENSION_EMPTY
        elif state in (_EXTENSION, _EXTENSION_EMPTY):
            if not alphanum:
                return f"{subtag} is not an extension subtag"
            state = _EXTENSION
        elif state == _LANGUAGE and size == 3 and alpha:
            extlangs += 1
            if extlangs > 3:
                return f"more than three extended language subtags in {tag}"
        elif state in (_LANGUAGE, _EXTLANG) and size == 4 and alpha:
            state = _SCRIPT
        elif state in (_LANGUAGE, _EXTLANG, _SCRIPT) and (
            (size == 2 and alpha) or (size == 3 and _DIGIT.fullmatch(subtag) is not None)
        ):
            state = _REGION
        elif alphanum and ((size >= 5 and subtag[0].isalpha()) or (size >= 4 and subtag[0].isdigit())):
            state = _REGION  # a variant; more may follow
        else:
            return f"{subtag} is not a subtag that may stand here in {tag}"
    if state in (_EXTENSION_EMPTY, _PRIVATE_EMPTY):
        return f"an extension or private use ({tag}) has no subtags"
    return None
