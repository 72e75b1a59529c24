"""select_lines (ldids/dumps/_scan.c) trusting the grammar, as ``normalize --validate`` checks
its own output (ldids.dumps.validation.check_output): on lines that are valid N-Triples and
N-Quads it selects what the whole grammar selects, and every line normalize writes, from
dumps with bad lines skipped, with graphs, escapes, comments and blank lines, is valid."""

from __future__ import annotations

import random

import pytest

from ldids.dumps import validation
from ldids.dumps.stream import Settings, process_block
from ldids.passes.config import Config
from ldids.shacl.prefilter import prefilter
from ldids.shacl.streamed import MEMO_LIMIT

_scan = pytest.importorskip("ldids.dumps._scan")

DC = "<http://purl.org/dc/elements/1.1/identifier>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
P = "<http://example.org/p>"
#: Valid lines whose terms a careless split would cut elsewhere: quotes and backslashes in
#: literals, language tags and datatypes (spaced or not), blank nodes with dots, graphs.
LINES = [
    f'<info:fedora/demo:1> {DC} "demo:1" .',
    f'<info:fedora/demo:1> {DC} "a \\" info:fedora/demo:2" .',
    f'<info:fedora/demo:1> {DC} "ends in a backslash \\\\" .',
    f'<info:fedora/demo:1> {DC} "\\\\\\"demo:3\\\\" .',
    f'<info:fedora/demo:1> {DC} "demo:4"@en-GB .',
    f'<info:fedora/demo:1> {DC} "demo:5" @de .',
    f'<info:fedora/demo:1> {DC} "demo:6"^^<http://www.w3.org/2001/XMLSchema#string> .',
    f'<info:fedora/demo:1> {DC} "demo:7" ^^ <http://www.w3.org/2001/XMLSchema#string>.',
    f'<info:fedora/demo:1> {DC} "info:fedora/demo:8"@en <http://example.org/g> .',
    f"_:a.b {DC} <info:fedora/demo:9> .",
    f"_:a.b {SAME_AS} _:c.d.",
    f"<info:fedora/demo:10> {SAME_AS} <info:fedora/demo%3A10> _:g1 .",
    f'<info:fedora/demo:11>\t{P}\t"x > y <info:fedora/bad>" .  # a comment "with quotes"',
    f"<info:fedora/demo:12> {P} <http://example.org/a\\u0041b> .",
    f'<info:fedora/demo:13> {DC} "\\u0022demo:13" .',
    f'<oai:arXiv.org:hep-th/9901001> {DC} "hdl:1765/315" .',
    f'<http://purl.org/poi/arXiv.org/a> {DC} "" .',
    "# a comment",
    "",
    "   ",
]


def _select(block: bytes, trusted: bool) -> tuple[int, bytes, list[int], list[int], list[object], list[object]]:
    checks = validation._shipped_plan()
    sieve = prefilter(checks)
    result: tuple[int, bytes, list[int], list[int], list[object], list[object]] = _scan.select_lines(
        block, sieve.groups, sieve.any_escape, {}, MEMO_LIMIT, {}, sieve.probes, None, trusted
    )
    return result


@pytest.mark.parametrize("line", LINES)
def test_a_valid_line_is_selected_as_the_grammar_selects_it(line: str) -> None:
    block = (line + "\n").encode()
    assert _select(block, True) == _select(block, False)


def test_the_table_in_one_block() -> None:
    block = ("\n".join(LINES * 3) + "\n").encode()
    trusted = _select(block, True)
    assert trusted == _select(block, False)
    assert trusted[0] == 3 * sum(1 for line in LINES if line.strip()[:1] not in ("", "#"))


def test_a_literal_ends_at_its_first_quote_no_backslash_escapes() -> None:
    # Cut at the escaped quote, both lines would be one key (the rest a comment), and the
    # second would not be selected.
    block = "".join(f'<info:fedora/demo:1> {DC} "demo:1\\" . #{n}" .\n' for n in "ab").encode()
    trusted = _select(block, True)
    assert trusted == _select(block, False)
    assert trusted[2] == [0, 1]


@pytest.mark.parametrize("line", [f"<info:x> {P} <b>", f'<info:x> {P} "a" "b" .', f"<info:x> {P} <b> <g> <h> ."])
def test_a_line_that_does_not_split_is_looked_at_with_the_grammar(line: str) -> None:
    # (What splits is trusted: a relative IRI would pass. normalize writes none, below.)
    block = (f'<info:fedora/demo:1> {DC} "demo:1" .\n' + line + "\n").encode()
    assert _select(block, True) == (1, (line + "\n").encode(), [1], [2**64 - 1], [], [])


def _dump(seed: int, count: int = 2000) -> bytes:
    """Lines of identifiers in every form normalize rewrites, with escapes, comments, blank
    lines, graph names, and bad lines."""
    pick = random.Random(seed)
    objects = [
        "<info:fedora/demo%3a{n}>",
        "<INFO:FEDORA/demo:{n}/DC>",
        "<info:fedora/demo:{n}/9bad>",
        "<oai:arXiv.org:demo:{n}>",
        "<https://hdl.handle.net/1765/{n}>",
        '"hdl:{n}"',
        '"demo:{n}"',
        '"demo%3A{n}"@en',
        '"info:fedora/demo:{n}"^^<http://www.w3.org/2001/XMLSchema#string>',
        '"a \\"quoted\\" demo:{n} \\\\"',
        '"\\u0064emo:{n}"',
        "<http://example.org/\\u0041{n}>",
        "_:b{n}",
    ]
    lines = []
    for n in range(count):
        subject = pick.choice([f"<info:fedora/demo:{n}>", f"<oai:arXiv.org:demo:{n}>", f"_:b{n % 50}"])
        predicate = pick.choice([DC, SAME_AS, P])
        graph = pick.choice(["", "", " <http://example.org/g>", " _:g"])
        kind = pick.random()
        if kind < 0.05:
            lines.append(pick.choice(["# a comment", "", f"{subject} {P} <relative> .", f"{subject} {P} ."]))
        else:
            lines.append(f"{subject} {predicate} {pick.choice(objects).format(n=n)}{graph} .")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("seed", range(4))
def test_every_line_normalize_writes_is_valid(seed: int) -> None:
    data = _dump(seed)
    result = process_block(data, 1, Settings(Config(), quads=True, on_error="skip"))
    assert result.bad  # the dump has bad lines, left out
    output = bytes(result.output)
    statements = [line for line in output.split(b"\n") if line.strip()[:1] not in (b"", b"#")]
    full = _select(output, False)
    assert full[0] == len(statements)  # the whole grammar accepts each
    assert _select(output, True) == full
    links = ("\n".join(result.links) + "\n").encode()
    assert result.links
    assert _select(links, True) == _select(links, False)
    assert _select(links, False)[0] == len(result.links)
