"""Differential fuzz of the streamed dump's statement grammar against pyoxigraph.

Generates N lines (default 1,000,000; seeded, deterministic): statements assembled from
valid and invalid terms (IRIs per RFC 3987 and not, relative IRIs, every escape form,
surrogates and code points past U+10FFFF, control characters, language tags per BCP 47
and not, blank node labels, literals, N-Quads graph names, comments, long lines), and
mutations of them (characters dropped, doubled, swapped or put in). Each line goes through
the streamed dump's per-line loop, compiled and in Python
(:func:`ldids.dumps.stream._compiled`, :func:`ldids.dumps.stream._in_python`), as
N-Triples and as N-Quads, and through ``pyoxigraph.parse`` (default, strict mode) alone.

The law: a line is accepted by the stream exactly when pyoxigraph accepts it as RDF 1.1
(pyoxigraph also reads RDF 1.2's triple terms and base directions, which ldids refuses);
for an accepted statement the stream writes the terms pyoxigraph reads (the output line
parsed by ldids' own term parse, :func:`ldids.dumps.grammar._parse_term`); both loops give
the same output and the same bad lines. Exit status 1 if the law breaks; the first
disagreements are printed.

    python benchmarks/fuzz_dump_grammar.py [--count N] [--seed S]

tests/test_dump_grammar_fuzz.py runs the same with a smaller count.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import pyoxigraph as ox

from ldids.dumps import stream, worker
from ldids.dumps.grammar import _parse_term, grammar
from ldids.dumps.settings import Settings
from ldids.passes.config import Config

# -- Terms ----------------------------------------------------------------------------------------

SCHEMES = ["http", "https", "urn", "mailto", "tag", "a", "A+b-c.d", "x1", "file", "ftp"]
BAD_SCHEMES = ["", "1a", "-a", "a_b", "a b", "ä", "a/b", "+a", "."]
HOSTS = [
    "example.org",
    "a.example",
    "localhost",
    "EXAMPLE.ORG",
    "127.0.0.1",
    "999.1.1.1",
    "xn--bcher-kva.example",
    "bücher.example",
    "%C3%BC.example",
    "a!$&'()*+,;=b",
    "",
    "[::1]",
    "[::]",
    "[1:2:3:4:5:6:7:8]",
    "[1:2:3:4:5:6:7::]",
    "[::ffff:1.2.3.4]",
    "[1:2:3:4:5:6:1.2.3.4]",
    "[fe80::1]",
    "[FE80:0:0:0:0:0:0:1]",
    "[v1.a]",
    "[V7.x:y!]",
    "[1::]",
    "[::2:3:4:5:6:7:8]",
    "[a:b::c:1.2.3.4]",
]
BAD_HOSTS = [
    "[vF.]",
    "[v.a]",
    "[v1.a/b]",
    "[::1%25eth0]",
    "[::ffff:01.2.3.4]",
    "[::ffff:1.2.3]",
    "[::ffff:256.1.1.1]",
    "[::1.2.3.4:1]",
    "[1.2.3.4::]",
    "[1:2:3:4:5:6:7:1.2.3.4]",
    "[1::2::3]",
    "[12345::]",
    "[1:2:3:4:5:6:7:8:9]",
    "[:1::]",
    "[1:2:3:4:5:6:7]",
    "[::1",
    "::1]",
    "[g::1]",
    "[]",
    "a[b]",
    "a b",
    "a%zz",
    "a%2",
    "a\ue000b",
    "a\\b",
    "a{b",
    "a\u00ad",
    "\ufffe",
]
USERINFOS = ["", "user", "user:pass", "a%20b", "ü", ":", "a;b=c"]
BAD_USERINFOS = ["a[b", "a%g", "a b", "\ue000"]
PORTS = ["", "80", "08080", "65536"]
BAD_PORTS = ["x", "8x0", "-1", "1:2", " "]
SEGMENTS = [
    "",
    "a",
    "path",
    "a.b",
    "..",
    ".",
    "%41%2F",
    "~user",
    "a:b",
    "a@b",
    "!$&'()*+,;=",
    "é",
    "日本",
    "\u00a0",
    "\ud7ff",
    "\uf900",
    "\ufdf0",
    "\uffef",
    "\U0001f600",
    "\U000e1000",
    "\U0001fffd",
    "\U000dfffd",
]
BAD_SEGMENTS = [
    "%zz",
    "%4",
    "%",
    "\ufdd0",
    "\ufffe",
    "\ue000",
    "\U000f0000",
    "\U0010fffd",
    "\U0001fffe",
    "\U000e0fff",
    "a b",
    "a|b",
    "a^b",
    "a`b",
    "a{b}",
    'a"b',
    "a\\b",
    "a<b",
    "a>b",
    "\x7f",
    "\x01",
    "a[b]",
    "\u0085",
    "\u200b\u00ad",
]
QUERIES = ["", "q", "a=1&b=2", "%20", "\ue000", "\U000f0000", "\U00100000", "é", "a?b/c", "[", "]"]
BAD_QUERIES = ["%g0", " ", "\ufffe", "a#b#c", "\U0010fffe"]
FRAGMENTS = ["", "f", "a/b?c", "é", "%41", "\U0001f600", "?#"[0]]
BAD_FRAGMENTS = ["\ue000", "#", "%4g", " ", "a#b"]

ESCAPES_GOOD = [
    "\\u0041",
    "\\u00E9",
    "\\u00e9",
    "\\U0001F600",
    "\\U0001f600",
    "\\u3042",
    "\\U00010000",
    "\\U0010FFFD",
    "\\u00A0",
    "\\uFFFD",
]
# Escapes that name no character, are cut short, or name one an IRI may not hold (most
# are fine in a string).
ESCAPES_BAD = [
    "\\u0020",
    "\\u003E",
    "\\u003C",
    "\\u0025",
    "\\u0000",
    "\\u007F",
    "\\u005C",
    "\\u0022",
    "\\u0023",
    "\\uD800",
    "\\uDFFF",
    "\\udbff",
    "\\U0000D800",
    "\\U00110000",
    "\\UFFFFFFFF",
    "\\U0010FFFF",
    "\\uFFFE",
    "\\uE000",
    "\\U000F0000",
    "\\u12",
    "\\u12G4",
    "\\U1234567",
    "\\u",
    "\\U",
    "\\x41",
    "\\n",
    "\\t",
    "\\\\",
    '\\"',
    "\\'",
    "\\b",
    "\\f",
    "\\r",
    "\\q",
    "\\",
]
STRING_CHARS = [
    "a",
    "plain text",
    " ",
    "\t",
    "\x00",
    "\x01",
    "\x0b",
    "\x0c",
    "\x7f",
    "\x85",
    "é",
    "\u2028",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\U0001f600",
    "\U0010ffff",
    "'",
    "#",
    ">",
    "<",
    "@en",
    "^^",
    "_:b",
]
LANGUAGES = [
    "en",
    "EN",
    "en-US",
    "en-us",
    "de-CH-1901",
    "zh-Hant-TW",
    "zh-cmn-Hans-CN",
    "sr-Latn-RS",
    "es-419",
    "sl-rozaj-biske",
    "sl-1994",
    "de-DE-u-co-phonebk",
    "en-a-bbb-x-a-ccc",
    "x-private",
    "X-a-b",
    "en-x-12345678",
    "i-klingon",
    "I-KLINGON",
    "i-default",
    "art-lojban",
    "zh-min-nan",
    "en-GB-oed",
    "sgn-BE-FR",
    "abcd",
    "abcde",
    "abcdefgh",
    "en-123",
    "en-1234",
    "en-aaa-bbb-ccc",
    "en-1994-1994",
    "qaa-Qaaa-QM-x-southern",
    "hy-Latn-IT-arevela",
    "ar-a-aaa-b-bbb-a-ccc",
    "en-x-a-b-c",
    "root",
]
BAD_LANGUAGES = [
    "abcdefghi",
    "a",
    "e",
    "en-a",
    "en-a-b",
    "en-x",
    "x",
    "en-12",
    "en-abcdefghi",
    "en-aaa-bbb-ccc-ddd",
    "en-Latn-Latn",
    "en-US-US",
    "en-US-Latn",
    "en--ltr",
    "en--rtl",
    "en--foo",
    "en-",
    "-en",
    "1en",
    "en-US-",
    "en_US",
    "de-419-DE",
    "a-DE",
    "en-u",
    "en-u-x-a",
    "i-foo",
    "zh-min-nan-x",
    "x-abcdefghi",
]
LABELS = ["b", "b0", "0", "_", "a.b", "a-b", "a_b", "é", "a\u00b7", "a\u0300", "a\u203f", "a\u2040b", "A", "\U000f0000"]
BAD_LABELS = ["\u0300a", "\ufffe", "a.", ".a", "-a", "a:b", "", "a b", "a%b", "\u00b7", "a\u00d7"]
WHITESPACE = [" ", " ", " ", "\t", "", "  ", " \t "]
NOISE = [
    "\x00",
    "\x0b",
    "\x0c",
    "\r",
    "\x85",
    "\u2028",
    "\ufeff",
    "#",
    ".",
    "<",
    ">",
    '"',
    "\\",
    "@",
    "^",
    "_",
    ":",
    "-",
    " ",
    "\t",
    "é",
    "\udc80",
    "{",
    "}",
    "~",
    "<<(",
    ")>>",
    "<<",
    ">>",
    "%",
    "[",
    "]",
    "(",
    ")",
    ",",
    ";",
    "a",
    "0",
]


def _pick(rng: random.Random, good: list[str], bad: list[str], chance: float = 0.08) -> str:
    return rng.choice(bad if rng.random() < chance else good)


def _iri_text(rng: random.Random) -> str:
    """An IRI's text (between the angle brackets), valid or not."""
    if rng.random() < 0.03:  # relative references
        return rng.choice(["a", "a/b", "/a", "//host/a", "#f", "?q", "", "../a", "./a:b", "a/b:c", "é:x"])
    parts = [_pick(rng, SCHEMES, BAD_SCHEMES, 0.03), ":"]
    if rng.random() < 0.7:
        parts.append("//")
        if rng.random() < 0.15:
            parts += [_pick(rng, USERINFOS, BAD_USERINFOS), "@"]
        parts.append(_pick(rng, HOSTS, BAD_HOSTS))
        if rng.random() < 0.15:
            parts += [":", _pick(rng, PORTS, BAD_PORTS)]
        if rng.random() < 0.7:
            parts.append("/")
    elif rng.random() < 0.3:
        parts.append("/")
    if rng.random() < 0.005:  # a long IRI (regexes that backtrack show it)
        parts.append(rng.choice(["a%20", "a/", "ab", "%41"]) * rng.randint(500, 5_000))
    segments = rng.randint(0, 4)
    parts.append(
        "/".join(_pick(rng, SEGMENTS, BAD_SEGMENTS, 0.04) if rng.random() < 0.4 else "p" for _ in range(segments))
    )
    if rng.random() < 0.2:
        parts += ["?", _pick(rng, QUERIES, BAD_QUERIES)]
    if rng.random() < 0.2:
        parts += ["#", _pick(rng, FRAGMENTS, BAD_FRAGMENTS)]
    text = "".join(parts)
    if rng.random() < 0.15:  # an escape somewhere
        at = rng.randint(0, len(text))
        text = text[:at] + _pick(rng, ESCAPES_GOOD, ESCAPES_BAD, 0.3) + text[at:]
    return text


def _iri(rng: random.Random) -> str:
    if rng.random() < 0.6:  # most of a real dump: plain and valid
        return f"<http://example.org/{rng.choice(['s', 'p', 'o', 'a/b', 'x#y', 'q?a=1'])}{rng.randint(0, 99)}>"
    return f"<{_iri_text(rng)}>"


def _blank_node(rng: random.Random) -> str:
    return "_:" + _pick(rng, LABELS, BAD_LABELS) + (rng.choice(LABELS) if rng.random() < 0.3 else "")


def _literal(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.6:
            pieces.append(rng.choice(STRING_CHARS))
        else:
            pieces.append(_pick(rng, ESCAPES_GOOD, ESCAPES_BAD, 0.2))
    if rng.random() < 0.01:  # a long line
        pieces.append("x" * rng.randint(1_000, 20_000))
    body = '"' + "".join(pieces) + '"'
    roll = rng.random()
    # White space may stand between a literal's terminals (N-Triples [6]); it seldom does.
    space = [rng.choice(WHITESPACE) if rng.random() < 0.05 else "" for _ in range(2)]
    if roll < 0.35:
        return body + space[0] + "@" + _pick(rng, LANGUAGES, BAD_LANGUAGES, 0.15)
    if roll < 0.5:
        return body + space[0] + "^^" + space[1] + _iri(rng)
    return body


def _term(rng: random.Random, position: int) -> str:
    roll = rng.random()
    if position == 1:
        return _iri(rng) if roll < 0.97 else rng.choice([_blank_node(rng), _literal(rng)])
    if position == 2 and roll < 0.4:
        return _literal(rng)
    if roll < 0.8:
        return _iri(rng)
    if roll < 0.98:
        return _blank_node(rng)
    return _literal(rng)


def _statement(rng: random.Random, quads: bool) -> str:
    if rng.random() < 0.02:
        return rng.choice(["", "   ", "\t", "# a comment", "  # é \x01", "#", "# <a> <b> <c> ."])
    count = 4 if quads and rng.random() < 0.5 else 3
    if rng.random() < 0.03:
        count = rng.choice([2, 4, 5])
    if rng.random() < 0.01:  # RDF 1.2, which pyoxigraph reads and ldids does not
        inner = f"<<( {_iri(rng)} {_iri(rng)} {_iri(rng)} )>>"
        terms = [_iri(rng), _iri(rng), inner]
    else:
        terms = [_term(rng, min(index, 3)) for index in range(count)]
    line = rng.choice(WHITESPACE)
    for term in terms:
        line += term + rng.choice(WHITESPACE)
    line += "." if rng.random() < 0.97 else rng.choice(["", "..", ";", ","])
    if rng.random() < 0.1:
        line += rng.choice(WHITESPACE) + "#" + rng.choice(STRING_CHARS)
    elif rng.random() < 0.05:
        line += rng.choice(WHITESPACE)
    return line


def _mutated(rng: random.Random, line: str) -> str:
    for _ in range(rng.randint(1, 3)):
        if not line:
            line = rng.choice(NOISE)
            continue
        at = rng.randrange(len(line))
        kind = rng.randrange(5)
        if kind == 0:
            line = line[:at] + line[at + 1 :]
        elif kind == 1:
            line = line[:at] + rng.choice(NOISE) + line[at:]
        elif kind == 2:
            line = line[:at] + line[at] + line[at:]
        elif kind == 3 and at + 1 < len(line):
            line = line[:at] + line[at + 1] + line[at] + line[at + 2 :]
        else:
            line = line[:at] + rng.choice(NOISE) + line[at + 1 :]
    return line


def generate(rng: random.Random, count: int, quads: bool) -> list[bytes]:
    """``count`` lines (without their line breaks), as bytes: a mutated line may hold a
    lone surrogate (written as the bytes that are not UTF-8) or a carriage return."""
    lines = []
    for _ in range(count):
        line = _statement(rng, quads)
        if rng.random() < 0.35:
            line = _mutated(rng, line)
        data = line.encode("utf-8", "surrogateescape" if "\udc80" in line else "surrogatepass")
        lines.append(data.replace(b"\n", b" "))
    return lines


# -- The law --------------------------------------------------------------------------------------

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def _shown(term: object) -> str:
    """A term, pyoxigraph's or rdflib's, as one comparable text (RDF 1.1 term equality)."""
    from rdflib.term import BNode, Literal, URIRef

    if isinstance(term, ox.NamedNode | URIRef):
        return f"<{term if isinstance(term, URIRef) else term.value}>"
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, BNode):
        return f"_:{term}"
    if isinstance(term, ox.Literal):
        if term.language:
            return f"{term.value!r}@{term.language.lower()}"
        return f"{term.value!r}^^{term.datatype.value}"
    if isinstance(term, Literal):
        if term.language:
            return f"{str(term)!r}@{term.language.lower()}"
        return f"{str(term)!r}^^{term.datatype or XSD_STRING}"
    if isinstance(term, ox.DefaultGraph) or term is None:
        return ""
    raise TypeError(f"not an RDF 1.1 term: {term!r}")


def reference(line: bytes, quads: bool) -> list[tuple[str, ...]] | None:
    """The statements pyoxigraph reads from one line (RDF 1.1 only), or None if it refuses it."""
    try:
        found = list(ox.parse(line + b"\n", ox.RdfFormat.N_QUADS if quads else ox.RdfFormat.N_TRIPLES))
    except SyntaxError:
        return None
    statements = []
    for quad in found:
        terms = (quad.subject, quad.predicate, quad.object, quad.graph_name)
        if any(isinstance(term, ox.Triple) for term in terms) or getattr(quad.object, "direction", None):
            return None  # RDF 1.2: ldids reads RDF 1.1
        statements.append(tuple(_shown(term) for term in terms))
    return statements


def _written(line: str) -> list[tuple[str, ...]]:
    """The statement of one output line, by ldids' own term parse."""
    match = grammar().statement.fullmatch(line)
    if match is None:
        return []  # blank or a comment
    return [tuple(_shown(None if raw is None else _parse_term(raw)) for raw in match.group(1, 2, 3, 4))]


@dataclass
class Report:
    lines: int = 0
    accepted: int = 0
    refused: int = 0
    statements: int = 0
    disagreements: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)

    def add(self, kind: str, line: bytes, detail: str = "") -> None:
        self.kinds[kind] += 1
        if len(self.disagreements) < 30:
            self.disagreements.append(f"{kind}: {line[:300]!r} {detail}")


_BREAK = re.compile(rb"\r\n|\r|\n")


def check(lines: list[bytes], quads: bool, report: Report, block: int = 2_000) -> None:
    """Every line through both loops (in blocks, each loop with a fresh worker per block)
    and through pyoxigraph; disagreements go to ``report``. A line with a carriage return in
    it is more than one line to both (N-Triples §7: EOL is CR, LF or CR LF)."""
    settings = Settings(Config(), quads=quads, on_error="skip")
    # A line with a CR of its own is more than one line; the output of one that ends with it,
    # then a skipped line, then an empty line, would read as CR LF, one line: each goes alone.
    alone = [[line] for line in lines if b"\r" in line[:-1]]
    together = [line for line in lines if b"\r" not in line[:-1]]
    for chunk in [together[start : start + block] for start in range(0, len(together), block)] + alone:
        data = b"\n".join(chunk) + b"\n"
        python = stream._in_python(worker._Worker(settings), data, 1)
        compiled = stream._compiled(worker._Worker(settings), data, 1) if stream.COMPILED else python
        if bytes(compiled.output) != bytes(python.output) or compiled.bad != python.bad:
            report.add("compiled != python", data[:300], f"{compiled.bad[:3]} {python.bad[:3]}")
        bad = {entry.line: entry for entry in python.bad}
        written = iter(_BREAK.split(bytes(python.output))[:-1])
        number = 1  # of the stream's first line for this line
        for line in chunk:
            report.lines += 1
            count = len(_BREAK.findall(line + b"\n"))
            numbers = range(number, number + count)
            number += count
            refusals = [bad[n] for n in numbers if n in bad]
            expected = reference(line, quads)
            if expected is None:
                report.refused += 1
                if not refusals:
                    report.add("accepted, pyoxigraph refuses", line)
                for _ in range(count - len(refusals)):
                    next(written)
                continue
            report.accepted += 1
            report.statements += len(expected)
            if refusals:
                report.add("refused, pyoxigraph accepts", line, f"{refusals[0].column}: {refusals[0].message}")
                for _ in range(count - len(refusals)):
                    next(written)
                continue
            found = []
            outputs = [next(written) for _ in range(count)]
            for given, out in zip(_BREAK.split(line + b"\n")[:-1], outputs, strict=True):
                # A statement with an identifier is rewritten: its terms are then the input's.
                found += _written((out if out == given else given).decode("utf-8", "surrogateescape"))
            if found != expected:
                report.add("other terms", line, f"{found} != {expected}")


def run(count: int, seed: int) -> Report:
    rng = random.Random(seed)
    report = Report()
    for quads in (False, True):
        check(generate(rng, count // 2, quads), quads, report)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.monotonic()
    report = run(args.count, args.seed)
    seconds = time.monotonic() - started
    loops = "compiled and Python loops" if stream.COMPILED else "Python loop (no compiled loop built)"
    print(
        f"{report.lines:,} lines ({report.accepted:,} accepted, {report.refused:,} refused by pyoxigraph; "
        f"{report.statements:,} statements) through the {loops} in {seconds:,.1f} s"
    )
    for kind, number in report.kinds.most_common():
        print(f"  {number:,} {kind}")
    for text in report.disagreements:
        print("   ", text)
    return 1 if report.kinds else 0


if __name__ == "__main__":
    sys.exit(main())
