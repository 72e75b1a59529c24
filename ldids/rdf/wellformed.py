"""Whether an XML document is well-formed, as lxml (libxml2) reads it: nothing else imported.

The check :mod:`ldids.rdf.rdfxml` makes of every byte of an RDF/XML document that
pyoxigraph parses (XML 1.0 §2.1: a document that does not match the ``document``
production, or breaks a well-formedness constraint, is not XML). It imports only the
standard library and lxml, so that :mod:`ldids.rdf.xmlcheck` can run it as a script of its
own beside the parse, in an interpreter started with neither ``site`` nor the ldids
package (``python -I -S``): a tenth of the start-up time of ``python -m``, on a core the
run's workers share.

Run as ``python -I -S wellformed.py LXML_FOLDER PATH`` (LXML_FOLDER: the folder lxml is
installed in): nothing on standard output and exit 0 when ``PATH`` is well-formed; else
the error as JSON (message, line, column) and exit 1.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any, cast

__all__ = ["OPTIONS", "MalformedError", "check", "checker"]

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
        """The fault lxml's ``XMLSyntaxError`` says (a position it does not say is line 1, column 1)."""
        line, column = error.position if error.position else (error.lineno, 0)
        return cls(f"malformed XML: {error.msg}", max(line, 1), max(column, 1))


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
    """Read ``source`` to its end: :class:`MalformedError` if it is not well-formed XML."""
    from lxml import etree

    parser = checker()
    try:
        while data := source.read(_CHUNK):
            parser.feed(data)
        parser.close()
    except etree.XMLSyntaxError as error:
        raise MalformedError.of(error) from None


def main(argv: list[str]) -> int:
    sys.path.insert(0, argv[1])  # where lxml is: python -I -S has no site-packages on its path
    try:
        with open(argv[2], "rb") as source:
            check(source)
    except MalformedError as fault:
        print(json.dumps({"message": fault.message, "line": fault.line, "column": fault.column}))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
