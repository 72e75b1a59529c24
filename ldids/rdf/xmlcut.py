"""Where an RDF/XML document can be cut into pieces that each parse on their own.

An RDF/XML document whose root is ``rdf:RDF`` is a list of node elements (RDF 1.1 XML Syntax
§7.2.9, ``nodeElementList``), and each top-level node element's statements depend on nothing
outside it but what its ancestor says: the namespaces, ``xml:base`` and ``xml:lang`` in
scope, which the root's start tag holds. A piece made of the document's head (its prolog and
the root's start tag), some whole top-level node elements and the root's end tag therefore
gives the statements the whole document gives from those elements, in the same order, with
two exceptions, which :func:`cuts` refuses:

- ``rdf:ID`` values must be unique within a document (§5.3: the same IRI must not come from
  two ``rdf:ID``); pieces parsed apart would not see one used in another piece. A document
  with an ``ID`` attribute (any prefix) is not cut;
- blank node labels are a document's own (``rdf:nodeID``): kept as written, they name the
  same node in every piece, so a caller that renames labels (several inputs) does not cut.

The cuts are found by reading the XML's markup only, at memchr speed in C
(``xml_cuts`` in ``ldids/dumps/_scan.c``); this module is its reference, which the tests hold
it equal to. Nothing here decides what is well-formed: each piece is checked by lxml where it
is parsed, and a piece ends where the markup says depth 1 only if the document is well-formed
there (a piece ``head + body + end tag`` is well-formed only if its body starts and ends at
the root's depth; XML 1.0 §2.1, ``element`` and ``content``). A document whose markup cannot
be followed (cut short, a ``<!`` that is neither a comment nor a CDATA section) gives no cuts
and is read in step, which says what is wrong with it.
"""

from __future__ import annotations

__all__ = ["cuts", "root_start"]

# XML 1.0 §2.3: S ::= (#x20 | #x9 | #xD | #xA)+
_SPACE = b" \t\r\n"


def _tag_end(data: bytes, at: int) -> tuple[int, bool]:
    """The position after the ``>`` of the tag that starts at ``at`` (skipping quoted
    attribute values), and whether one of its attributes is named ``ID`` (any prefix); -1
    if the tag does not end."""
    n = len(data)
    i = at + 1
    named_id = False
    while i < n:
        c = data[i]
        if c == 0x3E:  # >
            return i + 1, named_id
        if c in (0x22, 0x27):  # a quoted value: ' or "
            close = data.find(bytes((c,)), i + 1)
            if close < 0:
                return -1, named_id
            i = close + 1
            continue
        if c == 0x3D:  # = : the name before it (spaces allowed between, §2.3 Eq)
            j = i
            while j > at and data[j - 1] in _SPACE:
                j -= 1
            if j - 2 > at and data[j - 2 : j] == b"ID" and data[j - 3] in b" \t\r\n:":
                named_id = True
        i += 1
    return -1, named_id


# What markup steps over, each to its end: comments and processing instructions (XML 1.0
# §2.5, §2.6), and in content CDATA sections (§2.7).
_PROLOG = ((b"<!--", b"-->"), (b"<?", b"?>"))
_CONTENT = (*_PROLOG, (b"<![CDATA[", b"]]>"))


def _skipped(data: bytes, i: int, constructs: tuple[tuple[bytes, bytes], ...]) -> int | None:
    """The position after the construct that starts at ``i`` (-1: it does not end), or None
    where none of ``constructs`` starts there."""
    for opener, closer in constructs:
        if data.startswith(opener, i):
            end = data.find(closer, i + len(opener))
            return end if end < 0 else end + len(closer)
    return None


def root_start(data: bytes) -> tuple[int, bytes] | None:
    """The position after the root element's start tag and the root's name as written, or
    None: no root, an empty root (``<rdf:RDF/>``), a DOCTYPE, or markup that does not end."""
    i = 0
    n = len(data)
    while True:
        i = data.find(b"<", i)
        if i < 0 or i + 1 >= n:
            return None
        skipped = _skipped(data, i, _PROLOG)
        if skipped is not None:
            if skipped < 0:
                return None
            i = skipped
        elif data[i + 1] in b"!/":  # a DOCTYPE (its subset could declare what pieces lose), or no root
            return None
        else:
            end, _ = _tag_end(data, i)
            if end < 0 or data[end - 2] == 0x2F:  # /> : an empty root has nothing to cut
                return None
            name_end = i + 1
            while name_end < end - 1 and data[name_end] not in b" \t\r\n/>":
                name_end += 1
            return end, data[i + 1 : name_end]


def cuts(data: bytes, start: int, step: int) -> list[int] | None:
    """The positions at which the root's content (from ``start``, just after its start tag)
    is cut into pieces of about ``step`` bytes: each the first place at or after the last
    cut plus ``step`` (the first: ``start + step``) that follows the ``>`` of a tag ending
    a top-level element (an end tag back to the root's depth, or an empty element at it).
    None where the document is not to be cut: an ``ID`` attribute, a ``<!`` in content that
    is neither a comment nor a CDATA section, or markup that does not end (the root's end
    tag not reached)."""
    found: list[int] = []
    target = start + step
    depth = 1
    i = start
    while True:
        i = data.find(b"<", i)
        if i < 0:
            return None  # the root's end tag is not there: read in step, which says why
        skipped = _skipped(data, i, _CONTENT)
        if skipped is not None:
            if skipped < 0:
                return None
            i = skipped
            continue
        if data.startswith(b"<!", i):
            return None
        if data.startswith(b"</", i):
            end = data.find(b">", i + 2)
            if end < 0:
                return None
            i = end + 1
            depth -= 1
            if depth == 0:
                return found
        else:
            i, named_id = _tag_end(data, i)
            if i < 0 or named_id:
                return None
            if data[i - 2] != 0x2F:  # not empty: one level down
                depth += 1
                continue
        if depth == 1 and i >= target:
            found.append(i)
            target = i + step
