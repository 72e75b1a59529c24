"""The compiled per-line loop (ldids/dumps/_scan.c) against the reference loop in Python.

Both implementations of ldids.dumps.stream.process_block must give the same block result for
every input: the same output bytes, counts, bad lines (with their columns and messages),
problems and links. Tables of hand-picked lines cover the grammar's corners and every
path through the loop; Hypothesis assembles lines from grammar fragments and stray bytes.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ldids.dumps import stream, worker
from ldids.dumps.stream import BlockResult, Settings
from ldids.passes.config import ITEM_ID, Config
from ldids.schemes import handle

# The test machines have a C compiler: a missing extension there is a build failure, not
# a reason to test less (LDIDS_PURE_PYTHON only switches which loop process_block runs).
pytestmark = pytest.mark.skipif(
    not stream.COMPILED and os.environ.get("LDIDS_ALLOW_NO_EXTENSION") == "1",
    reason="ldids.dumps._scan not built (allowed by LDIDS_ALLOW_NO_EXTENSION=1)",
)

DC_IDENTIFIER = "http://purl.org/dc/elements/1.1/identifier"
LOOSE = Config(
    bare_pid_predicates=frozenset({DC_IDENTIFIER}),
    bare_handle_predicates=frozenset({"http://example.org/handle"}),
    pid_namespaces=frozenset({"demo"}),
    fedora_oai_namespaces=frozenset({"example.org"}),
)
SETTINGS = {
    "strict": Settings(Config()),
    "loose": Settings(LOOSE),
    "quads": Settings(LOOSE, quads=True),
    "skip": Settings(LOOSE, on_error="skip"),
    "crosswalk": Settings(LOOSE, crosswalk=True, on_error="skip"),
    "predicates-and-iris": Settings(
        Config(rewrite_predicates=True, literals_to_iris=True, pid_namespaces=frozenset({"demo"})),
        quads=True,
        on_error="skip",
    ),
    "tiny-memo": Settings(LOOSE, on_error="skip", identifier_cache=4, term_cache=4),
    # Needles of one and two characters: a resolver at host "x", PIDs in namespace "a".
    "short-needles": Settings(
        Config(resolvers=(handle.Resolver("x"),), pid_namespaces=frozenset({"a"})), on_error="skip"
    ),
}


def both(data: bytes, settings: Settings, first_line: int = 1) -> tuple[BlockResult, BlockResult]:
    """The block through each loop, each with a fresh worker (cold memos)."""
    assert stream.COMPILED, "ldids.dumps._scan was not built"
    compiled = stream._compiled(worker._Worker(settings), data, first_line)
    python = stream._in_python(worker._Worker(settings), data, first_line)
    return compiled, python


def assert_same(compiled: BlockResult, python: BlockResult) -> None:
    assert compiled.output == python.output
    assert (compiled.lines, compiled.written, compiled.statements, compiled.rewritten_statements) == (
        python.lines,
        python.written,
        python.statements,
        python.rewritten_statements,
    )
    assert compiled.rewritten == python.rewritten
    assert compiled.bad == python.bad
    assert (compiled.problems, compiled.problem_samples) == (python.problems, python.problem_samples)
    # The compiled loop lists a term's links once per block, the Python loop once per
    # occurrence; both are de-duplicated across blocks (ldids.dumps.sorting.SortedUnique).
    assert sorted(set(compiled.links)) == sorted(set(python.links))
    assert compiled.same_as == python.same_as
    assert compiled.crosswalk == python.crosswalk


LINES = [
    # Identifier-free statements, blank lines and comments, copied as they are.
    "<http://a> <http://b> <http://c> .",
    "<http://a><http://b><http://c>.",
    "\t<http://a>   <http://b> <http://c>\t.\t# comment",
    "",
    "   ",
    "# only a comment",
    "<http://a> <http://b> <http://c> .\r",
    '_:b0 <http://b> "x" .',
    '<http://a> <http://b> "x"@en-GB .',
    '<http://a> <http://b> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
    '<http://a> <http://b> "quote \\" tab \\t \\u00E9 \\U0001F600 \\\' \\b \\f \\n \\r \\\\" .',
    "<http://a/\\u0020x> <http://b> _:x.y .",
    '<http://a/é> <http://b> "ünïcödé 😀" .',
    "_:é·‿ <http://b> _:a-b .",
    # Blank node labels match longest first, giving back trailing dots only.
    "_:b1.<http://b> <http://c>.",
    "<http://a> <http://b> _:o. ",
    "<http://a> <http://b> _:o.. .",
    "<http://a> <http://b> _:o_:g .",
    "<http://a> <http://b> _:o._:g .",
    "_:.a <http://b> <http://c> .",
    "_:-a <http://b> <http://c> .",
    "_:0a <http://b> <http://c> .",
    "_:a\u00b7 <http://b> <http://c> .",
    "_:\u00b7a <http://b> <http://c> .",
    "_:a\u0300 <http://b> <http://c> .",
    "_:\u0300a <http://b> <http://c> .",
    "_:a\u2040 <http://b> <http://c> .",
    "_:\ufffe <http://b> <http://c> .",
    "_:\U000f0000 <http://b> <http://c> .",
    # Language tags, datatypes.
    '<http://a> <http://b> "x"@en- .',
    '<http://a> <http://b> "x"@en-1-a2b .',
    '<http://a> <http://b> "x"@1 .',
    '<http://a> <http://b> "x"@ .',
    '<http://a> <http://b> "x"^^<http://d> .',
    '<http://a> <http://b> "x"^^<http://d .',
    '<http://a> <http://b> "x"^<http://d> .',
    # Escapes, good and bad.
    "<http://a\\u00> <http://b> <http://c> .",
    "<http://a\\U0001F60> <http://b> <http://c> .",
    "<http://a\\n> <http://b> <http://c> .",
    '<http://a> <http://b> "x\\q" .',
    '<http://a> <http://b> "x\\u12G4" .',
    '<http://a> <http://b> "x\\',
    '<http://a> <http://b> "x',
    # Malformed statements.
    "<http://a> <http://b> .",
    '"x" <http://b> <http://c> .',
    "<http://a> _:p <http://c> .",
    "<http://a> <http://b> <http://c>",
    "<http://a b> <http://b> <http://c> .",
    "<http://a> <http://b> <http://c> . x",
    "<http://a> <http://b> <http://c> .\r\r",
    "<http://a> <http://b> <http://c> <http://g> <http://h> .",
    '<http://a> <http://b> <http://c> "g" .',
    "<http://a> <http://b> <http://c> <http://g> .",
    "<http://a> <http://b> <http://c> _:g .",
    "<http://a> <http://b> <http://c> _: .",
    "<a{b}> <http://b> <http://c> .",
    "<a^b> <http://b> <http://c> .",
    "<a`b> <http://b> <http://c> .",
    "<a|b> <http://b> <http://c> .",
    "<a\x7fb> <http://b> <http://c> .",
    "<a\x00b> <http://b> <http://c> .",
    ".",
    "<",
    # Identifiers in every position and form.
    "<INFO:FEDORA/demo%3a1> <http://b> <oai:a.b:c> .",
    '<http://x> <http://b> "oai:a.b:c" .',
    '<http://x> <http://b> "oai:a.b:c"^^<http://www.w3.org/2001/XMLSchema#string> .',
    '<http://x> <http://b> "oai:a.b:c"^^<http://www.w3.org/2001/XMLSchema#anyURI> .',
    '<http://x> <http://b> "oai:a.b:c"^^<http://www.w3.org/2001/XMLSchema#token> .',
    '<http://x> <http://b> "oai:a.b:c"@en .',
    "<http://x> <http://b> <https://PURL.ORG/poi/arXiv.org/hep-th/0000123> .",
    "<http://x> <http://b> <http://hdl.handle.net/1765/123> .",
    "<http://x> <http://b> <hdl:100.102/612dd272d1371c17149d439536b3216f> .",
    "<http://x> <http://b> <hdl:100.102/612DD272D1371C17149D439536B3216F> .",
    "<info:fedora/demo:1> <http://b> <info:fedora/demo:1> .",
    "<info:fedora/demo:1/DS%2d1> <http://b> <http://c> .",
    f'<http://x> <{DC_IDENTIFIER}> "demo%3a1" .',
    f'<http://x> <{DC_IDENTIFIER}> "demo:1" .',
    f'<http://x> <{DC_IDENTIFIER}> "not a pid" .',
    f'<http://x> <{DC_IDENTIFIER}> "other:1" .',
    '<http://x> <http://example.org/handle> "1765/315" .',
    '<http://x> <http://example.org/handle> "oai:a.b:c" .',
    # The bare-form predicate written with an escape is the same predicate.
    '<http://x> <http://purl.org/dc/elements/1.1/identifie\\u0072> "demo%3a1" .',
    '<http://x> <http://b> "demo%3a1" .',
    "<http://x> <http://b> <demo:1> .",
    "<http://x> <http://example.org/demo:p> <http://c> .",
    "<http://x> <oai:a.b:p> <http://c> .",
    "<http://x> <http://b> <http://c> <oai:a.b:g> .",
    "<http://x> <http://b> <http://c> <info:fedora/demo%3ag> .",
    "<oai:example.org:demo:1> <http://b> <http://purl.org/poi/example.org/demo%3A2> .",
    "<http://purl.org/poi/example.org/demo:3> <http://b> <http://c> .",
    # Invalid identifiers: reported, left alone.
    "<info:fedora/> <http://b> <http://c> .",
    "<oai:a..b:c> <http://b> <http://c> .",
    "<hdl:> <http://b> <oai:> .",
    '<http://x> <http://b> "info:fedora/*" .',
    f'<http://x> <{DC_IDENTIFIER}> "demo:" .',
    # Lines the passes see whole: owl:sameAs, identity predicates.
    "<INFO:FEDORA/demo:1> <http://www.w3.org/2002/07/owl#sameAs> <INFO:FEDORA/demo:1> .",
    "<info:fedora/demo:1> <http://www.w3.org/2002/07/owl#sameAs> <oai:a.b:c> .",
    f'<info:fedora/demo:1> <{ITEM_ID}> "oai:example.org:item1" .',
    f"<info:fedora/demo%3a1> <{ITEM_ID}> <oai:example.org:item1> .",
    # Identity statements whose terms are canonical IRIs once rewritten: the compiled
    # loop makes their links itself; the others (not identifiers, invalid, escaped,
    # literals) are Python's.
    f"<info:fedora/demo:1> <{ITEM_ID}> <http://purl.org/poi/example.org/item1> .",
    f"<INFO:FEDORA/demo:1> <{ITEM_ID}> <https://PURL.ORG/poi/example.org/item1> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <info:fedora/demo:1> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <INFO:FEDORA/demo:1> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <hdl:100.102/612dd272d1371c17149d439536b3216f> .",
    f"<hdl:1765/315> <{ITEM_ID}> <http://hdl.handle.net/1765/315> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <http://c> .",
    f"<http://c> <{ITEM_ID}> <info:fedora/demo:1> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <oai:a..b:c> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <info:fedora/demo:\\u0031> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> <info:fedora/d\u00e9mo:1> .",
    f"<info:fedora/demo:1> <{ITEM_ID}> _:b .",
    f'<info:fedora/demo:1> <{ITEM_ID}> "http://purl.org/poi/example.org/item1" .',
    # Prefixes in mixed case: the compiled loop's pair filter lets each case through.
    "<iNfO:fEdOrA/demo:1> <http://b> <OaI:a.b:c> .",
    "<http://x> <http://b> <hTTp://pURL.org/poi/a.b/c> .",
    "<http://x> <http://b> <http://HdL.HANDLE.net/1/2> .",
    "<http://x> <http://b> <hDL:1/2> .",
    "<http://x> <http://b> <http://x/1/2> .",
    "<http://x> <http://b> <http://X/1/2> .",
    '<http://x> <http://b> "a:1" .',
    '<http://x> <http://b> "a%3a1" .',
    "<http://x> <http://b> <i> .",
    "<http://x> <http://b> <a> .",
    # Look-alikes: ASCII case only (RFC 3986 §3.1).
    "<\u0131nfo:fedora/demo:1> <http://b> <oa\u0131:a.b:c> .",
    "<http\u017f://purl.org/poi/a.b/c> <http://b> <HDL:1/2> .",
]


@pytest.mark.parametrize("name", sorted(SETTINGS))
@pytest.mark.parametrize("line", LINES)
def test_each_line_alone(line: str, name: str) -> None:
    assert_same(*both(line.encode() + b"\n", SETTINGS[name], first_line=41))


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_all_lines_in_one_block(name: str) -> None:
    data = "\n".join(LINES).encode() + b"\n"
    compiled, python = both(data, SETTINGS[name])
    assert_same(compiled, python)
    if SETTINGS[name].on_error == "skip":
        assert compiled.rewritten_statements > 10
        # A line ends at CR, LF or CR LF (N-Triples §7): "... .\r\r" is a statement, then a blank line.
        lines = sum(len(re.findall(r"\r\n|\r|\n", line + "\n")) for line in LINES)
        assert compiled.lines == lines == compiled.written + len(compiled.bad)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"\n\n",
        b"<http://a> <http://b> <oai:a.b:c> .",  # no final line break
        b'<http://a> <http://b> "\xff" .\n<oai:a.b:c> <http://b> <http://c> .\n',
        b'<http://a> <http://b> "\xed\xa0\x80" .\n',  # a UTF-16 surrogate, encoded
        b'<http://a> <http://b> "\xc0\xaf" .\n',  # overlong
        b'<http://a> <http://b> "\xf4\x90\x80\x80" .\n',  # past U+10FFFF
        b'<http://a> <http://b> "\xe2\x82" .\n',  # cut short
        b"# \xff in a comment\n",
        b"<http://a> <http://b> <http://c> .\x00\n",
        b"<oai:a.b:c> <http://b> <http://c> .\r\n<oai:a.b:c> <http://b> <http://c> . # kept?\r\n",
    ],
)
def test_bytes(data: bytes) -> None:
    for settings_ in SETTINGS.values():
        assert_same(*both(data, settings_))


def test_a_bad_line_stops_the_block_in_both() -> None:
    data = b"<oai:a.b:c> <http://b> <http://c> .\n<http://a> oops\n<oai:a.b:d> <http://b> <http://c> .\n"
    compiled, python = both(data, SETTINGS["loose"], first_line=100)
    assert_same(compiled, python)
    assert [(bad.line, bad.column) for bad in compiled.bad] == [(101, 12)]
    assert compiled.output == b"<http://purl.org/poi/a.b/c> <http://b> <http://c> .\n"


def test_the_generated_dump_of_the_benchmark(tmp_path: Path) -> None:
    """A slice of benchmarks/dump.py's generated dump, with its configuration."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    try:
        import dump
    finally:
        sys.path.pop(0)
    path = tmp_path / "dump.nt"
    dump.generate(path, 5_000)
    data = path.read_bytes()
    settings_ = Settings(Config(bare_pid_predicates=frozenset({DC_IDENTIFIER})), identifier_cache=500)
    compiled, python = both(data, settings_)
    assert_same(compiled, python)
    assert compiled.rewritten_statements > 1_000


# -- Assembled lines -----------------------------------------------------------------------------

FRAGMENTS = [
    "<http://a>",
    "<oai:a.b:c>",
    "<INFO:FEDORA/demo%3a1>",
    "<info:fedora/demo:1>",
    "<http://purl.org/poi/example.org/demo:1>",
    "<hdl:1/2>",
    f"<{DC_IDENTIFIER}>",
    f"<{ITEM_ID}>",
    "<http://www.w3.org/2002/07/owl#sameAs>",
    '"oai:a.b:c"',
    '"demo%3a1"',
    '"demo:"',
    '"x"@en',
    '"x"^^<http://www.w3.org/2001/XMLSchema#string>',
    "_:b",
    "_:b.",
    "_:",
    "<a\\u0041>",
    '"\\u0041"',
    " ",
    "\t",
    ".",
    "#",
    "<",
    ">",
    '"',
    "\\",
    "@",
    "^^",
    "-",
    "é",
    "\u00b7",
    "\r",
]


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    """Mostly statements, some near misses, some noise."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        parts = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=3, max_size=4))
        return (" ".join(parts) + " .").encode()
    if kind == 1:
        return "".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=12))).encode()
    if kind == 2:
        text = draw(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n"), max_size=30))
        return text.encode("utf-8", "surrogatepass")
    return draw(st.binary(max_size=20)).replace(b"\n", b" ")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines(), min_size=1, max_size=8), st.sampled_from(sorted(SETTINGS)))
def test_assembled_lines(block: list[bytes], name: str) -> None:
    assert_same(*both(b"\n".join(block) + b"\n", SETTINGS[name]))


# -- Decisions shared by forked workers ----------------------------------------------------

shared_only = pytest.mark.skipif(
    not stream.COMPILED or not sys.platform.startswith("linux"), reason="shared decisions: compiled loop, Linux"
)


@shared_only
def test_shared_decisions_keep_every_shareable_value() -> None:
    from ldids.dumps._scan import SharedDecisions

    table = SharedDecisions(("info-fedora", "handle"), 100)
    values = {b"<a>": None, b"<b>": b"\x01<hdl:1/2>", b"<c>": (None, False, "handle")}
    assert all(table.add(key, value) for key, value in values.items())
    assert {key: table.get(key) for key in values} == values
    assert not table.add(b"<d>", (None, True, "handle", (), "x"))  # invalid: not shared
    with pytest.raises(KeyError):
        table.get(b"<d>")
    assert len(table) == 3


@shared_only
def test_a_full_table_takes_no_more_and_loses_nothing_it_took() -> None:
    from ldids.dumps._scan import SharedDecisions

    table = SharedDecisions(("handle",), 50)
    taken = [key for key in (f"<k{i}>".encode() for i in range(500)) if table.add(key, b"\x00" + key)]
    assert 50 <= len(taken) == len(table) < 500
    assert all(table.get(key) == b"\x00" + key for key in taken)


@shared_only
def test_a_table_whose_entries_fill_its_bytes_first_still_takes_what_fits() -> None:
    """Long keys fill the table's bytes before its slots: a long key is refused from then
    on, a short one that still fits is taken, and every key taken reads back."""
    from ldids.dumps._scan import SharedDecisions

    table = SharedDecisions(("handle",), 50)  # 50 * 128 bytes for entries
    long_keys = [f"<{i:04}{'x' * 600}>".encode() for i in range(40)]
    taken = [key for key in long_keys if table.add(key, b"\x00" + key)]
    assert 1 <= len(taken) < len(long_keys)
    assert not table.add(b"<" + b"y" * 900 + b">", b"\x00<y>")
    assert table.add(b"<s>", b"\x00<s>")
    assert len(table) == len(taken) + 1
    assert all(table.get(key) == b"\x00" + key for key in taken)
    assert table.get(b"<s>") == b"\x00<s>"


@shared_only
def test_processes_racing_to_fill_a_table_lose_nothing_it_took() -> None:
    from ldids.dumps._scan import SharedDecisions

    table = SharedDecisions(("handle",), 200)
    keys = [f"<k{i}{'z' * (i % 7 * 40)}>".encode() for i in range(2000)]
    children = []
    for start in (0, 1):
        pid = os.fork()
        if pid == 0:  # the two add interleaved keys until far past the table's bytes
            for key in keys[start::2]:
                table.add(key, b"\x00" + key)
            os._exit(0)
        children.append(pid)
    assert all(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 for pid in children)
    found = [key for key in keys if _shared_value(table, key) is not None]
    assert 0 < len(found) == len(table) < len(keys)
    assert all(table.get(key) == b"\x00" + key for key in found)


def _shared_value(table: Any, key: bytes) -> Any:
    try:
        return table.get(key)
    except KeyError:
        return None


@shared_only
def test_decisions_cross_between_forked_processes() -> None:
    from ldids.dumps._scan import SharedDecisions

    table = SharedDecisions(("handle",), 10_000)
    children = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:  # both children add the same keys, racing: one entry each, same value
            ok = all(table.add(f"<k{i}>".encode(), b"\x00" + str(i).encode()) for i in range(3000))
            os._exit(0 if ok else 1)
        children.append(pid)
    assert all(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 for pid in children)
    assert len(table) == 3000
    assert all(table.get(f"<k{i}>".encode()) == b"\x00" + str(i).encode() for i in range(3000))


@shared_only
def test_workers_sharing_a_table_give_the_same_block_results() -> None:
    """A block whose terms another process decided: same bytes and counts; the links went
    with the process that decided."""
    data = b"".join(line.encode() + b"\n" for line in LINES)
    settings_ = SETTINGS["skip"]
    alone = stream._compiled(worker._Worker(settings_), data, 1)
    assert alone.links
    assert alone.rewritten
    assert alone.problems
    with stream.shared_decisions(settings_) as shared:
        assert shared
        first = stream._compiled(worker._Worker(settings_), data, 1)  # decides, fills the table
        second_worker = worker._Worker(settings_)
        second = stream._compiled(second_worker, data, 1)  # finds every shareable decision
    assert (first.output, first.rewritten, first.links) == (alone.output, alone.rewritten, alone.links)
    assert (second.output, second.rewritten, second.problems) == (alone.output, alone.rewritten, alone.problems)
    # Only the links of statements the passes see whole (never remembered) come again.
    assert set(second.links) < set(alone.links)
    # Invalid ones and terms left alone only: their values are not kept in the shared table.
    assert second_worker.byte_memo is not None
    kept = [value for _, value in second_worker.byte_memo.items()]
    assert kept
    assert all(value is not None and (value[1] or len(value) == 4) for value in kept)
