"""Benchmark streamed normalization of an N-Triples dump against the floor and two parsers.

Generates a realistic dump (default 1M triples, deterministic): about 30% of terms are
identifiers in mixed forms (info:fedora URIs with escaped separators and lower-case hex,
bare PIDs in dc:identifier, oai identifiers, POIs over https and in upper case, hdl:
and hdl.handle.net URLs, CORDRA GUIDs in lower case); the rest are ordinary IRIs, plain
literals, language tags, typed literals and blank nodes. Then, side by side on that file:

- ``cat`` (the floor: reading the file);
- pyoxigraph: parse and serialize N-Triples to a file;
- rdflib: parse and serialize N-Triples to a file (skipped with --skip-rdflib: ~30k triples/s);
- ``ldids normalize`` with 1 worker and with all cores.

Each runs as its own process. Time is the best of ``--repeat`` runs (default 5; the
machine is shared and noisy, and the best run is the one least disturbed: a VM with 2
cores lends one now and then to its host, and a run on both cores is the one that
suffers, so 3 runs were too few for two of them to be undisturbed), each run
unobserved and started after ``sync`` (no earlier output left to write back meanwhile);
peak memory comes from one more run, the largest sums of RSS and PSS over the process and
its children, sampled every 20 ms from /proc (sampling costs CPU, so it is kept out of the
timed runs). Prints triples/s, peak MiB and the ratios.

    python benchmarks/dump.py [--triples N] [--distinct] [--repeat N] [--skip-rdflib] [--keep]

``--distinct`` benchmarks a dump at real cardinality instead (:func:`generate_distinct`):
every record with its own PID, handle and OAI identifier.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
CONFIG = 'bare-pid-predicates = ["http://purl.org/dc/elements/1.1/identifier"]\n'


def generate(path: Path, triples: int, seed: int = 7) -> None:
    """A dump as triplestores write them: statements grouped by subject (4 to 12 each),
    objects pointing at other entities, so identifiers recur as they do in real data."""
    rng = random.Random(seed)
    hexdigits = "0123456789abcdef"
    predicates = [f"<http://example.org/vocab#p{i}>" for i in range(40)]
    entities = max(1, triples // 8)
    guids: dict[int, str] = {}

    def identifier(n: int) -> str:
        # Each entity has one identifier, in one of the forms real data has (fixed by n).
        kind = n % 10
        if kind == 0:
            return f"<info:fedora/demo%3a{n}>"
        if kind == 1:
            return f"<INFO:FEDORA/demo:{n}/DS%2d1>"
        if kind == 2:
            return f"<oai:arXiv.org:hep-th/{n:07d}>"
        if kind == 3:
            return f"<https://PURL.ORG/poi/arXiv.org/hep-th/{n:07d}>"
        if kind == 4:
            return f"<http://hdl.handle.net/1765/{n}>"
        if kind == 5:
            return f"<hdl:1765/{n}>"  # already canonical
        if kind == 6:
            guid = guids.setdefault(n, "".join(rng.choice(hexdigits) for _ in range(32)))
            return f"<hdl:100.102/{guid}>"
        if kind == 7:
            return f"<info:fedora/demo:{n}>"  # already canonical
        if kind == 8:
            return f"<oai:example.org:item{n}>"
        return f"<http://purl.org/poi/example.org/item{n}>"  # already canonical

    def ordinary(n: int) -> str:
        kind = rng.randrange(6)
        if kind == 0:
            return f"<http://example.org/resource/{rng.randrange(entities)}>"
        if kind == 1:
            return f'"A title of record {n}, with some words in it"'
        if kind == 2:
            return f'"Ein Titel {n}"@de'
        if kind == 3:
            return f'"{rng.randrange(10**6)}"^^<http://www.w3.org/2001/XMLSchema#integer>'
        if kind == 4:
            return f"_:b{rng.randrange(50000)}"
        return f'"2001-01-{1 + n % 28:02d}"^^<http://www.w3.org/2001/XMLSchema#date>'

    written = 0
    with path.open("w", encoding="utf-8") as out:
        while written < triples:
            n = rng.randrange(entities)
            # About 30% of all terms are identifiers: a quarter of the subjects, and of
            # the objects a third (links to other entities) plus literal forms.
            subject = identifier(n) if rng.random() < 0.25 else f"<http://example.org/resource/{n}>"
            for _ in range(min(rng.randint(4, 12), triples - written)):
                roll = rng.random()
                if roll < 0.05:
                    out.write(f'{subject} <http://purl.org/dc/elements/1.1/identifier> "demo%3a{n}" .\n')
                elif roll < 0.38:
                    out.write(f"{subject} {rng.choice(predicates)} {identifier(rng.randrange(entities))} .\n")
                elif roll < 0.45:
                    out.write(f'{subject} {rng.choice(predicates)} "{identifier(rng.randrange(entities))[1:-1]}" .\n')
                else:
                    out.write(f"{subject} {rng.choice(predicates)} {ordinary(n)} .\n")
                written += 1


def generate_distinct(path: Path, triples: int, seed: int = 7) -> int:
    """A dump at real cardinality: every object has its own PID, handle and OAI identifier,
    as in a repository's export, so nearly every identifier occurs in one record only and
    no memo of decisions can help. Each record is five statements about one subject (in one
    of several forms) naming its own identifiers; one in eight also points at another
    record (a collection, a related item). Returns the number of distinct identifiers."""
    rng = random.Random(seed)
    hexdigits = "0123456789abcdef"
    records = max(1, triples // 5)
    title = "<http://purl.org/dc/elements/1.1/title>"
    identifier_predicate = "<http://purl.org/dc/elements/1.1/identifier>"
    related = "<info:fedora/fedora-system:def/relations-external#isMemberOfCollection>"
    item = "<http://www.openarchives.org/OAI/2.0/itemID>"
    handle_predicate = "<http://example.org/vocab#handle>"
    written = 0
    distinct = 0
    with path.open("w", encoding="utf-8") as out:
        for n in range(records):
            if written >= triples:
                break
            form = n % 4
            # The subject: the record's PID as real exports write it, canonical or not.
            if form == 0:
                subject = f"<info:fedora/demo:{n}>"
            elif form == 1:
                subject = f"<info:fedora/demo%3a{n}>"
            elif form == 2:
                subject = f"<INFO:FEDORA/demo:{n}>"
            else:
                subject = f"<http://example.org/record/{n}>"
            guid = "".join(rng.choice(hexdigits) for _ in range(32))
            handle = (
                f"<http://hdl.handle.net/1765/{n}>" if n % 3 else f"<hdl:100.102/{guid}>"
            )  # generic and CORDRA handles
            oai = f"<oai:arXiv.org:hep-th/{n:08d}>" if n % 2 else f"<https://purl.org/poi/example.org/item{n}>"
            lines = [
                f'{subject} {title} "Record {n}: a title of some words" .',
                f'{subject} {identifier_predicate} "demo:{n}" .',
                f"{subject} {handle_predicate} {handle} .",
                f"{subject} {rng.choice(PREDICATES)} {oai} .",
                f'{subject} {rng.choice(PREDICATES)} "{1900 + n % 120}"^^<http://www.w3.org/2001/XMLSchema#gYear> .',
            ]
            if n % 8 == 0:
                lines.append(f"{subject} {related} <info:fedora/demo:{rng.randrange(records)}> .")
            if n % 50 == 0:
                lines.append(f"{subject} {item} {oai} .")  # an identity statement (seen whole)
            distinct += 3  # the PID, the handle, the OAI identifier (or its POI)
            for line in lines[: triples - written]:
                out.write(line + "\n")
                written += 1
    return distinct


PREDICATES = [f"<http://example.org/vocab#p{i}>" for i in range(40)]


def seconds_of(command: list[str]) -> float:
    """Wall-clock seconds of one unobserved run."""
    # The previous run's output goes to disk first: written back while this one runs, it
    # would take CPU from it (from a run on every core more than from one on a single core).
    os.sync()
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENVIRONMENT, check=True)
    return time.perf_counter() - started


def peak_of(command: list[str]) -> tuple[float, float, float]:
    """(seconds, peak RSS MiB, peak PSS MiB) of the process tree.

    RSS counts pages that forked workers share with their parent once per process; PSS
    (proportional set size) shares them out, and is the fair measure of a process tree."""
    os.sync()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENVIRONMENT)
    peak_rss = peak_pss = 0
    while process.poll() is None:
        rss, pss = _tree_memory(process.pid)
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} failed with exit {process.returncode}")
    return elapsed, peak_rss / 1024, peak_pss / 1024


def _tree_memory(pid: int) -> tuple[int, int]:
    rss = pss = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as rollup:
                for line in rollup:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1])
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1])
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    pending.extend(int(child) for child in children.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return rss, pss


# Each tool runs as installed: with its modules' bytecode cached (pip compiles it on
# install; an editable install or PYTHONDONTWRITEBYTECODE would have every run compile
# the sources again, ~0.1 s that no installed tool spends).
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
WARM_UP = "import ldids.cli, ldids.dumps.run, ldids.dumps.stream, pyoxigraph, rdflib"

# Each parser writes its N-Triples to a file, as ldids normalize -o does: the same sink for
# every tool compared (writing ~100 MB to a file costs ~0.1 s more than to /dev/null, and
# replacing an existing file makes ext4 flush it, another ~0.05 s).
OXIGRAPH = (
    "import sys, pyoxigraph as o; f = o.RdfFormat.N_TRIPLES; "
    "o.serialize(o.parse(path=sys.argv[1], format=f), sys.argv[2], format=f)"
)
RDFLIB = (
    "import sys, rdflib; g = rdflib.Graph(); g.parse(sys.argv[1], format='nt'); g.serialize(sys.argv[2], format='nt')"
)


def ratio(name: str, rounds: list[dict[str, float]], slower: str, faster: str, target: str) -> None:
    """How many times faster ``faster`` ran than ``slower``: best run to best run, and the
    median of the rounds' ratios."""
    best = min(times[slower] for times in rounds) / min(times[faster] for times in rounds)
    paired = [times[slower] / times[faster] for times in rounds]
    print(
        f"{name}: {best:.2f} best to best, {statistics.median(paired):.2f} median within a round {target}"
        f"  (rounds: {', '.join(f'{value:.2f}' for value in paired)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, default=1_000_000)
    parser.add_argument(
        "--distinct", action="store_true", help="every record with identifiers of its own (generate_distinct)"
    )
    parser.add_argument("--skip-rdflib", action="store_true")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per tool (the best counts)")
    parser.add_argument("--keep", action="store_true", help="keep the generated dump and outputs")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    dump = OUT / f"dump-{'distinct-' if args.distinct else ''}{args.triples}.nt"
    if not dump.exists():
        (generate_distinct if args.distinct else generate)(dump, args.triples)
    config = OUT / "bench.toml"
    config.write_text(CONFIG)
    cores = os.cpu_count() or 1
    script = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
    runs: list[tuple[str, list[str]]] = [
        ("cat (floor)", ["cat", str(dump)]),
        ("pyoxigraph parse+serialize", [sys.executable, "-c", OXIGRAPH, str(dump), str(OUT / "pyoxigraph.nt")]),
    ]
    if not args.skip_rdflib:
        runs.append(("rdflib parse+serialize", [sys.executable, "-c", RDFLIB, str(dump), str(OUT / "rdflib.nt")]))
    for workers in sorted({1, cores}):
        output = OUT / f"normalized-{workers}.nt"
        command = [
            script,
            "normalize",
            str(dump),
            "-o",
            str(output),
            "--config",
            str(config),
            "--workers",
            str(workers),
            "-q",
        ]
        runs.append((f"ldids normalize, {workers} worker{'s' if workers > 1 else ''}", command))
    subprocess.run([sys.executable, "-c", WARM_UP], check=True, env=ENVIRONMENT)
    size = dump.stat().st_size
    print(f"{args.triples:,} triples, {size / 2**20:,.0f} MiB, {cores} cores, Python {sys.version.split()[0]}")
    print(f"{'':34} {'triples/s':>12} {'seconds':>8} {'RSS MiB':>8} {'PSS MiB':>8}")
    peaks = {label: peak_of(command)[1:] for label, command in runs}
    # Timed rounds go round the tools, so a slow spell of the machine falls on all of them.
    rounds: list[dict[str, float]] = []
    for _ in range(max(1, args.repeat)):
        rounds.append({label: seconds_of(command) for label, command in runs})
    best = {label: min(times[label] for times in rounds) for label, _ in runs}
    rates: dict[str, float] = {}
    for label, _ in runs:
        rates[label] = args.triples / best[label]
        rss, pss = peaks[label]
        print(f"{label:34} {rates[label]:>12,.0f} {best[label]:>8.2f} {rss:>8.0f} {pss:>8.0f}")
    # Each ratio twice: of the best runs, and the median over rounds of the ratio within a
    # round (runs a few seconds apart). The machine's speed drifts by tens of percent over
    # minutes, and the best runs of two tools may come from different spells.
    one_worker = "ldids normalize, 1 worker"
    ratio("ldids 1 worker / pyoxigraph", rounds, "pyoxigraph parse+serialize", one_worker, "(target >= 0.50)")
    if "rdflib parse+serialize" in rates:
        ratio("ldids 1 worker / rdflib", rounds, "rdflib parse+serialize", one_worker, "(target >= 10)")
    if cores > 1:
        ratio(
            f"ldids {cores} workers / 1 worker",
            rounds,
            one_worker,
            f"ldids normalize, {cores} workers",
            "(target >= 1.7)",
        )
        same = (OUT / "normalized-1.nt").read_bytes() == (OUT / f"normalized-{cores}.nt").read_bytes()
        print(f"outputs of 1 and {cores} workers identical: {same}")
    if not args.keep:
        for pattern in ("normalized-*.nt", "pyoxigraph.nt", "rdflib.nt"):
            for path in OUT.glob(pattern):
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
