"""Where a Turtle or TriG document can be cut into pieces that each parse on their own.

A Turtle document is a list of statements (Turtle §6.5, ``turtleDoc ::= statement*``): a
triples statement depends on nothing before it but the prefixes and base IRI that
directives set, and blank node labels name the same node throughout the document (§2.6,
kept as written when it is parsed). A piece that starts after a statement, with the
directives in force there written before it, therefore gives the statements the whole
document gives from that point.

The cuts are found by following the document's tokens only where they can hide a statement's
end: comments, IRIs, strings (short and long, with escapes), language tags and the nesting
of ``[ ]``, ``( )`` and ``{ }``. A cut follows a ``.`` at nesting depth 0 that ends a line:
no name, number or blank node label ends with a dot (§6.4: ``PN_LOCAL``, ``DECIMAL``,
``BLANK_NODE_LABEL``), so there the dot is a statement's end. The compiled scanner
(``turtle_cuts`` in ``ldids/dumps/_scan.c``) is held equal to this reference by the tests.

Nothing here decides what is valid Turtle: each piece is parsed by pyoxigraph, and a piece
that parses whole ends where a statement ends in the document too, for its bytes and the
state it starts in are the document's. A document whose tokens cannot be followed here (an
IRI with white space, an RDF 1.2 ``<<``, a string that does not end) gives no cuts and is
read in step, which says what is wrong. No cut comes before a directive (``@prefix``,
``PREFIX``, ``@base``, ``BASE``, ``VERSION``, or any other ``@`` not after a string): the
pieces start in the state the last directive leaves, which the first piece ends in.

In TriG (§2: a graph block is a label and statements in braces) a cut may fall inside a graph
block: it says the block's label, with which the piece after it is opened and the piece
before it closed (:mod:`ldids.dumps.pieces`, which checks the piece before it ends in that
block's graph).
"""

from __future__ import annotations

__all__ = ["Cut", "cuts"]

# Where a word (a prefixed name, a keyword, a number, a blank node label) ends.
_DELIMITERS = frozenset(b" \t\r\n<>\"'{}[](),;#@")
_OPEN = frozenset(b"[({")
_CLOSE = frozenset(b"])}")
_DIRECTIVES = frozenset((b"prefix", b"base", b"version"))
# A language tag's characters (§6.4 LANGTAG; RDF 1.2's direction after "--").
_TAG = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _string_end(data: bytes, i: int) -> int:
    """The position after the string that starts at ``i`` (a quote), or -1 where it does not
    end (or a short string holds a line break: not Turtle, §6.4 ``STRING_LITERAL_QUOTE``)."""
    n = len(data)
    quote = data[i]
    long = data[i + 1 : i + 3] == bytes((quote, quote))
    j = i + 3 if long else i + 1
    while j < n:
        c = data[j]
        if c == 0x5C:  # \ : the next byte is escaped
            j += 2
            continue
        if c == quote:
            if not long:
                return j + 1
            if data[j : j + 3] == bytes((quote, quote, quote)):  # the first three end it (§6.4)
                return j + 3
        elif not long and c in (0x0A, 0x0D):
            return -1
        j += 1
    return -1


#: A cut: where it is, and the graph block it is in: the label's span (start == end: the
#: default graph's ``{ }``), or (-1, -1) outside any block.
Cut = tuple[int, int, int]

# The kinds of the last tokens at the top level, which tell a graph block's label (TriG §2).
_START, _END, _NAME, _GRAPH, _OTHER = range(5)


def cuts(data: bytes, step: int, trig: bool = False) -> list[Cut] | None:
    """Where the Turtle (``trig``: TriG) document ``data`` is cut into pieces of about ``step``
    bytes: each the first place at or after the last cut (or directive) plus ``step`` just
    after the line break that follows a statement's ``.`` at depth 0, with the graph block it
    is in. None where the document is not to be cut (see the module's docstring).

    In TriG a ``{`` at the top level opens a graph block, named by the IRI, prefixed name or
    blank node label just before it (after ``GRAPH``, a statement's end or the start), or by
    nothing (the default graph); any other label (``[]``, or a token that may belong to a
    directive) is not followed, and the document is not cut."""
    found: list[Cut] = []
    n = len(data)
    target = step
    depth = 0
    block = (-1, -1)  # the graph block the scan is in
    last: list[tuple[int, int, int]] = [(_START, 0, 0), (_START, 0, 0)]  # the last two top-level tokens

    def seen(kind: int, begin: int, end: int) -> None:
        if depth == 0 and block[0] < 0:
            last[0], last[1] = last[1], (kind, begin, end)

    i = 0
    while i < n:
        c = data[i]
        if c in b" \t\r\n":
            i += 1
        elif c == 0x23:  # # : a comment, to the end of its line
            end = data.find(b"\n", i)
            i = n if end < 0 else end
        elif c == 0x3C:  # < : an IRI, with no white space in it (§6.4 IRIREF)
            end = data.find(b">", i + 1)
            if end < 0 or any(space in data[i + 1 : end] for space in (b" ", b"\t", b"\n", b"\r", b"<")):
                return None
            seen(_NAME, i, end + 1)
            i = end + 1
        elif c in (0x22, 0x27):  # " or ' : a string, then a language tag if one follows
            begin = i
            i = _string_end(data, i)
            if i < 0:
                return None
            if i < n and data[i] == 0x40:  # @en, @en--ltr
                i += 1
                while i < n and data[i] in _TAG:
                    i += 1
            seen(_OTHER, begin, i)
        elif c == 0x40:  # @prefix, @base: a directive (anything else is no Turtle)
            found.clear()
            seen(_OTHER, i, i + 1)
            i += 1
            target = i + step
        elif c == 0x7B and trig and depth == 0 and block[0] < 0:  # { : a graph block
            kind, begin, end = last[1]
            if kind in (_START, _END):
                block = (i, i)  # the default graph's
            elif kind == _NAME and last[0][0] in (_START, _END, _GRAPH):
                block = (begin, end)
            else:
                return None
            i += 1
        elif c == 0x7D and depth == 0 and block[0] >= 0:  # } : the block's end
            block = (-1, -1)
            seen(_END, i, i + 1)
            i += 1
        elif c in _OPEN:
            seen(_OTHER, i, i + 1)
            depth += 1
            i += 1
        elif c in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
            seen(_OTHER, i, i + 1)
            i += 1
        elif c in b",;>":
            seen(_OTHER, i, i + 1)
            i += 1
        else:  # a word: a name, a keyword, a number, a dot
            begin = i
            while i < n and data[i] not in _DELIMITERS:
                i += 1
            word = data[begin:i].lower()
            if word in _DIRECTIVES:
                found.clear()
                seen(_OTHER, begin, i)
                target = i + step
                continue
            if data[i - 1] != 0x2E:
                seen(_GRAPH if word == b"graph" else _NAME, begin, i)
                continue
            seen(_END, begin, i)
            if depth == 0:  # a statement's end: a cut if a line ends here
                end = i + 1 if data[i : i + 2] == b"\r\n" else i
                if end < n and data[end] == 0x0A and end + 1 >= target and end + 1 < n:
                    found.append((end + 1, *block))
                    target = end + 1 + step
    return found if depth == 0 and block[0] < 0 else None
