"""Whether an XML document is well-formed, as lxml (libxml2) reads it: nothing else imported.

The check :mod:`ldids.rdf.rdfxml` makes of every byte of an RDF/XML document that
pyoxigraph parses (XML 1.0 §2.1: a document that does not match the ``document``
production, or breaks a well-formedness constraint, is not XML). It imports only the
standard library and lxml, so that :mod:`ldids.rdf.xmlcheck` can run it as a script of its
own beside the parse, in an interpreter started with neither ``site`` nor the ldids
package (``python -I -S``): a tenth of the start-up time of ``python -m``, on a core the
run's workers share.

RDF/XML is XML with namespaces (RDF 1.1 XML Syntax §2.1, on the XML Information Set, which
is defined for namespace-well-formed documents only): a name that is no QName (``p:``,
``p:a:b``), a prefix nobody declared, ``xmlns:p=""``, two attributes of one name once their
prefixes are resolved (Namespaces in XML 1.0 §3, §5, §6.3, §7) make a document that is not
RDF/XML. lxml's tree parser says so; its parser with a target, the fast check, does not.
So a document the fast check passes is looked through by ``ldids/rdf/_xmlnames.c``, at the
speed of ``memchr``, for anything that may break those rules, and a document it flags (none
of those serializers write) is read again by the tree parser, whose error is the one lxml
gives wherever it reads in step. Without the extension, every document is read again.

Run as ``python -I -S wellformed.py LXML_FOLDER PATH [XMLNAMES]`` (LXML_FOLDER: the folder
lxml is installed in; XMLNAMES: the file of the compiled ``_xmlnames``, if there is one):
nothing on standard output and exit 0 when ``PATH`` is well-formed; else the error as JSON
(message, line, column) and exit 1.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, cast

__all__ = ["OPTIONS", "MalformedError", "check", "check_namespaces", "checker", "names_extension", "without_position"]

#: What lxml is given at a time: more costs no less (64 KiB to 1 MiB: the same time).
_CHUNK = 1 << 16

# The options of ldids.safexml: no DTD loaded, no entity expanded, nothing fetched.
OPTIONS: dict[str, Any] = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}


class MalformedError(Exception):
    """Where and why a document is not well-formed: lxml's message, its line and column (1-based)."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column

    @classmethod
    def of(cls, error: Any) -> MalformedError:
        """The fault lxml's ``XMLSyntaxError`` says (a position it does not say is line 1,
        column 1), without the ", line N, column M" lxml ends its message with: the error
        says where already."""
        line, column = error.position if error.position else (error.lineno, 0)
        return cls(f"malformed XML: {without_position(error.msg)}", max(line, 1), max(column, 1))


def without_position(message: str) -> str:
    """lxml's message without the place it adds at its end (", line 2, column 49")."""
    end = message.rfind(", line ")
    if end >= 0 and re.fullmatch(r", line \d+, column \d+", message[end:]):
        return message[:end]
    return message


def checker() -> Any:  # lxml's parser with a custom target
    """An lxml parser that only checks what it is fed: it builds no tree, and its target has
    no start, end or data method, so libxml2 makes no Python call per element."""
    from lxml import etree

    return etree.XMLParser(target=cast("etree.ParserTarget[None]", _Nothing()), **OPTIONS)


class _Nothing:
    """An lxml parser target that keeps nothing: the parser only checks the document."""

    def close(self) -> None:
        return None


def check(source: IO[bytes]) -> None:
    """Read ``source`` (seekable) to its end: :class:`MalformedError` if it is not
    well-formed XML, or not namespace-well-formed (:func:`check_namespaces`)."""
    from lxml import etree

    parser = checker()
    try:
        while data := source.read(_CHUNK):
            parser.feed(data)
        parser.close()
    except etree.XMLSyntaxError as error:
        raise MalformedError.of(error) from None
    check_namespaces(source)


#: ``suspect(document) -> int`` of ``ldids/rdf/_xmlnames.c`` (-1: no namespace error), and
#: the file it was loaded from; None: every document is read again by the tree parser.
_suspect: Callable[[Any], int] | None = None
_names_file: str | None = None
_looked_up = False


def names_extension() -> str | None:
    """The file of the compiled ``_xmlnames`` this process uses, if any (none with
    ``LDIDS_PURE_PYTHON`` set), for the check run as a script beside the parse."""
    global _suspect, _names_file, _looked_up
    if not _looked_up:
        _looked_up = True
        try:
            from ldids.rdf import _xmlnames  # type: ignore[attr-defined,unused-ignore]
        except ImportError:  # built without a C compiler, or run as a script
            return None
        _suspect, _names_file = _xmlnames.suspect, _xmlnames.__file__
    return None if os.environ.get("LDIDS_PURE_PYTHON") else _names_file


def _load_names(path: str) -> None:
    """The compiled ``_xmlnames`` loaded from its file: the script imports no ldids module."""
    global _suspect, _names_file
    from importlib.machinery import ExtensionFileLoader
    from importlib.util import module_from_spec, spec_from_loader

    loader = ExtensionFileLoader("_xmlnames", path)
    spec = spec_from_loader("_xmlnames", loader)
    assert spec is not None
    module = module_from_spec(spec)
    loader.exec_module(module)
    _suspect, _names_file = module.suspect, path


def check_namespaces(source: IO[bytes]) -> None:
    """:class:`MalformedError` if the well-formed document ``source`` (seekable, read from its
    start) is not namespace-well-formed, as lxml's tree parser says it."""
    if names_extension() is not None and _suspect is not None:
        with _whole(source) as document:
            if document is not None and _suspect(document) < 0:
                return
    from lxml import etree

    source.seek(0)
    tree = etree.XMLPullParser(events=("end",), **OPTIONS)
    try:
        while data := source.read(_CHUNK):
            tree.feed(data)
            for _, element in tree.read_events():  # keep one element of each level at a time
                element.clear(keep_tail=True)
                parent = element.getparent()
                while parent is not None and element.getprevious() is not None:
                    del parent[0]
        tree.close()
    except etree.XMLSyntaxError as error:
        raise MalformedError.of(error) from None


@contextmanager
def _whole(source: IO[bytes]) -> Iterator[memoryview | mmap.mmap | None]:
    """All of ``source``'s bytes, without a copy: a buffer's, or a file's mapped (None: neither)."""
    if hasattr(source, "getbuffer"):
        with source.getbuffer() as view:
            yield view
        return
    try:
        mapped = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, AttributeError):
        yield None
        return
    with mapped:
        yield mapped


def main(argv: list[str]) -> int:
    global _looked_up
    sys.path.insert(0, argv[1])  # where lxml is: python -I -S has no site-packages on its path
    _looked_up = True  # the script imports no ldids module: the extension is named here, or none is
    if len(argv) > 3:
        _load_names(argv[3])
    try:
        with open(argv[2], "rb") as source:
            check(source)
    except MalformedError as fault:
        print(json.dumps({"message": fault.message, "line": fault.line, "column": fault.column}))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
