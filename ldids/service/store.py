"""What every normalization learned, kept: an embedded RDF store on disk (pyoxigraph).

Each run's ``owl:sameAs`` links go into the graph ``ldids:links``; each rewrite's original
form goes into ``ldids:crosswalk`` as ``<canonical> ldids:originalForm "as written"``. Later,
:meth:`IdentityStore.known` answers which identifiers are known to name the same thing as
one, following ``owl:sameAs`` both ways. No set-up: the store is a folder, created on first
use (by default ``$XDG_DATA_HOME/ldids/store``, else ``~/.local/share/ldids/store``).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyoxigraph

from ldids.namespace import NAMESPACE_IRI
from ldids.passes import graph as passes
from ldids.passes.config import Config

__all__ = ["IdentityStore", "default_location"]

_LINKS = pyoxigraph.NamedNode(NAMESPACE_IRI + "links")
_CROSSWALK = pyoxigraph.NamedNode(NAMESPACE_IRI + "crosswalk")
_SAME_AS = pyoxigraph.NamedNode(str(passes.SAME_AS))
_ORIGINAL = pyoxigraph.NamedNode(NAMESPACE_IRI + "originalForm")


#: Statements added between two flushes of the store's write buffers. Left alone, the
#: buffers grew by about 1 KiB a statement and were never written out (190 MiB of server
#: memory for 200,000 links); flushed this often they stay near 10 MiB, and writing is no
#: slower (a flush costs some 25 ms; a flush per request cost four fifths of the throughput).
FLUSH_EVERY = 10_000

_LINK_LINE = re.compile(rf"<([^>]*)> <{re.escape(str(passes.SAME_AS))}> <([^>]*)> \.")


def default_location() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ldids" / "store"


def _iri(text: str) -> str:
    # SPARQL IRIREF excludes these characters; identifiers that hold one cannot be asked about.
    if any(ch in text for ch in '<>"{}|^`\\ '):
        raise ValueError(f"not usable as an IRI in a query: {text!r}")
    return f"<{text}>"


class IdentityStore:
    """Links and original forms of every normalization, and the questions asked of them."""

    def __init__(self, location: str | Path | None = None) -> None:
        path = Path(location) if location is not None else default_location()
        path.mkdir(parents=True, exist_ok=True)
        self.location = path
        self._store = pyoxigraph.Store(str(path))
        self._unflushed = 0
        self._counting = threading.Lock()  # record() is called from several threads at once
        self._flushing = threading.Lock()

    def record(self, result: passes.Result) -> int:
        """Keep a run's links and original forms; returns how many statements were added."""
        quads = [
            pyoxigraph.Quad(pyoxigraph.NamedNode(str(s)), _SAME_AS, pyoxigraph.NamedNode(str(o)), _LINKS)
            for s, _, o, _ in result.links
        ]
        for change in result.rewrites:
            canonical = pyoxigraph.NamedNode(str(change.canonical))
            quads.append(pyoxigraph.Quad(canonical, _ORIGINAL, pyoxigraph.Literal(str(change.original)), _CROSSWALK))
        return self._extend(quads)

    def _extend(self, quads: list[pyoxigraph.Quad]) -> int:
        # One transaction: durable through the store's write-ahead log once it returns, so a
        # link the service has answered with survives kill -9 (tests/test_service_store.py).
        self._store.extend(quads)
        with self._counting:
            self._unflushed += len(quads)
            due = self._unflushed >= FLUSH_EVERY
            if due:
                self._unflushed = 0
        # One flush at a time; a request that finds one under way does not wait for it.
        if due and self._flushing.acquire(blocking=False):
            try:
                self._store.flush()
            finally:
                self._flushing.release()
        return len(quads)

    def record_links(self, lines: Iterable[str]) -> int:
        """Keep owl:sameAs links given as N-Triples lines (from a streamed normalization)."""
        quads = []
        for line in lines:
            found = _LINK_LINE.fullmatch(line)
            if found is not None:
                subject, object_ = (pyoxigraph.NamedNode(part) for part in found.groups())
                quads.append(pyoxigraph.Quad(subject, _SAME_AS, object_, _LINKS))
        return self._extend(quads)

    def record_originals(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Keep (canonical IRI, form as written) pairs of a run's rewrites."""
        quads = [
            pyoxigraph.Quad(pyoxigraph.NamedNode(canonical), _ORIGINAL, pyoxigraph.Literal(original), _CROSSWALK)
            for canonical, original in pairs
        ]
        return self._extend(quads)

    def flush(self) -> None:
        """Write all buffers to disk now (at shutdown)."""
        self._store.flush()

    def known(self, text: str, config: Config | None = None) -> dict[str, Any]:
        """The canonical IRI of ``text``, the identifiers known to be the same, and the forms
        it was found written in. Raises ParseError if ``text`` is no valid identifier."""
        canonical = (config or Config()).registry.canonical(text)
        subject = _iri(canonical)
        path = f"(<{_SAME_AS.value}>|^<{_SAME_AS.value}>)+"
        same = self._store.query(
            f"SELECT DISTINCT ?x WHERE {{ GRAPH <{_LINKS.value}> {{ {subject} {path} ?x }} FILTER (?x != {subject}) }}"
        )
        forms = self._store.query(
            f"SELECT DISTINCT ?f WHERE {{ GRAPH <{_CROSSWALK.value}> {{ {subject} <{_ORIGINAL.value}> ?f }} }}"
        )
        return {
            "canonical": canonical,
            "same_as": sorted(solution["x"].value for solution in same),  # type: ignore[union-attr]
            "written_as": sorted(solution["f"].value for solution in forms),  # type: ignore[union-attr]
        }
