"""Benchmark the identifier core: library normalize/canonical and `ldids inspect --json`.

Generates N mixed identifiers (default 1,000,000; deterministic seed) in the forms real
data has them: PIDs with escaped separators and lower-case hex, info:fedora objects,
datastreams, method disseminations with parameters and Fedora's vocabulary IRIs, oai
identifiers, POIs (some https or upper-case host), CORDRA handles in lower case, generic
handles and resolver URLs. Nearly all are distinct (no cache could help). Then it times,
on one core:

- ``ldids.normalize`` over the mixed file and over its already-normalized version
  (the graph passes' common case: the aim is >= 300k identifiers/s there);
- ``ldids.canonical`` over both;
- the ``ldids inspect --json`` command over the mixed file (stdin to /dev/null).

    python benchmarks/core.py [--count N] [--skip-cli]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import ldids

OUT = Path(__file__).resolve().parent / "out"


def generate(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    hexdigits = "0123456789abcdef"

    def guid() -> str:
        return "".join(rng.choice(hexdigits) for _ in range(32))

    def make(i: int) -> str:
        kind = i % 12
        n = rng.randrange(10**7)
        if kind == 0:
            return f"demo:{n}"
        if kind == 1:
            return f"demo%3a{n}%7e"
        if kind == 2:
            return f"info:fedora/demo:{n}"
        if kind == 3:
            return f"info:fedora/demo:{n}/{rng.choice(['DC', 'RELS-EXT', 'MEDIUM_SIZE', 'THUMBRES_IMG'])}"
        if kind == 4:
            return f"info:fedora/{rng.choice(['fedora-system:def/model#hasModel', 'fedora-system:FedoraObject-3.0'])}"
        if kind == 5:
            return f"INFO:FEDORA/demo%3A{n}/bdef:1/view?z={n}&a=1"
        if kind == 6:
            return f"oai:arXiv.org:hep-th/{n:07d}"
        if kind == 7:
            return f"oai:example.org:item{n}"
        if kind == 8:
            return f"{rng.choice(['http', 'HTTPS'])}://purl.org/poi/arXiv.org/hep-th/{n:07d}"
        if kind == 9:
            return f"hdl:100.102/{guid()}"
        if kind == 10:
            return f"hdl:1765/{n}"
        return f"http://hdl.handle.net/1765/{n}"

    return [make(i) for i in range(count)]


def rate(label: str, function: Callable[[str], str], texts: Sequence[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        function(text)
    elapsed = time.perf_counter() - started
    per_second = len(texts) / elapsed
    print(f"  {label:<44} {per_second:>12,.0f} ids/s   ({elapsed:.2f}s)")
    return per_second


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--skip-cli", action="store_true", help="skip the `ldids inspect --json` run")
    args = parser.parse_args()

    mixed = generate(args.count)
    normalized = [ldids.normalize(text) for text in mixed]
    OUT.mkdir(exist_ok=True)
    mixed_file = OUT / f"ids-{args.count}.txt"
    mixed_file.write_text("\n".join(mixed) + "\n")
    changed = sum(a != b for a, b in zip(mixed, normalized, strict=True))
    print(f"{args.count:,} identifiers, {changed:,} of them not yet normalized; Python {sys.version.split()[0]}")

    print("library, one core:")
    target = rate("normalize, already-normalized input", ldids.normalize, normalized)
    rate("normalize, mixed input", ldids.normalize, mixed)
    rate("canonical, already-normalized input", ldids.canonical, normalized)
    rate("canonical, mixed input", ldids.canonical, mixed)
    print(f"  aim: >= 300,000 ids/s on normalized input: {'met' if target >= 300_000 else 'NOT met'}")

    if not args.skip_cli:
        script = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
        with mixed_file.open("rb") as stdin:
            started = time.perf_counter()
            done = subprocess.run(
                [script, "inspect", "--json"],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                check=False,
            )
            elapsed = time.perf_counter() - started
        print("command line:")
        label = "ldids inspect --json < mixed file"
        print(f"  {label:<44} {args.count / elapsed:>12,.0f} ids/s   ({elapsed:.2f}s, exit {done.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
