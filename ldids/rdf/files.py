"""Formats and output files, without rdflib: naming and guessing RDF formats, and outputs
that appear whole or not at all. The graph I/O (:mod:`ldids.rdf.io`) and the streamed dumps
(:mod:`ldids.dumps.run`) share them; a dump never imports rdflib for them (~0.2 s a start).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ldids.errors import InputError

__all__ = ["FORMATS", "Format", "atomic_output", "guess_format", "resolve_format"]


@dataclass(frozen=True)
class Format:
    name: str  # as rdflib names it (or ours: foxml, oai-pmh)
    extensions: tuple[str, ...]
    media_types: tuple[str, ...]
    quads: bool = False  # holds named graphs
    writable: bool = True


FORMATS: tuple[Format, ...] = (
    Format("turtle", (".ttl",), ("text/turtle", "application/x-turtle")),
    Format("nt", (".nt",), ("application/n-triples",)),
    Format("nquads", (".nq",), ("application/n-quads",), quads=True),
    Format("trig", (".trig",), ("application/trig",), quads=True),
    Format("xml", (".rdf", ".owl"), ("application/rdf+xml",)),
    Format("json-ld", (".jsonld",), ("application/ld+json",), quads=True),
    Format("foxml", (".foxml",), ("application/fedora-foxml+xml",), writable=False),
    Format("oai-pmh", (), ("application/oai-pmh+xml",), writable=False),
)
_BY_NAME = {f.name: f for f in FORMATS}
_ALIASES = {
    "ttl": "turtle", "n3": "turtle", "ntriples": "nt", "n-triples": "nt", "nq": "nquads", "n-quads": "nquads",
    "rdfxml": "xml", "rdf/xml": "xml", "rdf": "xml", "jsonld": "json-ld", "json": "json-ld", "oaipmh": "oai-pmh",
}  # fmt: skip
_COMPRESSED = (".gz", ".bz2")


def resolve_format(name: str) -> Format:
    """A format by name, alias or MIME type; raises InputError naming the known ones."""
    key = name.strip().lower().split(";", 1)[0].strip()
    key = _ALIASES.get(key, key)
    if key in _BY_NAME:
        return _BY_NAME[key]
    for candidate in FORMATS:
        if key in candidate.media_types:
            return candidate
    known = ", ".join(f.name for f in FORMATS)
    raise InputError(f"unknown format {name!r}; known: {known} (or their MIME types)")


def guess_format(path: str, data: bytes | None = None) -> Format:
    """The format of a file from its extension (after .gz/.bz2), else from its content."""
    name = path.lower()
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    for candidate in FORMATS:
        if name.endswith(candidate.extensions):
            return candidate
    if data is not None:
        sniffed = _sniff(data)
        if sniffed is not None:
            return sniffed
    raise InputError(
        "cannot tell the format; name it with -i (turtle, nt, nquads, trig, xml, json-ld, foxml, oai-pmh)", source=path
    )


def _sniff(data: bytes) -> Format | None:
    head = data[:4096].lstrip()
    if head.startswith(b"<"):
        for marker, name in ((b"digitalObject", "foxml"), (b"OAI-PMH", "oai-pmh"), (b"RDF", "xml")):
            if re.search(rb"<(?:[\w.-]+:)?" + marker + rb"[\s>/]", head):
                return _BY_NAME[name]
        return None
    if head.startswith((b"{", b"[")):
        return _BY_NAME["json-ld"]
    if head.startswith((b"@prefix", b"@base", b"PREFIX", b"prefix")):
        return _BY_NAME["turtle"]
    return None


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


@contextmanager
def atomic_output(path: str) -> Iterator[IO[bytes]]:
    """A binary stream that becomes ``path`` only if the block ends without an error.

    ``-`` is standard output. Elsewhere the data goes to a temporary file beside ``path``
    and is renamed into place at the end, so a failed run leaves no half-written output.
    """
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
        # mkstemp makes the file private (0600); an output gets the usual mode, umask applied.
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
