"""Formats and output files, without rdflib: naming and guessing RDF formats, and outputs
that appear whole or not at all. The graph I/O (:mod:`ldids.rdf.io`) and the streamed dumps
(:mod:`ldids.dumps.run`) share them; a dump never imports rdflib for them (~0.2 s a start).
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

from ldids.errors import InputError, OutputError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["FORMATS", "STDOUT", "Format", "atomic_output", "guess_format", "resolve_format", "standard_output"]


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


#: How errors name standard output (``-``), as ``<stdin>`` names standard input.
STDOUT = "<stdout>"


def _cannot_write(error: OSError, name: str) -> OutputError:
    return OutputError(f"cannot write: {error.strerror or error}", source=name)


class _Output(io.FileIO):
    """An output's file: an error writing it is an OutputError naming the output.

    After an error it is closed: what is still buffered above it is dropped rather than
    written again at exit (standard output is flushed then), which would fail a second time
    and print a traceback. Writes go through os.write, which tests replace to fill the disk.
    """

    def __init__(self, descriptor: int, name: str, *, closefd: bool = True) -> None:
        super().__init__(descriptor, "wb", closefd=closefd)
        # Not ``name``: gzip would put it in the header, and the same data must give the same bytes.
        self.shown = name

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return os.write(self.fileno(), data)
        except BrokenPipeError:
            self.close()
            raise  # the reader left (`ldids ... | head`): no error of ours, the command line ends quietly
        except OSError as error:
            self.close()
            raise _cannot_write(error, self.shown) from error


def standard_output() -> TextIO:
    """Standard output for the command line: its write errors are OutputErrors (``<stdout>``).

    Started with standard output closed (``>&-``), descriptor 1 is taken by /dev/null opened
    for reading: a file opened later cannot get the number and receive what is meant for
    standard output, and a write fails as on a closed descriptor (EBADF), reported as any
    output error is. Without a descriptor (replaced by a test's capture) it stays as it is.
    """
    current = sys.stdout
    if current is None:
        held = os.open(os.devnull, os.O_RDONLY)
        if held != 1:
            os.dup2(held, 1)
            os.close(held)
        return io.TextIOWrapper(io.BufferedWriter(_Output(1, STDOUT, closefd=False)), encoding="utf-8")
    try:
        descriptor = current.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return current
    current.flush()
    raw = _Output(descriptor, STDOUT, closefd=False)
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=current.encoding,
        errors=current.errors,
        line_buffering=bool(current.line_buffering),
    )


def _in_place(path: str) -> bool:
    """Whether ``path`` is written where it is, not renamed into place: anything but a regular
    file or nothing, such as a device (/dev/null), a FIFO or a symbolic link (/dev/stdout).
    A rename would replace the device or the link itself, as root even in /dev."""
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False  # nothing there (or no folder): making the temporary file says what is wrong


@contextmanager
def _writing(descriptor: int, name: str) -> Iterator[IO[bytes]]:
    """A buffered stream on ``descriptor``, flushed if the block ends without an error; after
    an error what is still buffered is dropped, the output being abandoned."""
    raw = _Output(descriptor, name)
    stream = io.BufferedWriter(raw)
    try:
        yield stream
        stream.flush()
    finally:
        raw.close()  # the buffered stream is closed with it, and not flushed again when collected


@contextmanager
def atomic_output(path: str) -> Iterator[IO[bytes]]:
    """A binary stream that becomes ``path`` only if the block ends without an error.

    ``-`` is standard output. Elsewhere the data goes to a temporary file beside ``path``
    and is renamed into place at the end, so a failed run leaves no half-written output;
    a device, FIFO or symbolic link is written in place (see :func:`_in_place`). An error
    making, writing or renaming the output raises OutputError naming ``path``; other errors
    in the block pass through as they are.
    """
    if path == "-":
        if sys.stdout is None:  # closed, and not set up by the command line (standard_output)
            raise OutputError(f"cannot write: {os.strerror(errno.EBADF)}", source=STDOUT)
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if _in_place(path):
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as error:
            raise _cannot_write(error, path) from error
        with _writing(descriptor, path) as stream:
            yield stream
        return
    target = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
    except OSError as error:
        raise _cannot_write(error, path) from error
    try:
        with _writing(handle, path) as stream:
            yield stream
        try:
            # mkstemp makes the file private (0600); an output gets the usual mode, umask applied.
            os.chmod(temporary, 0o666 & ~_umask())
            os.replace(temporary, target)
        except OSError as error:
            raise _cannot_write(error, path) from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
