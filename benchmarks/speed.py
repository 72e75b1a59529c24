"""The speed table of benchmarks/README.md ("## Speed"), made by one command.

Dumps (made once, in benchmarks/out/): benchmarks/dump.py's few-distinct dump (identifiers
that recur) and its dump at real cardinality (``generate_distinct``: every record with its
own PID, handle and OAI identifier), of each size asked, and the largest of the latter
gzipped. On each: ``ldids normalize`` with 1 and 2 workers and on Dask (2 local workers),
and, as yardsticks, pyoxigraph parse+serialize, ``serdi`` and ``rapper`` (N-Triples in and
out; skipped, and said so, where not installed). Each run writes its output to a file.
Time is the best of ``--repeat`` runs; peak memory is the largest resident set of any one
process of the run (the kernel's own accounting, wait4), so a run on 2 workers is held to
the bound per process. Prints a Markdown table and the ratios the targets are about.

    python benchmarks/speed.py [--sizes 1000000,10000000] [--repeat 3] [--dumps-only]
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dump

OUT = dump.OUT
OXIGRAPH = (
    "import sys, gzip, pyoxigraph as o; f = o.RdfFormat.N_TRIPLES; p = sys.argv[1]; "
    "q = o.parse(gzip.open(p), format=f) if p.endswith('.gz') else o.parse(path=p, format=f); "
    "o.serialize(q, sys.argv[2], format=f)"
)


# The identifiers of benchmarks/dump.py's dumps, each in one form (a PID as info:fedora/demo%3a7
# or "demo:7" is demo:7), counted from the file itself (grep | sort -u: bounded memory).
IDENTIFIERS = {
    "PIDs": r"grep -oE 'demo(:|%3[aA])[0-9]+' {path} | sed 's/%3[aA]/:/'",
    "handles": r"grep -oE '<(http://hdl\.handle\.net/|hdl:)[^>]+>' {path} | sed -E 's#^<(http://hdl\.handle\.net/|hdl:)##'",
    "OAI identifiers and POIs": r"grep -oE '<(oai:|https://purl\.org/poi/)[^>]+>' {path}",
}
#: What the real-cardinality dump of 10M triples must hold at least (issue 18).
LEAST_DISTINCT = {10_000_000: 2_000_000}


def count_identifiers(path: Path) -> int:
    """The distinct identifiers in a dump, by kind, printed; their sum."""
    total = 0
    for kind, pipeline in IDENTIFIERS.items():
        command = f"{pipeline.format(path=path)} | LC_ALL=C sort -u -S 256M | wc -l"
        done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=True)
        count = int(done.stdout)
        print(f"{path.name}: {count:,} distinct {kind}", flush=True)
        total += count
    return total


def timed(command: list[str], clear: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak MiB of the largest process) of one run."""
    if clear is not None:
        shutil.rmtree(clear, ignore_errors=True)
    os.sync()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status != 0:
        raise SystemExit(
            f"failed: {' '.join(command)}: {process.stderr.read().decode()[-500:] if process.stderr else ''}"
        )
    return elapsed, usage.ru_maxrss / 1024


def shell(text: str) -> list[str]:
    return ["sh", "-c", text]


def commands(path: Path, config: Path) -> list[tuple[str, list[str], Path | None]]:
    """(label, command, folder to remove first) of each tool on one dump."""
    ldids = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
    common = ["--config", str(config), "-q"]
    runs: list[tuple[str, list[str], Path | None]] = [
        (
            f"ldids, {workers} worker{'s' * (workers > 1)}",
            [ldids, "normalize", str(path), "-o", str(OUT / "speed.nt"), *common, "--workers", str(workers)],
            None,
        )
        for workers in (1, 2)
    ]
    folder = OUT / "speed-dask"
    runs.append(
        (
            "ldids, Dask (2 local workers)",
            [ldids, "normalize", str(path), "-o", str(folder), *common, "--dask", "local", "--workers", "2"],
            folder,
        )
    )
    runs.append(
        ("pyoxigraph parse+serialize", [sys.executable, "-c", OXIGRAPH, str(path), str(OUT / "speed-oxi.nt")], None)
    )
    read = f"zcat {path}" if path.suffix == ".gz" else f"cat {path}"
    if shutil.which("serdi"):
        runs.append(("serdi", shell(f"{read} | serdi -i ntriples -o ntriples - > {OUT / 'speed-serdi.nt'}"), None))
    if shutil.which("rapper"):
        runs.append(
            (
                "rapper",
                shell(f"{read} | rapper -q -i ntriples -o ntriples - http://example.org/ > {OUT / 'speed-rapper.nt'}"),
                None,
            )
        )
    return runs


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg()) + " (1, 5, 15 minutes)"


def versions() -> str:
    found = [f"Python {platform.python_version()}"]
    for package in ("ldids", "pyoxigraph", "dask"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} not installed")
    for tool, flag in (("serdi", "-v"), ("rapper", "--version")):
        if shutil.which(tool):
            done = subprocess.run([tool, flag], capture_output=True, text=True, check=False)
            found.append(f"{tool} {(done.stdout or done.stderr).split(chr(10))[0].strip()}")
        else:
            found.append(f"{tool} not installed: skipped")
    return ", ".join(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000,10000000", help="triples per dump, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool (the best counts)")
    parser.add_argument(
        "--dumps-only", action="store_true", help="make the dumps (and count their identifiers), time nothing"
    )
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    config = OUT / "bench.toml"
    config.write_text(dump.CONFIG)
    sizes = [int(size) for size in args.sizes.split(",")]
    dumps: list[tuple[str, Path, int]] = []
    for size in sizes:
        few, distinct = OUT / f"dump-{size}.nt", OUT / f"dump-distinct-{size}.nt"
        if not few.exists():
            dump.generate(few, size)
        dumps.append((f"{size / 1e6:g}M few-distinct", few, size))
        if not distinct.exists():
            dump.generate_distinct(distinct, size)
        counted = distinct.with_suffix(".distinct")
        if not counted.exists() or counted.stat().st_mtime < distinct.stat().st_mtime:
            counted.write_text(str(count_identifiers(distinct)))
        count = int(counted.read_text())
        print(f"{distinct.name}: {count:,} distinct identifiers", flush=True)
        if count < LEAST_DISTINCT.get(size, 0):
            raise SystemExit(f"{distinct} holds {count:,} distinct identifiers, fewer than {LEAST_DISTINCT[size]:,}")
        dumps.append((f"{size / 1e6:g}M, {count / 1e6:.2f}M distinct ids", distinct, size))
    largest = dumps[-1][1]
    packed = largest.with_suffix(".nt.gz")
    if not packed.exists():
        with largest.open("rb") as source, gzip.open(packed, "wb", compresslevel=6) as target:
            shutil.copyfileobj(source, target, 1 << 20)
    dumps.append((dumps[-1][0] + ", gzip", packed, dumps[-1][2]))
    if args.dumps_only:
        return 0
    print(f"{os.cpu_count()} cores, {platform.machine()}, {platform.platform()}; {versions()}")
    print(f"load average at the start: {load()}")
    print(f"best of {args.repeat} runs; peak: the largest process's resident set, largest of the runs\n")
    print("| dump | tool | triples/s | seconds | peak MiB/process |")
    print("|---|---|---:|---:|---:|")
    for label, path, triples in dumps:
        best: dict[str, float] = {}
        for name, command, folder in commands(path, config):
            runs = [timed(command, folder) for _ in range(max(1, args.repeat))]
            seconds, peak = min(run[0] for run in runs), max(run[1] for run in runs)
            best[name] = seconds
            print(f"| {label} | {name} | {triples / seconds:,.0f} | {seconds:.2f} | {peak:.0f} |", flush=True)
            _remove_outputs()  # a tool's 1 GB at 10M: the disk holds one output at a time
        one = best["ldids, 1 worker"]
        oxigraph, two, dask = (
            best[name] for name in ("pyoxigraph parse+serialize", "ldids, 2 workers", "ldids, Dask (2 local workers)")
        )
        print(
            f"| {label} | ratios | 1 worker / pyoxigraph {oxigraph / one:.2f}x;"
            f" 2 workers / 1: {one / two:.2f}x; Dask / 1: {one / dask:.2f}x | | |",
            flush=True,
        )
    print(f"\nload average at the end: {load()}")
    return 0


def _remove_outputs() -> None:
    shutil.rmtree(OUT / "speed-dask", ignore_errors=True)
    for leftover in OUT.glob("speed*.nt"):
        leftover.unlink()


if __name__ == "__main__":
    sys.exit(main())
