"""What the differential fuzzers of the compiled RDF readers share (benchmarks/fuzz_rdfxml.py,
benchmarks/fuzz_turtle.py): the law's verdict and how a failure is shown, the pieces of
documents both formats hold (IRIs, language tags, words, blank node labels), byte-level
mutation, the kinds of document, the tally of a run, the shrinker and the report.

Every generator here takes the random numbers the fuzzers' own did, in the same order: the
same seed gives the same documents.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"

#: What a failing reading is kept as (the document, or the document and how it was read).
Case = TypeVar("Case")


# -- The law -------------------------------------------------------------------------------


def lines(data: bytes) -> str:
    return "\n".join(f"  {line!r}" for line in data.splitlines(keepends=True)) or "  (no lines)"


def show(document: bytes) -> str:
    return f"document ({len(document)} bytes):\n{document!r}"


def first_difference(fast: bytes, expected: bytes) -> str:
    ours, theirs = fast.splitlines(keepends=True), expected.splitlines(keepends=True)
    for number, (one, other) in enumerate(zip(ours, theirs, strict=False), 1):
        if one != other:
            return f" at line {number}:\n  fast:       {one!r}\n  pyoxigraph: {other!r}"
    return f": {len(ours)} lines against {len(theirs)}"


def rejection(parse: Callable[[], object]) -> str:
    """Why pyoxigraph rejects a document (``parse`` reads it), or "" if it does not."""
    try:
        parse()
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return ""


def verdict(document: bytes, fast: object, expected: bytes | None, why: Callable[[], str], name: str = "") -> str:
    """The outcome of the fast path's answer ``fast`` for ``document``, given pyoxigraph's
    (``expected``, None if it rejects the document): "fast-equal", "fallback" or
    "pyoxigraph-error-fallback"; AssertionError if the answer breaks the law (``why`` tells
    why pyoxigraph rejects the document, ``name`` how it was read)."""
    named = f" ({name})" if name else ""
    if fast is not None and type(fast) is not bytes:
        raise AssertionError(f"the fast path gave a {type(fast).__name__}, not bytes or None{named}\n{show(document)}")
    if fast is None:
        return "fallback" if expected is not None else "pyoxigraph-error-fallback"
    assert isinstance(fast, bytes)
    if expected is None:
        raise AssertionError(
            f"the fast path answered for a document pyoxigraph rejects{' as ' + name if name else ''} ({why()})\n"
            f"fast path:\n{lines(fast)}\n{show(document)}"
        )
    if fast != expected:
        raise AssertionError(
            f"the fast path differs from pyoxigraph{named}{first_difference(fast, expected)}\n"
            f"fast path:\n{lines(fast)}\npyoxigraph (as written):\n{lines(expected)}\n{show(document)}"
        )
    return "fast-equal"


# -- Pieces of documents -------------------------------------------------------------------

TYPE_NAMES = ("Thing", "Record", "Person", "Collection", "Item", "A", "x.y")
LABELS = ("b1", "b6168", "b19677", "node1", "n", "_a", "a.b", "a-b", "A_1", "x1y2", "genid42", "B0")
#: Language tags of the forms language[-script][-region], in the case pyoxigraph is given.
LANGUAGES = (
    "en",
    "de",
    "EN",
    "En",
    "en-US",
    "EN-us",
    "en-gb",
    "zh-Hant-TW",
    "zh-hant",
    "sr-Latn",
    "SR-LATN-RS",
    "es-419",
    "fra",
    "nl-BE",
    "pt-BR",
    "ja",
    "und",
)
WORDS = ("A title of record", "Ein Titel", "with some words in it", "demo%3a91945", "2001-01-26", "442182", "x")
HEX = "0123456789ABCDEF"


def hex_escape(rng: random.Random) -> str:
    text = "%" + rng.choice(HEX) + rng.choice(HEX)
    return text.lower() if rng.random() < 0.3 else text


def digits(rng: random.Random, low: int = 1, high: int = 7) -> str:
    return str(rng.randrange(10 ** rng.randint(low, high)))


def good_language(rng: random.Random) -> str:
    if rng.random() < 0.7:
        return rng.choice(LANGUAGES)
    language = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.choice([2, 2, 3])))
    if rng.random() < 0.3:
        language += (
            "-"
            + rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(3))
        )
    if rng.random() < 0.5:
        language += "-" + (rng.choice(["US", "gb", "Ch", "419", "001", "DE"]))
    return "".join(ch.upper() if rng.random() < 0.2 else ch for ch in language)


def label(rng: random.Random, labels: Sequence[str] = LABELS) -> str:
    return rng.choice(labels) if rng.random() < 0.3 else f"b{digits(rng)}"


#: Absolute IRIs at the edges of the grammar: empty parts, dot segments, odd ports and hosts
#: (each fuzzer adds a few of its own).
EDGE_IRIS = (
    "http://example.org",
    "http://example.org/",
    "HTTP://EXAMPLE.ORG/A",
    "x:y",
    "a+b-c.d:e",
    "http://",
    "x:",
    "http:/a",
    "http:a",
    "http://ex%41mple.org/",
    "http://u:p@h/",
    "http://a:65536/",
    "http://a:99999999999999999999/",
    "http://:80/",
    "http://@/",
    "file:///",
    "a:b:c",
    "x:////",
    "http://a/%00",
    "http://a/?#",
    "http://a/#",
    "http://a/#?/@:",
    "http://a:80@b/",
    "http://a/b/../c",
    "http://a/./b",
    "http://a.",
    "http://-a-/",
    "http://a_b/",
    "h:#",
    "h:?",
)


@dataclass(frozen=True)
class Iris:
    """What a fuzzer's good IRIs are made of, beyond the forms every dump holds."""

    #: Absolute IRIs at the edges of the grammar.
    edges: Sequence[str]
    #: Namespaces, and local names to end them with.
    namespaces: Sequence[str]
    local_names: Sequence[str]
    #: A purl.org IRI up to its number.
    poi: str


def good_iri(rng: random.Random, iris: Iris) -> str:
    """An absolute ASCII IRI of the forms the dumps hold."""
    roll = rng.randrange(16)
    if roll == 0:
        return f"http://example.org/resource/{digits(rng)}"
    if roll == 1:
        return f"hdl:{rng.choice(['1765', '100.102', '10.1000', '11858/00-1735'])}/{digits(rng)}"
    if roll == 2:
        return "hdl:100.102/" + "".join(rng.choice("0123456789abcdef") for _ in range(32))
    if roll == 3:
        pid = rng.choice(["demo:", "demo%3a", "demo%3A", "changeme:", "a:"]) + digits(rng)
        tail = rng.choice(["", "", "/DS1", "/DS%2d1", "/RELS-EXT", "/bdef:1/view?a=1&b=2"])
        return rng.choice(["info:fedora/", "INFO:FEDORA/"]) + pid + tail
    if roll == 4:
        return f"oai:{rng.choice(['example.org', 'arXiv.org', 'an.oai.org'])}:item{digits(rng)}"
    if roll == 5:
        query = "&".join(f"{rng.choice('abkq')}={digits(rng, 0, 3)}" for _ in range(rng.randint(1, 4)))
        return f"http://example.org/search?{query}"
    if roll == 6:
        return f"http://example.org/doc{digits(rng, 0, 3)}#{rng.choice(['frag', 'x', 'a-b', '', 'sec%201', 'a/b?c'])}"
    if roll == 7:
        return "http://example.org/" + "".join(
            hex_escape(rng) if rng.random() < 0.3 else rng.choice("abcxyz019-._~") for _ in range(rng.randint(1, 12))
        )
    if roll == 8:
        return f"https://user@example.com:{rng.choice(['8080', '443', '1'])}/p/a;b=c/d,e?x=y#z"
    if roll == 9:
        return f"urn:uuid:{rng.getrandbits(128):032x}"
    if roll == 10:
        return rng.choice(
            ["mailto:a@example.org", "tag:example.org,2024:x", "file:///tmp/a.txt", "urn:isbn:0451450523"]
        )
    if roll == 11:
        return f"{iris.poi}{digits(rng)}"
    if roll == 12:
        return "http://example.org/" + "".join(rng.choice("!$&'()*+,;=:@/") for _ in range(rng.randint(1, 6)))
    if roll == 13:
        return rng.choice(iris.edges)
    if roll == 14:
        return rng.choice(iris.namespaces) + rng.choice(iris.local_names)
    return f"http://hdl.handle.net/1765/{digits(rng)}"


# -- Documents -----------------------------------------------------------------------------

Maker = Callable[[random.Random], bytes]


def mutate(
    rng: random.Random,
    document: bytes,
    mutants: bytes,
    swaps: Sequence[tuple[bytes, bytes]],
    fragments: Sequence[bytes] = (),
) -> bytes:
    """``document`` with one to three byte-level changes: bytes of ``mutants`` put in, runs
    copied or taken out, one of ``swaps`` made, a bit flipped, the rest cut off; with
    ``fragments``, one of them put in too."""
    data = bytearray(document)
    for _ in range(rng.randint(1, 3)):
        if not data:
            break
        at = rng.randrange(len(data))
        roll = rng.randrange(9 if fragments else 8)
        if roll == 0:
            del data[at]
        elif roll == 1:
            data.insert(at, rng.choice(mutants))
        elif roll == 2:
            data[at] = rng.choice(mutants)
        elif roll == 3:
            end = min(len(data), at + rng.randint(1, 40))
            data[at:at] = data[at:end]
        elif roll == 4:
            del data[at : at + rng.randint(1, 40)]
        elif roll == 5:
            old, new = rng.choice(swaps)
            found = data.find(old, at)
            if found < 0:
                found = data.find(old)
            if found >= 0:
                data[found : found + len(old)] = new
        elif roll == 6:
            data[at] = data[at] ^ (1 << rng.randrange(8))
        elif roll == 7 and fragments:
            data[at:at] = rng.choice(fragments)
        else:
            del data[at:]
    return bytes(data)


def generated(
    seed: int, count: int, kinds: Sequence[tuple[str, float]], makers: Mapping[str, Maker]
) -> Iterator[tuple[str, bytes]]:
    """``count`` documents, each with its kind, drawn with the shares of ``kinds`` and made
    by ``makers``; the same ``seed`` gives the same documents."""
    rng = random.Random(seed)
    names, shares = [kind for kind, _ in kinds], [share for _, share in kinds]
    for _ in range(count):
        kind = rng.choices(names, shares)[0]
        yield kind, makers[kind](rng)


def documents(made: Iterator[tuple[str, bytes]]) -> Iterator[bytes]:
    """The documents of :func:`generated`, without their kinds."""
    for _, document in made:
        yield document


# -- Runs ----------------------------------------------------------------------------------


@dataclass
class Tally(Generic[Case]):
    outcomes: Counter[str] = field(default_factory=Counter)
    #: Outcomes by kind of document (and by format, where a document is read as several).
    by_kind: Counter[tuple[str, ...]] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    failing: list[Case] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.outcomes.values())

    def take(self, where: tuple[str, ...], case: Case, check: Callable[[], str]) -> None:
        """Count the outcome of ``check()`` (a reading of ``case``) under ``where``; keep a
        failure."""
        try:
            outcome = check()
        except AssertionError as failure:
            outcome = "DIFFERENT"
            self.failures.append(str(failure))
            self.failing.append(case)
        self.outcomes[outcome] += 1
        self.by_kind[(*where, outcome)] += 1


def shrink(document: bytes, fails: Callable[[bytes], bool], budget: int = 4000) -> bytes:
    """A smaller document that still ``fails``: ever smaller runs of bytes taken out while
    it does."""
    best = document
    tries = 0
    size = max(1, len(best) // 2)
    while size >= 1 and tries < budget:
        at = 0
        changed = False
        while at < len(best) and tries < budget:
            candidate = best[:at] + best[at + size :]
            tries += 1
            if candidate and fails(candidate):
                best, changed = candidate, True
            else:
                at += size
        if not changed:
            size //= 2
    return best


def options(description: str | None, argv: list[str] | None) -> argparse.Namespace:
    """A fuzzer's command line: --count, --seed, --stand-in, --shown."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stand-in", action="store_true", help="a fast path that always says None (the plumbing)")
    parser.add_argument("--shown", type=int, default=5, help="failures shown, each shrunk")
    return parser.parse_args(argv)


def print_outcomes(tally: Tally[Case], outcomes: Sequence[str]) -> None:
    for outcome in outcomes:
        share = tally.outcomes[outcome] / max(tally.total, 1)
        print(f"{outcome:>26} {tally.outcomes[outcome]:>9} {share:7.1%}")


def report(tally: Tally[Case], shown: int, again: Callable[[Case], object]) -> int:
    """The first ``shown`` failures, each with what it says once shrunk (``again`` shrinks
    a case and checks it anew); the exit status, 1 if anything failed."""
    for failure, case in list(zip(tally.failures, tally.failing, strict=True))[:shown]:
        print("\n" + "=" * 80 + "\n" + failure)
        try:
            again(case)
        except AssertionError as shrunk:
            print("\n-- shrunk to:\n" + str(shrunk))
    return 1 if tally.failures else 0
