"""XML from strangers, parsed without surprises (DESIGN.md §7).

No DTD is loaded, no entity is expanded, nothing is fetched; a document that declares
entities is refused outright, so a "billion laughs" file fails at once instead of
stalling. Syntax errors say where: line and column, 1-based.
"""

from __future__ import annotations

from lxml import etree

from ldids.errors import InputError

__all__ = ["parse"]


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, dtd_validation=False
    )


def parse(data: bytes, source: str | None = None) -> etree._Element:
    """The root element of ``data``; raises InputError for malformed or refused XML."""
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as error:
        line, column = error.position if error.position else (error.lineno, 0)
        raise InputError(f"malformed XML: {error.msg}", source=source, line=line, column=max(column, 1)) from error
    if root is None:
        raise InputError("empty XML document", source=source, line=1, column=1)
    info = root.getroottree().docinfo
    dtd = info.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise InputError(
            "refused: the document declares XML entities (a DTD internal subset)", source=source, line=1, column=1
        )
    if info.system_url:
        raise InputError(
            f"refused: the document names an external DTD ({info.system_url})", source=source, line=1, column=1
        )
    return root
