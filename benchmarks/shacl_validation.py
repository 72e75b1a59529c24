"""Benchmark streamed validation of the shipped shapes against ``ldids normalize`` on one dump.

The dump is benchmarks/dump.py's (deterministic, about 30% of terms identifiers in mixed
forms). Side by side, each as its own process, in turn (A B A B ...): ``ldids normalize``
of the dump, ``ldids normalize --validate`` of it (one pass), ``ldids validate`` of the
same dump (many results: most identifiers are not canonical), the same keeping none of
them (``--max-results 0``: counts only), and ``ldids validate`` of normalize's output
(conforming, as after ``normalize --validate``). Prints the median seconds, the median of
the paired ratios to normalize, and the peak RSS of each (the largest single process, from
wait4).

    python benchmarks/shacl_validation.py [--triples N] [--repeat N] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump import CONFIG, ENVIRONMENT, OUT, WARM_UP, generate


def run(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB of the largest process) of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENVIRONMENT)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # validate exits 1 when data do not conform
        raise SystemExit(f"{command} failed")
    return elapsed, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    dump = OUT / f"dump-{args.triples}.nt"
    if not dump.exists():
        generate(dump, args.triples)
    config = OUT / "bench.toml"
    config.write_text(CONFIG)
    ldids = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
    normalized = OUT / "shacl-normalized.nt"
    workers = str(args.workers)
    commands = {
        "normalize": [
            ldids,
            "normalize",
            str(dump),
            "-o",
            str(normalized),
            "--config",
            str(config),
            "-q",
            "--workers",
            workers,
        ],
        # One pass: normalize's workers check the output blocks they write (its target is at
        # most 1.3 times the time of normalize alone).
        "normalize --validate": [
            ldids,
            "normalize",
            str(dump),
            "-o",
            str(OUT / "shacl-validated.nt"),
            "--config",
            str(config),
            "-q",
            "--workers",
            workers,
            "--validate",
        ],
        # Every result listed: kept in sorted runs on disk and written as they are merged.
        "validate dump, --all": [ldids, "validate", str(dump), "-w", workers, "-f", "json", "--all"],
        # As a user runs it: the first 20 results listed (the workers send the rows of the
        # others no more once the report holds its 20: their digests and shapes count them).
        "validate dump": [ldids, "validate", str(dump), "-w", workers, "-f", "json"],
        # Counted, none listed, so none kept: the memory of the streamed checks alone.
        "validate, counts only": [ldids, "validate", str(dump), "-w", workers, "-f", "json", "--limit", "0"],
        "validate normalized": [ldids, "validate", str(normalized), "-w", workers, "-f", "json", "--limit", "0"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, float] = dict.fromkeys(commands, 0.0)
    # Each run as an installed tool runs: its modules' bytecode cached by a run not counted.
    subprocess.run([sys.executable, "-c", WARM_UP + ", ldids.dumps.validation"], check=True, env=ENVIRONMENT)
    for _ in range(args.repeat):
        for name, command in commands.items():
            seconds, peak = run(command)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
    base = times["normalize"]
    print(f"{args.triples:,} triples, {args.workers} workers, {args.repeat} rounds (median)")
    for name in commands:
        median = statistics.median(times[name])
        ratio = statistics.median(b / a for a, b in zip(times[name], base, strict=True))
        print(
            f"{name:<22} {median:7.2f} s  {args.triples / median:>10,.0f} triples/s  "
            f"throughput {ratio:.2f}x normalize  peak {peaks[name]:.0f} MiB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
