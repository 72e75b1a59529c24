"""Python regular expressions as deterministic automata over UTF-8 bytes, for the compiled
selection (``ldids/dumps/_scan.c``) to run on a term's text without a call into Python.

The regular expressions are those :mod:`ldids.shacl.pyregex` makes of the shapes' XSD
patterns: literals, classes, groups, alternatives, counted and unbounded repeats, and the
anchors at the start and the very end (``^``, ``\\A``, ``\\Z``). A class must take every
character beyond ASCII or none of them (``[^#]``, and the ``\\S`` of the translation, do;
``\\d`` and ``\\w`` do not); flags, look-arounds and back-references are not taken either.
Anything else raises :class:`UnsupportedError`, and a caller keeps Python's ``re``.

Each expression becomes a Thompson automaton over the 256 byte values and an end marker
(:data:`END`, fed after the text): a character beyond ASCII is its UTF-8 bytes (lead byte,
continuation bytes), which is exact on valid UTF-8, the only text ``select_lines`` passes on.
Search semantics: the automaton may start at any byte, ``^`` holds only at the first, and a
match, once found, is kept (the accepting state absorbs the rest); the deterministic form is
the subset construction's, over the classes of symbols no edge tells apart, minimized.
"""

from __future__ import annotations

import array
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["END", "Automaton", "UnsupportedError", "search"]

_parser: Any = re._parser  # type: ignore[attr-defined]
_c: Any = re._constants  # type: ignore[attr-defined]

#: The symbol fed after the last byte of a text.
END = 256
_SYMBOLS = 257
_ALL_BYTES = (1 << 256) - 1
_CONTINUATION = sum(1 << byte for byte in range(0x80, 0xC0))
#: Lead bytes of UTF-8 sequences of 2, 3 and 4 bytes (RFC 3629 §4).
_LEADS = ((0xC2, 0xDF, 1), (0xE0, 0xEF, 2), (0xF0, 0xF4, 3))
#: At most this many states in a deterministic automaton: past it, Python's re is kept.
STATE_LIMIT = 20_000


class UnsupportedError(ValueError):
    """A regular expression, or a part of one, this module does not make an automaton of."""


class _Nfa:
    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.start_only: list[list[int]] = []  # epsilon edges taken at the first byte only
        self.edges: list[list[tuple[int, int]]] = []  # (symbol mask, target)

    def state(self) -> int:
        self.eps.append([])
        self.start_only.append([])
        self.edges.append([])
        return len(self.eps) - 1


@functools.cache
def _space_beyond_ascii() -> frozenset[int]:
    # Python's \s is str.isspace; Unicode has no white space beyond the Basic Multilingual
    # Plane (tests/test_shacl_compiled.py holds it so for this Python).
    return frozenset(code for code in range(0x80, 0x10000) if chr(code).isspace())


_CATEGORY_REGEX = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


@dataclass
class _Beyond:
    """The characters beyond ASCII a class takes: all but ``codes``, or only ``codes``."""

    all_but: bool
    codes: frozenset[int]

    def union(self, other: _Beyond) -> _Beyond:
        if self.all_but and other.all_but:
            return _Beyond(True, self.codes & other.codes)
        if self.all_but or other.all_but:
            every, some = (self, other) if self.all_but else (other, self)
            return _Beyond(True, every.codes - some.codes)
        return _Beyond(False, self.codes | other.codes)


def _class(items: Sequence[tuple[Any, Any]]) -> tuple[int, bool]:
    """(mask of the ASCII bytes, takes every character beyond ASCII) of a class's items."""
    negate = bool(items) and items[0][0] is _c.NEGATE
    ascii_mask, beyond = 0, _Beyond(False, frozenset())
    for op, value in items[1:] if negate else items:
        if op is _c.LITERAL:
            if value < 0x80:
                ascii_mask |= 1 << value
            else:
                beyond = beyond.union(_Beyond(False, frozenset({value})))
        elif op is _c.RANGE:
            low, high = value
            ascii_mask |= sum(1 << code for code in range(low, min(high, 0x7F) + 1))
            if high >= 0x80:
                if low <= 0x80 and high >= 0x10FFFF:
                    beyond = beyond.union(_Beyond(True, frozenset()))
                else:
                    raise UnsupportedError("a range of characters beyond ASCII")
        elif op is _c.CATEGORY:
            name = str(value)
            if name not in _CATEGORY_REGEX:
                raise UnsupportedError(f"the category {name}")
            test = re.compile(_CATEGORY_REGEX[name])
            ascii_mask |= sum(1 << code for code in range(0x80) if test.match(chr(code)))
            if name == "CATEGORY_NOT_SPACE":
                beyond = beyond.union(_Beyond(True, _space_beyond_ascii()))
            elif name == "CATEGORY_SPACE":
                beyond = beyond.union(_Beyond(False, _space_beyond_ascii()))
            else:
                raise UnsupportedError(f"the category {name} beyond ASCII")
        else:
            raise UnsupportedError(f"{op} in a class")
    if negate:
        ascii_mask ^= (1 << 0x80) - 1
        beyond = _Beyond(not beyond.all_but, beyond.codes)
    if beyond.codes:
        raise UnsupportedError("a class that takes some characters beyond ASCII")
    return ascii_mask, beyond.all_but


def _chars(nfa: _Nfa, ascii_mask: int, beyond: bool) -> tuple[int, int]:
    start, end = nfa.state(), nfa.state()
    if ascii_mask:
        nfa.edges[start].append((ascii_mask, end))
    if beyond:
        for low, high, continuations in _LEADS:
            at = nfa.state()
            nfa.edges[start].append((sum(1 << byte for byte in range(low, high + 1)), at))
            for _ in range(continuations - 1):
                following = nfa.state()
                nfa.edges[at].append((_CONTINUATION, following))
                at = following
            nfa.edges[at].append((_CONTINUATION, end))
    return start, end


def _literal(nfa: _Nfa, code: int) -> tuple[int, int]:
    start = at = nfa.state()
    for byte in chr(code).encode("utf-8"):
        following = nfa.state()
        nfa.edges[at].append((1 << byte, following))
        at = following
    return start, at


def _sequence(nfa: _Nfa, items: Sequence[tuple[Any, Any]]) -> tuple[int, int]:
    start = at = nfa.state()
    for op, value in items:
        first, last = _item(nfa, op, value)
        nfa.eps[at].append(first)
        at = last
    return start, at


def _item(nfa: _Nfa, op: Any, value: Any) -> tuple[int, int]:
    if op is _c.LITERAL:
        return _literal(nfa, value)
    if op is _c.NOT_LITERAL:
        return _chars(nfa, *_class([(_c.NEGATE, None), (_c.LITERAL, value)]))
    if op is _c.ANY:
        return _chars(nfa, ((1 << 0x80) - 1) & ~(1 << 0x0A), True)  # without DOTALL: not LF
    if op is _c.IN:
        return _chars(nfa, *_class(value))
    if op is _c.SUBPATTERN:
        _, add, remove, pattern = value
        if add or remove:
            raise UnsupportedError("flags in a group")
        return _sequence(nfa, pattern)
    if op is _c.BRANCH:
        start, end = nfa.state(), nfa.state()
        for branch in value[1]:
            first, last = _sequence(nfa, branch)
            nfa.eps[start].append(first)
            nfa.eps[last].append(end)
        return start, end
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        # Greedy or lazy, a repeat matches the same texts: a search asks only whether one does.
        low, high, pattern = value
        start = at = nfa.state()
        for _ in range(low):
            first, last = _sequence(nfa, pattern)
            nfa.eps[at].append(first)
            at = last
        end = nfa.state()
        nfa.eps[at].append(end)
        if high is _c.MAXREPEAT:
            first, last = _sequence(nfa, pattern)
            nfa.eps[at].append(first)
            nfa.eps[last].append(at)
        else:
            for _ in range(high - low):
                first, last = _sequence(nfa, pattern)
                nfa.eps[at].append(first)
                nfa.eps[last].append(end)
                at = last
        return start, end
    if op is _c.AT:
        start, end = nfa.state(), nfa.state()
        if value in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING):
            nfa.start_only[start].append(end)
        elif value is _c.AT_END_STRING:
            nfa.edges[start].append((1 << END, end))
        else:
            raise UnsupportedError(f"the anchor {value}")
        return start, end
    raise UnsupportedError(f"{op}")


@dataclass
class Automaton:
    """A deterministic automaton over bytes and :data:`END`, complete: ``table[state *
    257 + symbol]`` is the next state; it starts in state 0."""

    table: array.array[int]  # 4 bytes an entry: the largest table has some 200,000
    accepting: list[bool]

    def accepts(self, text: str) -> bool:
        state = 0
        for byte in text.encode("utf-8", "surrogatepass"):
            state = self.table[state * _SYMBOLS + byte]
        return self.accepting[self.table[state * _SYMBOLS + END]]

    def packed(self) -> tuple[bytes, bytes]:
        """(the class of each symbol, 16-bit unsigned integers; the rows of the states, 32-bit
        unsigned integers), in the machine's order, as ``select_lines`` reads them. Symbols
        that lead every state to the same state are one class (the end marker is one of its
        own): the canonical form's pattern has 145 states and 37 classes, 22 kB instead of
        149 kB, which the run's look-ups find in the processor's first cache. A state's row holds,
        per class, the offset of the next state's row (its number times the width of a row:
        a step is one look-up and one addition, no multiplication on the path from one state
        to the next), then its flags: bit 1 if it accepts, bit 2 if every symbol leads back
        to it (what it says of a text is said: the run may stop there). State 0 starts."""
        found: tuple[bytes, bytes] | None = self.__dict__.get("_packed")
        if found is None:
            found = self.__dict__["_packed"] = _packed(self)
        return found


@functools.lru_cache(maxsize=64)
def search(regex: re.Pattern[str]) -> Automaton:
    """The automaton that accepts the texts in which ``regex`` finds a match (``search``)."""
    if regex.flags & ~(re.UNICODE):
        raise UnsupportedError("flags")
    nfa = _Nfa()
    begin, final = nfa.state(), nfa.state()
    nfa.edges[begin].append((_ALL_BYTES, begin))  # a match may start anywhere
    nfa.edges[final].append((_ALL_BYTES | 1 << END, final))  # and once found, it is kept
    first, last = _sequence(nfa, _parser.parse(regex.pattern, regex.flags))
    nfa.eps[begin].append(first)
    nfa.eps[last].append(final)
    return _determinize(nfa, begin, final)


def _closure(nfa: _Nfa, states: frozenset[int] | set[int], at_start: bool) -> frozenset[int]:
    seen, stack = set(states), list(states)
    while stack:
        state = stack.pop()
        for target in nfa.eps[state] + (nfa.start_only[state] if at_start else []):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return frozenset(seen)


def _determinize(nfa: _Nfa, begin: int, final: int) -> Automaton:
    # Symbols no edge tells apart go together: a class's representative stands for all.
    masks = {mask for edges in nfa.edges for mask, _ in edges}
    classes: dict[tuple[bool, ...], list[int]] = {}
    for symbol in range(_SYMBOLS):
        classes.setdefault(tuple(bool(mask >> symbol & 1) for mask in sorted(masks)), []).append(symbol)
    start = _closure(nfa, {begin}, True)
    index = {start: 0}
    order = [start]
    table: list[int] = []
    closed: dict[int, frozenset[int]] = {}
    moves: dict[frozenset[int], frozenset[int]] = {}
    groups = list(classes.values())
    steps = [
        [tuple(target for mask, target in edges if mask >> symbols[0] & 1) for symbols in groups] for edges in nfa.edges
    ]
    for sets in order:
        row = [0] * _SYMBOLS
        for number, symbols in enumerate(groups):
            moved = frozenset(target for state in sets for target in steps[state][number])
            following = moves.get(moved)
            if following is None:
                reached: set[int] = set()
                for target in moved:
                    found = closed.get(target)
                    if found is None:
                        found = closed[target] = _closure(nfa, {target}, False)
                    reached |= found
                following = moves[moved] = frozenset(reached)
            if following not in index:
                if len(order) >= STATE_LIMIT:
                    raise UnsupportedError("too many states")
                index[following] = len(order)
                order.append(following)
            for each in symbols:
                row[each] = index[following]
        table += row
    return _minimal(Automaton(array.array("I", table), [final in sets for sets in order]))


def _minimal(automaton: Automaton) -> Automaton:
    """The automaton with the fewest states that accepts the same texts: states no text tells
    apart are one (Moore's refinement: first by whether a state accepts, then by the blocks
    the symbols lead to, until no block splits). The subset construction's states are many
    more than the language needs (the canonical form's pattern: 749, against 145 when
    minimal), and a run's look-ups stay in the processor's fastest cache only while the
    tables are small (``select_lines`` runs them on most terms of a dump)."""
    table, accepting = automaton.table, automaton.accepting
    states = range(len(accepting))
    # One symbol of each column: symbols that lead every state to the same state are alike.
    columns = {tuple(table[state * _SYMBOLS + symbol] for state in states) for symbol in range(_SYMBOLS)}
    targets = [list(column) for column in columns]
    block = [int(accepts) for accepts in accepting]
    count = len(set(block))
    while True:
        signatures: dict[tuple[int, ...], int] = {}
        keys = zip(block, *([block[target] for target in column] for column in targets), strict=True)
        block = [signatures.setdefault(key, len(signatures)) for key in keys]
        if len(signatures) == count:
            break
        count = len(signatures)
    # Numbered by each block's first state: state 0 (the start) stays 0.
    number: dict[int, int] = {}
    first: list[int] = []
    for state in states:
        if block[state] not in number:
            number[block[state]] = len(first)
            first.append(state)
    rows = array.array("I")
    for state in first:
        rows.extend(number[block[target]] for target in table[state * _SYMBOLS : (state + 1) * _SYMBOLS])
    return Automaton(rows, [accepting[state] for state in first])


def _packed(automaton: Automaton) -> tuple[bytes, bytes]:
    table, states = automaton.table, len(automaton.accepting)
    columns: dict[tuple[int, ...], int] = {}
    classes = array.array("H", (0,) * _SYMBOLS)
    for symbol in range(END):
        column = tuple(table[state * _SYMBOLS + symbol] for state in range(states))
        classes[symbol] = columns.setdefault(column, len(columns))
    # The end marker is a class of its own, the last: the flags are the column after it.
    classes[END] = len(columns)
    representative = [0] * (len(columns) + 1)
    for symbol in reversed(range(_SYMBOLS)):
        representative[classes[symbol]] = symbol
    width = len(representative) + 1
    rows = array.array("I")
    for state in range(states):
        row = table[state * _SYMBOLS : (state + 1) * _SYMBOLS]
        rows.extend(row[symbol] * width for symbol in representative)
        rows.append(automaton.accepting[state] | 2 * all(target == state for target in row))
    return classes.tobytes(), rows.tobytes()
