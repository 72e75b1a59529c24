"""Hold the compiled RDF/XML reader (``ldids.rdf._rdfxml.nquads``) to pyoxigraph on N
generated documents (default 20,000).

``nquads(document)`` reads a whole RDF/XML document of a common subset and gives its
N-Quads lines, or None ("not mine: let pyoxigraph read it"). The law, for every
well-formed document (lxml's check, :func:`ldids.rdf.wellformed.check`, comes first in
ldids: malformed documents never reach it):

- None is always allowed;
- bytes must be, byte for byte, pyoxigraph's N-Quads of the document as
  :func:`ldids.dumps.rdf_stream.as_written` rewrites them, in the same order; and
  pyoxigraph must not reject the document.

Documents are of three kinds: inside the subset (pyoxigraph's own RDF/XML style and its
neighbours: handles, info:fedora and oai IRIs, queries, fragments, escapes, typed and
language-tagged literals, blank nodes, Unicode, character references, quotes, whitespace
variants, typed node elements, ``rdf:li``), borderline and outside forms (bad IRIs and
language tags, ``rdf:ID``, ``parseType``, property attributes, nested nodes, comments,
CDATA, CR, ``xml:base``, DTDs, other encodings, a BOM...), and byte-level mutations of
documents inside the subset. tests/test_rdfxml_fast.py runs a few thousand; exit status 1
if the law breaks (each failing document is shrunk to a small one that still fails).

    python benchmarks/fuzz_rdfxml.py [--count N] [--seed S] [--stand-in]
"""

from __future__ import annotations

import importlib
import io
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

import fuzz_common
import pyoxigraph
from fuzz_common import (
    RDF,
    TYPE_NAMES,
    WORDS,
    XSD,
    Iris,
    digits,
    good_language,
    label,
    mutate,
    rejection,
    report,
    verdict,
)
from pyoxigraph import RdfFormat

from ldids.dumps.rdf_stream import as_written
from ldids.rdf import wellformed

#: The compiled reader's signature: a document's N-Quads lines, or None.
Reader = Callable[[bytes], "bytes | None"]

#: The outcomes :func:`check` tells.
OUTCOMES = ("fast-equal", "fallback", "pyoxigraph-error-fallback", "malformed")


def compiled() -> Reader:
    """``ldids.rdf._rdfxml.nquads``, imported when first asked for (it may not be built)."""
    module = importlib.import_module("ldids.rdf._rdfxml")
    found: Reader = module.nquads
    return found


# -- The law -------------------------------------------------------------------------------


def reference(document: bytes) -> bytes | None:
    """pyoxigraph's N-Quads of ``document``, rewritten as ldids writes literals; None if it
    rejects the document."""
    try:
        data = parsed(document)
    except (SyntaxError, ValueError):
        return None
    assert data is not None
    return as_written(data)


def well_formed(document: bytes) -> bool:
    try:
        wellformed.check(io.BytesIO(document))
    except wellformed.MalformedError:
        return False
    return True


def check(document: bytes, nquads: Reader | None = None) -> str:
    """The outcome of ``document`` (one of :data:`OUTCOMES`); AssertionError if the fast
    path (``nquads``, by default the compiled reader) breaks the law on it."""
    if not well_formed(document):
        return "malformed"
    fast = (nquads or compiled())(document)
    return verdict(document, fast, reference(document), partial(rejection, partial(parsed, document)))


def parsed(document: bytes) -> bytes | None:
    return pyoxigraph.serialize(pyoxigraph.parse(document, format=RdfFormat.RDF_XML), format=RdfFormat.N_QUADS)


# -- Pieces of documents -------------------------------------------------------------------

NAMESPACES = (
    "http://example.org/vocab#",
    "http://purl.org/dc/elements/1.1/",
    "http://purl.org/dc/terms/",
    "http://example.org/resource/",
    "http://xmlns.com/foaf/0.1/",
    "info:fedora/fedora-system:def/relations-external#",
    "info:fedora/fedora-system:def/model#",
    "urn:x-local:ns/",
    "http://www.openarchives.org/OAI/2.0/",
)
PREFIXES = ("v", "dc", "dcterms", "r", "foaf", "rel", "fedora-model", "x", "oai", "a_b", "a.b", "ns1", "V", "xmlp")
LOCAL_NAMES = (
    "p",
    "p0",
    "p12",
    "title",
    "identifier",
    "isPartOf",
    "hasModel",
    "isMemberOf",
    "a.b",
    "a-b",
    "_x",
    "x_1",
    "date",
    "creator",
    "Thing",
    "Record",
    "xmlish",
)
#: rdf: names that may name a typed node element.
RDF_CLASSES = ("Bag", "Seq", "Alt", "List", "Statement", "Property", "XMLLiteral", "Thing")
#: rdf: names that may not name a property element (RDF/XML §7.2.3, and the removed ones).
FORBIDDEN_PROPERTIES = (
    "about",
    "ID",
    "nodeID",
    "resource",
    "datatype",
    "parseType",
    "RDF",
    "aboutEach",
    "aboutEachPrefix",
    "bagID",
    "Description",
)
#: rdf: names that may name a property element (rdf:li aside).
RDF_PROPERTIES = ("type", "value", "first", "rest", "subject", "predicate", "object", "_1", "_2", "_10", "seeAlso")
DATATYPES = (
    XSD + "date",
    XSD + "integer",
    XSD + "string",
    XSD + "boolean",
    XSD + "dateTime",
    XSD + "decimal",
    XSD + "anyURI",
    RDF + "XMLLiteral",
    RDF + "HTML",
    "http://example.org/dt#custom",
    "urn:x-dt:a",
)
#: Valid language tags outside that form, and invalid ones.
ODD_LANGUAGES = (
    "de-CH-1996",
    "en-a-bbb",
    "x-private",
    "en-x-foo",
    "i-klingon",
    "I-KLINGON",
    "sgn-BE-FR",
    "zh-min-nan",
    "en-GB-oed",
    "abcde",
    "qaa-Qaaa-QM-x-southern",
    "",
    " ",
    "e n",
    "en_US",
    "123",
    "en-",
    "-en",
    "toolonglanguage",
    "en--us",
    "é",
    "en-US-",
    " en",
    "en ",
    "en-Latn-Latn",
    "en-12",
    "e",
)
#: Text pieces: plain, Unicode (astral too), quotes, backslashes and what looks like escapes.
TEXT_PIECES = (
    "é",
    "ü",
    "中文",
    "\U0001f600",
    "\U0010fffd",
    "\ufeff",
    "\u2028",
    "\u0085",
    "\ufffd",
    "\u00a0",
    '"',
    "'",
    "\\",
    "\\\\",
    "\\t",
    "\\u0041",
    "\\n",
    "\\U0001F600",
    ">",
    "\t",
    "\n",
    "  ",
    " ",
    "&",
    "<",
    "]]",
    "http://hdl.handle.net/1765/9594",
    "info:fedora/demo:1",
)
#: Code points a character reference stands for: all XML 1.0 allows (controls only 9, 10, 13).
REFERENCED = (
    (9, 10),
    (13, 13),
    (0x20, 0x7E),
    (0x7F, 0x9F),
    (0xA0, 0x2FF),
    (0x2028, 0x2029),
    (0xD000, 0xD7FF),
    (0xE000, 0xFFFD),
    (0x10000, 0x10FFFF),
)


def pick_reference(rng: random.Random) -> str:
    low, high = rng.choice(REFERENCED)
    code = rng.randint(low, high)
    if rng.random() < 0.5:
        return f"&#{code};" if rng.random() < 0.8 else f"&#{code:05d};"
    digits = f"{code:x}"
    if rng.random() < 0.3:
        digits = digits.upper()
    if rng.random() < 0.1:
        digits = "00" + digits
    return f"&#x{digits};"


def reference_of(rng: random.Random, ch: str) -> str:
    code = ord(ch)
    roll = rng.random()
    if roll < 0.5:
        return f"&#{code};"
    return f"&#x{code:x};" if roll < 0.75 else f"&#x{code:X};"


def escape_text(rng: random.Random, text: str, refs: float = 0.03) -> str:
    """``text`` as element content: markup escaped (with entities or references), now and
    then another character as a reference."""
    out: list[str] = []
    for ch in text:
        roll = rng.random()
        if ch == "&":
            out.append("&amp;" if roll < 0.8 else reference_of(rng, ch))
        elif ch == "<":
            out.append("&lt;" if roll < 0.8 else reference_of(rng, ch))
        elif ch == ">":
            # "]]>" may not stand in content.
            if "".join(out).endswith("]]") or roll < 0.3:
                out.append("&gt;")
            else:
                out.append(">")
        elif ch == '"' and roll < 0.2:
            out.append("&quot;")
        elif ch == "'" and roll < 0.2:
            out.append("&apos;")
        elif ch == "\r":
            out.append("&#13;" if roll < 0.5 else "&#xD;")
        elif roll < refs:
            out.append(reference_of(rng, ch))
        else:
            out.append(ch)
    return "".join(out)


def escape_attribute(rng: random.Random, value: str, quote: str, refs: float = 0.02) -> str:
    out: list[str] = []
    for ch in value:
        roll = rng.random()
        if ch == "&":
            out.append("&amp;" if roll < 0.9 else reference_of(rng, ch))
        elif ch == "<":
            out.append("&lt;")
        elif ch == quote or (ch in "\"'" and roll < 0.2):
            out.append("&quot;" if ch == '"' else "&apos;")
        elif ch == ">" and roll < 0.5:
            out.append("&gt;")
        elif ch in "\t\n\r":
            # A raw tab or newline in an attribute value is read as a space (XML 1.0 §3.3.3).
            out.append(reference_of(rng, ch) if roll < 0.7 else ch.replace("\r", " "))
        elif roll < refs:
            out.append(reference_of(rng, ch))
        else:
            out.append(ch)
    return "".join(out)


# -- IRIs ----------------------------------------------------------------------------------

#: Absolute IRIs at the edges of the grammar: empty parts, dot segments, odd ports and hosts.
EDGE_IRIS = (
    *fuzz_common.EDGE_IRIS,
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "http://a/'",
)
IRIS = Iris(EDGE_IRIS, NAMESPACES, LOCAL_NAMES, "http://purl.org/poi/example.org/item")


def good_iri(rng: random.Random) -> str:
    """An absolute ASCII IRI of the forms the dumps hold."""
    return fuzz_common.good_iri(rng, IRIS)


def odd_iri(rng: random.Random) -> str:
    """An IRI the subset leaves to pyoxigraph, or one it rejects: relative, with spaces,
    broken escapes, brackets, two fragments, a bad port, non-ASCII, controls, empty."""
    return rng.choice(
        [
            "http://example.org/a b",
            "http://example.org/%zz",
            "http://example.org/%4",
            "http://example.org/a[1]",
            "http://[::1]/a",
            "http://[v7.x]/",
            "http://example.org/a#b#c",
            "relative/path",
            "#frag",
            "",
            "/absolute/path",
            "?q",
            "//example.org/a",
            "http://a:x/",
            "http://a:80x/",
            "http://example.org/é",
            "http://例え.jp/",
            "http://example.org/\U0001f600",
            "http://example.org/a\tb",
            "http://example.org/a\nb",
            'http://example.org/a"b',
            "http://example.org/a<b",
            "http://example.org/a>b",
            "http://example.org/a{b}",
            "http://example.org/a|b",
            "http://example.org/a\\b",
            "http://example.org/a^b",
            "http://example.org/a`b",
            "http://example.org/\x7f",
            "http://example.org/\u0085",
            "http://example.org/\ufffd",
            "1http://x/",
            "ht tp://x/",
            "http:",
            ":x",
            "_:b1",
            "http://exa mple.org/",
            "http://example.org/?%",
            "http://user@@example.org/",
            "http://example.org:/",
            "http://example.org:65536/",
            "HTTP://EXAMPLE.ORG/%E2%82%AC",
            "http://example.org/\u200b",
            "http://example.org/a" + "b" * 5000,
        ]
    )


# -- Documents -----------------------------------------------------------------------------


@dataclass
class Style:
    """The choices a document makes once: prefixes, quotes, spacing, tags."""

    rng: random.Random
    rdf: str = "rdf"
    prefixes: dict[str, str] = field(default_factory=dict)
    default: str | None = None
    single_quotes: float = 0.0
    spacing: float = 0.0
    indent: tuple[str, str] = ("\t", "\t\t")
    newline: str = "\n"
    #: How often a character of an attribute value, or of text, is written as a reference.
    refs: float = 0.02
    text_refs: float = 0.03
    #: Plain documents hold words and numbers, as pyoxigraph's serializer writes them.
    plain: bool = False
    #: How often a comment stands where markup may (between elements, around the root).
    comments: float = 0.0

    def misc(self) -> str:
        """Now and then a comment, where white space may stand between elements."""
        if self.rng.random() >= self.comments:
            return ""
        return f"<!--{self.rng.choice(COMMENTS)}-->" + self.rng.choice(["", "\n", " ", "\t"])

    def q(self, name: str) -> str:
        return f"{self.rdf}:{name}"

    def ws(self) -> str:
        if self.rng.random() >= self.spacing:
            return " "
        return self.rng.choice(["  ", "\n\t\t", "\t", "\n   ", " \n ", "\n"])

    def eq(self) -> str:
        if self.rng.random() >= self.spacing:
            return "="
        return self.rng.choice([" = ", "= ", " =", "\n=\n", "\t=\t"])

    def attribute(self, name: str, value: str, refs: float | None = None) -> str:
        quote = "'" if self.rng.random() < self.single_quotes else '"'
        escaped = escape_attribute(self.rng, value, quote, self.refs if refs is None else refs)
        return f"{self.ws()}{name}{self.eq()}{quote}{escaped}{quote}"

    def close(self, empty: bool) -> str:
        tail = "" if self.rng.random() >= self.spacing else self.rng.choice([" ", "\n", "\t"])
        return tail + ("/>" if empty else ">")

    def end(self, name: str) -> str:
        tail = "" if self.rng.random() >= self.spacing else self.rng.choice([" ", "\n"])
        return f"</{name}{tail}>"

    def qname(self, namespace: str, local: str) -> str:
        if namespace == self.default and self.rng.random() < 0.7:
            return local
        for prefix, declared in self.prefixes.items():
            if declared == namespace:
                return f"{prefix}:{local}"
        return f"{self.rdf}:{local}" if namespace == RDF else local

    def property_name(self) -> str:
        roll = self.rng.random()
        if roll < 0.03:
            return self.q(self.rng.choice(RDF_PROPERTIES))
        if roll < 0.1 and self.default is not None:
            return self.rng.choice(LOCAL_NAMES)
        namespaces = [ns for ns in self.prefixes.values() if ns != RDF]
        return self.qname(self.rng.choice(namespaces), self.rng.choice(LOCAL_NAMES))

    def type_name(self) -> str:
        roll = self.rng.random()
        if roll < 0.1:
            return self.q(self.rng.choice(RDF_CLASSES))
        if roll < 0.3 and self.default is not None:
            return self.rng.choice(TYPE_NAMES)
        namespaces = [ns for ns in self.prefixes.values() if ns != RDF]
        return self.qname(self.rng.choice(namespaces), self.rng.choice(TYPE_NAMES))


def style(rng: random.Random) -> Style:
    found = Style(rng)
    if rng.random() < 0.05:
        found.rdf = rng.choice(["r", "RDF", "rdf1", "w3"])
    names = rng.sample(PREFIXES, rng.randint(1, 4))
    names = [name for name in names if name != found.rdf] or ["v"]
    found.prefixes = {name: rng.choice(NAMESPACES) for name in names}
    found.prefixes[found.rdf] = RDF
    if rng.random() < 0.3:
        found.prefixes["xsd"] = XSD
    if rng.random() < 0.3:
        found.default = rng.choice(NAMESPACES)
    found.single_quotes = rng.choice([0.0, 0.0, 0.5, 1.0])
    found.spacing = rng.choice([0.0, 0.0, 0.2, 0.6])
    found.indent = rng.choice([("\t", "\t\t"), ("  ", "    "), ("", ""), ("\n", "\n "), (" ", "\n\t")])
    if rng.random() < 0.4:
        # pyoxigraph's serializer's style: double quotes, single spaces, tabs, no references.
        found.plain, found.single_quotes, found.spacing, found.refs, found.text_refs = True, 0.0, 0.0, 0.0, 0.0
        found.indent = ("\t", "\t\t")
    else:
        found.comments = rng.choice([0.0, 0.0, 0.0, 0.1, 0.5])
        found.refs = rng.choice([0.0, 0.005, 0.02])
        found.text_refs = rng.choice([0.0, 0.01, 0.03])
    return found


def literal_text(rng: random.Random, plain: bool = False) -> str:
    roll = rng.random()
    if plain:
        return f"{rng.choice(WORDS)} {digits(rng)}" if roll < 0.9 else rng.choice(["", "A title, with some words"])
    if roll < 0.4:
        return f"{rng.choice(WORDS)} {digits(rng)}"
    if roll < 0.45:
        return ""
    if roll < 0.5:
        return rng.choice([" ", "\n", "\t", "  \n\t "])
    if roll < 0.52:
        return rng.choice(WORDS) * rng.randint(100, 3000)
    pieces = []
    for _ in range(rng.randint(1, 8)):
        pick = rng.random()
        if pick < 0.4:
            pieces.append(rng.choice(WORDS))
        elif pick < 0.8:
            pieces.append(rng.choice(TEXT_PIECES))
        else:
            pieces.append("\x00")  # a character reference, written by escape below
    return "".join(pieces)


def text_content(rng: random.Random, text: str, refs: float = 0.03) -> str:
    """``text`` as content, with every NUL placeholder a random character reference."""
    parts = text.split("\x00")
    escaped = [escape_text(rng, part, refs) for part in parts]
    out = escaped[0]
    for part in escaped[1:]:
        out += pick_reference(rng) + part
    return out


def datatype(rng: random.Random) -> str:
    """Mostly the XML Schema types of the dumps; now and then any of :data:`DATATYPES`."""
    return rng.choice(DATATYPES) if rng.random() < 0.1 else rng.choice(DATATYPES[:7])


@dataclass
class Node:
    """A node element: its name, its attributes (already written) and property elements."""

    name: str
    attributes: list[str]
    properties: list[str]


def property_element(s: Style, li: bool = False) -> str:
    rng = s.rng
    name = s.q("li") if li else s.property_name()
    attributes: list[str] = []
    roll = rng.random()
    if roll < 0.3:
        attributes.append(s.attribute(s.q("resource"), good_iri(rng)))
        content: str | None = None
    elif roll < 0.4:
        attributes.append(s.attribute(s.q("nodeID"), label(rng)))
        content = None
    else:
        content = literal_text(rng, s.plain)
        pick = rng.random()
        if pick < 0.25:
            attributes.append(s.attribute("xml:lang", good_language(rng)))
        elif pick < 0.5:
            attributes.append(s.attribute(s.q("datatype"), datatype(rng)))
    rng.shuffle(attributes)
    if content is None or (content == "" and rng.random() < 0.5):
        if content is None and rng.random() < 0.2:
            return f"<{name}{''.join(attributes)}{s.close(False)}{s.end(name)}"
        return f"<{name}{''.join(attributes)}{s.close(True)}"
    return f"<{name}{''.join(attributes)}{s.close(False)}{text_content(rng, content, s.text_refs)}{s.end(name)}"


def node_element(s: Style) -> Node:
    rng = s.rng
    name = s.q("Description") if rng.random() < 0.75 else s.type_name()
    attributes = [
        s.attribute(s.q("about"), good_iri(rng)) if rng.random() < 0.8 else s.attribute(s.q("nodeID"), label(rng))
    ]
    if rng.random() < 0.15:
        attributes.append(s.attribute("xml:lang", good_language(rng)))
    rng.shuffle(attributes)
    count = rng.choice([0, 1, 2, 3, 5, 8, 12])
    properties = []
    lis = rng.random() < 0.15
    for _ in range(count):
        properties.append(property_element(s, li=lis and rng.random() < 0.6))
    return Node(name, attributes, properties)


def render_node(s: Style, node: Node) -> str:
    outer, inner = s.indent
    head = f"{outer}<{node.name}{''.join(node.attributes)}"
    if not node.properties and s.rng.random() < 0.6:
        return head + s.close(True)
    body = "".join(f"{s.newline}{inner}{s.misc()}{p}" for p in node.properties)
    return f"{head}{s.close(False)}{body}{s.newline}{outer}{s.misc()}{s.end(node.name)}"


def declaration(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.6:
        return '<?xml version="1.0" encoding="UTF-8"?>\n'
    if roll < 0.75:
        return ""
    return rng.choice(
        [
            '<?xml version="1.0"?>\n',
            "<?xml version='1.0' encoding='UTF-8'?>\n",
            '<?xml version="1.0" encoding="utf-8"?>\n',
            '<?xml version = "1.0"  encoding = "UTF-8" ?>\n',
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<?xml version="1.0" encoding="UTF-8"?>\n\n',
        ]
    )


def root_open(s: Style, lang: str | None = None, extra: str = "") -> str:
    rng = s.rng
    attributes = [s.attribute(f"xmlns:{prefix}", ns, refs=0) for prefix, ns in s.prefixes.items()]
    if s.default is not None:
        attributes.append(s.attribute("xmlns", s.default, refs=0))
    if lang is not None:
        attributes.append(s.attribute("xml:lang", lang))
    rng.shuffle(attributes)
    return f"<{s.q('RDF')}{''.join(attributes)}{extra}{s.close(False)}"


def assemble(prolog: str, root: str, nodes: list[str], s: Style) -> bytes:
    body = "".join(f"{s.newline}{s.misc()}{n}" for n in nodes)
    return f"{prolog}{s.misc()}{root}{body}{s.newline}{s.misc()}{s.end(s.q('RDF'))}\n{s.misc()}".encode()


def inside(rng: random.Random) -> bytes:
    """A document the fast path is meant to read."""
    s = style(rng)
    lang = good_language(rng) if rng.random() < 0.15 else None
    count = rng.choice([0, 1, 1, 2, 3, 5, 8, 20]) if rng.random() < 0.98 else 400
    nodes = [render_node(s, node_element(s)) for _ in range(count)]
    return assemble(declaration(rng), root_open(s, lang), nodes, s)


#: What comments hold: markup, references, single dashes, Unicode and line ends.
COMMENTS = (
    " note ",
    "",
    " a - b ",
    "<v:p>x</v:p>",
    "&amp; &#13; &foo;",
    "é\U0001f600",
    "\n multi\n line\n",
    "->",
    " ]]> ",
    "\t",
    "-x",
)
#: Comments that are not well-formed: two dashes inside, or one before the end.
BAD_COMMENTS = ("<!--->", "<!--x--->", "<!--a--b-->", "<!-- <!-- -->")
CARRIAGE_RETURNS = ("a\rb", "a\r\nb", "\r", "a\r")


#: Twists: each makes one part of a document borderline or outside the subset.
def twisted_property(s: Style) -> str:
    rng = s.rng
    p = s.property_name()
    r = s.q
    choice = rng.randrange(32)
    if choice == 0:
        return f'<{p} {r("resource")}="{escape_attribute(rng, odd_iri(rng), chr(34))}"/>'
    if choice == 1:
        return f'<{p} {r("datatype")}="{escape_attribute(rng, odd_iri(rng), chr(34))}">x</{p}>'
    if choice == 2:
        return f'<{p} xml:lang="{escape_attribute(rng, rng.choice(ODD_LANGUAGES), chr(34))}">x</{p}>'
    if choice == 3:
        return f'<{p} {r("ID")}="{rng.choice(["x", "a1", "b.c"])}">x</{p}>'
    if choice == 4:
        kind = rng.choice(["Resource", "Literal", "Collection", "Other", ""])
        inner = {
            "Resource": "<v:q>y</v:q>",
            "Literal": "<b xmlns='http://h/'>bold <i>x</i></b> tail",
            "Collection": f'<{r("Description")} {r("about")}="http://a/1"/>',
        }.get(kind, "x")
        return f'<{p} {r("parseType")}="{kind}">{inner}</{p}>'.replace("v:q", p)
    if choice == 5:
        return f'<{p} {p}="lit"/>'
    if choice == 6:
        return f'<{p}><{r("Description")} {r("about")}="http://example.org/n"><{p}>x</{p}></{r("Description")}></{p}>'
    if choice == 7:
        return f"<{p}>a<!-- note -->b</{p}>"
    if choice == 8:
        return f"<{p}><![CDATA[a <b> & c]]></{p}>"
    if choice == 9:
        return f"<{p}>{rng.choice(CARRIAGE_RETURNS)}</{p}>"
    if choice == 10:
        return f'<{p} xml:base="http://example.org/base/" {r("resource")}="{rng.choice(["x", "http://a/"])}"/>'
    if choice == 11:
        return f'<{r("Description")} {r("resource")}="http://a/"/>'
    if choice == 12:
        return f'<{p} {r("resource")}="http://a/">text</{p}>'
    if choice == 13:
        return f'<{p} {r("resource")}="http://a/" {r("nodeID")}="b1"/>'
    if choice == 14:
        return f'<{p} {r("resource")}="http://a/" {r("datatype")}="{XSD}string"/>'
    if choice == 15:
        return f'<{p} {r("nodeID")}="{rng.choice(["1a", "-a", "a:b", "", "a b", "é", "a.", "a·b"])}"/>'
    if choice == 16:
        return f"<{p}><?pi data?>x</{p}>"
    if choice == 17:
        return f'<{p} xmlns:z="http://z/"><z:q>x</z:q></{p}>'
    if choice == 18:
        return '<z:q xmlns:z="http://z/">x</z:q>'
    if choice == 19:
        return f'<{p} foo="bar">x</{p}>'
    if choice == 20:
        return f'<{p} xml:space="preserve">x</{p}>'
    if choice == 21:
        forbidden = r(rng.choice(FORBIDDEN_PROPERTIES))
        return f"<{forbidden}>x</{forbidden}>"
    if choice == 22:
        return f'<{p} {r("datatype")}="">x</{p}>'
    if choice == 23:
        return f'<{p} xml:lang="en" {r("datatype")}="{RDF}langString">x</{p}>'
    if choice == 24:
        return f'<{p} its:dir="{rng.choice(["ltr", "rtl", "x"])}" xml:lang="ar" xmlns:its="http://www.w3.org/2005/11/its">x</{p}>'
    if choice == 25:
        return f'<{p} {r("bagID")}="x">x</{p}>'
    if choice == 26:
        return f'<{p} {r("aboutEach")}="http://a/">x</{p}>'
    if choice == 27:
        return f"<{p}><{p}>x</{p}></{p}>"
    if choice == 28:
        return f'<{p} {r("resource")}="http://a/"> </{p}>'
    if choice == 29:
        return f'<{p} xml:lang="en" {r("resource")}="http://a/"/>'
    if choice == 30:
        return f'<{p} xml:foo="x">y</{p}>'
    return f'<{r("li")} {r("nodeID")}="b1" {r("ID")}="i"/>'


def twisted(rng: random.Random) -> bytes:
    """A document with one twist: borderline, outside the subset, or not RDF/XML at all."""
    s = style(rng)
    if not any(prefix == "v" for prefix in s.prefixes):
        s.prefixes["v"] = "http://example.org/vocab#"
    lang = good_language(rng) if rng.random() < 0.15 else None
    nodes = [node_element(s) for _ in range(rng.choice([1, 2, 3]))]
    prolog = declaration(rng)
    extra = ""
    r = s.q
    where = rng.randrange(12)
    rendered: list[str]
    if where < 4:
        node = rng.choice(nodes)
        node.properties.insert(rng.randint(0, len(node.properties)), twisted_property(s))
    elif where == 4:
        node = rng.choice(nodes)
        pick = rng.randrange(12)
        if pick == 0:
            node.attributes = [s.attribute(r("about"), odd_iri(rng))]
        elif pick == 1:
            node.attributes.append(s.attribute("xml:lang", rng.choice(ODD_LANGUAGES)))
        elif pick == 2:
            node.attributes = [s.attribute(r("ID"), "x")]
        elif pick == 3:
            node.attributes = [s.attribute(r("about"), "http://a/"), s.attribute(r("nodeID"), "b1")]
        elif pick == 4:
            node.attributes = []
        elif pick == 5:
            node.attributes.append(s.attribute("v:p", "literal"))
        elif pick == 6:
            node.attributes.append(s.attribute(r("type"), "http://example.org/T"))
        elif pick == 7:
            node.attributes.append(s.attribute("xml:base", "http://example.org/base/"))
        elif pick == 8:
            node.name = r(rng.choice(["li", "RDF", "about", "nodeID", "resource", "ID", "_1", "type", "aboutEach"]))
        elif pick == 9:
            node.attributes.append(s.attribute(r("bagID"), "b"))
        elif pick == 10:
            node.attributes.append(' xmlns:w="http://w/"')
            node.properties.append("<w:q>x</w:q>")
        else:
            node.attributes.append(s.attribute(r("nodeID"), rng.choice(["1a", "a:b", "", "a b"])))
    elif where == 5:
        lang = rng.choice(ODD_LANGUAGES)
    elif where == 6 and rng.random() < 0.3:
        # Around the number of attributes a start tag may have, and far past it.
        many = rng.choice([12, 13, 14, 15, 16, 17, 20, 300])
        for number in range(many):
            s.prefixes[f"n{number}"] = f"http://example.org/ns{number}/"
    elif where == 6:
        extra = rng.choice(
            [
                ' xml:base="http://example.org/"',
                f' {r("about")}="http://a/"',
                ' foo="bar"',
                ' xml:space="default"',
                f' {r("version")}="1.2"',
                ' xmlns:its="http://www.w3.org/2005/11/its" its:version="2.0"',
            ]
        )
    elif where == 7:
        prolog = rng.choice(
            [
                '<?xml version="1.0" encoding="ISO-8859-1"?>\n',
                '<?xml version="1.0" encoding="US-ASCII"?>\n',
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n',
                '<?xml version="1.1"?>\n',
                "\ufeff",
                '\ufeff<?xml version="1.0" encoding="UTF-8"?>\n',
                '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a comment -->\n',
                '<?xml version="1.0"?>\n<?xml-stylesheet href="a.xsl"?>\n',
                f'<!DOCTYPE {r("RDF")} [<!ENTITY ex "http://example.org/">]>\n',
                f'<?xml version="1.0"?>\n<!DOCTYPE {r("RDF")}>\n',
                " ",
                "\n",
            ]
        )
        if "ENTITY" in prolog:
            nodes.append(Node(r("Description"), [f' {r("about")}="&ex;x"'], ["<v:p>&ex;</v:p>"]))
    rendered = [render_node(s, node) for node in nodes]
    if where == 8:
        rendered.insert(
            rng.randint(0, len(rendered)),
            rng.choice(["<!-- c -->", "<?pi x?>", "text", "<![CDATA[x]]>", "&#32;", "&amp;", *BAD_COMMENTS]),
        )
    elif where == 9:
        s.newline = rng.choice(["\r\n", "\r", "\n\r"])
    elif where == 10:
        # A node element as the document element, with no rdf:RDF around it.
        decls = "".join(f' xmlns:{prefix}="{ns}"' for prefix, ns in s.prefixes.items())
        one = nodes[0]
        one.attributes.insert(0, decls)
        return (prolog + render_node(s, one) + "\n").encode()
    elif where == 11:
        inner = rng.choice(rendered)
        rendered.append(f"<{r('RDF')}>{inner}</{r('RDF')}>")
    document = assemble(prolog, root_open(s, lang, extra), rendered, s)
    if prolog.startswith('<?xml version="1.0" encoding="ISO-8859-1"') and rng.random() < 0.7:
        return document.decode().encode("latin-1", errors="replace")
    return document


#: What a mutation puts in: markup, quotes, references, controls, bytes of UTF-8 sequences.
MUTANTS = b"<>&;#\"'=/:! \t\n\r\x00\x7f\x80\xbf\xc3\xa9\xe2\xf0\xffaxz019_-.?%[]\\"
SWAPS = (
    (b"rdf:about", b"rdf:nodeID"),
    (b"rdf:about", b"rdf:ID"),
    (b"rdf:resource", b"rdf:nodeID"),
    (b"rdf:resource", b"rdf:datatype"),
    (b"rdf:datatype", b"xml:lang"),
    (b"xml:lang", b"xml:base"),
    (b'"', b"'"),
    (b"/>", b">"),
    (b"&amp;", b"&"),
    (b"&amp;", b"&#38;"),
    (b"rdf:Description", b"rdf:li"),
    (b"\n", b"\r\n"),
    (b"http:", b"http"),
    (b"hdl:", b"hdl"),
    (b"\t", b""),
    (b"-", b"_"),
)


def mutated(rng: random.Random) -> bytes:
    """A document inside the subset with one to three byte-level changes."""
    return mutate(rng, inside(rng), MUTANTS, SWAPS)


def documents(seed: int, count: int) -> Iterator[bytes]:
    """``count`` documents: about half inside the subset, a quarter with a twist, the rest
    mutations; the same ``seed`` gives the same documents."""
    return fuzz_common.documents(kinds(seed, count))


#: The kinds of generated document, and how often each comes.
KINDS = (("inside", 0.55), ("twisted", 0.25), ("mutated", 0.2))


def kinds(seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """:func:`documents`, each with its kind (one of :data:`KINDS`)."""
    yield from fuzz_common.generated(seed, count, KINDS, {"inside": inside, "twisted": twisted, "mutated": mutated})


# -- Runs ----------------------------------------------------------------------------------


#: A run's outcomes, and its failing documents.
Tally = fuzz_common.Tally[bytes]


def run(seed: int, count: int, nquads: Reader | None = None) -> Tally:
    """Every document of :func:`documents` through :func:`check`; failures are kept."""
    reader = nquads or compiled()
    tally = Tally()
    for kind, document in kinds(seed, count):
        tally.take((kind,), document, partial(check, document, reader))
    return tally


def fails(document: bytes, nquads: Reader) -> bool:
    try:
        check(document, nquads)
    except AssertionError:
        return True
    return False


def shrink(document: bytes, nquads: Reader, budget: int = 4000) -> bytes:
    """A smaller document that still breaks the law: lines, then ever smaller runs of
    bytes, taken out while it does."""
    return fuzz_common.shrink(document, lambda candidate: fails(candidate, nquads), budget)


def main(argv: list[str] | None = None) -> int:
    options = fuzz_common.options(__doc__, argv)
    reader: Reader = (lambda document: None) if options.stand_in else compiled()
    started = time.perf_counter()
    tally = run(options.seed, options.count, reader)
    elapsed = time.perf_counter() - started
    fuzz_common.print_outcomes(tally, (*OUTCOMES, "DIFFERENT"))
    print(f"{tally.total} documents, seed {options.seed}, {elapsed:.1f} s; by kind:")
    for kind, _ in KINDS:
        counts = ", ".join(f"{outcome} {tally.by_kind[kind, outcome]}" for outcome in (*OUTCOMES, "DIFFERENT"))
        print(f"  {kind:>8}: {counts}")
    return report(tally, options.shown, lambda document: check(shrink(document, reader), reader))


if __name__ == "__main__":
    sys.exit(main())
