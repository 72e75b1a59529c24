"""One corpus through every path, which must all agree (DESIGN.md §8).

The corpus (tests/data/paths/) is real FOXML and an OAI-PMH response read through
ldids' readers, hand-written TriG with named graphs (every scheme in canonical and other
forms, invalid identifiers, bare PIDs of the subject's own namespace, of a configured one
and foreign ones, identity-predicate statements, a link already in the data) and N-Quads
lines kept as written (UCHAR escapes), with a sixth scheme that only this test registers
(tests/data/toy_scheme.py). It is written out as N-Quads, which every path takes, and run
through:

- the graph passes (the reference);
- the streamed dump with 1 and 2 workers, keeping a crosswalk (candidate lines go through
  the passes whole) and not (the compiled per-term loop decides);
- Dask, on a local cluster of worker processes;
- a pyoxigraph store and an ``oxigraph serve`` endpoint, normalized in place over SPARQL;
- the HTTP service, N-Quads in, N-Quads (streamed) or TriG (graph passes) out.

Compared with the graph passes: the statements (N-Quads lines, blank nodes labelled by
content, ``"x"^^xsd:string`` written ``"x"``: the same literal in RDF 1.1), the owl:sameAs
statements, the crosswalk rows where a path keeps them (N-Quads in them re-serialized),
and the summary's identifiers rewritten per scheme and count of invalid identifiers, read
from each path's own summary by the adapters below.

A path that disagrees is marked ``xfail(strict=True)`` for that comparison only, with the
divergence as its reason (see DIVERGENCES).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
from rdflib.namespace import XSD
from rdflib.term import Literal, Node

from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.ntriples import Quad, quad_line
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.passes.decision import DC_IDENTIFIER, REASONS, SAME_AS_IRI
from ldids.rdf import io as rdfio

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "paths"
#: The sources of the corpus and the reader of each.
SOURCES = (
    ("kramerius-fedora-om-5035a48a-5e2e-486c-8127-2fa650842e46.xml", "foxml"),
    ("oaiprovider-demo_ItemOne.xml", "foxml"),
    ("pyoai-fake1-00004.xml", "oai-pmh"),
    ("identifiers.trig", "trig"),
)
#: Lines appended to the corpus as they are written (a reader would undo their escapes).
VERBATIM = "escapes.nq"
TOY = "toy_scheme"
OXIGRAPH = shutil.which("oxigraph", path=str(Path(sys.executable).parent)) or shutil.which("oxigraph")
BLOCK = 2048  # bytes per block, chunk or partition: the corpus is cut into many


def make_config() -> Config:
    return Config(
        bare_pid_predicates=frozenset({DC_IDENTIFIER}),
        pid_namespaces=frozenset({"archive"}),
        fedora_oai_namespaces=frozenset({"repo.example.org"}),
        schemes=(TOY,),
    )


# -- What a path gives back, made comparable --------------------------------------------------


def comparable(document: dict[str, Any]) -> str:
    """A summary document (ldids.passes.summary) without what only one way of running
    knows (its "run": lines, seconds, samples naming files), as a string to compare."""
    return json.dumps({key: value for key, value in document.items() if key != "run"}, sort_keys=True)


Row = tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    statements: frozenset[str]  # the output but its owl:sameAs statements, as N-Quads lines
    links: frozenset[str]  # the owl:sameAs statements of the output
    crosswalk: frozenset[Row] | None  # where the path keeps a crosswalk
    summary: str | None  # where the path reports one (comparable())


def _plain(node: Node | None) -> Node | None:
    """``"x"^^xsd:string`` as ``"x"``: one literal in RDF 1.1, which stores keep in either form."""
    if isinstance(node, Literal) and node.datatype == XSD.string:
        return Literal(str(node))
    return node


def outcome(quads: list[Quad], crosswalk: frozenset[Row] | None, summary: str | None) -> Outcome:
    lines = [
        quad_line((_plain(s), p, _plain(o), g))  # type: ignore[arg-type]
        for s, p, o, g in rdfio.label_blank_nodes(quads)
    ]
    links = frozenset(line for line in lines if f" <{SAME_AS_IRI}> " in line)
    return Outcome(frozenset(lines) - links, links, crosswalk, summary)


def read_nquads(data: bytes) -> list[Quad]:
    return rdfio.read_bytes(data, "nquads").quads


def _parsed(line: str) -> pyoxigraph.Quad:
    (quad,) = pyoxigraph.parse(line.encode("utf-8"), format=pyoxigraph.RdfFormat.N_QUADS, lenient=True)
    assert isinstance(quad, pyoxigraph.Quad)
    return quad


def crosswalk_row(cells: list[str]) -> Row:
    """A crosswalk row with its terms and statements re-serialized (blank node labels
    kept): a streamed row writes the statement as it was read, escapes and all."""
    kind, scheme, position, original, canonical, statement, rewritten, kept = cells
    terms = [str(_parsed(f"<urn:x:s> <urn:x:p> {text} .").object) for text in (original, canonical)]
    lines = [str(_parsed(text)) if text else "" for text in (statement, rewritten)]
    return (kind, scheme, position, *terms, *lines, kept)


def read_crosswalk(path: Path) -> frozenset[Row]:
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    assert rows[0] == list(passes.Crosswalk.FIELDS)
    return frozenset(crosswalk_row(row) for row in rows[1:])


# -- The paths, each with its summary adapter ---------------------------------------------------


def run_graph(corpus: Path, work: Path, runs: Runs) -> Outcome:
    result = passes.normalize(rdfio.read([str(corpus)], rdfio.resolve_format("nquads")).quads, make_config())
    return outcome(
        result.quads + result.links,
        frozenset(crosswalk_row(row.values()) for row in passes.crosswalk(result)),
        comparable(result.summary().to_json()),
    )


def stream_path(workers: int, keep_crosswalk: bool) -> Callable[[Path, Path, Runs], Outcome]:
    def run(corpus: Path, work: Path, runs: Runs) -> Outcome:
        output, walk = work / "out.nq", work / "crosswalk.csv"
        summary = normalize_dump(
            [str(corpus)],
            str(output),
            Settings(make_config(), quads=True, crosswalk=keep_crosswalk),
            workers=workers,
            crosswalk=str(walk) if keep_crosswalk else None,
            block_size=BLOCK,
        )
        return outcome(
            read_nquads(output.read_bytes()),
            read_crosswalk(walk) if keep_crosswalk else None,
            comparable(summary.to_json()),
        )

    return run


def run_dask(corpus: Path, work: Path, runs: Runs) -> Outcome:
    from ldids.dumps.cluster import normalize_on_dask

    folder = work / "out"
    summary = normalize_on_dask(
        [str(corpus)],
        str(folder),
        Settings(make_config(), quads=True, crosswalk=True),
        client=runs.dask_client(),
        blocksize=BLOCK,
        crosswalk=True,
    )
    parts = sorted(folder.glob("part-*.nq"))
    assert len(parts) > 2  # really cut into partitions
    data = b"".join(part.read_bytes() for part in parts) + (folder / "links.nt").read_bytes()
    # The stream's DumpSummary.
    return outcome(read_nquads(data), read_crosswalk(folder / "crosswalk.csv"), comparable(summary.to_json()))


class _SparqlProtocol(BaseHTTPRequestHandler):
    """The SPARQL 1.1 Protocol (query and update by POST) over a pyoxigraph store."""

    server: _StoreServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
        try:
            if self.path == "/query":
                solutions = self.server.store.query(body)
                assert isinstance(solutions, pyoxigraph.QuerySolutions | pyoxigraph.QueryBoolean)
                payload = solutions.serialize(format=pyoxigraph.QueryResultsFormat.JSON)
                assert payload is not None
                kind = "application/sparql-results+json"
            elif self.path == "/update":
                self.server.store.update(body)
                payload, kind = b"", "text/plain"
            else:
                self.send_error(404)
                return
        except (SyntaxError, OSError, ValueError) as error:
            self.send_error(400, str(error))
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _StoreServer(ThreadingHTTPServer):
    def __init__(self, store: pyoxigraph.Store) -> None:
        super().__init__(("127.0.0.1", 0), _SparqlProtocol)
        self.store = store


def run_pyoxigraph(corpus: Path, work: Path, runs: Runs) -> Outcome:
    """normalize_store on a pyoxigraph store in this process: it speaks SPARQL over HTTP
    only, so the store is served by the few lines of _SparqlProtocol."""
    from ldids.dumps.sparql import normalize_store

    store = pyoxigraph.Store()
    # Strictly: the corpus's invalid identifiers are all valid IRIs (RFC 3987), as RDF requires.
    store.load(corpus.read_bytes(), format=pyoxigraph.RdfFormat.N_QUADS)
    server = _StoreServer(store)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        summary = normalize_store(f"{base}/query", f"{base}/update", make_config(), batch=7)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    dumped = store.dump(format=pyoxigraph.RdfFormat.N_QUADS)
    assert dumped is not None
    return outcome(read_nquads(dumped), None, comparable(summary.summary().to_json()))


def run_oxigraph_server(corpus: Path, work: Path, runs: Runs) -> Outcome:
    """normalize_store on an ``oxigraph serve`` endpoint started (and stopped) here."""
    from ldids.dumps.sparql import normalize_store

    if OXIGRAPH is None:
        pytest.skip("no oxigraph server binary (the pip package oxigraph provides it)")
    # Loaded leniently, as a store takes a stranger's dump (tests/conftest.py).
    with runs.oxigraph_server(work / "store", corpus.read_bytes(), "application/n-quads") as base:
        summary = normalize_store(f"{base}/query", f"{base}/update", make_config(), batch=7)
        dump = urllib.request.Request(f"{base}/store", headers={"Accept": "application/n-quads"})
        with urllib.request.urlopen(dump, timeout=30) as answer:
            dumped = answer.read()
    return outcome(read_nquads(dumped), None, comparable(summary.summary().to_json()))


def service_path(accept: str) -> Callable[[Path, Path, Runs], Outcome]:
    def run(corpus: Path, work: Path, runs: Runs) -> Outcome:
        from fastapi.testclient import TestClient

        from ldids.service.app import create_app

        with TestClient(create_app(make_config())) as client:
            answer = client.post(
                "/normalize",
                content=corpus.read_bytes(),
                headers={"Content-Type": "application/n-quads", "Accept": accept},
            )
        assert answer.status_code == 200, answer.text
        # The Ldids-Summary header: the summary document; none when streamed.
        header = answer.headers.get("Ldids-Summary")
        summary = None if header is None else comparable(json.loads(header))
        return outcome(rdfio.read_bytes(answer.content, accept).quads, None, summary)

    return run


PATHS: dict[str, Callable[[Path, Path, Runs], Outcome]] = {
    "graph": run_graph,
    "stream-1-crosswalk": stream_path(1, True),
    "stream-2-crosswalk": stream_path(2, True),
    "stream-1": stream_path(1, False),
    "stream-2": stream_path(2, False),
    "dask": run_dask,
    "pyoxigraph-store": run_pyoxigraph,
    "oxigraph-server": run_oxigraph_server,
    "service-nquads": service_path("application/n-quads"),
    "service-trig": service_path("application/trig"),
}
STREAMED = ("stream-1-crosswalk", "stream-2-crosswalk", "stream-1", "stream-2", "dask", "service-nquads")
STORES = ("pyoxigraph-store", "oxigraph-server")
WITH_CROSSWALK = ("stream-1-crosswalk", "stream-2-crosswalk", "dask")


class Runs:
    """Each path run once, when a test first asks for it; the corpus built once."""

    def __init__(self, work: Path, oxigraph_server: Callable[[Path, bytes, str], AbstractContextManager[str]]) -> None:
        self.work = work
        self.oxigraph_server = oxigraph_server
        self.corpus = build_corpus(work / "corpus.nq")
        self._done: dict[str, Outcome | BaseException] = {}
        self._cluster: Any = None
        self._client: Any = None

    def __call__(self, path: str) -> Outcome:
        if path not in self._done:
            folder = self.work / path
            folder.mkdir()
            try:
                self._done[path] = PATHS[path](self.corpus, folder, self)
            except BaseException as error:  # every comparison of the path fails (or skips) alike
                self._done[path] = error
        done = self._done[path]
        if isinstance(done, BaseException):
            raise done
        return done

    def dask_client(self) -> Any:
        if self._client is None:
            import distributed

            self._cluster = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
            )
            self._client = distributed.Client(self._cluster)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._cluster.close()


def build_corpus(target: Path) -> Path:
    """The sources read by ldids' readers, as one N-Quads file (statements once each,
    blank nodes labelled apart), then the verbatim lines."""
    quads: list[Quad] = []
    for name, reader in SOURCES:
        quads.extend(rdfio.read([str(CORPUS / name)], rdfio.resolve_format(reader)).quads)
    unique = list(dict.fromkeys(quads))
    written = rdfio.serialize(rdfio.label_blank_nodes(unique), rdfio.resolve_format("nquads"))
    target.write_bytes(written + (CORPUS / VERBATIM).read_bytes())
    return target


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory,
    oxigraph_server: Callable[[Path, bytes, str], AbstractContextManager[str]],
) -> Iterator[Runs]:
    """The toy scheme importable by name here and in every worker process (forked,
    spawned, Dask's), as a scheme module of one's own would be."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(DATA))
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(DATA), os.environ.get("PYTHONPATH")])))
        found = Runs(tmp_path_factory.mktemp("paths"), oxigraph_server)
        try:
            yield found
        finally:
            found.close()


# -- Where paths disagree with the graph passes today ------------------------------------------


DIVERGENCES: dict[tuple[str, str], str] = {}


def paths(comparison: str, names: tuple[str, ...] | list[str]) -> list[Any]:
    """The paths to compare, each known divergence marked as such."""
    found = []
    for name in names:
        reason = DIVERGENCES.get((comparison, name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        found.append(pytest.param(name, id=name, marks=marks))
    return found


# -- The corpus holds what it should ------------------------------------------------------------

SCHEMES = {"info-fedora", "oai", "poi", "handle", "fedora-pid", "toy"}


def test_the_corpus_has_every_case(runs: Runs) -> None:
    quads = rdfio.read([str(runs.corpus)], rdfio.resolve_format("nquads")).quads
    result = passes.normalize(quads, make_config())
    # No two statements become one: the stream would write both, the graph passes one.
    assert result.merged == 0
    assert {change.scheme for change in result.rewrites} == SCHEMES
    assert {finding.scheme for finding in result.findings} == SCHEMES
    assert {change.position for change in result.rewrites} == {"subject", "object", "graph"}
    left = {reason for step in passes.rewrite(quads, make_config()) for reason in step.left}
    assert left == set(REASONS)
    assert any(quad[3] is not None for quad in quads)
    # Real data in it: the Kramerius object's own uuid: PID in dc:identifier is rewritten,
    # its ccnb: one is not; Fedora's OAI provider links the object to its item.
    originals = {str(change.original) for change in result.rewrites}
    assert "uuid:5035a48a-5e2e-486c-8127-2fa650842e46" in originals
    assert "ccnb:cnb000573734" not in originals
    assert (
        "<info:fedora/demo:ItemOne> <http://www.w3.org/2002/07/owl#sameAs> <http://purl.org/poi/example.org/item1> ."
        in {quad_line(link) for link in result.links}
    )


def test_the_toy_scheme_is_registered_by_this_test_alone(runs: Runs) -> None:
    assert "toy" not in Config().registry.names
    assert "toy" in make_config().registry.names
    package = Path(passes.__file__).resolve().parents[1]
    sources = [path for path in package.rglob("*") if path.suffix in (".py", ".c", ".pyi", ".tsv")]
    assert not [
        path
        for path in sources
        if TOY in path.read_text(encoding="utf-8") or "toy.example" in path.read_text(encoding="utf-8")
    ]


# -- Every path against the graph passes -------------------------------------------------------

OTHERS = [name for name in PATHS if name != "graph"]


@pytest.mark.parametrize("path", paths("statements", OTHERS))
def test_statements(runs: Runs, path: str) -> None:
    expected, found = runs("graph").statements, runs(path).statements
    assert (sorted(expected - found), sorted(found - expected)) == ([], [])


@pytest.mark.parametrize("path", paths("links", OTHERS))
def test_links(runs: Runs, path: str) -> None:
    expected, found = runs("graph").links, runs(path).links
    assert (sorted(expected - found), sorted(found - expected)) == ([], [])


@pytest.mark.parametrize("path", paths("crosswalk", WITH_CROSSWALK))
def test_crosswalk(runs: Runs, path: str) -> None:
    expected, found = runs("graph").crosswalk, runs(path).crosswalk
    assert expected is not None
    assert found is not None
    assert (sorted(expected - found), sorted(found - expected)) == ([], [])


@pytest.mark.parametrize("path", paths("summary", OTHERS))
def test_summary(runs: Runs, path: str) -> None:
    assert runs(path).summary == runs("graph").summary


@pytest.mark.parametrize("path", list(PATHS))
def test_every_summary_is_the_published_document(runs: Runs, path: str) -> None:
    import jsonschema

    from ldids.passes.summary import schema

    summary = runs(path).summary
    assert summary is not None
    jsonschema.validate(json.loads(summary), schema())
