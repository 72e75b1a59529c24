"""The RDF formats ldids reads and writes (:class:`Format`, :data:`FORMATS`), and the words
that name them: a format's name, an alias, an extension without its dot, a MIME type."""

from __future__ import annotations

from dataclasses import dataclass

from ldids.errors import InputError

__all__ = ["FORMATS", "Format", "format_named", "resolve_format"]


@dataclass(frozen=True)
class Format:
    name: str  # as rdflib names it (or ours: foxml, oai-pmh)
    label: str  # as people write it, for messages
    extensions: tuple[str, ...]
    media_types: tuple[str, ...]
    quads: bool = False  # holds named graphs
    writable: bool = True


FORMATS: tuple[Format, ...] = (
    Format("turtle", "Turtle", (".ttl",), ("text/turtle", "application/x-turtle")),
    Format("nt", "N-Triples", (".nt",), ("application/n-triples",)),
    Format("nquads", "N-Quads", (".nq",), ("application/n-quads",), quads=True),
    Format("trig", "TriG", (".trig",), ("application/trig",), quads=True),
    Format("xml", "RDF/XML", (".rdf", ".owl"), ("application/rdf+xml",)),
    Format("json-ld", "JSON-LD", (".jsonld",), ("application/ld+json",), quads=True),
    Format("foxml", "FOXML", (".foxml",), ("application/fedora-foxml+xml",), writable=False),
    Format("oai-pmh", "OAI-PMH", (), ("application/oai-pmh+xml",), writable=False),
)
_BY_NAME = {f.name: f for f in FORMATS}
_ALIASES = {
    "ttl": "turtle", "n3": "turtle", "ntriples": "nt", "n-triples": "nt", "nq": "nquads", "n-quads": "nquads",
    "rdfxml": "xml", "rdf/xml": "xml", "rdf": "xml", "jsonld": "json-ld", "json": "json-ld", "oaipmh": "oai-pmh",
}  # fmt: skip
# Every word that names a format: its name, an alias, an extension without its dot.
_WORDS = {
    **{ext.lstrip("."): f for f in FORMATS for ext in f.extensions},
    **{alias: _BY_NAME[name] for alias, name in _ALIASES.items()},
    **_BY_NAME,
}


def resolve_format(name: str) -> Format:
    """A format by name, alias, extension or MIME type; raises InputError naming the known ones."""
    key = name.strip().lower().split(";", 1)[0].strip()
    if key in _WORDS:
        return _WORDS[key]
    for candidate in FORMATS:
        if key in candidate.media_types:
            return candidate
    known = ", ".join(f.name for f in FORMATS)
    raise InputError(f"unknown format {name!r}; known: {known} (or their MIME types)")


def format_named(word: str) -> Format | None:
    """The format ``word`` names as a whole (``nt``, ``turtle``, ``ttl``, ``n-quads``), if any.

    >>> format_named("NT").label, format_named("out.nt")
    ('N-Triples', None)
    """
    return _WORDS.get(word.strip().lower())
