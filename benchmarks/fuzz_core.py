"""Throw N generated strings (default 100,000) at every scheme and at inspect.

The law checked: no input makes the core raise anything but ldids' own ParseError, every
problem span lies inside its input, and whatever normalizes, normalizes idempotently.
Inputs mix arbitrary Unicode (controls, surrogates, astral planes), damaged spec
examples, and random splices of identifier fragments. Exit status 1 if the law breaks.

    python benchmarks/fuzz_core.py [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

import ldids
from ldids.errors import ParseError
from ldids.schemes.registry import DEFAULT

SEEDS = [
    "demo:1",
    "demo%3a1%7e",
    "info:fedora/demo:1/DS1",
    "info:fedora/*/example:1/index?b=2&a=1#f",
    "INFO:FEDORA/demo%3A1/D%53%C3%a9",
    "oai:arXiv.org:hep-th/9901001",
    "oai:wibble.org:ab%20cd",
    "http://purl.org/poi/arXiv.org/hep-th/9901001",
    "HTTPS://PURL.ORG:443/poi/a.b/c",
    "hdl:100.102/F58FB49EB1F848f0A606E84CEF294BE5",
    "hdl://100.102/f58fb49eb1f848f0a606e84cef294be5?q#f",
    "http://hdl.handle.net/1765/9",
    "100.102/F58FB49EB1F848F0A606E84CEF294BE5",
    "hdl:1765/caf%C3%A9",
]
FRAGMENTS = [
    "info:fedora/",
    "oai:",
    "hdl:",
    "hdl://",
    "http://",
    "https://",
    "purl.org",
    "/poi/",
    "hdl.handle.net",
    ":",
    "/",
    "%",
    "%3A",
    "%3a",
    "%C3",
    "%E4%B8%AD",
    "?",
    "&",
    "=",
    "#",
    "*",
    "demo",
    "1765",
    "100.102",
    "F58FB49EB1F848F0A606E84CEF294BE5",
    "é",
    "\U0001f600",
    "\ud800",
    "\x00",
    " ",
    "\n",
    "a.b",
    "-",
    "~",
]


def arbitrary(rng: random.Random) -> str:
    length = rng.randint(0, 40)
    pools = [(0x20, 0x7E), (0, 0x1F), (0x80, 0x7FF), (0xD800, 0xDFFF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]
    out = []
    for _ in range(length):
        low, high = pools[0] if rng.random() < 0.6 else rng.choice(pools)
        out.append(chr(rng.randint(low, high)))
    return "".join(out)


def damaged(rng: random.Random) -> str:
    text = list(rng.choice(SEEDS))
    for _ in range(rng.randint(1, 3)):
        position = rng.randint(0, len(text))
        action = rng.random()
        if action < 0.4 and text:
            del text[min(position, len(text) - 1)]
        elif action < 0.8:
            text.insert(position, rng.choice([*FRAGMENTS, arbitrary(rng)[:2]]))
        elif text:
            text[min(position, len(text) - 1)] = rng.choice(FRAGMENTS)
    return "".join(text)


def spliced(rng: random.Random) -> str:
    return "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 8)))


def check_one(text: str) -> str:
    """Classify ``text``; raise AssertionError if a law breaks."""
    for name in DEFAULT.names:
        scheme = DEFAULT[name]
        problems = scheme.check(text)
        assert all(0 <= p.start <= p.end <= len(text) for p in problems), (name, problems)
        try:
            once = scheme.normalize(text)
        except ParseError as error:
            assert error.problems == tuple(problems)
            continue
        assert not problems
        assert scheme.normalize(once) == once, (name, text, once)
    result = ldids.inspect(text)
    return f"{result.scheme}:{'valid' if result.valid else 'invalid'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    generators = (arbitrary, damaged, spliced)
    outcomes: Counter[str] = Counter()
    failures = 0
    started = time.perf_counter()
    for index in range(args.count):
        text = generators[index % 3](rng)
        try:
            outcomes[check_one(text)] += 1
        except Exception as error:
            failures += 1
            if failures <= 10:
                print(f"LAW BROKEN for {text!r}: {type(error).__name__}: {error}", file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(
        f"{args.count} strings in {elapsed:.1f}s (seed {args.seed}); unexpected exceptions or broken laws: {failures}"
    )
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome:<22} {count}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
