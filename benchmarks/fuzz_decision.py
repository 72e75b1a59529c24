"""Hold the compiled per-line loop's decisions (ldids/dumps/_scan.c, with its compiled
decision of IRIs in prefixed forms) to the Python reference loop (ldids/dumps/stream.py,
which asks ldids.passes.decision.decide about every term) on N generated terms (default
10,000,000), on every core.

Each term of benchmarks/fuzz_canonical.py (valid, borderline and invalid forms of every
scheme, prefixes in any case, escapes whole and broken, Unicode, controls, long texts and
mutations) is written into a statement in one of several ways: as an IRI (characters
N-Triples does not allow in one written as \\u escapes), as an IRI with one character
\\u-escaped, as a plain or xsd:string literal, as a bare-PID literal under dc:identifier
of an info:fedora subject, as a predicate or a graph name; or it is the subject of a
bare-PID-shaped literal under dc:identifier, whose namespace is often the one the subject
carries (the compiled loop decides those itself, from the subject's decision); or the
subject or object of Fedora's OAI itemID (an identity predicate), the other term often an
identifier. Blocks of such lines go through both loops, each with cold memos; the law: the
same output bytes, counts (rewritten, left alone, invalid), problems reported, bad lines
and links. The identity statements, which both loops decide term by term and whose links
they read from the raw terms, are also held to the graph passes on RDF terms.
tests/test_decision_fuzz.py runs a short seeded version; exit status 1 if the law breaks.

    python benchmarks/fuzz_decision.py [--count N] [--seed S] [--workers N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from ldids.dumps import stream, worker
from ldids.dumps.settings import Settings
from ldids.ntriples import iri, literal
from ldids.passes import decision
from ldids.passes.config import ITEM_ID, Config

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_canonical

DC_IDENTIFIER = "http://purl.org/dc/elements/1.1/identifier"
XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
#: Configurations whose decisions differ: the benchmark's, and one that also links POIs to
#: Fedora objects and takes bare PIDs of a configured namespace (the compiled decision of
#: IRIs is off there, and the loop must still agree).
CONFIGS = (
    Config(bare_pid_predicates=frozenset({DC_IDENTIFIER})),
    Config(
        bare_pid_predicates=frozenset({DC_IDENTIFIER}),
        pid_namespaces=frozenset({"demo"}),
        fedora_oai_namespaces=frozenset({"example.org"}),
        literals_to_iris=True,
    ),
)


def escape_one(rng: random.Random, text: str) -> str:
    """``text`` as an N-Triples IRI with one of its characters written as a \\u escape."""
    written = iri(text)
    if len(text) == 0:
        return written
    at = rng.randrange(len(text))
    body = written[1:-1]
    if body != text:  # escaped already
        return written
    return f"<{body[:at]}\\u{ord(body[at]):04X}{body[at + 1 :]}>"


#: Namespaces of bare PIDs besides those found in the subject: URI schemes (never PID
#: namespaces), prefixes of prefixed schemes, a configured one, others.
BARE_NAMESPACES = ("demo", "Demo", "urn", "URN", "doi", "http", "oai", "OAI", "hdl", "info", "catkey", "a.b-c", "")


def bare_pid_line(rng: random.Random, text: str) -> str:
    """A bare-PID-shaped literal under dc:identifier whose namespace is often the PID
    namespace the subject carries (the compiled loop reads that from the subject's own
    decision): ``text`` is the subject, an IRI (or escaped, or a blank node), and the
    literal's namespace a run of PID namespace characters of it."""
    if rng.random() < 0.5:
        # A subject that carries a PID more often than the generated terms do.
        form = rng.choice(("info:fedora/{}", "info:fedora/{}/DS1", "http://purl.org/poi/a.b/{}", "oai:a.b:{}"))
        text = form.format(fuzz_canonical.pid(rng))
        text = fuzz_canonical.flip_case(rng, text) if rng.random() < 0.2 else text
    roll = rng.random()
    subject = iri(text) if roll < 0.8 else escape_one(rng, text) if roll < 0.9 else "_:b1"
    # The namespace the subject carries (asked of the reference: it only picks the input),
    # a run of the subject's text that may look like one, or another.
    carried = decision.subject_namespace(text, CONFIGS[0])
    runs = re.findall(r"[A-Za-z0-9.\-]+", text)
    roll = rng.random()
    if carried is not None and roll < 0.5:
        namespace = carried
    elif runs and roll < 0.8:
        namespace = rng.choice(runs)
    else:
        namespace = rng.choice(BARE_NAMESPACES)
    if rng.random() < 0.1:
        namespace = fuzz_canonical.flip_case(rng, namespace)
    if rng.random() < 0.5:
        local = str(rng.randrange(10**6))
    else:
        local = fuzz_canonical.pid(rng).replace("%3A", ":").replace("%3a", ":").rpartition(":")[2] or "1"
    value = namespace + rng.choice((":", ":", ":", ":", "%3A", "%3a", "::", "")) + local
    if rng.random() < 0.15:
        value = fuzz_canonical.mutated(rng, value)
    roll = rng.random()
    if roll < 0.85:
        written = literal(value)
    else:
        written = literal(value, None, XSD_STRING) if roll < 0.95 else literal(value, "en")
    return f"{subject} <{DC_IDENTIFIER}> {written} ."


#: Datatypes of identity statements' objects: those of identifier literals, and some whose
#: lexical forms rdflib rewrites (xsd:token's white space, xsd:boolean's), which the graph
#: passes read as rdflib writes them.
IDENTITY_DATATYPES = (None, None, XSD_STRING, "en", XSD + "token", XSD + "boolean", XSD + "anyURI")


def identity_line(rng: random.Random, text: str) -> str:
    """A statement of Fedora's OAI itemID (an identity predicate) in which ``text`` is the
    subject or the object, the other term often an identifier (valid or not) of another
    form, or ``text`` again in another case."""
    other = rng.choice((fuzz_canonical.info_fedora, fuzz_canonical.poi, fuzz_canonical.oai, fuzz_canonical.handle))(rng)
    roll = rng.random()
    if roll < 0.1:
        other = text
    elif roll < 0.2:
        other = fuzz_canonical.flip_case(rng, text)
    subject, object_ = (text, other) if rng.random() < 0.5 else (other, text)
    roll = rng.random()
    written_subject = iri(subject) if roll < 0.85 else escape_one(rng, subject) if roll < 0.95 else "_:b1"
    roll = rng.random()
    if roll < 0.5:
        written_object = iri(object_)
    elif roll < 0.6:
        written_object = escape_one(rng, object_)
    elif roll < 0.65:
        written_object = "_:b2"
    else:
        kind = rng.choice(IDENTITY_DATATYPES)
        value = f" {object_} " if kind == XSD + "token" and rng.random() < 0.5 else object_
        written_object = literal(value, "en") if kind == "en" else literal(value, None, kind)
    return f"{written_subject} <{ITEM_ID}> {written_object} ."


def line_of(rng: random.Random, text: str) -> str:
    """One statement in which ``text`` is a term, written one of several ways."""
    kind = rng.randrange(11)
    if kind == 10:
        return identity_line(rng, text)
    if kind >= 8:
        return bare_pid_line(rng, text)
    subject = "<info:fedora/demo:1>" if rng.random() < 0.5 else "<http://example.org/s>"
    if kind == 0:
        return f"{subject} <http://example.org/p> {iri(text)} ."
    if kind == 1:
        return f"{iri(text)} <http://example.org/p> <http://example.org/o> ."
    if kind == 2:
        return f"{subject} <http://example.org/p> {escape_one(rng, text)} ."
    if kind == 3:
        return f"{subject} <http://example.org/p> {literal(text)} ."
    if kind == 4:
        return f"{subject} <http://example.org/p> {literal(text, None, XSD_STRING)} ."
    if kind == 5:
        return f"{subject} <{DC_IDENTIFIER}> {literal(text)} ."
    if kind == 6:
        return f"{subject} {iri(text)} <http://example.org/o> ."
    return f"{subject} <http://example.org/p> <http://example.org/o> {iri(text)} ."


def blocks(seed: int, count: int, size: int = 2_000) -> Iterator[bytes]:
    """``count`` terms as lines, in blocks of ``size`` lines."""
    rng = random.Random(seed)
    lines: list[str] = []
    for _, text in fuzz_canonical.terms(seed, count):
        lines.append(line_of(rng, text))
        if len(lines) == size:
            yield ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
            lines = []
    if lines:
        yield ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def differences(compiled: stream.BlockResult, python: stream.BlockResult) -> list[str]:
    """What differs between the two loops' results of one block."""
    found = []
    if compiled.output != python.output:
        one, two = compiled.output.splitlines(), python.output.splitlines()
        pairs = [(a, b) for a, b in zip(one, two, strict=False) if a != b][:3]
        found.append(f"output differs ({len(one)} and {len(two)} lines): {pairs}")
    for name in ("lines", "written", "statements", "rewritten_statements", "rewritten", "left", "invalid"):
        if getattr(compiled, name) != getattr(python, name):
            found.append(f"{name}: {getattr(compiled, name)} != {getattr(python, name)}")
    if (compiled.problems, compiled.problem_samples) != (python.problems, python.problem_samples):
        found.append(f"problems: {compiled.problem_samples[:3]} != {python.problem_samples[:3]}")
    if compiled.bad != python.bad:
        found.append(f"bad lines: {compiled.bad[:2]} != {python.bad[:2]}")
    # A term's links are listed once per block by the compiled loop, once per occurrence
    # by the Python loop; the run de-duplicates both (ldids.dumps.sorting).
    if sorted(set(compiled.links)) != sorted(set(python.links)):
        found.append(f"links: {sorted(set(compiled.links) ^ set(python.links))[:3]}")
    if compiled.same_as != python.same_as:
        found.append("owl:sameAs statements differ")
    return found


def graph_differences(data: bytes, settings: Settings) -> list[str]:
    """What differs, on a block's identity statements, between the Python loop, which
    decides them term by term and reads their link from the raw terms, and the graph passes
    on RDF terms (ldids.passes.graph.rewrite_quad and links: the loop's path with a
    crosswalk kept), the crosswalk left out."""
    marker = f"<{ITEM_ID}>".encode()
    lines = b"".join(line for line in data.splitlines(keepends=True) if marker in line)
    if not lines:
        return []
    python = stream._in_python(worker._Worker(settings), lines, 1)
    graph = stream._in_python(worker._Worker(replace(settings, crosswalk=True)), lines, 1)
    return [f"identity statements: {what}" for what in differences(python, graph)]


def run(seed: int, count: int) -> tuple[int, int, list[str]]:
    """(terms, rewritten terms, failures) over ``count`` terms of one seed, under each
    configuration in turn."""
    assert stream.COMPILED, "ldids.dumps._scan was not built"
    failures: list[str] = []
    rewritten = 0
    for index, data in enumerate(blocks(seed, count)):
        config = CONFIGS[index % len(CONFIGS)]
        settings = Settings(config, on_error="skip", quads=True)
        # rdflib warns of the lexical forms it cannot read (a typed literal's, read for
        # an identity statement's link): the generated ones are meant to be unreadable.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = stream._compiled(worker._Worker(settings), data, 1)
            python = stream._in_python(worker._Worker(settings), data, 1)
            found = differences(compiled, python) + graph_differences(data, settings)
        rewritten += sum(python.rewritten.values())
        failures += [f"seed {seed} block {index}: {what}" for what in found]
    return count, rewritten, failures


def _run(job: tuple[int, int]) -> tuple[int, int, list[str]]:
    return run(*job)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    size = 100_000  # terms a job, each job with a seed of its own: the same terms whatever the workers
    jobs = [
        (args.seed * 1_000_003 + index, min(size, args.count - start))
        for index, start in enumerate(range(0, args.count, size))
    ]
    started = time.perf_counter()
    terms = rewritten = 0
    failures: list[str] = []
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for done, changed, failed in pool.imap_unordered(_run, jobs):
            terms, rewritten, failures = terms + done, rewritten + changed, failures + failed
    elapsed = time.perf_counter() - started
    print(
        f"{terms:,} terms in statements, {rewritten:,} of them rewritten, in {elapsed:.0f}s "
        f"(seed {args.seed}, {args.workers} workers); blocks that differ: {len(failures)}"
    )
    for failure in failures[:20]:
        print("  " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
