"""What a statement must hold for the streamed checks to select anything from it, derived
from the checks themselves (:mod:`ldids.shacl.streamed`), so that most lines of a dump are
turned away before any is parsed.

Each group of rules of a :class:`~ldids.shacl.streamed.Plan` selects from a statement only
if its predicate is the group's constant one (if it has one), and the term at its gate
matches the group's regular expression (if it has one). From the regular expression,
:func:`needles` derives substrings that every text it matches contains: the runs of
characters it requires, in ASCII case or as written. A statement written without an
escape (``\\``) holds each of its terms' texts as they are, so a line in which no needle
occurs (and no escape) gives the group nothing; a line with an escape is looked at whole.
The compiled loop (``ldids/dumps/_scan.c``, ``select_lines``) applies it line by line, and
also passes over a statement whose terms a group has seen already in this process: that
group's results for them were given on an earlier line, and SHACL reports a result once.
A new term at a group's gate is first put to the group's test of "gives nothing"
(``_Group.nothing``: its gates and the shapes' ``sh:pattern``s, one regular expression), called
from the compiled loop on the term's text: a line is parsed only for a term that may give a
result.
"""

from __future__ import annotations

import functools
import re
import string
import sys
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from ldids.shacl.streamed import Packed, Plan, PredicateTest, Probe
from ldids.shacl.value import Term

__all__ = ["Prefilter", "needles", "prefilter"]

_parser: Any = re._parser  # type: ignore[attr-defined]
_constants: Any = re._constants  # type: ignore[attr-defined]

#: (needle, matched in any ASCII case) alternatives, one of which a text contains.
Needles = frozenset[tuple[str, bool]]


@functools.cache
def _ascii_only_folds() -> frozenset[str]:
    """The ASCII letters that, under Python's IGNORECASE, match no other-than-ASCII
    character (the Kelvin sign matches k, the long s matches s, and so on)."""
    others = "".join(chr(code) for code in range(0x80, sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF)
    found = set(re.findall("[a-z]", others, re.IGNORECASE))
    unsafe = {letter for letter in string.ascii_lowercase for char in found if re.fullmatch(letter, char, re.I)}
    return frozenset(string.ascii_lowercase) - unsafe


def _char(op: Any, value: Any, ignore_case: bool) -> tuple[str, bool] | None:
    """The character an element always matches: (character, in any ASCII case), or None."""
    if op is _constants.LITERAL:
        char = chr(value)
        if not ignore_case or not char.isalpha():
            return (char, False) if not ignore_case or char.isascii() else None
        return (char.lower(), True) if char.lower() in _ascii_only_folds() else None
    if op is _constants.IN and len(value) == 2 and all(item[0] is _constants.LITERAL for item in value):
        pair = {chr(item[1]) for item in value}
        lower = {char.lower() for char in pair}
        # [iI] is i and I; under IGNORECASE, İ and ı too (Python folds Unicode case).
        safe = not ignore_case or lower <= _ascii_only_folds()
        if len(lower) == 1 and pair == {c for x in lower for c in (x, x.upper())} and lower.pop().isascii() and safe:
            return min(pair).lower(), True
    if op is _constants.IN and len(value) == 1 and value[0][0] is _constants.LITERAL and not ignore_case:
        return chr(value[0][1]), False
    return None


def _best(choices: list[Needles]) -> Needles | None:
    # The one whose shortest needle is longest: it passes fewest lines.
    return max(choices, key=lambda found: min(len(text) for text, _ in found), default=None)


def _sequence(items: Any, ignore_case: bool) -> Needles | None:
    """Needles every match of a sequence of elements contains, or None if none are known."""
    choices: list[Needles] = []
    run: list[tuple[str, bool]] = []
    run_items: list[Any] = []

    def end_run() -> None:
        if run:
            text = "".join(char for char, _ in run)
            folded = any(fold for _, fold in run)
            choices.append(frozenset({(text.lower() if folded else text, folded)}))
            run.clear()
            run_items.clear()

    for op, value in items:
        found = _char(op, value, ignore_case)
        if found is not None:
            run.append(found)
            run_items.append((op, value))
            continue
        if op is _constants.AT:
            run_items.append((op, value))
            continue  # matches no character: the run goes on
        inner: Needles | None = None
        if op is _constants.BRANCH and run:
            # Python's parser takes the prefix its alternatives share out of them ("h(dl:|ttp)"):
            # put it back, or the needles would be "dl:" and "ttp".
            value = (value[0], [[*run_items, *branch] for branch in value[1]])
            run.clear()
            run_items.clear()
        end_run()
        if op is _constants.SUBPATTERN:
            _, add, remove, pattern = value
            case = (ignore_case or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            inner = _sequence(pattern, case)
        elif op is _constants.BRANCH:
            branches = [_sequence(branch, ignore_case) for branch in value[1]]
            if all(branch is not None for branch in branches):
                inner = frozenset().union(*branches)  # type: ignore[arg-type]
        elif op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT) and value[0] >= 1:
            inner = _sequence(value[2], ignore_case)
        elif op is _constants.ATOMIC_GROUP:
            inner = _sequence(value, ignore_case)
        if inner is not None:
            choices.append(inner)
    end_run()
    return _best(choices)


def needles(regex: re.Pattern[str]) -> Needles | None:
    """Substrings one of which every text ``regex`` finds a match in contains, each to be
    looked for in any ASCII case or as written; None if it requires none.

    >>> sorted(needles(re.compile("^([iI][nN][fF][oO]:[fF][eE][dD][oO][rR][aA]/|[hH][dD][lL]:)")))
    [('hdl:', True), ('info:fedora/', True)]
    """
    return _sequence(_parser.parse(regex.pattern, regex.flags), bool(regex.flags & re.IGNORECASE))


#: What select_lines takes of a group: (predicate, positions, with_predicate, gate, folded, exact).
GroupTable = tuple["bytes | None", bytes, bool, int, tuple[bytes, ...], tuple[bytes, ...]]


@dataclass(frozen=True)
class Prefilter:
    """The plan's groups as ``select_lines`` reads them."""

    groups: tuple[GroupTable, ...]
    #: A needle holds a character an escape other than ``\\u``/``\\U`` spells (N-Triples
    #: ECHAR): a line with any escape is looked at whole.
    any_escape: bool
    #: The tests of the predicate that rules of groups ``with_predicate`` make apart: a
    #: predicate's class (:meth:`predicate_class`) stands for it in their keys.
    tests: tuple[PredicateTest, ...]
    #: Per group, its :meth:`~ldids.shacl.streamed._Group.clean` or None: asked by
    #: ``select_lines`` of a new term at the gate.
    probes: tuple[Probe | None, ...] = ()
    #: Per group, the automata, kinds and what each rule reports with which ``select_lines``
    #: makes the group's results itself, or None (:meth:`~ldids.shacl.streamed._Group.rows`).
    made: tuple[tuple[Packed, bytes, tuple[tuple[object, ...], ...]] | None, ...] = ()

    def predicate_class(self, predicate: Term) -> tuple[bytes, bytes]:
        """(the predicate as an N-Triples IRI, what the tests say of it), for ``select_lines``."""
        return f"<{predicate.value}>".encode(), bytes(test(predicate) for test in self.tests)

    def written_class(self, written: bytes) -> bytes | None:
        """What the tests say of a predicate written as an N-Triples IRI with no escape (as
        ``select_lines`` asks of a new one: a line with a ``\\u`` is looked at whole), or None
        for a text pyoxigraph takes for no IRI (the line is then parsed, and reported)."""
        try:
            predicate = ox.NamedNode(written[1:-1].decode())
        except ValueError:
            return None
        return bytes(test(predicate) for test in self.tests)


def _split(found: Needles) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    folded = tuple(sorted(text.encode() for text, fold in found if fold))
    exact = tuple(sorted(text.encode() for text, fold in found if not fold))
    return folded, exact


def prefilter(checks: Plan) -> Prefilter:
    """What ``select_lines`` needs to pick, from a block, the lines ``checks`` must see."""
    groups: list[GroupTable] = []
    line: set[tuple[str, bool]] = set()
    # In the order of Plan.groups: select_lines gives each line's groups as their bits.
    grouped = [(None, group) for group in checks.anywhere] + [
        (predicate, group) for predicate, found in checks.by_predicate.items() for group in found
    ]
    assert [group for _, group in grouped] == checks.groups()
    for predicate, group in grouped:
        iri = None if predicate is None else f"<{predicate.value}>"
        found = None if group.regex is None else needles(group.regex)
        gate = -1 if found is None else group.gate_position
        folded, exact = _split(found or frozenset())
        groups.append(
            (
                None if iri is None else iri.encode(),
                bytes(group.positions),
                any(test is not None for _, _, test in group.rules),
                gate,
                folded,
                exact,
            )
        )
        # A line holds the group's needle or its predicate, as written (an IRI's text,
        # compared code point by code point: RDF 1.1 §3.2).
        if found is not None:
            line |= found
        elif iri is not None:
            line.add((iri, False))
    spelled = set("\t\b\n\r\f\"'\\")
    any_escape = any(spelled & set(text) for text, _ in line) or any(
        spelled & set(group[0].decode()) for group in groups if group[0] is not None
    )
    tests = tuple(test for _, group in grouped for _, _, test in group.rules if test is not None)
    # Each rule's test of the predicate: its index in a predicate's class (predicate_class).
    indexes: list[list[int]] = []
    count = 0
    for _, group in grouped:
        indexes.append([])
        for _, _, test in group.rules:
            indexes[-1].append(-1 if test is None else count)
            count += test is not None
    probes = tuple(group.probe(found) for (_, group), found in zip(grouped, indexes, strict=True))
    rows = [group.rows(found) for (_, group), found in zip(grouped, indexes, strict=True)]
    # What each rule's rows report, with the shape and the component in N-Triples (a row's
    # digest is made of them: ldids.dumps.validation._digests).
    made = tuple(
        None if found is None else (found[0], found[1], tuple((*what, what[0].n3(), what[1].n3()) for what in found[2]))
        for found in rows
    )
    return Prefilter(tuple(groups), any_escape, tests, probes, made)
