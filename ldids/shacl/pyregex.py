"""XPath regular expressions (``sh:pattern``, SPARQL ``REGEX`` and ``REPLACE``) as Python ``re``.

The dialect is XSD 1.0 Part 2 Appendix F with XPath's anchors (F&O 3.1 §5.6.1), which
:func:`ldids.shacl.xsd_regex.check` recognizes. Most of it means the same in Python; where it
does not, the translation says it Python's way:

- ``$`` matches at the very end only (Python's also matches before a final line break);
- ``.`` is any character but LF and CR (XSD F.1 [37a]); Python's takes CR;
- ``\\s`` is space, tab, LF and CR (XSD F.1 [37b]); Python's takes all Unicode white space,
  so ``\\S`` gets those back;
- ``&``, ``~`` and ``|`` in a class are escaped: doubled, Python may one day read them as
  set operations.

``\\i``, ``\\c``, ``\\w``, ``\\W``, ``\\p{..}``, class subtraction and the ``x`` and ``q``
flags are not translated: :class:`UntranslatableError` names them, and a caller falls back to an
engine that has them.

>>> to_python("^oai:[a-z]+$").fullmatch("oai:ab") is not None
True
>>> to_python("^a$").search("a\\n") is None
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ldids.shacl.xsd_regex import check

__all__ = ["UntranslatableError", "replacer", "to_python"]

_XSD_SPACE = " \t\n\r"
#: Where :data:`_MORE_SPACE` looks: Unicode has no white space outside the Basic
#: Multilingual Plane (tests/test_shacl_compiled.py holds it so for this Python, over all
#: of ``sys.maxunicode``); looking at the 1.1 million code points costs 40 ms a start.
_SPACE_RANGE = 0x10000


def _more_space(end: int) -> str:
    """The characters below ``end`` that Python's ``\\s`` takes and XSD's does not."""
    return "".join(re.escape(char) for char in filter(str.isspace, map(chr, range(end))) if char not in _XSD_SPACE)


_MORE_SPACE = _more_space(_SPACE_RANGE)
_OUTSIDE = {"s": "[ \\t\\n\\r]", "S": f"[\\S{_MORE_SPACE}]", "d": "\\d", "D": "\\D"}
_INSIDE = {"s": " \\t\\n\\r", "S": f"\\S{_MORE_SPACE}", "d": "\\d", "D": "\\D"}
_FLAGS = {"i": re.IGNORECASE, "s": re.DOTALL, "m": re.MULTILINE}


class UntranslatableError(ValueError):
    """A part of the XSD dialect that Python's ``re`` does not say the same way."""


@functools.lru_cache(maxsize=256)
def to_python(pattern: str, flags: str = "") -> re.Pattern[str]:
    """``pattern`` (an XSD regular expression with XPath's anchors) compiled as Python ``re``,
    matching what it matches under XPath's ``flags``.

    Raises :class:`~ldids.errors.ShapesError` for a pattern outside the dialect and
    :class:`UntranslatableError` for the parts listed in the module's description."""
    check(pattern)
    python_flags = 0
    for letter in flags:
        if letter not in _FLAGS:
            raise UntranslatableError(f"the regular expression flag {letter!r}")
        python_flags |= _FLAGS[letter]
    out: list[str] = []
    in_class = False
    at = 0
    while at < len(pattern):
        char = pattern[at]
        at += 1
        if char == "\\":
            letter = pattern[at]
            at += 1
            table = _INSIDE if in_class else _OUTSIDE
            if letter in table:
                out.append(table[letter])
            elif letter in "iIcCwWpP":
                raise UntranslatableError(f"the escape \\{letter}")
            else:
                out.append("\\" + letter)
        elif in_class:
            if char == "[":
                raise UntranslatableError("a class subtraction")
            if char == "]":
                in_class = False
            out.append("\\" + char if char in "&~|" else char)
        elif char == "[":
            in_class = True
            out.append(char)
            if pattern.startswith("^", at):  # a negated class: '^' is not the anchor
                out.append("^")
                at += 1
            if pattern.startswith("]", at):
                raise UntranslatableError("an empty class")
        elif char == "$":
            out.append("\\Z" if not python_flags & re.MULTILINE else "(?=[\\n\\r]|\\Z)")
        elif char == "." and not python_flags & re.DOTALL:
            out.append("[^\\n\\r]")
        else:
            out.append(char)
    return re.compile("".join(out), python_flags)


def replacer(template: str) -> Callable[[re.Match[str]], str]:
    """A replacement string of ``fn:replace`` (F&O 3.1 §5.6.3): ``$N`` is the Nth group (empty
    if it matched nothing), ``\\$`` and ``\\\\`` are ``$`` and ``\\``.

    >>> re.sub("(a)(b)", replacer("$2$1\\\\$"), "ab")
    'ba$'
    """
    parts: list[str | int] = []
    at = 0
    while at < len(template):
        char = template[at]
        if char == "\\" and template[at + 1 : at + 2] in ("$", "\\"):
            parts.append(template[at + 1])
            at += 2
        elif char == "$" and template[at + 1 : at + 2].isdigit():
            end = at + 2
            while end < len(template) and template[end].isdigit():
                end += 1
            parts.append(int(template[at + 1 : end]))
            at = end
        elif char in "$\\":
            raise UntranslatableError(f"a replacement with a bare {char!r} (an error in F&O 3.1 §5.6.3)")
        else:
            parts.append(char)
            at += 1

    def replace(match: re.Match[str]) -> str:
        groups = match.re.groups
        return "".join(
            part if isinstance(part, str) else (match.group(part) or "") if part <= groups else "" for part in parts
        )

    return replace
