"""The automata of ldids.shacl.dfa accept exactly the texts Python's re finds a match in:
the shapes' own regular expressions (as ldids.shacl.pyregex makes them) on texts drawn from
them and edited, and a table of the constructs, including what is refused."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldids.resources import shapes_graph
from ldids.shacl.dfa import END, UnsupportedError, search
from ldids.shacl.pyregex import to_python
from ldids.shacl.streamed import plan
from ldids.shacl.value import pattern_of

#: The gates and patterns the shipped shapes' automata are made of.
SHAPES = sorted(
    {
        regex
        for group in plan(shapes_graph()).anywhere
        for find, _, shape, _ in group.direct
        for regex in (find.__self__, *(pattern_of(check) for _, check in shape.checks))  # type: ignore[attr-defined]
        if regex is not None
    },
    key=lambda regex: regex.pattern,
)


def test_the_shipped_groups_have_automata() -> None:
    groups = [group for group in plan(shapes_graph()).anywhere if group.direct and group.packed() is not None]
    assert len(groups) == 2
    assert len(SHAPES) >= 10


def _edits(text: str) -> st.SearchStrategy[str]:
    return st.integers(0, len(text)).flatmap(
        lambda at: st.sampled_from(
            [
                text,
                text[:at],
                text[at:],
                text.upper(),
                text + "\n",
                text + "#é",
                text[:at] + "€" + text[at:],
                text[:at] + "\x7f\x00" + text[at:],
                "",
            ]
        )
    )


@pytest.mark.parametrize("regex", SHAPES, ids=lambda regex: regex.pattern[:40])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_shape_automata_agree_with_re(regex: re.Pattern[str], data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(SHAPES))
    text = data.draw(st.one_of(st.from_regex(source), st.from_regex(regex), st.text()).flatmap(_edits))
    assert search(regex).accepts(text) == (regex.search(text) is not None), text


@pytest.mark.parametrize(
    ("pattern", "texts"),
    [
        ("^ab$", ["ab", "abc", "xab", "", "ab\n"]),
        ("ab", ["xxabyy", "a", "b a b"]),
        ("^(a|bc)+$", ["abca", "abcb", "", "bcbc"]),
        ("^a{2,3}$", ["a", "aa", "aaa", "aaaa"]),
        ("^a{2,}b?$", ["aa", "aaaaab", "ab", "aabb"]),
        ("^[^#]{1,3}$", ["é", "éé€", "éé€😀", "#", "a#"]),
        ("^[\\S]+$", ["a\u00a0", "abc", "a b", "\u2028"]),
        ("^.x$", ["\nx", "éx", "\rx"]),
        ("^[A-Za-z0-9.-]+%3[aA]", ["demo%3a1", "demo%3A", "de mo%3a"]),
        ("^é+$", ["é", "éé", "e", "ée"]),
        ("^a*?b\\Z", ["aab", "b", "ba"]),  # lazy: no XSD, though Python's re has it
    ],
)
def test_constructs(pattern: str, texts: list[str]) -> None:
    regex = re.compile(pattern) if "?b" in pattern else to_python(pattern)
    for text in texts:
        assert search(regex).accepts(text) == (regex.search(text) is not None), (pattern, text)


@pytest.mark.parametrize(
    "pattern",
    [
        "\\d",  # Unicode digits beyond ASCII
        "[\u00e9-\u00ff]",  # a range of some characters beyond ASCII
        "[^\u00e9]",  # all characters beyond ASCII but one
        "(a)\\1",  # a back-reference
        "a(?=b)",  # a look-ahead
        "(?i:a)",  # flags
        "\\bword",  # a word boundary
    ],
)
def test_what_has_no_automaton_says_so(pattern: str) -> None:
    with pytest.raises(UnsupportedError):
        search(re.compile(pattern))


@pytest.mark.parametrize("regex", SHAPES, ids=lambda regex: regex.pattern[:40])
def test_packed_tables_are_the_automaton(regex: re.Pattern[str]) -> None:
    """The rows select_lines reads, per state and class of symbols, give every state's next
    state on every symbol as the whole table does, as the offset of its row; the end marker
    is the last class, and the flags after it say accepting and absorbing."""
    automaton = search(regex)
    classes, table = (memoryview(part) for part in automaton.packed())
    of, rows = classes.cast("H"), table.cast("I")
    width = of[256] + 2
    assert max(of[:256]) < of[256] < 256
    assert len(rows) == width * len(automaton.accepting)
    for state in range(len(automaton.accepting)):
        row = [automaton.table[state * 257 + symbol] for symbol in range(257)]
        assert [rows[state * width + of[symbol]] for symbol in range(257)] == [target * width for target in row]
        assert rows[state * width + width - 1] == automaton.accepting[state] | 2 * (set(row) == {state})


@pytest.mark.parametrize("regex", SHAPES, ids=lambda regex: regex.pattern[:40])
def test_the_automata_are_minimal(regex: re.Pattern[str]) -> None:
    """No two states accept the same texts (Moore's refinement left none to merge), told by
    the pairs a symbol leads to pairs already told apart, from those one of which accepts
    the end marker: the number of states is the least for the language."""
    automaton = search(regex)
    table, states = automaton.table, range(len(automaton.accepting))
    ends = [automaton.accepting[table[state * 257 + END]] for state in states]
    apart = {(p, q) for p in states for q in states if ends[p] != ends[q]}
    while True:
        more = {
            (p, q)
            for p in states
            for q in states
            if (p, q) not in apart
            and any((table[p * 257 + symbol], table[q * 257 + symbol]) in apart for symbol in range(256))
        }
        if not more:
            break
        apart |= more
    assert all((p, q) in apart for p in states for q in states if p != q)
