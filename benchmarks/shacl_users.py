"""Benchmark users' shapes with whole-graph constraints on each SHACL engine ldids could run.

Generates a dump of N triples (default 1M, deterministic) of records, people and parts, and
a shapes file whose constraints need the whole graph: ``sh:minCount``/``sh:maxCount``,
``sh:class`` (the type of another node), ``sh:uniqueLang``, ``sh:qualifiedValueShape`` with
``sh:qualifiedMinCount``, and a SPARQL-based constraint comparing two values. About one
record in 20 breaks one of them. Then, each engine as its own process, in turn (A B C A B
C ...): read the dump, validate, count the results. Prints the median seconds, the median of
the paired ratios to the first engine, the peak RSS (wait4) and the number of results, which
must agree between engines.

    python benchmarks/shacl_users.py [--triples N] [--repeat N] [--engines a,b,...]

Engines: ``rdflib`` (pyshacl over rdflib's in-memory store), ``oxigraph`` (pyshacl over
pyoxigraph, through oxrdflib), ``shacl``, ``turbo`` (pyshacl-turbo), ``ldids`` (``ldids
validate -s``: the default engine plus reading and the report); each one not installed is
skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"

SHAPES = """\
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/ns#> .

ex:RecordShape a sh:NodeShape ;
    sh:targetClass ex:Record ;
    sh:property [ sh:path ex:identifier ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:string ] ;
    sh:property [ sh:path ex:title ; sh:minCount 1 ; sh:uniqueLang true ] ;
    sh:property [ sh:path ex:creator ; sh:minCount 1 ; sh:class ex:Person ] ;
    sh:property [
        sh:path ex:part ;
        sh:qualifiedValueShape [ sh:class ex:Chapter ] ;
        sh:qualifiedMinCount 1
    ] ;
    sh:sparql [
        a sh:SPARQLConstraint ;
        sh:message "modified before created" ;
        sh:select \"\"\"
            PREFIX ex: <http://example.org/ns#>
            SELECT $this ?value WHERE {
                $this ex:created ?created ; ex:modified ?value .
                FILTER (?value < ?created)
            }\"\"\"
    ] .
"""


def generate(path: Path, triples: int, seed: int = 11) -> None:
    """Records of 12 statements, each with two parts and a creator among few people."""
    rng = random.Random(seed)
    ns = "http://example.org/ns#"
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    # xsd:dateTime, which SPARQL 1.1 orders (§17.3); its xsd:date ordering is an extension
    # the compiled engine does not make (tests/test_validate_cli.py).
    date = "<http://www.w3.org/2001/XMLSchema#dateTime>"
    people = max(1, triples // 200)
    lines: list[str] = []
    for person in range(people):
        if person % 30:  # one person in 30 has no type: sh:class fails for their records
            lines.append(f"<{ns}person{person}> {rdf_type} <{ns}Person> .\n")
    record = 0
    while len(lines) < triples:
        r = f"<{ns}record{record}>"
        lines.append(f"{r} {rdf_type} <{ns}Record> .\n")
        if record % 50:  # one in 50 has no identifier, one in 70 two
            lines.append(f'{r} <{ns}identifier> "id-{record}" .\n')
        if record % 70 == 0:
            lines.append(f'{r} <{ns}identifier> "alt-{record}" .\n')
        lines.append(f'{r} <{ns}title> "Title {record}"@en .\n')
        lines.append(f'{r} <{ns}title> "Titel {record}"@de .\n')
        if record % 40 == 0:
            lines.append(f'{r} <{ns}title> "Other title {record}"@en .\n')
        lines.append(f"{r} <{ns}creator> <{ns}person{rng.randrange(people)}> .\n")
        for part in range(2):
            p = f"<{ns}record{record}-part{part}>"
            lines.append(f"{r} <{ns}part> {p} .\n")
            # One record in 45 has appendices only: the qualified count fails.
            kind = "Appendix" if part or record % 45 == 0 else "Chapter"
            lines.append(f"{p} {rdf_type} <{ns}{kind}> .\n")
        created = 2 + record % 27
        modified = created - 1 if record % 60 == 0 else created  # one in 60 modified before created
        lines.append(f'{r} <{ns}created> "2020-01-{created:02d}T10:00:00Z"^^{date} .\n')
        lines.append(f'{r} <{ns}modified> "2020-01-{modified:02d}T12:00:00Z"^^{date} .\n')
        record += 1
    path.write_text("".join(lines[:triples]))


def _count_pyshacl(report: object) -> int:
    from rdflib import Graph
    from rdflib.namespace import SH

    assert isinstance(report, Graph)
    return len(set(report.subjects(SH.focusNode, None)))


def run_engine(engine: str, data: Path, shapes: Path) -> int:
    """Validate in this process; print the number of results."""
    if engine in ("rdflib", "oxigraph"):
        from pyshacl import validate
        from rdflib import Graph

        graph = Graph(store="Oxigraph") if engine == "oxigraph" else Graph()
        graph.parse(data, format="ox-ntriples" if engine == "oxigraph" else "nt")
        shapes_graph = Graph().parse(shapes, format="turtle")
        _, report, _ = validate(graph, shacl_graph=shapes_graph, advanced=True, inference="none")
        count = _count_pyshacl(report)
    elif engine == "shacl":
        import shacl

        count = len(shacl.Shapes.from_file(str(shapes)).validate_file(str(data)).results)
    elif engine == "turbo":
        import pyshacl_turbo
        from rdflib import Graph

        graph = Graph().parse(data, format="nt")
        _, report, _ = pyshacl_turbo.validate(graph, shacl_graph=str(shapes), advanced=True)
        count = _count_pyshacl(report)
    else:
        raise SystemExit(f"unknown engine {engine}")
    print(count)
    return 0


def _command(engine: str, data: Path, shapes: Path) -> list[str] | None:
    modules = {"rdflib": "pyshacl", "oxigraph": "oxrdflib", "shacl": "shacl", "turbo": "pyshacl_turbo"}
    if engine == "ldids":
        ldids = shutil.which("ldids", path=str(Path(sys.executable).parent)) or shutil.which("ldids")
        if ldids is None:
            return None
        return [ldids, "validate", "-s", str(shapes), str(data), "-f", "json", "--limit", "0"]
    if importlib.util.find_spec(modules[engine]) is None:
        return None
    return [sys.executable, __file__, "--run", engine, str(data), str(shapes)]


def measure(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, standard output) of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{command} failed")
    return elapsed, usage.ru_maxrss / 1024, output.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engines", default="rdflib,oxigraph,shacl,turbo,ldids")
    parser.add_argument("--run", nargs=3, metavar=("ENGINE", "DATA", "SHAPES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        return run_engine(args.run[0], Path(args.run[1]), Path(args.run[2]))
    OUT.mkdir(exist_ok=True)
    data = OUT / f"users-{args.triples}.nt"
    if not data.exists():
        generate(data, args.triples)
    shapes = OUT / "users-shapes.ttl"
    shapes.write_text(SHAPES)
    commands = {}
    for engine in args.engines.split(","):
        command = _command(engine, data, shapes)
        if command is None:
            print(f"{engine}: not installed, skipped")
        else:
            commands[engine] = command
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, float] = dict.fromkeys(commands, 0.0)
    outputs: dict[str, str] = {}
    for _ in range(args.repeat):
        for name, command in commands.items():
            seconds, peak, output = measure(command)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
            outputs[name] = output if name != "ldids" else output[output.find('"violations"') :][:20]
    base = times[next(iter(commands))]
    print(f"{args.triples:,} triples, {args.repeat} rounds in turn (median)")
    for name in commands:
        median = statistics.median(times[name])
        ratio = statistics.median(b / a for a, b in zip(base, times[name], strict=True))
        print(f"{name:<10} {median:8.2f} s  {ratio:6.3f}x first  peak {peaks[name]:6.0f} MiB  results {outputs[name]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
