"""Hold the compiled Turtle and TriG reader (``ldids.rdf._turtle.nquads``) to pyoxigraph on N
generated documents (default 20,000), each read as Turtle and as TriG.

``nquads(document, trig)`` reads a whole Turtle (or TriG) document of a common subset and
gives its N-Quads lines, or None ("not mine: let pyoxigraph read it"). Nothing checks a
document before it: the fast path sees any bytes. The law, for every document:

- None is always allowed;
- bytes must be, byte for byte, pyoxigraph's N-Quads of the document (no base IRI) as
  :func:`ldids.dumps.rdf_stream.as_written` rewrites them, in the same order; and
  pyoxigraph must not reject the document.

Documents are of three kinds: inside the subset (pyoxigraph's own Turtle and TriG style and
its neighbours: handles, info:fedora and oai IRIs, queries, fragments, percent escapes,
prefixed names of every shape, labelled blank nodes, numbers of all signs and shapes,
booleans, strings with every escape, raw Unicode and controls, language tags, datatypes,
comments, CRLF, directives of both kinds, graph blocks of all kinds), borderline and outside
forms (relative IRIs, long strings, doubles, ``[]``, collections, ``<<``, non-ASCII names,
a BOM, late directives, nested blocks, bad escapes, tags and numbers...), and byte-level
mutations of documents inside the subset. tests/test_turtle_fast.py runs a few thousand;
exit status 1 if the law breaks (each failing document is shrunk to a small one that still
fails).

    python benchmarks/fuzz_turtle.py [--count N] [--seed S] [--stand-in]
"""

from __future__ import annotations

import importlib
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

import fuzz_common
import pyoxigraph
from fuzz_common import RDF, WORDS, XSD, Iris, digits, good_language, mutate, rejection, report, verdict
from pyoxigraph import RdfFormat

from ldids.dumps.rdf_stream import as_written

#: The compiled reader's signature: a document's N-Quads lines (``trig``: read as TriG), or None.
Reader = Callable[[bytes, bool], "bytes | None"]

#: The outcomes :func:`check` tells.
OUTCOMES = ("fast-equal", "fallback", "pyoxigraph-error-fallback")
#: The formats each document is read as.
FORMATS = ("turtle", "trig")


def compiled() -> Reader:
    """``ldids.rdf._turtle.nquads``, imported when first asked for (it may not be built)."""
    module = importlib.import_module("ldids.rdf._turtle")
    found: Reader = module.nquads
    return found


# -- The law -------------------------------------------------------------------------------


def parsed(document: bytes, trig: bool) -> bytes:
    """pyoxigraph's N-Quads of ``document`` (SyntaxError, ValueError if it rejects it)."""
    data = pyoxigraph.serialize(
        pyoxigraph.parse(document, format=RdfFormat.TRIG if trig else RdfFormat.TURTLE), format=RdfFormat.N_QUADS
    )
    assert data is not None
    return data


def reference(document: bytes, trig: bool = False) -> bytes | None:
    """pyoxigraph's N-Quads of ``document``, rewritten as ldids writes literals; None if it
    rejects the document."""
    try:
        return as_written(parsed(document, trig))
    except (SyntaxError, ValueError):
        return None


def check(document: bytes, trig: bool = False, nquads: Reader | None = None) -> str:
    """The outcome of ``document`` read as Turtle (``trig``: TriG), one of :data:`OUTCOMES`;
    AssertionError if the fast path (``nquads``, by default the compiled reader) breaks the
    law on it."""
    fast = (nquads or compiled())(document, trig)
    why = partial(rejection, partial(parsed, document, trig))
    return verdict(document, fast, reference(document, trig), why, FORMATS[trig])


# -- Pieces of documents -------------------------------------------------------------------

NAMESPACES = (
    "http://example.org/vocab#",
    "http://purl.org/dc/elements/1.1/",
    "http://purl.org/dc/terms/",
    "http://example.org/resource/",
    "http://xmlns.com/foaf/0.1/",
    "info:fedora/fedora-system:def/relations-external#",
    "info:fedora/",
    "hdl:1765/",
    "oai:example.org:",
    "urn:x-local:ns/",
    "http://www.openarchives.org/OAI/2.0/",
    "http://example.org/search?q=",
    "http://example.org",
    XSD,
)
PREFIXES = (
    "v",
    "dc",
    "dcterms",
    "r",
    "foaf",
    "rel",
    "fedora",
    "hdl",
    "oai",
    "x",
    "",
    "a_b",
    "a.b",
    "a-",
    "ns1",
    "V",
    "e",
    "E",
    "true",
    "false",
    "graph",
    "prefix",
    "base",
    "a",
)
#: Local names of prefixed names: dots, dashes, colons, digits first, percent escapes, empty.
LOCAL_NAMES = (
    "p",
    "p0",
    "p12",
    "title",
    "identifier",
    "isPartOf",
    "hasModel",
    "42445",
    "0",
    "a.b",
    "a-b",
    "_x",
    "x_1",
    "a:b",
    ":",
    "a:",
    "demo:1",
    "demo%3a1",
    "%41",
    "DS%2d1",
    "a..b",
    "a.-b",
    "",
    "1.5",
    "e5",
    "a%20b",
    "Thing",
    "Record",
)
LABELS = (*fuzz_common.LABELS, "0", "1a", "_")
#: Valid language tags outside that form, and invalid ones.
ODD_LANGUAGES = (
    "de-CH-1996",
    "en-a-bbb",
    "x-private",
    "en-x-foo",
    "i-klingon",
    "sgn-BE-FR",
    "zh-min-nan",
    "en-GB-oed",
    "abcde",
    "abcdefghi",
    "qaa-Qaaa-QM-x-southern",
    "",
    "en-",
    "en--us",
    "en-US-",
    "en-Latn-Latn",
    "en-12",
    "e",
    "123",
    "en--ltr",
    "ar--rtl",
    "base",
    "prefix",
    "en_US",
    "é",
    "en-1234",
    "en-a",
)
#: Pieces of string literals, as written inside the quotes (the quote itself is added apart).
STRING_PIECES = (
    "é",
    "ü",
    "中文",
    "\U0001f600",
    "\U0010fffd",
    "\ufeff",
    "\u2028",
    "\u0085",
    "\ufffd",
    "\ufffe",
    "\uffff",
    "\u00a0",
    "\t",
    "\x00",
    "\x01",
    "\x08",
    "\x0c",
    "\x1f",
    "\x7f",
    "  ",
    " ",
    "#",
    "<",
    ">",
    "@",
    "^^",
    "{",
    "}",
    ".",
    ";",
    ",",
    "_:b",
    "http://hdl.handle.net/1765/9594",
    "\\t",
    "\\b",
    "\\n",
    "\\r",
    "\\f",
    '\\"',
    "\\'",
    "\\\\",
    "\\u0000",
    "\\u0041",
    "\\u00e9",
    "\\u00E9",
    "\\u0022",
    "\\u005C",
    "\\u000A",
    "\\u000D",
    "\\u0009",
    "\\u007F",
    "\\u0080",
    "\\uFFFE",
    "\\uFFFF",
    "\\U0001F600",
    "\\U0001f600",
    "\\U0010FFFF",
    "\\U00000041",
)
#: Escapes and raw bytes a string may not hold, or that the subset leaves to pyoxigraph.
BAD_STRING_PIECES = (
    "\\uD800",
    "\\uDFFF",
    "\\uD83D\\uDE00",
    "\\U00110000",
    "\\UFFFFFFFF",
    "\\u12",
    "\\u12G4",
    "\\x41",
    "\\a",
    "\\ ",
    "\\",
    "\n",
    "\r",
    "\\U0000D800",
)
#: Absolute IRIs at the edges of the grammar: empty parts, dot segments, odd ports and hosts.
EDGE_IRIS = (
    *fuzz_common.EDGE_IRIS,
    "http://a/'",
    "http://a/(x)*!$&;=,+",
    "http://a/~",
)
IRIS = Iris(EDGE_IRIS, NAMESPACES, ("p", "title", "isPartOf", "Thing", "a-b"), "https://PURL.ORG/poi/arXiv.org/hep-th/")


def good_iri(rng: random.Random) -> str:
    """An absolute ASCII IRI of the forms the dumps hold."""
    return fuzz_common.good_iri(rng, IRIS)


def odd_iri(rng: random.Random) -> str:
    """An IRI the subset leaves to pyoxigraph, or one it rejects: relative, with spaces,
    escapes, brackets, two fragments, a bad port, non-ASCII, controls, empty."""
    return rng.choice(
        [
            "http://example.org/a b",
            "http://example.org/%zz",
            "http://example.org/%4",
            "http://example.org/a[1]",
            "http://[::1]/a",
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
            'http://example.org/a"b',
            "http://example.org/a<b",
            "http://example.org/a{b}",
            "http://example.org/a|b",
            "http://example.org/a^b",
            "http://example.org/a`b",
            "http://example.org/\\u0041",
            "http://example.org/\\U00000041",
            "http://example.org/\\u00e9",
            "http://example.org/\\u0020",
            "http://example.org/\x7f",
            "http://example.org/\x00",
            "1http://x/",
            "http:",
            ":x",
            "_:b1",
            "http://example.org:/",
            "http://user@@example.org/",
            "http://example.org/\u200b",
            "http://a/\xff",
        ]
    )


# -- Documents -----------------------------------------------------------------------------


@dataclass
class Style:
    """The choices a document makes once: prefixes, directives, spacing, comments."""

    rng: random.Random
    prefixes: dict[str, str] = field(default_factory=dict)
    sparql: float = 0.0
    newline: str = "\n"
    indent: str = "\t"
    spacing: float = 0.0
    comments: float = 0.0
    single_quotes: float = 0.0
    #: How often a term is written as a prefixed name when it can be.
    pnames: float = 0.7
    #: Plain documents hold words and numbers, as pyoxigraph's serializer writes them.
    plain: bool = False

    def comment(self) -> str:
        if self.rng.random() >= self.comments:
            return ""
        text = self.rng.choice(COMMENTS)
        return f"#{text}{self.rng.choice([self.newline, chr(10), chr(13), chr(13) + chr(10)])}"

    def ws(self) -> str:
        """White space between terms (now and then a comment)."""
        comment = self.comment()
        if comment:
            return " " + comment
        if self.rng.random() >= self.spacing:
            return " "
        return self.rng.choice(["  ", "\t", "\n", "\r\n", " \n\t", "\r"])

    def directive(self, prefix: str, namespace: str) -> str:
        if self.rng.random() < self.sparql:
            keyword = self.rng.choice(["PREFIX", "prefix", "Prefix", "pReFiX"])
            return f"{keyword}{self.ws() or ' '}{prefix}:{self.ws()}<{namespace}>{self.newline}"
        return f"@prefix {prefix}:{self.ws()}<{namespace}>{self.ws()}.{self.newline}"

    def base(self) -> str:
        iri = good_iri(self.rng)
        if self.rng.random() < self.sparql:
            return f"{self.rng.choice(['BASE', 'base', 'Base'])} <{iri}>{self.newline}"
        return f"@base <{iri}>{self.ws()}.{self.newline}"

    def iri(self, iri: str | None = None) -> str:
        """An IRI, as a prefixed name when a prefix fits and the roll says so."""
        rng = self.rng
        if iri is None and self.prefixes and rng.random() < self.pnames:
            prefix = rng.choice(list(self.prefixes))
            return f"{prefix}:{rng.choice(LOCAL_NAMES)}"
        return f"<{iri or good_iri(rng)}>"

    def predicate(self) -> str:
        if self.rng.random() < 0.1:
            return "a"
        return self.iri()

    def subject(self) -> str:
        return f"_:{label(self.rng)}" if self.rng.random() < 0.15 else self.iri()

    def obj(self) -> str:
        roll = self.rng.random()
        if roll < 0.35:
            return self.iri()
        if roll < 0.45:
            return f"_:{label(self.rng)}"
        if roll < 0.55:
            return number(self.rng)
        if roll < 0.6:
            return self.rng.choice(["true", "false"])
        return self.literal()

    def literal(self) -> str:
        rng = self.rng
        quote = "'" if rng.random() < self.single_quotes else '"'
        text = string_text(rng, quote, self.plain)
        pick = rng.random()
        if pick < 0.25:
            return f"{quote}{text}{quote}@{good_language(rng)}"
        if pick < 0.5:
            return f"{quote}{text}{quote}^^{self.datatype()}"
        return f"{quote}{text}{quote}"

    def datatype(self) -> str:
        rng = self.rng
        local = rng.choice(["date", "integer", "string", "boolean", "dateTime", "decimal", "anyURI", "double"])
        xsd = [prefix for prefix, namespace in self.prefixes.items() if namespace == XSD]
        if xsd and rng.random() < 0.7:
            return f"{rng.choice(xsd)}:{local}"
        if rng.random() < 0.1:
            return f"<{rng.choice(['http://example.org/dt#custom', 'urn:x-dt:a', RDF + 'HTML', RDF + 'langString'])}>"
        return f"<{XSD}{local}>"

    def statement(self) -> str:
        """A subject and its predicate-object list, '.' not included."""
        rng = self.rng
        parts = [self.subject()]
        count = rng.choice([1, 1, 2, 3, 5, 10])
        for number in range(count):
            if number:
                parts.append(self.ws() + rng.choice([";", ";", ";", ";;", "; ;"]) + self.newline + self.indent)
            else:
                parts.append(self.ws())
            objects = [self.obj() for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            parts.append(self.predicate() + self.ws() + (self.ws() + "," + self.ws()).join(objects))
        if rng.random() < 0.05:
            parts.append(self.ws() + ";")
        return "".join(parts)

    def statements(self, count: int) -> str:
        return "".join(f"{self.comment()}{self.statement()}{self.ws()}.{self.newline}" for _ in range(count))


#: What comments hold: markup, Unicode, look-alikes of statements.
COMMENTS = (
    " note ",
    "",
    " <http://a/> <http://b/> <http://c/> .",
    "é\U0001f600",
    '"',
    "@prefix x: <http://x/> .",
    "}",
    "\t",
    "#",
)


def number(rng: random.Random) -> str:
    sign = rng.choice(["", "", "", "+", "-"])
    roll = rng.randrange(7)
    if roll < 3:
        return sign + rng.choice([digits(rng), "0", "00", "01", "007"])
    if roll < 5:
        return sign + digits(rng, 0, 3) + "." + rng.choice([digits(rng, 1, 3), "0", "50", "00"])
    if roll == 5:
        return sign + "." + digits(rng, 1, 3)
    return rng.choice(["0", "1.0", "-0", "+0.0", "442182", "-1.50", ".5", "+01"])


def string_text(rng: random.Random, quote: str, plain: bool) -> str:
    """The inside of a short string quoted with ``quote``."""
    roll = rng.random()
    if plain or roll < 0.4:
        return f"{rng.choice(WORDS)} {digits(rng)}" if rng.random() < 0.9 else ""
    if roll < 0.43:
        return rng.choice(WORDS) * rng.randint(100, 2000)
    pieces = []
    other = "'" if quote == '"' else '"'
    for _ in range(rng.randint(1, 8)):
        pick = rng.random()
        if pick < 0.3:
            pieces.append(rng.choice(WORDS))
        elif pick < 0.95:
            pieces.append(rng.choice(STRING_PIECES))
        else:
            pieces.append(other)
    return "".join(pieces)


def label(rng: random.Random) -> str:
    return fuzz_common.label(rng, LABELS)


def style(rng: random.Random) -> Style:
    found = Style(rng)
    names = rng.sample(PREFIXES, rng.randint(1, 5))
    found.prefixes = {name: rng.choice(NAMESPACES) for name in names}
    if rng.random() < 0.5:
        found.prefixes["xsd"] = XSD
    if rng.random() < 0.4:
        # pyoxigraph's serializer's style: @prefix, tabs, single spaces, no comments.
        found.plain = True
        found.prefixes = {"xsd": XSD, "dc": NAMESPACES[1], "r": NAMESPACES[3], "v": NAMESPACES[0]}
        return found
    found.sparql = rng.choice([0.0, 0.0, 0.5, 1.0])
    found.newline = rng.choice(["\n", "\n", "\r\n"])
    found.indent = rng.choice(["\t", "  ", "", " "])
    found.spacing = rng.choice([0.0, 0.0, 0.2, 0.6])
    found.comments = rng.choice([0.0, 0.0, 0.05, 0.3])
    found.single_quotes = rng.choice([0.0, 0.0, 0.5, 1.0])
    found.pnames = rng.choice([0.0, 0.5, 0.7, 0.9])
    return found


def header(s: Style) -> str:
    out = [s.comment()]
    for prefix, namespace in s.prefixes.items():
        if s.rng.random() < 0.05:
            out.append(s.base())
        out.append(s.directive(prefix, namespace))
        out.append(s.comment())
    return "".join(out)


def graph_block(s: Style) -> str:
    """A TriG block: labelled, GRAPH-labelled, blank-labelled or the default graph's."""
    rng = s.rng
    roll = rng.randrange(6)
    if roll == 0:
        head = "{"
    elif roll == 1:
        head = f"{rng.choice(['GRAPH', 'graph', 'Graph'])} {s.iri()}{s.ws()}{{"
    elif roll == 2:
        head = f"_:{label(rng)}{s.ws()}{{"
    else:
        head = f"{s.iri()}{s.ws()}{{"
    count = rng.choice([0, 1, 1, 2, 3, 5])
    body = s.statements(count)
    if body and rng.random() < 0.3:
        # The last triple of a block may go without its '.'.
        body = body.rstrip()
        body = body[: -len(".")] if body.endswith(".") else body
    return f"{head}{s.newline}{body}{s.ws()}}}{s.newline}"


def inside(rng: random.Random) -> bytes:
    """A document the fast path is meant to read (Turtle, or TriG with graph blocks)."""
    s = style(rng)
    count = rng.choice([0, 1, 1, 2, 3, 5, 8, 20]) if rng.random() < 0.98 else 400
    if rng.random() < 0.5:
        body = s.statements(count)
    else:
        parts = []
        for _ in range(max(1, count // 2)):
            parts.append(graph_block(s) if rng.random() < 0.8 else s.statements(1))
        body = "".join(parts)
    return (header(s) + body + s.comment()).encode()


#: What a long string ([24], [25]) holds: line breaks of every kind, lone and doubled quotes
#: of both kinds, escapes, raw Unicode; and what ends it wrongly (a fourth quote).
LONG_PIECES = (
    "long",
    "\n",
    "\r\n",
    "\r",
    '"',
    '""',
    "'",
    "''",
    "\\n",
    '\\"',
    "\\'",
    "\\u00e9",
    "\\U0001F600",
    "é",
    "\u2028",
    "\t",
    " . ",
    "#",
    "\\",
    "\\x",
    "\\uD800",
)


def long_string(rng: random.Random) -> str:
    """A long string in three quotes of either kind, now and then with a language or datatype,
    or ended by four."""
    quote = rng.choice(['"""', "'''"])
    text = "".join(rng.choice(LONG_PIECES) for _ in range(rng.randrange(0, 8)))
    end = quote + quote[0] if rng.randrange(8) == 0 else quote
    suffix = rng.choice(["", "", "@en", "@EN-gb", "^^<http://www.w3.org/2001/XMLSchema#date>", "^^<http://t.example/>"])
    return f"{quote}{text}{end}{suffix}"


def twist(s: Style) -> str:
    """One statement (without its '.') that is borderline or outside the subset."""
    rng = s.rng
    subject, predicate = s.subject(), s.predicate()
    roll = rng.randrange(40)
    if roll == 0:
        return f"<{odd_iri(rng)}> {predicate} {s.obj()}"
    if roll == 1:
        return f"{subject} {predicate} <{odd_iri(rng)}>"
    if roll == 2:
        return f'{subject} {predicate} "x"@{rng.choice(ODD_LANGUAGES)}'
    if roll == 3:
        return f"{subject} {predicate} {long_string(rng)}"
    if roll == 4:
        return f"{subject} {predicate} {rng.choice(['1e5', '1.5E-3', '.5e1', '1.e5', '-1E+2', '1.e', '1e', '1.0e'])}"
    if roll == 5:
        return f"{subject} {predicate} [ {s.predicate()} {s.obj()} ]"
    if roll == 6:
        return f"{subject} {predicate} ( {s.obj()} {s.obj()} )"
    if roll == 7:
        return f"{subject} {predicate} << <http://a/> <http://b/> <http://c/> >>"
    if roll == 8:
        return f"{subject} {predicate} {rng.choice(['[]', '()', '[ ]'])}"
    if roll == 9:
        prefix = rng.choice(list(s.prefixes) or ["v"])
        local = rng.choice(["é", "a·b", "\\~x", "a\\.b", "%zz", "%4", "-a", ".a", "a%", "a\u00b7"])
        return f"{subject} {predicate} {prefix}:{local}"
    if roll == 10:
        return f'{subject} {predicate} "x"^^{rng.choice(["<" + RDF + "langString>", "<" + RDF + "XMLLiteral>"])}'
    if roll == 11:
        return f"{subject} {predicate} undeclared:x"
    if roll == 12:
        number_shape = rng.choice(["1.e:x", "1.E:x", "1.ex:a", "2.e-x", "1.5e:x", "1e:x", "1.e", "1.E"])
        return f"{subject} {predicate} {number_shape} {s.predicate()} {s.obj()}"
    if roll == 13:
        word = rng.choice(["true.", "truex:", "false,", "TRUE", "False", "true:x", "false.x:y", "truex"])
        return f"{subject} {predicate} {word}"
    if roll == 14:
        return f'{subject} {predicate} "{rng.choice(BAD_STRING_PIECES)}"'
    if roll == 15:
        return f"{subject} {predicate} {s.obj()} . @prefix late: <http://late/> . late:x {predicate} {s.obj()}"
    if roll == 16:
        return f"{subject} {predicate} {s.obj()} . PREFIX late: <http://late/> late:x {predicate} {s.obj()}"
    if roll == 17:
        return f"{subject} {predicate} {s.obj()} . @base <http://b.example/> . <x> {predicate} {s.obj()}"
    if roll == 18:
        return f"<g> {{ {subject} {predicate} {s.obj()} }}"
    if roll == 19:
        return f"{s.iri()} {{ {s.iri()} {{ {subject} {predicate} {s.obj()} }} }}"
    if roll == 20:
        return f"{subject} {predicate} {s.obj()} }}"
    if roll == 21:
        return f"{{ {subject} {predicate} {s.obj()} }} ."
    if roll == 22:
        return f"GRAPH {{ {subject} {predicate} {s.obj()} }}"
    if roll == 23:
        return f"{subject} {predicate} {s.obj()} ,"
    if roll == 24:
        return f"{subject} {predicate}"
    if roll == 25:
        return f"{subject} {{ }} {predicate} {s.obj()}"
    if roll == 26:
        return f"{subject} _:p {s.obj()}"
    if roll == 27:
        return f"{subject} {predicate} {s.obj()} # comment é \xff"
    if roll == 28:
        return f"{subject} {rng.choice(['a:', 'a#x', 'A', 'a_:b', 'a,'])} {s.obj()}"
    if roll == 29:
        return f'{subject} {predicate} "x" @en'
    if roll == 30:
        return f'{subject} {predicate} "x"^^ {s.datatype()}'
    if roll == 31:
        return f'{subject} {predicate} "x"@en^^{s.datatype()}'
    if roll == 32:
        return f'{subject} {predicate} "x"^^_:dt'
    if roll == 33:
        return f"{subject} {predicate} {rng.choice(['+', '-', '.', '+.', '-.5.', '1..', '--1', '1a', '0x10'])}"
    if roll == 34:
        return f"{subject} {predicate} {s.obj()} ; , {s.obj()}"
    if roll == 35:
        return f"{subject} {predicate} {s.obj()} ; {predicate}"
    if roll == 36:
        prefix = rng.choice(["_a", "1a", "a.", ".a", "é", "a:b"])
        return f"@prefix {prefix}: <http://x/> .\n{subject} {predicate} {s.obj()}"
    if roll == 37:
        return f'{subject} {predicate} "{rng.choice(["a", "é"])}\u2028\x00"'
    if roll == 38:
        return f"{subject} {predicate} {rng.choice(['?x', '$x', '@x', '=', '=>', '<=', '^<http://x/>', '!x'])}"
    return f"{subject}\u00a0{predicate} {s.obj()}"


def twisted(rng: random.Random) -> bytes:
    """A document with one twist: borderline, outside the subset, or not Turtle at all."""
    s = style(rng)
    if not s.prefixes:
        s.prefixes["v"] = NAMESPACES[0]
    head = header(s)
    before, after = s.statements(rng.randint(0, 3)), s.statements(rng.randint(0, 3))
    where = rng.randrange(10)
    if where < 6:
        body = f"{before}{twist(s)} .{s.newline}{after}"
    elif where == 6:
        block = graph_block(s)
        at = block.find("{") + 1
        body = before + block[:at] + " " + twist(s) + " . " + block[at:] + after
    elif where == 7:
        head = (
            rng.choice(
                [
                    "\ufeff",
                    "@PREFIX v: <http://example.org/vocab#> .\n",
                    "@prefix v: <http://example.org/vocab#>\n",
                    "PREFIX v: <http://example.org/vocab#> .\n",
                    "@prefix v:<http://example.org/vocab#>.\n",
                    "@prefix v: <relative/> .\n",
                    "@base <relative/> .\n",
                    "@base <http://example.org/base/> .\n<x> <y> <z> .\n",
                    "BASE <http://example.org/base/> .\n",
                    "@prefix\tv:\t<http://example.org/vocab#>\t.\n",
                    "@prefix v: <http://example.org/vocab#> .@prefix w: <http://w/>.",
                    "PREFIX v:<http://example.org/vocab#>PREFIX w:<http://w/>",
                    "@prefix : <http://example.org/vocab#> .\n: : : .\n",
                    "@prefix v: <http://example.org/vocab#> .\n" * 2,
                    "@prefix v: <http://other.example/> .\n",
                ]
            )
            + head
        )
        body = before + after
    elif where == 8:
        s.newline = rng.choice(["\r", "\n\r", "\r\n"])
        body = s.statements(rng.randint(1, 4))
    else:
        body = before + rng.choice(["\x00", "\x0b", "\x0c", "\\", "`", "|", "~", "%", "&", "*"]) + after
    return (head + body).encode()


#: What a mutation puts in: Turtle's punctuation, quotes, escapes, controls, UTF-8 bytes.
MUTANTS = b"<>\"'.;,{}\\#@_:^[]()!?=/ \t\n\r\x00\x7f\x80\xbf\xc3\xa9\xe2\xf0\xffaeExz019+-%"
FRAGMENTS = (b'"', b"<", b">", b".", b";", b"{", b"}", b"\\", b"#", b"@", b"_:", b"\x80", b"\xc3", b"e", b"''")
SWAPS = (
    (b"@prefix", b"PREFIX"),
    (b"@prefix", b"@base"),
    (b'"', b"'"),
    (b" .", b" ;"),
    (b" .", b""),
    (b" ;", b" ,"),
    (b"\n", b"\r\n"),
    (b"http:", b"http"),
    (b"hdl:", b"hdl"),
    (b"<", b""),
    (b"\t", b""),
    (b" ", b""),
    (b"-", b"_"),
    (b"@", b"@@"),
    (b"^^", b"^"),
    (b"true", b"True"),
    (b"{", b"{{"),
    (b"}", b""),
    (b"1", b"1.e"),
    (b".", b"1."),
)


def mutated(rng: random.Random) -> bytes:
    """A document inside the subset with one to three byte-level changes."""
    return mutate(rng, inside(rng), MUTANTS, SWAPS, FRAGMENTS)


def documents(seed: int, count: int) -> Iterator[bytes]:
    """``count`` documents: about half inside the subset, a quarter with a twist, the rest
    mutations; the same ``seed`` gives the same documents."""
    return fuzz_common.documents(kinds(seed, count))


#: The kinds of generated document, and how often each comes.
KINDS = (("inside", 0.5), ("twisted", 0.25), ("mutated", 0.25))


def kinds(seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """:func:`documents`, each with its kind (one of :data:`KINDS`)."""
    yield from fuzz_common.generated(seed, count, KINDS, {"inside": inside, "twisted": twisted, "mutated": mutated})


# -- Runs ----------------------------------------------------------------------------------


#: A run's outcomes of every reading (each document is read as Turtle and as TriG, the
#: outcomes by kind of document and format), and its failing documents with how each was read.
Tally = fuzz_common.Tally[tuple[bytes, bool]]


def run(seed: int, count: int, nquads: Reader | None = None) -> Tally:
    """Every document of :func:`documents` through :func:`check`, as Turtle and as TriG;
    failures are kept."""
    reader = nquads or compiled()
    tally = Tally()
    for kind, document in kinds(seed, count):
        for trig in (False, True):
            tally.take((kind, FORMATS[trig]), (document, trig), partial(check, document, trig, reader))
    return tally


def fails(document: bytes, trig: bool, nquads: Reader) -> bool:
    try:
        check(document, trig, nquads)
    except AssertionError:
        return True
    return False


def shrink(document: bytes, trig: bool, nquads: Reader, budget: int = 4000) -> bytes:
    """A smaller document that still breaks the law: ever smaller runs of bytes taken out
    while it does."""
    return fuzz_common.shrink(document, lambda candidate: fails(candidate, trig, nquads), budget)


def main(argv: list[str] | None = None) -> int:
    options = fuzz_common.options(__doc__, argv)
    reader: Reader = (lambda document, trig: None) if options.stand_in else compiled()
    started = time.perf_counter()
    tally = run(options.seed, options.count, reader)
    elapsed = time.perf_counter() - started
    fuzz_common.print_outcomes(tally, (*OUTCOMES, "DIFFERENT"))
    print(f"{options.count} documents ({tally.total} readings), seed {options.seed}, {elapsed:.1f} s; by kind:")
    for kind, _ in KINDS:
        for name in FORMATS:
            counts = ", ".join(
                f"{outcome} {tally.by_kind[kind, name, outcome]}" for outcome in (*OUTCOMES, "DIFFERENT")
            )
            print(f"  {kind:>8} {name:>6}: {counts}")

    def again(case: tuple[bytes, bool]) -> str:
        document, trig = case
        return check(shrink(document, trig, reader), trig, reader)

    return report(tally, options.shown, again)


if __name__ == "__main__":
    sys.exit(main())
