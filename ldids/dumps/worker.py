"""A streamed dump's decisions, per process: the memo the per-line loop fills, and
:meth:`_Worker.decide`, which asks :func:`ldids.passes.decision.decide` about a raw
N-Triples term the memo does not hold and keeps its answer in the form the compiled loop
reads (``ldids/dumps/_scan.c``). Processes forked for one run may share their decisions
(:func:`shared_decisions`). Nothing here decides: it remembers the one decision's answers.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from ldids.dumps.grammar import _parse_term, _unescape
from ldids.dumps.settings import Settings
from ldids.errors import Problem
from ldids.ntriples import iri, literal
from ldids.passes import decision
from ldids.passes.config import Config
from ldids.passes.decision import evict_oldest_half
from ldids.schemes import info_fedora, oai, pid, poi, uri_schemes

if TYPE_CHECKING:
    from rdflib.term import Node

    from ldids.dumps._scan import DecisionMemo, SharedDecisions
    from ldids.passes import graph as passes

_scan: ModuleType | None
try:
    from ldids.dumps import _scan
except ImportError:  # built without a C compiler: the per-line loop runs in Python
    _scan = None

#: Whether the per-line loop runs compiled (the ldids.dumps._scan extension was built).
COMPILED = _scan is not None

__all__ = ["COMPILED", "ScanTables", "shared_decisions"]

# What the Python loop's memo keeps of a decision on one raw term: (canonical raw term or
# None if unchanged, scheme, ("left", reason) or None, problems if invalid).
_Known = tuple["str | None", "str | tuple[str, str] | None", "tuple[Problem, ...] | None"]
# What the compiled loop keeps per key (ldids/dumps/_scan.c): None for no identifier; for a valid
# identifier rewritten, one byte (the scheme's index in _Worker.schemes) then the
# replacement, a single object as the commonest entry should be; (None, False, scheme) for
# one already canonical; (None, True, scheme, problems, the term's text) for an invalid one;
# (None, False, None, ("left", reason)) for one left alone.
_Value = (
    bytes
    | tuple[None, bool, str]
    | tuple[None, bool, None, tuple[str, str]]
    | tuple[None, bool, str, tuple[Problem, ...], str]
    | None
)
_SAME_AS = f"<{decision.SAME_AS_IRI}>"
_UNKNOWN = object()  # not yet looked up


@dataclass(frozen=True)
class ScanTables:
    """What the compiled loop reads (``ldids/dumps/_scan.c``, ``scan_block``): per worker,
    built once from the settings and the registry's declarations."""

    quads: bool  # N-Quads: graph names allowed
    stop_on_error: bool  # the first bad line ends the block
    all_slow: bool  # every candidate line goes to Python whole (a crosswalk is kept)
    rewrite_predicates: bool
    # key -> decision (filled by the loop), the older half forgotten when it holds
    # Settings.identifier_cache entries; None where the loop is not compiled.
    memo: DecisionMemo | None
    decide: Callable[[str, str | None, bool, str | None], _Value]
    schemes: tuple[str, ...]  # indexed by a rewriting value's first byte
    shared: SharedDecisions | None  # decisions shared with the run's other processes
    folded: tuple[bytes, ...]  # prefilter needles, matched in any ASCII case
    exact: tuple[bytes, ...]  # needles matched as they are (configured PID namespaces)
    bare_predicates: tuple[bytes, ...]  # raw predicates whose literals may be bare forms
    slow_predicates: tuple[bytes, ...]  # raw predicates whose statements Python sees whole
    # Raw identity predicates: their statements are decided term by term, then their terms as
    # written go to identity (_Worker.identity_link_of_raw), which adds the link they call for.
    identity_predicates: tuple[bytes, ...]
    identity: Callable[[bytes, bytes, bytes], None]
    # The compiled decision of IRIs in prefixed forms (_compiled_decisions): each scheme's
    # compiled canonicalizer or None, indexed as schemes; empty: off.
    compiled: tuple[Callable[[str], str | None] | None, ...]
    unchanged: tuple[_Value, ...]  # the value of an identifier already canonical, per scheme
    links: list[str]  # where the compiled loop puts the links of what it decides (new_links)
    bare_pids: BarePidTables | None  # the compiled decision of bare PIDs in literals; None: off


@dataclass(frozen=True)
class BarePidTables:
    """What the compiled loop needs to decide a bare PID in a literal under a bare-PID
    predicate itself (``bare_pid_decision`` in ``ldids/dumps/_scan.c``), derived from the
    scheme modules' declarations (:func:`_bare_pid_tables`)."""

    predicates: tuple[bytes, ...]  # the raw bare-PID predicates (that are no bare-handle predicates)
    datatypes: tuple[bytes, ...]  # the raw datatypes of literals that may hold identifiers
    namespace_chars: bytes  # pid.NAMESPACE_CHARS
    object_chars: bytes  # pid.OBJECT_ID_CHARS (and escaped octets)
    max_length: int  # of a normalized PID (pid.MAX_LENGTH)
    iri_prefix: bytes  # a PID's canonical IRI is this, then the normalized PID
    pid_namespaces: tuple[bytes, ...]  # configured namespaces: bare PIDs of these are taken anywhere
    uri_schemes: frozenset[str]  # a namespace that is one of these names is no PID's (lower case)
    scheme: int  # the index of fedora-pid in the schemes
    to_iri: bool  # a rewritten literal becomes an IRI (literals-to-iris)
    left_foreign: _Value  # the values of a bare PID left alone, by reason
    left_uri_scheme: _Value
    # Per scheme: how a subject's canonical IRI of that scheme carries its PID namespace
    # (Scheme.pid_namespace): NAMESPACE_NONE, NAMESPACE_AFTER_PREFIX (up to ':'; '*': none),
    # NAMESPACE_POI_LOCAL (the POI's local part, if a PID), NAMESPACE_PYTHON (ask Python);
    # and the prefix it is read after.
    rules: tuple[int, ...]
    rule_prefixes: tuple[bytes, ...]


class _Worker:
    """Per-process state: settings, the term caches, the candidate test."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        config = settings.config
        self._identifiers: passes.TermCache | None = None
        self.terms: dict[str, Node] = {}
        self.memo: dict[tuple[str, str | None, bool, str | None], _Known] = {}
        # Links of the terms decided since the last block ended (see Settings.run).
        self.new_links: list[str] = []
        # A line is a candidate if one of the schemes' prefilter needles occurs in it (in
        # any ASCII case, as the schemes' claims match: RFC 3986 §3.1), or, with bare forms
        # configured, if it might hold one.
        # A term may spell any character with a \u or \U escape (N-Triples §2.3, UCHAR), a
        # prefix's too: a line or term with one is a candidate, and its text is decided
        # unescaped. (Such lines are rare: identifiers are written out in real dumps.)
        self.folded = [*config.registry.prefilter, "\\u"]
        self.prefixes = re.compile("|".join(re.escape(p) for p in self.folded), re.IGNORECASE | re.ASCII)
        self.bare_predicates = {iri(p) for p in config.bare_pid_predicates | config.bare_handle_predicates}
        self.identity_predicates = {iri(p) for p in config.identity_predicates}
        self.exact_needles = sorted({*self.bare_predicates, *config.namespace_needles})
        self.exact = re.compile("|".join(re.escape(p) for p in self.exact_needles)) if self.exact_needles else None
        self.byte_memo = None if _scan is None else _scan.DecisionMemo(settings.identifier_cache)
        self.schemes = config.registry.names
        # The PID namespace each subject carries, for bare PIDs under bare-PID predicates.
        self._namespaces: dict[str, str | None] = {}
        self._left: dict[str, _Value] = {reason: (None, False, None, ("left", reason)) for reason in decision.REASONS}
        # The value of an identifier already canonical: one per scheme, shared by every key.
        self._unchanged: dict[str, _Value] = {name: (None, False, name) for name in self.schemes}
        self.shared = _SHARED.get(settings.run)
        self._scheme_byte = {name: bytes([index]) for index, name in enumerate(self.schemes)}
        # What the compiled loop matches, as bytes: folded and exact needles, bare-form
        # predicates, and the predicates whose statements the passes see whole.
        self.tables = ScanTables(
            quads=settings.quads,
            stop_on_error=settings.on_error == "stop",
            all_slow=settings.crosswalk,
            rewrite_predicates=config.rewrite_predicates,
            memo=self.byte_memo,
            decide=self.decide,
            schemes=self.schemes,
            shared=self.shared,
            folded=_encoded(self.folded),
            exact=_encoded(self.exact_needles),
            bare_predicates=_encoded(sorted(self.bare_predicates)),
            slow_predicates=_encoded([_SAME_AS]),
            identity_predicates=_encoded(sorted(self.identity_predicates)),
            identity=self.identity_link_of_raw,
            compiled=_compiled_decisions(config),
            unchanged=tuple(self._unchanged[name] for name in self.schemes),
            links=self.new_links,
            bare_pids=_bare_pid_tables(config, self._left),
        )
        # Read on decide's path, once for every new term: bound once here.
        self._literals_to_iris = config.literals_to_iris
        self._bare_pid_predicates = config.bare_pid_predicates
        self._identity_predicates = config.identity_predicates
        self._config = config
        self._decide = decision.decide

    @property
    def identifiers(self) -> passes.TermCache:
        """The graph passes' cache of decisions on RDF terms (for whole statements)."""
        if self._identifiers is None:
            from ldids.passes import graph as passes

            # Sized as the cache of parsed terms, not as the memo: it holds rdflib terms and
            # their decisions (~1 KB an entry), for the few statements seen whole.
            self._identifiers = passes.TermCache(self.settings.config, size=self.settings.term_cache)
        return self._identifiers

    def is_candidate(self, line: str) -> bool:
        """Might this line (or raw term) hold an identifier? False means certainly not."""
        if self.prefixes.search(line) is not None:
            return True
        return self.exact is not None and self.exact.search(line) is not None

    def might_be_identifier(self, raw: str, predicate: str) -> bool:
        """The same test for one raw term (a literal under a bare-form predicate always is)."""
        return self.is_candidate(raw) or (raw[0] == '"' and self.is_bare_predicate(predicate))

    def term(self, raw: str) -> Node:
        node = self.terms.get(raw)
        if node is None:
            if len(self.terms) >= self.settings.term_cache:
                evict_oldest_half(self.terms)
            node = self.terms[raw] = _parse_term(raw)
        return node

    def is_bare_predicate(self, predicate: str) -> bool:
        """Is this raw predicate one under which literals may hold bare forms?"""
        if predicate in self.bare_predicates:
            return True
        # The same IRI written with \u escapes (N-Triples §2.3 allows them in any IRI).
        return "\\" in predicate and iri(_unescape(predicate[1:-1])) in self.bare_predicates

    def entry(self, raw: str, predicate: str, linkable: bool, subject: str) -> _Known:
        """What the passes do to one raw term (memoized): ``rewrite_quad`` and ``links``
        decide each term on its own, the predicate and subject counting only for literals
        under bare-form predicates."""
        relevant = predicate if raw[0] == '"' and self.is_bare_predicate(predicate) else None
        context = None if relevant is None else subject
        key = (raw, relevant, linkable, context)
        known = self.memo.get(key)
        if known is None:
            value = self.decide(raw, relevant, linkable, context)
            if value is None:
                known = (None, None, None)
            elif isinstance(value, bytes):
                known = (value[1:].decode(), self.schemes[value[0]], None)
            elif len(value) == 5:
                known = (None, value[2], value[3])  # invalid
            elif len(value) == 4:
                known = (None, value[3], None)  # left alone: ("left", reason) in place of a scheme
            else:
                known = (None, value[2], None)  # already canonical
            if len(self.memo) >= self.settings.identifier_cache:
                evict_oldest_half(self.memo)
            self.memo[key] = known
        return known

    def decide(self, raw: str, bare_predicate: str | None, linkable: bool, subject: str | None = None) -> _Value:
        """:func:`~ldids.passes.decision.decide` on one raw N-Triples term (``subject``: the
        raw subject, the context of a literal under a bare-form predicate), without
        building RDF terms, as a memo value of the compiled loop (:data:`_Value`); the
        links it calls for are added to :attr:`new_links`. It decides nothing itself.

        This runs once for every term a dump's memo does not hold: millions of times on a
        large dump."""
        first = raw[0]
        escaped = "\\" in raw
        datatype = None
        if first == "<":
            text, is_literal = _unescape(raw[1:-1]) if escaped else raw[1:-1], False
        elif first == '"':
            close = len(raw) - 1 if raw[-1] == '"' else raw.rindex('"')
            if close < len(raw) - 1:
                if raw[close + 1] == "@":
                    return None  # text in a language (decision.is_identifier_literal)
                datatype = _unescape(raw[close + 4 : -1])
                if datatype not in decision.IDENTIFIER_DATATYPE_IRIS:  # decision.is_identifier_literal
                    return None
            text, is_literal = _unescape(raw[1:close]) if escaped else raw[1:close], True
        else:
            return None  # a blank node
        if bare_predicate is None:
            found = self._decide(text, is_literal, None, None, self._config, linkable)
        else:
            predicate = _unescape(bare_predicate[1:-1])
            namespace = self.namespace_of(subject) if predicate in self._bare_pid_predicates else None
            found = self._decide(text, is_literal, predicate, namespace, self._config, linkable)
        if found is None:
            return None
        action, scheme, canonical_text, reason, problems, links = found
        if action == "leave":
            return self._left[reason]  # type: ignore[index]
        if action == "invalid":
            return (None, True, scheme, problems, _text_of(raw))  # type: ignore[return-value]
        becomes_iri = is_literal and self._literals_to_iris
        if canonical_text is None:  # already canonical
            if not links and not becomes_iri:
                return self._unchanged[scheme]  # type: ignore[index]  # written once, met often
            canonical_text = text
        canonical_iri = iri(canonical_text)
        for source, target in links:
            # The form it was written in: an IRI without escapes is already as iri() writes it.
            written = raw if target == text and first == "<" and not escaped else iri(target)
            self.new_links.append(
                f"{canonical_iri if source == canonical_text else iri(source)} {_SAME_AS} {written} ."
            )
        if action == "canonical" and not becomes_iri:
            return self._unchanged[scheme]  # type: ignore[index]
        new_raw = canonical_iri if becomes_iri or not is_literal else literal(canonical_text, None, datatype)
        return self._scheme_byte[scheme] + new_raw.encode()  # type: ignore[index]

    def namespace_of(self, subject: str | None) -> str | None:
        """The PID namespace a raw subject carries (decision.subject_namespace), remembered."""
        if subject is None or subject[0] != "<":
            return None
        namespaces = self._namespaces
        found = namespaces.get(subject, _UNKNOWN)
        if found is _UNKNOWN:
            if len(namespaces) >= self.settings.identifier_cache:
                evict_oldest_half(namespaces)
            found = namespaces[subject] = decision.subject_namespace(_unescape(subject[1:-1]), self._config)
        return found  # type: ignore[return-value]

    def identity_link(self, subject: str, predicate: str, object_: str) -> str | None:
        """The owl:sameAs link a statement of an identity predicate calls for, given its raw
        terms as rewritten, as an N-Triples line: what ldids.passes.graph.identity_link
        makes of the statement, read from the raw terms without building RDF terms. From
        subject to object, where both are valid identifiers in prefixed forms
        (``_is_identifier`` there), the object's text taken as an IRI."""
        if subject[0] != "<" or object_[0] == "_" or _iri_text(predicate) not in self._identity_predicates:
            return None
        source = _iri_text(subject)
        if object_[0] == "<":
            target = _iri_text(object_)
        else:
            close = object_.rindex('"')
            datatype = object_[close + 4 : -1] if object_[close + 1 : close + 3] == "^^" else None
            target = decision.named_text(_unescape(object_[1:close]), None if datatype is None else _unescape(datatype))
        if source == target or not self._is_identifier(source) or not self._is_identifier(target):
            return None
        return f"{iri(source)} {_SAME_AS} {iri(target)} ."

    def identity_link_of_raw(self, subject: bytes, predicate: bytes, object_: bytes) -> None:
        """:meth:`identity_link` for the compiled loop (``ScanTables.identity``): the terms
        as UTF-8 bytes (the loop checked them), the link added to :attr:`new_links`."""
        link = self.identity_link(subject.decode(), predicate.decode(), object_.decode())
        if link is not None:
            self.new_links.append(link)

    def _is_identifier(self, text: str) -> bool:
        """ldids.passes.graph._is_identifier: a valid identifier in a prefixed form."""
        scheme = self._config.registry.detect_prefixed(text)
        return scheme is not None and not scheme.check(text)

    def take_links(self) -> list[str]:
        """The links of the terms decided since the last call."""
        # The same list stays: the compiled loop appends to it (ScanTables.links).
        links = self.new_links[:]
        self.new_links.clear()
        return links


def _compiled_decisions(config: Config) -> tuple[Callable[[str], str | None] | None, ...]:
    """What the compiled loop needs to decide IRIs in prefixed forms itself (``compiled_decision``
    in ``ldids/dumps/_scan.c``): each scheme's compiled canonicalizer, None for a bare
    scheme; empty (off) where the decision of such an IRI needs more than its canonical
    form. That is where a prefixed scheme has no compiled canonicalizer (a scheme of
    another module, or the pure-Python switch), since only the compiled canonicalizers are
    held to answer for their own prefix alone, and where POIs of Fedora-served namespaces
    are linked to their objects too (decision.fedora_object_of_poi)."""
    registry = config.registry
    if config.fedora_oai_namespaces or any(scheme.compiled is None for scheme in registry.prefixed):
        return ()
    return tuple(None if scheme.bare else scheme.compiled for scheme in (registry[name] for name in registry.names))


NAMESPACE_PYTHON, NAMESPACE_NONE, NAMESPACE_AFTER_PREFIX, NAMESPACE_POI_LOCAL = -1, 0, 1, 2


def _bare_pid_tables(config: Config, left: dict[str, _Value]) -> BarePidTables | None:
    """The tables of the compiled decision of bare PIDs (:class:`BarePidTables`), or None
    where it is off: where the compiled decision of prefixed IRIs is (it needs the default
    schemes, whose prefilter needles rule out every prefixed form), and where no bare-PID
    predicate is configured. A subject's PID namespace is read by the rule of the scheme
    that decided it: for the default schemes, by their declared rules (info:fedora: the
    PID after the prefix; OAI identifier and POI: the PID the POI's local part is); any
    other scheme that carries one is Python's to ask."""
    registry = config.registry
    names = registry.names
    if not config.bare_pid_predicates or not _compiled_decisions(config) or pid.SCHEME.name not in names:
        return None
    rules: list[int] = []
    prefixes: list[bytes] = []
    for name in names:
        scheme = registry[name]
        if scheme is info_fedora.SCHEME:
            rules.append(NAMESPACE_AFTER_PREFIX)
            prefixes.append(info_fedora.PREFIX.encode())
        elif scheme is oai.SCHEME or scheme is poi.SCHEME:
            rules.append(NAMESPACE_POI_LOCAL)
            prefixes.append(poi.POI_PREFIX.encode())
        else:
            # Bare schemes are never a subject's (decision.subject_namespace detects prefixed
            # forms alone); Python reads the namespace a subject of another scheme carries.
            rules.append(NAMESPACE_NONE if scheme.bare else NAMESPACE_PYTHON)
            prefixes.append(b"")
    sample = "a:b"  # a PID's canonical IRI, to find the prefix it is written after
    return BarePidTables(
        # A text no PID claims is a bare handle under a bare-handle predicate: Python's.
        predicates=_encoded(sorted(iri(p) for p in config.bare_pid_predicates - config.bare_handle_predicates)),
        datatypes=_encoded(sorted(iri(datatype) for datatype in decision.IDENTIFIER_DATATYPE_IRIS)),
        namespace_chars="".join(sorted(pid.NAMESPACE_CHARS)).encode(),
        object_chars="".join(sorted(pid.OBJECT_ID_CHARS)).encode(),
        max_length=pid.MAX_LENGTH,
        iri_prefix=registry[pid.SCHEME.name].canonical(sample).removesuffix(sample).encode(),
        pid_namespaces=_encoded(sorted(config.pid_namespaces)),
        uri_schemes=uri_schemes.registered(),
        scheme=names.index(pid.SCHEME.name),
        to_iri=config.literals_to_iris,
        left_foreign=left["bare-pid-foreign-namespace"],
        left_uri_scheme=left["bare-pid-uri-scheme"],
        rules=tuple(rules),
        rule_prefixes=tuple(prefixes),
    )


def _encoded(texts: list[str]) -> tuple[bytes, ...]:
    return tuple(text.encode() for text in texts)


def _iri_text(raw: str) -> str:
    """The IRI a raw IRI term writes."""
    return _unescape(raw[1:-1])


def _text_of(raw: str) -> str:
    """The text of a raw term: an IRI or a literal's lexical form (as str() of an rdflib term)."""
    return str(_parse_term(raw))


# One worker per thread (Dask runs several tasks in one process): a worker's memo and the
# links it has yet to report belong to the blocks its own thread processes.
_WORKERS = threading.local()

# Tables of decisions shared by a run's worker processes, by run (see shared_decisions).
_SHARED: dict[str, SharedDecisions] = {}


@contextlib.contextmanager
def shared_decisions(settings: Settings) -> Iterator[bool]:
    """While it lasts, processes forked from this one share the decisions of the run
    ``settings.run`` (a table of ``settings.identifier_cache`` entries in shared memory):
    a term one of them decided, the others find, rather than each deciding it again. The
    process that decides reports the term's links. Yields whether decisions are shared:
    only where the compiled loop runs and the workers fork (Linux)."""
    table = None
    if _scan is not None and not os.environ.get("LDIDS_PURE_PYTHON"):
        try:
            # The table's size is a bound on its memory: pages are taken as entries come.
            entries = max(1, min(settings.identifier_cache, 1 << 24))
            table = _scan.SharedDecisions(settings.config.registry.names, entries)
        except (NotImplementedError, OSError):  # not Linux, or no shared memory to be had
            table = None
    if table is not None:
        _SHARED[settings.run] = table
    try:
        yield table is not None
    finally:
        _SHARED.pop(settings.run, None)


def _worker_for(settings: Settings) -> _Worker:
    worker: _Worker | None = getattr(_WORKERS, "worker", None)
    if worker is None or worker.settings != settings:
        worker = _WORKERS.worker = _Worker(settings)
    return worker
