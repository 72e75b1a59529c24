"""The N-Triples/N-Quads statement grammar (RDF 1.1 N-Triples §7, N-Quads §7) as regexes.

With it: a term's text parsed, and where and why a line is not a statement. It stands apart
from the per-line loop (:mod:`ldids.dumps.stream`): the compiled loop has the grammar in C
and needs these only for the rare lines it hands back to Python.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from rdflib.term import Node

__all__ = ["Grammar", "diagnose", "grammar"]

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
_LITERAL = rf"{_STRING}(?:@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*|\^\^{_IRI})?"
_WS = r"[ \t]*"
_NOTHING = re.compile(r"[ \t]*(?:#.*)?")
_EXPECTED = {"subject": "an IRI or blank node", "predicate": "an IRI", "object": "an IRI, blank node or literal"}
_END = re.compile(rf"{_WS}\.{_WS}(?:#.*)?$")


class Grammar(NamedTuple):
    statement: re.Pattern[str]  # one whole statement; groups: subject, predicate, object, graph
    pieces: tuple[tuple[str, re.Pattern[str]], ...]  # subject, predicate, object one by one
    graph: re.Pattern[str]


@functools.cache
def grammar() -> Grammar:
    """The statement grammar's regexes, compiled when first needed: the blank node label's
    Unicode ranges take ~0.1 s to compile, and the compiled loop needs them only for the
    rare lines it hands back to Python."""
    term = rf"{_IRI}|{_BNODE}"
    return Grammar(
        re.compile(rf"{_WS}({term}){_WS}({_IRI}){_WS}({term}|{_LITERAL}){_WS}(?:({term}){_WS})?\.{_WS}(?:#.*)?"),
        (
            ("subject", re.compile(rf"{_WS}({term})")),
            ("predicate", re.compile(rf"{_WS}({_IRI})")),
            ("object", re.compile(rf"{_WS}({term}|{_LITERAL})")),
        ),
        re.compile(rf"{_WS}({term})"),
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
    from rdflib.term import BNode, Literal, URIRef

    if raw[0] == "<":
        return URIRef(_unescape(raw[1:-1]))
    if raw[0] == "_":
        return BNode(raw[2:])
    close = raw.rindex('"')
    lexical = _unescape(raw[1:close])
    rest = raw[close + 1 :]
    if rest.startswith("@"):
        return Literal(lexical, lang=rest[1:])
    if rest.startswith("^^"):
        return Literal(lexical, datatype=URIRef(_unescape(rest[3:-1])))
    return Literal(lexical)


def diagnose(line: str, quads: bool) -> tuple[int, str]:
    """Where (1-based column) and why a line is not a statement."""
    position = 0
    rules = grammar()
    for name, piece in rules.pieces:
        found = piece.match(line, position)
        if found is None:
            column = position + len(line[position:]) - len(line[position:].lstrip(" \t")) + 1
            return column, f"expected the {name} ({_EXPECTED[name]})"
        position = found.end()
    graph = rules.graph.match(line, position)
    if graph is not None:
        if not quads:
            return graph.start(1) + 1, "an N-Triples statement has three terms (use N-Quads for graph names)"
        position = graph.end()
    if _END.match(line, position) is None:
        column = position + len(line[position:]) - len(line[position:].lstrip(" \t")) + 1
        return column, "expected '.' to end the statement"
    return 1, "not a statement"


def _why_bad(body: str, quads: bool) -> tuple[int, str]:
    """Column (1-based) and message for a line that is not a statement; ``body`` decoded
    with surrogateescape, so bytes that were not UTF-8 are lone surrogates."""
    not_utf8 = _UNDECODED.search(body)
    if not_utf8 is not None:
        return not_utf8.start() + 1, "not UTF-8"
    match = grammar().statement.fullmatch(body)
    if match is not None and match.group(4) is not None and not quads:
        return match.start(4) + 1, "an N-Triples statement has three terms (use N-Quads for graph names)"
    return diagnose(body, quads)
