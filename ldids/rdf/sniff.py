"""Telling an RDF format from the first bytes of a document: standard input, and files whose
name says none.

The first 64 KiB decide, in this order:

- XML (a prolog, or a start tag) is told by its root element: ``rdf:RDF`` is RDF/XML, as is
  a root that declares the RDF namespace (RDF/XML §2.13 lets one node element stand
  alone); ``digitalObject`` is FOXML and ``OAI-PMH`` an OAI-PMH response.
- Lines that are all N-Triples or N-Quads statements (RDF 1.1 N-Triples §7, N-Quads §7),
  comments and blank lines are N-Quads if one names a graph, else N-Triples; Turtle and
  TriG hold these documents too, but the line formats are streamed.
- A JSON object or array is JSON-LD (``{`` followed by ``"`` or ``}``; ``[`` by ``{``,
  ``[`` or ``"``); TriG's ``{ <s> ...`` and Turtle's ``[ ex:p ...`` are not.
- Anything that starts as Turtle does (a directive, an IRI, a blank node, a prefixed name,
  a collection) is TriG if it has a graph block (``{`` or ``GRAPH`` outside strings, IRIs
  and comments), else Turtle.

What is none of these is an error that says how the document starts. An empty document
(or one of comments only) holds no statements and is read as N-Triples.
"""

from __future__ import annotations

import re

from ldids.errors import InputError
from ldids.rdf.formats import FORMATS, Format, resolve_format

__all__ = ["SNIFF_SIZE", "sniff"]

#: How much of a document is looked at to tell its format.
SNIFF_SIZE = 1 << 16

_RDF_NAMESPACE = b"http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_XML_ROOTS = {b"RDF": "xml", b"digitalObject": "foxml", b"OAI-PMH": "oai-pmh"}

# N-Triples/N-Quads terms (RDF 1.1 N-Triples §7). Blank node labels are taken in ASCII only:
# rdflib's N-Triples reader refuses the others, which its Turtle reader reads.
_IRI = rb"<(?:[^\x00-\x20<>\"{}|^`\\]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>"
_BLANK = rb"_:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?"
_LITERAL = rb'"(?:[^"\\\n\r]|\\.)*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^' + _IRI + rb")?"
_STATEMENT = re.compile(
    rb"(?:%(i)s|%(b)s)[ \t]*%(i)s[ \t]*(?:%(i)s|%(b)s|%(l)s)[ \t]*(?P<graph>(?:%(i)s|%(b)s)[ \t]*)?\.[ \t]*(?:#.*)?"
    % {b"i": _IRI, b"b": _BLANK, b"l": _LITERAL}
)
# A start tag with attributes: every root ldids reads declares its namespace. ("<urn:x>"
# alone could be an IRI, which holds no white space.)
_XML_START = re.compile(rb"<(?:[A-Za-z_][\w.\-]*:)?[A-Za-z_][\w.\-]*\s")
_XML_ROOT = re.compile(rb"<(?:[A-Za-z_][\w.\-]*:)?(?P<local>[A-Za-z_][\w.\-]*)")
_TURTLE_START = re.compile(rb"@prefix\b|@base\b|(?:prefix|base|graph)\b|<|_:|\[|\(|\{|(?:[A-Za-z][\w.\-]*)?:", re.I)
# What may hold a "{" or the word GRAPH that is not TriG's: strings, IRIs, comments.
_NOT_SYNTAX = re.compile(
    rb'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n\r]|\\.)*"|\'(?:[^\'\\\n\r]|\\.)*\'|<[^<>\s]*>|#[^\n]*'
)
_GRAPH = re.compile(rb"(?:^|[\s.}])graph\s", re.I)


def sniff(data: bytes, source: str = "<data>") -> Format:
    """The format of a document from its first bytes; raises InputError saying how it starts
    when it is none of the formats ldids reads.

    >>> sniff(b'<info:fedora/demo:1> <http://purl.org/dc/terms/isPartOf> <info:fedora/demo:c> <http://g> .\\n').name
    'nquads'
    >>> sniff(b'@prefix dc: <http://purl.org/dc/terms/> .\\n<info:fedora/demo:1> dc:title "A" .\\n').name
    'turtle'
    """
    head = _text(data[:SNIFF_SIZE])
    found = _tell(head, truncated=len(data) > SNIFF_SIZE)
    if isinstance(found, Format):
        return found
    formats = ", ".join(f.name for f in FORMATS)
    raise InputError(f"cannot tell the format: {found}; name it with -i ({formats})", source=source)


def _text(head: bytes) -> bytes:
    """The head as UTF-8, without a byte order mark (UTF-16 occurs in XML)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", "ignore").encode("utf-8")
    return head.removeprefix(b"\xef\xbb\xbf")


def _tell(head: bytes, truncated: bool) -> Format | str:
    body = _after_comments(head)
    if not body:
        return resolve_format("nt")
    if body.startswith((b"<?", b"<!")):
        return _xml(body)
    lines = _line_format(head, truncated)
    if lines is not None:
        return lines
    if _XML_START.match(body):
        return _xml(body)
    if body.startswith((b"{", b"[")) and _is_json(body):
        return resolve_format("json-ld")
    if _TURTLE_START.match(body):
        bare = _NOT_SYNTAX.sub(b" ", body)
        return resolve_format("trig" if b"{" in bare or _GRAPH.search(bare) else "turtle")
    return f"it starts {_shown(body)}"


def _after_comments(head: bytes) -> bytes:
    """The head from its first line that is neither blank nor a comment."""
    at = 0
    while True:
        rest = head[at:].lstrip()
        if not rest.startswith(b"#"):
            return rest
        end = rest.find(b"\n")
        if end < 0:
            return b""
        at = len(head) - len(rest) + end + 1


def _line_format(head: bytes, truncated: bool) -> Format | None:
    """N-Quads or N-Triples, if every whole line of the head is a statement, blank or a comment."""
    lines = head.split(b"\n")
    if truncated:
        lines.pop()  # cut short: its end is not in the head
    statements, quads = 0, False
    for line in lines:
        text = line.strip(b" \t\r")
        if not text or text.startswith(b"#"):
            continue
        match = _STATEMENT.fullmatch(text)
        if match is None:
            return None
        statements += 1
        quads = quads or match["graph"] is not None
    if not statements:
        return None
    return resolve_format("nquads" if quads else "nt")


def _xml(body: bytes) -> Format | str:
    """XML told by its root element, after the prolog (declaration, comments, processing
    instructions, document type)."""
    rest = body
    while True:
        rest = rest.lstrip()
        if rest.startswith(b"<?"):
            end = rest.find(b"?>") + 2
        elif rest.startswith(b"<!--"):
            end = rest.find(b"-->") + 3
        elif rest[:9].upper() == b"<!DOCTYPE":
            inner = rest.find(b"[")
            close = rest.find(b">")
            end = (rest.find(b"]>", inner) + 2 if 0 <= inner < close else close + 1) if close >= 0 else -1
        else:
            break
        if end <= 1:
            return "its XML prolog goes on past the first 64 KiB"
        rest = rest[end:]
    root = _XML_ROOT.match(rest)
    if root is None:
        return f"it is XML with no root element where one belongs ({_shown(rest)})"
    name = _XML_ROOTS.get(root["local"])
    if name is not None:
        return resolve_format(name)
    start_tag = rest[: rest.find(b">") + 1] or rest
    if _RDF_NAMESPACE in start_tag:
        return resolve_format("xml")  # a node element at the top, the RDF namespace declared on it
    element = root.group(0)[1:].decode("utf-8", "replace")
    return f"it is XML whose root element <{element}> is none of rdf:RDF, foxml:digitalObject or OAI-PMH"


def _is_json(body: bytes) -> bool:
    after = body[1:].lstrip()
    if body.startswith(b"{"):
        return after.startswith((b'"', b"}"))
    return after.startswith((b"{", b"[", b'"')) or (after.startswith(b"]") and not after[1:].strip())


def _shown(body: bytes) -> str:
    line = body.split(b"\n", 1)[0].strip()
    text = line[:40].decode("utf-8", "replace")
    return repr(text + ("..." if len(line) > 40 else ""))
