"""Hold the compiled canonicalizers (ldids/schemes/_canonical.c) to the Python reference on
N generated terms (default 10,000,000), on every core.

Each term is offered to the compiled canonicalizer of every prefixed default scheme. The
law: its answer is None ("ask Python"), or a str equal to what the scheme's Python code
gives (``Scheme.canonical`` without the compiled path, and the full scan); where Python
raises ParseError, the answer is None. Terms are valid, borderline and invalid forms of
every scheme: prefixes in any case, escapes in both hex cases and broken ones,
datastreams, methods, parameters and fragments, CORDRA GUIDs in either case, resolver
URLs with ports, Unicode, controls, very long texts, and truncations and one-character
mutations of all of these. tests/test_canonical_compiled.py runs a few hundred thousand
of them; exit status 1 if the law breaks.

    python benchmarks/fuzz_canonical.py [--count N] [--seed S] [--workers N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import string
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ldids.errors import ParseError
from ldids.schemes.registry import DEFAULT
from ldids.schemes.scheme import Scheme

#: The schemes that have a compiled canonicalizer.
COMPILED = ("info-fedora", "oai", "poi", "handle")

# -- Pieces ---------------------------------------------------------------------------------

HEX = "0123456789abcdef"
#: Characters a mutation puts in: delimiters, escape parts, look-alikes and non-ASCII.
MUTANTS = (
    string.ascii_letters
    + string.digits
    + "%%%::://///???###&&==..--__~~*@!$'()+,;[]<>\"{}|\\^` \t\n\x00\x7f"
    + "\x85\xa0é\u0130\u212a\u0663\uff10\ud800\ufffe\U0001f600"
)
UNICODE_POOLS = ((0x20, 0x7E), (0, 0x1F), (0x80, 0x7FF), (0xD800, 0xDFFF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF))


def flip_case(rng: random.Random, text: str) -> str:
    """``text`` as written, in lower, in upper or in mixed case."""
    roll = rng.random()
    if roll < 0.45:
        return text
    if roll < 0.6:
        return text.lower()
    if roll < 0.75:
        return text.upper()
    return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in text)


def escape(rng: random.Random, octet: int) -> str:
    """``%HH`` in upper, lower or mixed hex."""
    return flip_case(rng, f"%{octet:02X}")


def broken_escape(rng: random.Random) -> str:
    return rng.choice(["%", "%4", "%zz", "%g1", "%%", "%2", "% 2", "%-1", "%\u0663\u0663"])


def run_of(rng: random.Random, alphabet: str, low: int, high: int, escapes: float = 0.15) -> str:
    """Characters of ``alphabet``, some escaped (of any octet), now and then a broken escape."""
    out = []
    for _ in range(rng.randint(low, high)):
        roll = rng.random()
        if roll < escapes:
            out.append(escape(rng, rng.choice([rng.randrange(256), ord(rng.choice(alphabet or "a"))])))
        elif roll < escapes + 0.01:
            out.append(broken_escape(rng))
        elif roll < escapes + 0.02:
            out.append(rng.choice(MUTANTS))
        else:
            out.append(rng.choice(alphabet))
    return "".join(out)


PID_NAMESPACE = string.ascii_letters + string.digits + "-."
PID_OBJECT = string.ascii_letters + string.digits + "-.~_"
NAME_START = string.ascii_letters + "_"
NAME = string.ascii_letters + string.digits + "-._"
PCHAR = string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@"
URIC = string.ascii_letters + string.digits + ";/?:@&=+$,-_.!~*'()"


def pid(rng: random.Random) -> str:
    namespace = rng.choice(["demo", "changeme", "a", "uuid", "x-y.z", "A1", "", "ns"]) if rng.random() < 0.6 else ""
    namespace = namespace or run_of(rng, PID_NAMESPACE, 0, 12, escapes=0.02)
    separator = rng.choice([":", ":", ":", "%3A", "%3a", "%3A", "", "::", "%3"])
    if rng.random() < 0.5:
        local = str(rng.randrange(10 ** rng.randint(1, 7)))
    else:
        local = run_of(rng, PID_OBJECT, 0, rng.choice([6, 20, 66]))
    return namespace + separator + local


def name(rng: random.Random) -> str:
    """A datastream id or method name: mostly NCNames, some escaped, some not names."""
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(["DS1", "DC", "RELS-EXT", "view", "getItem", "_x", "a.b", "TN", "MODS", "DS-1"])
    if roll < 0.55:
        known = rng.choice(["DS", "RELS", "x", "_"])
        return known + "".join(escape(rng, ord(rng.choice(NAME + ":~ /"))) for _ in range(rng.randint(1, 3)))
    if roll < 0.6:
        return rng.choice(["D%C3%A9", "%C3%A9t%C3%A9", "caf%C3%a9", "%E2%82%AC", "%FF", "x%80"])
    return rng.choice(NAME_START + "1-.") + run_of(rng, NAME, 0, 10, escapes=0.1)


def parameters(rng: random.Random) -> str:
    chunks = []
    for _ in range(rng.randint(0, 4)):
        key = rng.choice(["a", "b", "x", "A", "a%41", "%61", "", "x~", "id"]) if rng.random() < 0.6 else ""
        key = key or run_of(rng, PCHAR.replace("&", "").replace("=", "") + "/?", 0, 5)
        roll = rng.random()
        if roll < 0.2:
            chunks.append(key)
        else:
            chunks.append(key + "=" + run_of(rng, PCHAR.replace("&", "") + "/?", 0, 5))
    if chunks and rng.random() < 0.2:
        chunks.append(rng.choice(chunks))  # a parameter twice
    rng.shuffle(chunks)
    return "&".join(chunks)


def tail(rng: random.Random) -> str:
    """A query and/or fragment, mostly of ASCII iquery/ifragment characters."""
    out = ""
    if rng.random() < 0.3:
        out += "?" + run_of(rng, PCHAR + "/?", 0, 8)
    if rng.random() < 0.3:
        out += "#" + run_of(rng, PCHAR + "/?", 0, 8)
    return out


def info_fedora(rng: random.Random) -> str:
    text = flip_case(rng, "info:fedora/") if rng.random() < 0.97 else rng.choice(["info:fedora", "info/fedora/"])
    text += "*" if rng.random() < 0.1 else pid(rng)
    roll = rng.random()
    if roll < 0.3:
        text += "/" + name(rng)
    elif roll < 0.55:
        text += "/" + pid(rng) + "/" + name(rng)
        if rng.random() < 0.5:
            text += "?" + parameters(rng)
    elif roll < 0.6:
        text += "/" + name(rng) + "/" + name(rng) + ("/x" if rng.random() < 0.5 else "")
    elif roll < 0.63:
        text += "?" + parameters(rng)
    if rng.random() < 0.2:
        fragments = ["hasModel", "", "a#b", "x%2", "f/g?h", "%41", "é", run_of(rng, PCHAR + "/?", 0, 6)]
        text += "#" + rng.choice(fragments)
    return text


def domain(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(["arXiv.org", "example.org", "an.oai.org", "a.b", "xtcat.oclc.org", "bath.ac.uk"])
    labels = [
        rng.choice(string.ascii_letters + "1-") + run_of(rng, string.ascii_letters + string.digits + "-", 0, 6, 0)
        for _ in range(rng.randint(1, 4))
    ]
    if rng.random() < 0.1:
        labels.insert(rng.randrange(len(labels) + 1), "")
    return ".".join(labels)


def local(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(["hep-th/9901001", "item5", "OCLCNo/ocm41020136", "ab%20cd", "a:b:c", "lisap%202003"])
    return run_of(rng, URIC, 0, 16)


def oai(rng: random.Random) -> str:
    scheme = "oai:" if rng.random() < 0.85 else flip_case(rng, "oai:")
    return scheme + domain(rng) + rng.choice([":", ":", ":", ":", "/", ""]) + local(rng)


def http(rng: random.Random, host: str, ports: tuple[str, ...]) -> str:
    port = rng.choice(ports) if rng.random() < 0.3 else ""
    return flip_case(rng, rng.choice(["http", "https"])) + "://" + flip_case(rng, host) + port


PORTS = (":", ":80", ":443", ":0080", ":00443", ":8080", ":0", ":8O", ":\u0668\u0660")


def poi(rng: random.Random) -> str:
    host = "purl.org" if rng.random() < 0.95 else rng.choice(["purl.org.", "purl.com", "purl"])
    path = "/poi/" if rng.random() < 0.95 else rng.choice(["/POI/", "/poi", "//poi/"])
    return http(rng, host, PORTS) + path + domain(rng) + rng.choice(["/", "/", "/", ":"]) + local(rng)


def guid(rng: random.Random) -> str:
    digits = "".join(rng.choice(HEX) for _ in range(32))
    roll = rng.random()
    if roll < 0.1:
        return digits[: rng.choice([31, 30])] + rng.choice(["", "g"])
    if roll < 0.15:
        return digits + rng.choice(HEX)
    return flip_case(rng, digits)


def handle(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        prefix = flip_case(rng, "hdl:")
    elif roll < 0.5:
        prefix = flip_case(rng, "hdl://")
    elif roll < 0.9:
        host = "hdl.handle.net" if rng.random() < 0.9 else rng.choice(["u@hdl.handle.net", "handle.net", "x.org"])
        prefix = http(rng, host, PORTS) + "/"
    elif roll < 0.95:
        prefix = ""  # a bare handle: never compiled
    else:
        prefix = rng.choice(["urn:", "hdl", "HDL:/", "http:/hdl.handle.net/"])
    naming_authority = rng.choice(["100.102", "1765", "10.1000", "0.NA", "2000.01", "20.500.12345", "1.", ".1"])
    if rng.random() < 0.15:
        naming_authority = run_of(rng, PCHAR, 0, 6)
    if rng.random() < 0.4:
        name_part = guid(rng)
    elif rng.random() < 0.5:
        name_part = str(rng.randrange(10**6))
    else:
        name_part = run_of(rng, PCHAR + "/", 0, 12)
    return prefix + naming_authority + rng.choice(["/", "/", "/", "/", "%2F", ""]) + name_part + tail(rng)


def arbitrary(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(0, 40)):
        low, high = UNICODE_POOLS[0] if rng.random() < 0.6 else rng.choice(UNICODE_POOLS)
        out.append(chr(rng.randint(low, high)))
    text = "".join(out)
    # Most arbitrary texts start like an identifier, so that they reach past the prefix.
    if rng.random() < 0.7:
        starts = ["info:fedora/", "oai:a.b:", "http://purl.org/poi/a.b/", "hdl:1/", "https://hdl.handle.net/"]
        text = rng.choice(starts) + text
    return text


def long(rng: random.Random, make: Callable[[random.Random], str]) -> str:
    """A text of about 1,000 to 1,100 characters: around the compiled path's length limit."""
    text = make(rng)
    filler = rng.choice(["a", "0", "%41", "x-", "%C3%A9", "/b"])
    while len(text) < rng.randint(1000, 1100):
        text += filler
    return text


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "info-fedora": info_fedora,
    "oai": oai,
    "poi": poi,
    "handle": handle,
}


def mutated(rng: random.Random, text: str) -> str:
    """``text`` truncated, or with one character deleted, inserted or replaced."""
    if not text:
        return rng.choice(MUTANTS)
    position = rng.randrange(len(text) + 1)
    roll = rng.random()
    if roll < 0.25:
        return text[:position]
    if roll < 0.5:
        return text[:position] + text[position + 1 :]
    if roll < 0.75:
        return text[:position] + rng.choice(MUTANTS) + text[position:]
    return text[:position] + rng.choice(MUTANTS) + text[position + 1 :]


def terms(seed: int, count: int) -> Iterator[tuple[str, str]]:
    """``count`` (scheme, text) pairs: a text written for that scheme (or none: "")."""
    rng = random.Random(seed)
    names = tuple(GENERATORS)
    for index in range(count):
        scheme = names[index % len(names)]
        make = GENERATORS[scheme]
        roll = rng.random()
        if roll < 0.6:
            yield scheme, make(rng)
        elif roll < 0.9:
            yield scheme, mutated(rng, make(rng))
        elif roll < 0.95:
            yield scheme, long(rng, make)
        else:
            yield "", arbitrary(rng)


# -- The law ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What a run of terms found."""

    terms: int = 0
    #: Per scheme: its own terms, those valid for Python, and those the compiled path answered.
    written: Counter[str] = field(default_factory=Counter)
    valid: Counter[str] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.terms += other.terms
        self.written.update(other.written)
        self.valid.update(other.valid)
        self.answered.update(other.answered)
        self.failures += other.failures


def pairs() -> list[tuple[str, Scheme[Any], Scheme[Any]]]:
    """(name, scheme, its Python reference) of each compiled scheme."""
    return [(name, DEFAULT[name], DEFAULT[name].reference()) for name in COMPILED]


def python_canonical(reference: Scheme[Any], text: str) -> str | None:
    try:
        return reference.canonical(text)
    except ParseError:
        return None


def check(text: str, written_for: str, schemes: list[tuple[str, Scheme[Any], Scheme[Any]]], tally: Tally) -> None:
    """Offer ``text`` to every compiled scheme; record any answer that breaks the law."""
    tally.terms += 1
    for name, scheme, reference in schemes:
        compiled = scheme.compiled
        assert compiled is not None, f"{name}: no compiled canonicalizer (extension not built, or LDIDS_PURE_PYTHON)"
        answer = compiled(text)
        own = name == written_for
        if own:
            tally.written[name] += 1
        if answer is None and not own:
            continue  # nothing claimed: nothing to check, and Python need not be asked
        expected = python_canonical(reference, text)
        if own and expected is not None:
            tally.valid[name] += 1
        if answer is None:
            continue
        if own:
            tally.answered[name] += 1
        if expected is None:
            tally.failures.append(f"{name}: {text!r}: compiled {answer!r}, Python raises ParseError")
        elif type(answer) is not str or answer != expected or answer != reference.full_canonical(text):
            tally.failures.append(f"{name}: {text!r}: compiled {answer!r}, Python {expected!r}")


def run(seed: int, count: int) -> Tally:
    """The law over ``count`` terms of one seed."""
    schemes = pairs()
    tally = Tally()
    for written_for, text in terms(seed, count):
        check(text, written_for, schemes, tally)
    return tally


#: Forms whose every one-character mutation :func:`sweep` tries: valid ones of each scheme,
#: and ones at the edges of the compiled subset (a PID of 64 characters once normalized, a
#: text of the longest length compiled).
BASES = (
    "info:fedora/demo:5",
    "INFO:FEDORA/demo%3a21621/DS%2d1",
    "info:fedora/*/bdef:1/view?b=2&a=1&a#frag",
    "info:fedora/a:b/c%3Ad/e?f=%2fg#h/i?j",
    "info:fedora/fedora-system:def/model#hasModel",
    "info:fedora/ns%3A" + "1" * 61,
    "oai:arXiv.org:hep-th/9901001",
    "oai:an.oai.org:ab%3Ccd:e;f",
    "https://PURL.ORG:443/poi/arXiv.org/hep-th/9901001",
    "http://purl.org:/poi/a.b/c",
    "http://hdl.handle.net/1765/9594",
    "HTTPS://hdl.handle.net:0443/1765/a%2Fb?q#f",
    "hdl:100.102/612dd2726f5b4d7c9e0a3b1c2d3e4f50?x=1#y",
    "HDL://100.102/F58FB49EB1F848F0A606E84CEF294BE5",
    "hdl:10.1000/a%20b%3a",
    "hdl:1765/" + "a" * 1015,
)
#: What a mutation puts in: every ASCII character, and escapes whole and broken.
SWEEP = (*map(chr, range(128)), "é", "%4", "%41", "%2F", "%3a", "%C3%A9", "\ud800")


def sweep(bases: tuple[str, ...] = BASES) -> Tally:
    """The law over every one-character insertion and replacement of ``bases``, and every
    replacement by two characters (one of them a delimiter)."""
    schemes = pairs()
    tally = Tally()
    for base in bases:
        for position in range(len(base) + 1):
            head, tail, rest = base[:position], base[position:], base[position + 1 :]
            for ch in SWEEP:
                for text in (head + ch + tail, head + ch + rest, *(head + ch + d + rest for d in "%:/?#&=.")):
                    check(text, "", schemes, tally)
    return tally


def _run(job: tuple[int, int]) -> Tally:
    return run(*job)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    # Jobs of 100,000 terms, each with its own seed (derived from --seed): the same terms
    # whatever the number of workers.
    size = 100_000
    jobs = [
        (args.seed * 1_000_003 + index, min(size, args.count - start))
        for index, start in enumerate(range(0, args.count, size))
    ]
    started = time.perf_counter()
    total = sweep()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for tally in pool.imap_unordered(_run, jobs):
            total.add(tally)
    elapsed = time.perf_counter() - started
    print(
        f"{total.terms:,} terms ({args.count:,} generated, the rest one-character mutations of BASES)"
        f" in {elapsed:.0f}s (seed {args.seed}, {args.workers} workers)"
    )
    print(f"{'scheme':12} {'written':>10} {'valid':>10} {'compiled':>10}")
    for name in COMPILED:
        print(f"{name:12} {total.written[name]:>10,} {total.valid[name]:>10,} {total.answered[name]:>10,}")
    print(f"answers that differ from Python: {len(total.failures)}")
    for failure in total.failures[:20]:
        print("  " + failure, file=sys.stderr)
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
