"""Benchmark streamed normalization of Turtle (and RDF/XML) against the same dump as N-Triples.

The dump of benchmarks/dump.py (default 1M triples, deterministic), written as Turtle by
pyoxigraph (statements grouped by subject, prefixed names, numbers in short form) and, with
--rdf-xml, as RDF/XML and, with --trig, as TriG (the Turtle in one named graph). Then, side
by side, each as its own process:

- pyoxigraph: parse the Turtle and serialize N-Triples to a file (the parser's own pace);
- ``ldids normalize`` N-Triples to N-Triples, with 1 worker and with all cores;
- ``ldids normalize`` Turtle to N-Triples (parsed as it is read, ldids.dumps.rdf_stream), the same;
- with --rdf-xml, RDF/XML to N-Triples, the same; with --trig, TriG to N-Quads.

Times and peaks are measured as benchmarks/dump.py measures them (best of ``--repeat``
rounds; peak RSS and PSS of the process tree from one more run). Prints triples/s, peak
MiB, the throughput of each other format relative to N-Triples at the same number of workers
(target >= 0.5, peak < 150 MiB), and whether each run wrote the statements the N-Triples run
wrote (as sets of lines: the dump's blank nodes are labelled, and keep their labels).

    python benchmarks/turtle.py [--triples N] [--repeat N] [--rdf-xml] [--trig] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from dump import CONFIG, ENVIRONMENT, OUT, generate, peak_of, ratio, seconds_of

WARM_UP = "import ldids.cli, ldids.dumps.run, ldids.dumps.rdf_stream, pyoxigraph"
#: Prefixes for the Turtle: the dump's vocabulary and resources as prefixed names.
PREFIXES = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "r": "http://example.org/resource/",
    "v": "http://example.org/vocab#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}
OXIGRAPH = (
    "import sys, pyoxigraph as o; "
    "o.serialize(o.parse(path=sys.argv[1], format=o.RdfFormat.TURTLE), sys.argv[2], format=o.RdfFormat.N_TRIPLES)"
)


def write_as(source: Path, target: Path, name: str) -> None:
    """The N-Triples dump ``source`` written in the format ``name`` (TURTLE, RDF_XML) by pyoxigraph."""
    import pyoxigraph

    quads = pyoxigraph.parse(path=source, format=pyoxigraph.RdfFormat.N_TRIPLES)
    pyoxigraph.serialize(quads, target, format=getattr(pyoxigraph.RdfFormat, name), prefixes=PREFIXES)


def same_statements(one: Path, other: Path) -> bool:
    """Whether two outputs hold the same lines, the graph name of N-Quads lines put aside."""
    graph = b" <http://example.org/graph> .\n"
    with one.open("rb") as first, other.open("rb") as second:
        return sorted(line.replace(graph, b" .\n") for line in first) == sorted(second)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per tool (the best counts)")
    parser.add_argument("--rdf-xml", action="store_true", help="RDF/XML too")
    parser.add_argument("--trig", action="store_true", help="TriG too (the dump in a named graph)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files and outputs")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    dump = OUT / f"dump-{args.triples}.nt"
    if not dump.exists():
        generate(dump, args.triples)
    inputs = {"N-Triples": dump, "Turtle": OUT / f"dump-{args.triples}.ttl"}
    if args.rdf_xml:
        inputs["RDF/XML"] = OUT / f"dump-{args.triples}.rdf"
    if args.trig:
        inputs["TriG"] = OUT / f"dump-{args.triples}.trig"
    for label, name in (("Turtle", "TURTLE"), ("RDF/XML", "RDF_XML")):
        if label in inputs and not inputs[label].exists():
            write_as(dump, inputs[label], name)
    if "TriG" in inputs and not inputs["TriG"].exists():
        # The Turtle in one named graph: TriG's own syntax, the same statements.
        turtle = inputs["Turtle"].read_text(encoding="utf-8")
        prologue = "".join(line for line in turtle.splitlines(keepends=True) if line.startswith("@prefix"))
        body = turtle[len(prologue) :]
        inputs["TriG"].write_text(f"{prologue}<http://example.org/graph> {{\n{body}}}\n", encoding="utf-8")
    config = OUT / "bench.toml"
    config.write_text(CONFIG)
    cores = os.cpu_count() or 1
    script = shutil.which("ldids", path=str(Path(sys.executable).parent)) or "ldids"
    pyoxigraph_label = "pyoxigraph Turtle parse+serialize"
    runs: list[tuple[str, list[str]]] = [
        (pyoxigraph_label, [sys.executable, "-c", OXIGRAPH, str(inputs["Turtle"]), str(OUT / "pyoxigraph.nt")])
    ]
    outputs: dict[str, Path] = {}
    for label, source in inputs.items():
        for workers in sorted({1, cores}):
            name = f"ldids {label}, {workers} worker{'s' if workers > 1 else ''}"
            outputs[name] = OUT / f"normalized-{label.replace('/', '').lower()}-{workers}.nt"
            # TriG's statements are in a named graph: written as N-Quads, compared without it.
            fmt = "nquads" if label == "TriG" else "nt"
            command = [script, "normalize", str(source), "-o", str(outputs[name]), "-t", fmt]
            runs.append((name, [*command, "--config", str(config), "--workers", str(workers), "-q"]))
    subprocess.run([sys.executable, "-c", WARM_UP], check=True, env=ENVIRONMENT)
    sizes = ", ".join(f"{label} {path.stat().st_size / 2**20:,.0f} MiB" for label, path in inputs.items())
    print(f"{args.triples:,} triples ({sizes}), {cores} cores, Python {sys.version.split()[0]}")
    print(f"{'':34} {'triples/s':>12} {'seconds':>8} {'RSS MiB':>8} {'PSS MiB':>8}")
    peaks = {label: peak_of(command)[1:] for label, command in runs}
    rounds: list[dict[str, float]] = []
    for _ in range(max(1, args.repeat)):
        rounds.append({label: seconds_of(command) for label, command in runs})
    for label, _ in runs:
        best = min(times[label] for times in rounds)
        rss, pss = peaks[label]
        print(f"{label:34} {args.triples / best:>12,.0f} {best:>8.2f} {rss:>8.0f} {pss:>8.0f}")
    for label in inputs:
        if label == "N-Triples":
            continue
        for workers in sorted({1, cores}):
            suffix = f"{workers} worker{'s' if workers > 1 else ''}"
            ratio(
                f"{label} / N-Triples, {suffix}",
                rounds,
                f"ldids N-Triples, {suffix}",  # the time of the N-Triples run over this one's
                f"ldids {label}, {suffix}",
                "(target >= 0.50)",
            )
            reference = outputs[f"ldids N-Triples, {suffix}"]
            same = same_statements(outputs[f"ldids {label}, {suffix}"], reference)
            print(f"  {label}, {suffix}: the statements of the N-Triples run: {same}")
    if not args.keep:
        for path in [*outputs.values(), OUT / "pyoxigraph.nt"]:
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
