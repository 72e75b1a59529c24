"""Reading and writing RDF for the command line and the service (I/O, outside the core).

Formats are named as rdflib names them, guessed from file extensions or content, and
accepted as MIME types. N-Triples, N-Quads, Turtle, TriG and RDF/XML are read by pyoxigraph,
which conforms to the W3C RDF 1.1 test suites (tests/test_w3c_rdf.py, tests/test_rdf_xml.py)
and validates IRIs (RFC 3987) and language tags (BCP 47); JSON-LD by rdflib. Input is
untrusted (DESIGN.md §7): XML is checked by lxml as it is read (:mod:`ldids.safexml`,
:mod:`ldids.rdf.rdfxml`), JSON-LD may not name remote contexts, and nothing named in the
data is ever fetched. Syntax errors say file, line and column. Relative IRIs resolve against
a base IRI (DESIGN.md §6a): the one given, else a file's ``file:`` IRI; data with no base
(standard input, a request body) may not hold any. Inputs are decompressed, and outputs compressed, as their names say;
outputs appear whole or not at all (:func:`ldids.rdf.files.atomic_output`).
"""

from __future__ import annotations

import io
import json
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rdflib
from lxml import etree
from rdflib import Dataset, Graph
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.namespace import NAME_START_CATEGORIES, RDF, XSD, split_uri
from rdflib.plugins.serializers.trig import TrigSerializer
from rdflib.term import BNode, Literal, Node, URIRef

from ldids import safexml
from ldids.errors import InputError, WriteError
from ldids.ntriples import Quad, exact_literal, quad_line, term
from ldids.passes.graph import blank_node_labels, relabel_quads
from ldids.rdf import RDFLIB_TERMS, foxml, not_a_cast_failure, oaipmh
from ldids.rdf.files import FORMATS, STDIN, Format, atomic_output, guess_format, open_input, resolve_format
from ldids.rdf.oxigraph import OXIGRAPH_FORMATS, check_base, keep_prefixes, oxigraph_quads

__all__ = [
    "FORMATS",
    "Format",
    "Input",
    "atomic_output",
    "guess_format",
    "label_blank_nodes",
    "read",
    "read_bytes",
    "read_graph",
    "resolve_format",
    "serialize",
]


@contextmanager
def _rdflib_quietly() -> Iterator[None]:
    """rdflib as ldids reads with it, for as long as it does.

    Lexical forms are data: rdflib would rewrite "01"^^xsd:integer as "1" and a datestamp's
    "Z" as "+00:00" on every parse, so its literal normalization is off while ldids reads,
    and set back as it was after: importing ldids changes no setting of rdflib's for the
    program around it. rdflib's own parsers and serializers call its deprecated
    ``ConjunctiveGraph`` and ``Dataset.default_context``; those notices are for rdflib, not
    for ldids users. Nor is the traceback rdflib logs for each literal that is not of its
    datatype ("n.d."^^xsd:date): such a literal is data, kept as written."""
    normalizing = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    quieted = not_a_cast_failure not in RDFLIB_TERMS.filters  # else the program set it for itself
    RDFLIB_TERMS.addFilter(not_a_cast_failure)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", message=r"(Dataset\.\w+|ConjunctiveGraph) is deprecated", category=DeprecationWarning
            )
            yield
    finally:
        rdflib.NORMALIZE_LITERALS = normalizing
        if quieted:
            RDFLIB_TERMS.removeFilter(not_a_cast_failure)


@dataclass
class Input:
    """What was read: statements in input order, notes (e.g. OAI-PMH error responses), and
    what the readers read and made no statement of, counted by kind (the summary's ``skipped``);
    the prefixes the inputs declared (Turtle, TriG, RDF/XML, JSON-LD), the first declaration
    of a name kept: the writers use them again."""

    quads: list[Quad] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    prefixes: dict[str, str] = field(default_factory=dict)


def _load(path: str) -> bytes:
    """An input's bytes, decompressed as its name (standard input: its first bytes) says."""
    with open_input(path) as (stream, _, _):
        try:
            return stream.read()
        except OSError as error:
            raise InputError(error.strerror or str(error), source=STDIN if path == "-" else path) from error


def read(paths: Iterable[str], fmt: Format | None = None, base: str | None = None) -> Input:
    """Read every input (``-`` is standard input) into one collection of statements.

    Relative IRIs resolve against ``base``, else against each file's ``file:`` IRI;
    standard input has no base of its own (a relative IRI in it is an error)."""
    found = Input()
    for path in paths:
        data = _load(path)
        source = STDIN if path == "-" else path
        own = base if base is not None or path == "-" else Path(path).resolve().as_uri()
        _read_into(found, data, fmt or guess_format(path, data), source, own)
    found.quads = label_blank_nodes(found.quads)
    return found


def read_bytes(data: bytes, fmt: str | Format, source: str = "<data>", base: str | None = None) -> Input:
    """Read one document held in memory; relative IRIs resolve against ``base``, and are an
    error without one (bytes from a request have no place of their own)."""
    found = Input()
    _read_into(found, data, fmt if isinstance(fmt, Format) else resolve_format(fmt), source, base)
    found.quads = label_blank_nodes(found.quads)
    return found


def _read_into(found: Input, data: bytes, fmt: Format, source: str, base: str | None) -> None:
    with _rdflib_quietly():  # the readers make literals too (OAI-PMH datestamps)
        if fmt.name == "foxml":
            found.quads.extend(foxml.read(data, source, found.skipped))
        elif fmt.name == "oai-pmh":
            response = oaipmh.read(data, source)
            found.quads.extend(response.quads)
            found.notes.extend(f"{source}: OAI-PMH error {error}" for error in response.errors)
            found.notes.extend(f"{source}: {note}" for note in response.notes)
            found.skipped.update(response.skipped)
        else:
            found.quads.extend(_parse_rdf(data, fmt, source, base, found.prefixes))


def _parse_rdf(
    data: bytes, fmt: Format, source: str, base: str | None = None, prefixes: dict[str, str] | None = None
) -> list[Quad]:
    """The statements of one document; the prefixes it declares are added to ``prefixes``
    (a name, and a namespace, keep the first declaration among the inputs)."""
    if base is not None:
        check_base(base)
    if fmt.name == "json-ld":
        _check_json_ld(data, source)
    if fmt.name in OXIGRAPH_FORMATS:
        declared: dict[str, str] = {}
        json_ld = fmt.name == "json-ld"
        # Without a base, JSON-LD drops what holds a relative IRI (JSON-LD 1.1 API §8.4):
        # they resolve against a stand-in, and are refused below.
        read = list(oxigraph_quads(data, fmt, source, base or (_NO_BASE if json_ld else None), prefixes=declared))
        if prefixes is not None:
            keep_prefixes(prefixes, declared.items())
        if json_ld and base is None:
            _refuse_relative(read, data, source)
        return read
    target: Graph = Dataset() if fmt.quads else Graph()
    bound_before = set(target.namespaces())  # rdflib's own, which the writers bind anyway
    try:
        with _rdflib_quietly():
            # Without a base, JSON-LD would resolve relative IRIs against the working
            # directory: they resolve against a stand-in, refused below.
            target.parse(data=data, format=fmt.name, publicID=base or (_NO_BASE if fmt.name == "json-ld" else None))
    except Exception as error:  # rdflib's parsers raise many unrelated types
        raise _syntax_error(error, data, fmt, source) from error
    if prefixes is not None:
        bound = ((prefix, str(namespace)) for prefix, namespace in target.namespaces())
        keep_prefixes(
            prefixes,
            [(prefix, namespace) for prefix, namespace in bound if (prefix, URIRef(namespace)) not in bound_before],
        )
    quads: list[Quad] = (
        list(_quads_of(target)) if isinstance(target, Dataset) else [(s, p, o, None) for s, p, o in target]
    )
    if base is None:
        _refuse_relative(quads, data, source)
    return quads


# -- Relative IRIs in JSON-LD, read by rdflib --------------------------------------------------

#: What a JSON-LD document with no base resolves relative IRIs against, to find them (the
#: .invalid domain is reserved never to resolve, RFC 2606 §2).
_NO_BASE = "http://no-base.invalid/"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _refuse_relative(quads: list[Quad], data: bytes, source: str) -> None:
    """A relative IRI in a document read with no base is an error, saying where it is."""
    for quad in quads:
        for node in quad:
            if not isinstance(node, URIRef):
                continue
            text = str(node)
            if text.startswith(_NO_BASE):
                reference = text[len(_NO_BASE) :]
            elif _SCHEME.match(text) is None:
                reference = text
            else:
                continue
            line, column = _where(data, reference)
            raise InputError(
                f"relative IRI {reference!r} and no base IRI to resolve it against",
                source=source,
                line=line,
                column=column,
                advice="base",
            )


def _where(data: bytes, reference: str) -> tuple[int | None, int | None]:
    """Line and column of the first quoted ``reference`` in ``data`` (an rdf:ID without its
    ``#``), or nothing if it is not written there as it is."""
    text = data.decode("utf-8", "replace")
    for candidate in dict.fromkeys((reference, reference.removeprefix("#"))):
        for quote in ('"', "'"):
            index = text.find(f"{quote}{candidate}{quote}")
            if index >= 0:
                index += 1
                line = text.count("\n", 0, index) + 1
                return line, index - (text.rfind("\n", 0, index) + 1) + 1
    return None, None


def _quads_of(dataset: Dataset) -> Iterator[Quad]:
    for graph in sorted(dataset.graphs(), key=lambda g: (g.identifier != DATASET_DEFAULT_GRAPH_ID, str(g.identifier))):
        name: Node | None = None if graph.identifier == DATASET_DEFAULT_GRAPH_ID else graph.identifier
        for s, p, o in graph:
            yield (s, p, o, name)


def _check_json_ld(data: bytes, source: str) -> None:
    try:
        document = json.loads(data)
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON: {error.msg}", source=source, line=error.lineno, column=error.colno) from error
    except RecursionError:
        raise InputError("the JSON-LD document nests too deeply to be read", source=source) from None
    except UnicodeDecodeError as error:
        raise InputError(f"invalid JSON: {error}", source=source) from error

    # Looked through without recursion, to a depth XML's readers also stop at (libxml2: 256):
    # pyoxigraph's parser takes memory square in the depth (a 16 KB document 800 deep, 180 MB).
    waiting: list[tuple[Any, int]] = [(document, 0)]
    while waiting:
        node, depth = waiting.pop()
        if depth > _JSON_LD_DEPTH:
            raise InputError(f"the JSON-LD document nests deeper than {_JSON_LD_DEPTH} levels", source=source)
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("@context", "@import") and _names_a_remote_document(value):
                    raise InputError(
                        "refused: a remote JSON-LD context would have to be fetched; inline it instead", source=source
                    )
                waiting.append((value, depth + 1))
        elif isinstance(node, list):
            waiting.extend((item, depth + 1) for item in node)


_JSON_LD_DEPTH = 256


def _names_a_remote_document(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return any(isinstance(item, str) for item in value)
    return False


def _syntax_error(error: Exception, data: bytes, fmt: Format, source: str) -> InputError:
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    lines = getattr(error, "lines", None)
    text = getattr(error, "_str", None)
    index = getattr(error, "_i", None)
    if isinstance(lines, int) and isinstance(text, bytes | str) and isinstance(index, int):
        before = text[:index]
        newline = b"\n" if isinstance(before, bytes) else "\n"
        column = index - (before.rfind(newline) + 1) + 1  # type: ignore[arg-type]
        detail = str(error).split("\n", 2)[1] if "\n" in str(error) else message
        return InputError(f"syntax error: {detail}", source=source, line=lines + 1, column=column)
    return InputError(f"syntax error: {message}", source=source)


# -- Writing -------------------------------------------------------------------------------


def label_blank_nodes(quads: list[Quad]) -> list[Quad]:
    """Blank nodes relabeled ``b0, b1, ...`` by their content (passes.blank_node_labels),
    statements sorted: the same data gives the same output, whatever labels a parser drew
    (rdflib draws random ones, and iterates in hash order)."""
    labels = blank_node_labels(quads)
    if not labels:
        return sorted(quads, key=quad_line)
    return sorted(relabel_quads(quads, labels), key=quad_line)


def serialize(quads: Iterable[Quad], fmt: Format, prefixes: Mapping[str, str] | None = None) -> bytes:
    """Statements in ``fmt``, deterministic: the same statements give the same bytes.

    ``prefixes`` (name to namespace, e.g. :attr:`Input.prefixes`) are used by the writers
    that abbreviate (Turtle, TriG, RDF/XML), besides ldids's own, which win a clash."""
    if not fmt.writable:
        raise InputError(f"{fmt.name} is an input format only")
    ordered = sorted(quads, key=quad_line)
    if fmt.name in ("turtle", "trig"):
        with _rdflib_quietly():
            ordered = [(s, p, _as_written(o), g) for s, p, o, g in ordered]
    if fmt.name == "xml":
        _check_rdf_xml(ordered)
    if fmt.name in ("nt", "nquads"):
        if fmt.name == "nt" and any(q[3] is not None for q in ordered):
            raise WriteError("the data has named graphs, which N-Triples cannot hold", advice="named-graphs")
        return "".join(quad_line(q) + "\n" for q in ordered).encode("utf-8")
    named = any(q[3] is not None for q in ordered)
    if named and not fmt.quads:
        raise WriteError(f"the data has named graphs, which {fmt.name} cannot hold", advice="named-graphs")
    if fmt.name == "json-ld":
        return _json_ld(ordered)
    if fmt.quads:
        dataset = Dataset()
        for s, p, o, g in ordered:
            target = (
                dataset.default_graph
                if g is None
                else dataset.graph(g if isinstance(g, URIRef | BNode) else URIRef(str(g)))
            )
            target.add((s, p, o))
        _bind_prefixes(dataset, ordered, prefixes or {})
        written = io.BytesIO()
        with _rdflib_quietly(), _nesting(fmt):
            _SortedTrig(dataset).serialize(written, encoding="utf-8")
        return written.getvalue()
    graph = Graph()
    for s, p, o, _ in ordered:
        graph.add((s, p, o))
    _bind_prefixes(graph, ordered, prefixes or {})
    with _rdflib_quietly(), _nesting(fmt):
        data = bytes(graph.serialize(format=fmt.name, encoding="utf-8"))
    return _sorted_rdf_xml(data) if fmt.name == "xml" else data


@contextmanager
def _nesting(fmt: Format) -> Iterator[None]:
    """rdflib's Turtle, TriG and RDF/XML writers nest a blank node used once inside the
    statement that uses it, one call deeper each: data nested a thousand deep (which the
    readers read) ran out of Python's stack, with a traceback. Said, as what the format asked
    for cannot write: N-Triples and N-Quads write it."""
    try:
        yield
    except RecursionError:
        raise WriteError(
            f"the data nests blank nodes too deeply for the {fmt.name} writer", advice="line-format"
        ) from None


class _SortedTrig(TrigSerializer):
    """rdflib's TriG writer with its graphs in order, the default graph first, then by name
    (blank nodes are labelled by their content when read): rdflib's takes them in the order
    its store's set of graphs gives, which changes with Python's hash seed."""

    def __init__(self, store: Dataset) -> None:
        super().__init__(store)
        default = self.default_context
        self.contexts.sort(key=lambda graph: (graph.identifier != default, str(graph.identifier)))


def graph_turtle(graph: Graph) -> bytes:
    """``graph`` in Turtle, with its prefixes, each literal as it is written
    (:func:`_as_written`): a validation report's values are the data's."""
    out = Graph()
    for prefix, namespace in graph.namespaces():
        out.bind(prefix, namespace, override=True, replace=True)
    with _rdflib_quietly():
        for s, p, o in graph:
            out.add((s, p, _as_written(o)))
        return bytes(out.serialize(format="turtle", encoding="utf-8"))


# Turtle's numbers and booleans written bare (Turtle §2.5.2, INTEGER, DECIMAL, DOUBLE,
# BooleanLiteral), each read back as its datatype.
_BARE = {
    XSD.integer: re.compile(r"[+-]?[0-9]+"),
    XSD.decimal: re.compile(r"[+-]?[0-9]*\.[0-9]+"),
    XSD.boolean: re.compile(r"true|false"),
}


class _Quoted(Literal):
    """A literal rdflib's Turtle and TriG writers write quoted, with its datatype. They write
    a number or a boolean bare, made again from its value: "1.0e0"^^xsd:double as 1e+00,
    "1"^^xsd:decimal as 1.0, and "1"^^xsd:boolean as 1, which reads back as an xsd:integer.
    Lexical forms are data (see _rdflib_quietly)."""

    __slots__ = ()

    def _literal_n3(self, use_plain: bool = False, qname_callback: Any = None) -> str:
        return super()._literal_n3(False, qname_callback)


def _as_written(node: Node) -> Node:
    """``node``, or, where rdflib would write it bare as another lexical form or datatype,
    the same literal to be written quoted (:class:`_Quoted`). Only the lexical forms that read
    back as themselves (an integer as 42, a decimal as 1.50, true and false) stay bare."""
    if not isinstance(node, Literal) or node.datatype is None:  # a language-tagged literal has none
        return node
    bare = _BARE.get(node.datatype)
    if bare is not None and bare.fullmatch(str(node)):
        return node
    return exact_literal(str(node), datatype=str(node.datatype), kind=_Quoted)


# What XML 1.0 cannot hold, not even as a character reference (§2.2, Char).
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _check_rdf_xml(quads: list[Quad]) -> None:
    """What RDF/XML cannot write, as an InputError that names it: a character XML 1.0 has no
    room for (U+0001, U+FFFE: rdflib's writer wrote them, and made a document no reader
    takes), and a predicate with no XML name at its end (http://e/0/1, which rdflib's writer
    fails on): RDF/XML writes a predicate as an element's name, a namespace and a local
    name (RDF 1.1 XML Syntax §2.2)."""
    for node in (node for quad in quads for node in quad if node is not None):
        found = _NOT_XML.search(str(node))
        if found is not None:
            shown = _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04X}", term(node))
            raise WriteError(
                f"RDF/XML cannot write the character U+{ord(found.group()):04X} of {shown} "
                "(XML 1.0 has no room for it)",
                advice="output-format",
            )
    for predicate in sorted({str(p) for _, p, _, _ in quads}):
        try:
            split_uri(predicate, NAME_START_CATEGORIES)
        except ValueError:
            raise WriteError(
                f"RDF/XML cannot write the predicate <{predicate}>: it does not end in an XML name",
                advice="output-format",
            ) from None


# Readable prefixes for the vocabularies this data is full of.
_PREFIXES = {
    "fedora-model": "info:fedora/fedora-system:def/model#",
    "fedora-view": "info:fedora/fedora-system:def/view#",
    "rel": "info:fedora/fedora-system:def/relations-external#",
    "oai": "http://www.openarchives.org/OAI/2.0/",
    "ldids": "https://w3id.org/ldids/vocab#",
}


def _bind_prefixes(graph: Graph, quads: list[Quad], declared: Mapping[str, str]) -> None:
    """Bind every prefix a writer will need before it runs: the input's (``declared``), then
    ldids's own over them, then one for each namespace of a predicate or class still without
    one: rdflib would otherwise invent ns1, ns2, ... in the order it happens to meet them,
    which is hash order."""
    for prefix, namespace in sorted(declared.items()):
        graph.bind(prefix, namespace, override=True, replace=True)
    for prefix, namespace in _PREFIXES.items():
        graph.bind(prefix, namespace, override=True, replace=True)
    terms = {str(p) for _, p, _, _ in quads} | {
        str(o) for _, p, o, _ in quads if p == RDF.type and isinstance(o, URIRef)
    }
    for iri in sorted(terms):
        try:
            graph.namespace_manager.compute_qname(iri, generate=True)
        except ValueError:
            continue  # no prefix possible (a writer that needs one reports it)


# rdflib's RDF/XML and JSON-LD writers visit subjects in hash order: put their output in
# a canonical order instead, without touching what it says.


def _sorted_rdf_xml(data: bytes) -> bytes:
    root = safexml.parse(data)
    children = list(root)
    for child in children:
        root.remove(child)
    for child in sorted(children, key=lambda element: etree.tostring(element)):
        child.tail = "\n  "
        root.append(child)
    if len(root):
        root[-1].tail = "\n"
    return bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8")) + b"\n"


def _json_ld(quads: list[Quad]) -> bytes:
    """The statements in JSON-LD, written here, each as it is: a node object per subject and
    graph, a named graph as an object of its name and "@graph", every value a string with
    its datatype or language tag, rdf:type as "@type" where its objects are IRIs (that key
    holds IRIs, JSON-LD 1.1 §4.3), else as any other property. rdflib's writer (7.x) lost a
    graph named by a blank node (its statements went to the default graph), put the default
    graph's nodes in an object of "@graph" alone, which in an array is a graph named by a
    blank node to a conforming reader, wrote native JSON numbers and booleans whatever it
    was told ("01"^^xsd:integer read back as 1), and put literals in "@type"."""
    graphs: dict[Node | None, dict[Node, dict[str, list[Node]]]] = {}
    for s, p, o, g in quads:
        graphs.setdefault(g, {}).setdefault(s, {}).setdefault(str(p), []).append(o)

    def named(node: Node) -> str:
        return f"_:{node}" if isinstance(node, BNode) else str(node)

    def value(node: Node) -> dict[str, str]:
        if not isinstance(node, Literal):
            return {"@id": named(node)}
        if node.language:
            return {"@value": str(node), "@language": node.language}
        if node.datatype is None or node.datatype == XSD.string:
            return {"@value": str(node)}
        return {"@value": str(node), "@type": str(node.datatype)}

    def node_objects(nodes: dict[Node, dict[str, list[Node]]]) -> list[dict[str, Any]]:
        made: list[dict[str, Any]] = []
        for subject, properties in nodes.items():
            written: dict[str, Any] = {"@id": named(subject)}
            for predicate, objects in properties.items():
                if predicate == str(RDF.type) and all(isinstance(o, URIRef) for o in objects):
                    written["@type"] = [str(o) for o in objects]
                else:
                    written[predicate] = [value(o) for o in objects]
            made.append(written)
        return made

    made = node_objects(graphs.get(None, {}))
    made += [{"@id": named(name), "@graph": node_objects(nodes)} for name, nodes in graphs.items() if name is not None]
    return _sorted_json_ld(made)


def _sorted_json_ld(made: Any) -> bytes:
    def canonical(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {name: canonical(item, name) for name, item in value.items()}
        if isinstance(value, list):
            items = [canonical(item) for item in value]
            # Arrays are sets in JSON-LD, except @list, whose order is data.
            return items if key == "@list" else sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
        return value

    return json.dumps(canonical(made), indent=2, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\n"


def read_graph(path: str) -> Graph:
    """One RDF file as a graph (for shapes); named graphs are merged."""
    graph = Graph()
    for s, p, o, _ in read([path]).quads:
        graph.add((s, p, o))
    return graph
