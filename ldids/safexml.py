"""XML from strangers, parsed without surprises (DESIGN.md §7).

No DTD is loaded, no entity is expanded, nothing is fetched; a document that declares
entities is refused outright, so a "billion laughs" file fails at once instead of
stalling. Syntax errors say where: line and column, 1-based.
"""

from __future__ import annotations

import re

from lxml import etree

from ldids.errors import InputError, has_lone_cr, offset_of, place
from ldids.rdf.wellformed import without_position

__all__ = ["parse"]


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, dtd_validation=False
    )


_DOCTYPE = re.compile(rb"<!DOCTYPE")
_ENTITY = re.compile(rb"<!ENTITY")
_ELEMENT_START = re.compile(rb"<[A-Za-z_:]")


def _declared_entity(data: bytes) -> int | None:
    """Offset of an entity declaration in the prolog's DTD, if there is one.

    Checked before parsing so that the refusal says why; libxml2's own expansion limit
    would stop a "billion laughs" too, with a message nobody understands.
    """
    doctype = _DOCTYPE.search(data)
    if doctype is None or _ELEMENT_START.search(data, 0, doctype.start()):
        return None
    entity = _ENTITY.search(data, doctype.end())
    if entity is None or _ELEMENT_START.search(data, doctype.end(), entity.start()):
        return None  # after the root element started, "<!ENTITY" is text, not a declaration
    return entity.start()


def parse(data: bytes, source: str | None = None) -> etree._Element:
    """The root element of ``data``; raises InputError for malformed or refused XML."""
    declared = _declared_entity(data)
    if declared is not None:
        line, column = place(data, declared)
        raise InputError(
            "refused: the document declares XML entities (a DTD internal subset)",
            source=source,
            line=line,
            column=column,
        )
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as error:
        line, column = error.position if error.position else (error.lineno, 0)
        message = without_position(error.msg)
        if line and has_lone_cr(data):
            # libxml2 counts lines by LF alone: a document whose lines end at CR is one line
            # to it. Its place is told again as XML counts lines; its message's own "line N"
            # would not be, and is left out.
            line, column = place(data, offset_of(data, line, max(column, 1), lf_only=True))
            message = re.sub(r" line \d+", "", message)
        raise InputError(f"malformed XML: {message}", source=source, line=line, column=max(column, 1)) from error
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
