"""The one small interface every identifier scheme implements.

A scheme module supplies a *scanner* (text -> value or problems) and declares what every
other part of ldids needs to know about the scheme (DESIGN.md §8), in one place:

- ``prefix``: how its prefixed forms start, as a regular expression in the subset that
  Python, XPath/SPARQL ``REGEX`` and SHACL ``sh:pattern`` share (no look-around, no
  ``(?:``, no inline flags), matched at the start and in any ASCII case; None for a bare
  scheme (``demo:1``), which is an identifier only where the context says so (§2).
  The claim regex, the SPARQL filters and the shapes' targets derive from it.
- ``prefilter``: substrings (any ASCII case) at least one of which every claimed text
  contains: the streamed dump's candidate test and its compiled tables derive from these.
- ``precedence``: detection order (lower first); the registry sorts by it.
- ``bare_claim``: the bare forms ``inspect``, asked about one string, recognizes.
- ``pid_namespace``: the Fedora PID namespace an identifier of the scheme carries, read
  off its canonical IRI; it makes bare PIDs of that namespace in its statements
  identifiers (§2).

:class:`Scheme` turns the scanner into ``check``/``parse``/``normalize``/``to_iri``/
``equivalents``. ``check`` never raises; ``parse`` raises
:class:`~ldids.errors.ParseError` built from what ``check`` found.

A scheme may also bring a *compiled* canonicalizer (:func:`compiled_canonical`: the four
prefixed default schemes, from ``ldids/schemes/_canonical.c``), which answers
:meth:`Scheme.canonical` for the common forms and leaves every other text to the Python
code, the reference. With ``LDIDS_PURE_PYTHON`` set in the environment when ldids is
imported, or without the extension built, there is none: the same answers, slower.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from types import ModuleType
from typing import Generic, Protocol, TypeVar

from ldids.errors import ParseError, Problem

__all__ = ["PURE_PYTHON", "Identifier", "Scheme", "compiled_canonical"]

_canonical: ModuleType | None
try:
    from ldids.schemes import _canonical
except ImportError:  # built without a C compiler: canonical IRIs come from Python alone
    _canonical = None

#: ``LDIDS_PURE_PYTHON`` (any non-empty value), read once at import: the schemes get no
#: compiled canonicalizer, and the Python reference decides everything.
PURE_PYTHON = bool(os.environ.get("LDIDS_PURE_PYTHON"))
Compiled = Callable[[str], "str | None"]


def compiled_canonical(scheme: str, /, **declarations: str | int | frozenset[str]) -> Compiled | None:
    """The compiled canonicalizer of one of the prefixed default schemes, bound to the
    scheme module's own declarations (character classes as sets, prefixes, ports, limits:
    DESIGN.md §6, the C tables come from the declarations); None where the extension is
    not built or ``LDIDS_PURE_PYTHON`` is set.

    It returns a text's canonical IRI exactly as the scheme's Python code would, or None
    for any text it leaves to that code (tests/test_canonical_compiled.py).
    """
    if _canonical is None or PURE_PYTHON:
        return None
    tables = {
        name: "".join(sorted(value)) if isinstance(value, frozenset) else value for name, value in declarations.items()
    }
    found: Compiled = _canonical.canonicalizer(scheme, tables)
    return found


class Identifier(Protocol):
    """What every parsed identifier offers. ``str()`` of one is its normalized form."""

    @property
    def iri(self) -> str:
        """The canonical IRI of the identified thing."""
        ...

    @property
    def profile(self) -> str | None:
        """A named profile the identifier satisfies (``"cordra"``), if any."""
        ...


V = TypeVar("V", bound=Identifier)
Scanner = Callable[[str], "tuple[V | None, list[Problem]]"]


class Scheme(Generic[V]):
    """A named identifier scheme built from a scanner and a claim test."""

    def __init__(
        self,
        name: str,
        scan: Callable[[str], tuple[V | None, list[Problem]]],
        *,
        precedence: int,
        prefix: str | None = None,
        prefilter: tuple[str, ...] = (),
        claim: str | None = None,
        bare_claim: str | None = None,
        pid_namespace: Callable[[str], str | None] | None = None,
        normalized: re.Pattern[str] | None = None,
        normalized_check: Callable[[re.Match[str]], bool] | None = None,
        max_length: int | None = None,
        iri_of_normalized: Callable[[str], str] | None = None,
        repair: Callable[[str], str | None] | None = None,
        equivalents: Callable[[V], tuple[str, ...]] = lambda value: (),
        compiled: Compiled | None = None,
    ) -> None:
        if prefix is None and claim is None:
            raise ValueError(f"scheme {name!r}: declare a prefix (prefixed forms) or a claim (a bare scheme)")
        if prefix is not None and not prefilter:
            raise ValueError(f"scheme {name!r}: a prefixed scheme declares the substrings its prefilter looks for")
        self.name = name
        self._scan = scan
        self.precedence = precedence
        self.prefix = prefix
        #: Lower case: matched in any ASCII case, as scheme names and hosts compare (RFC 3986 §3.1, §3.2.2).
        self.prefilter = tuple(needle.lower() for needle in prefilter)
        #: Whether the scheme's forms carry no prefix of their own (DESIGN.md §2).
        self.bare = prefix is None
        #: A regex (no capturing groups) matching the start of every text written in this
        #: scheme's syntax, valid or not; the registry joins these into one alternation.
        #: Derived from the prefix unless declared (where part of a prefix is case-sensitive).
        self.claim: str = claim if claim is not None else _claim_of(prefix or "")
        self._claim = re.compile(self.claim).match
        self.bare_claim = bare_claim
        self._pid_namespace = pid_namespace
        # A text that fully matches ``normalized`` (and passes ``normalized_check``, and is
        # no longer than max_length) is valid and already in normal form: graph passes meet
        # such texts millions of times, so they skip the full scan.
        self._normalized = normalized.fullmatch if normalized is not None else None
        self._normalized_check = normalized_check
        self._max_length = max_length
        # Maps a text that passed ``is_normalized`` straight to its canonical IRI.
        self._iri_of_normalized = iri_of_normalized
        # Rewrites the commonest not-yet-normal shapes (a prefix in upper case, an escaped
        # separator) into a text that names the same identifier, or None. A repaired text
        # that is normalized is taken on the fast path; anything else gets the full scan.
        # tests/test_laws.py holds repair-then-fast-path equal to the full scan.
        self._repair = repair
        self._equivalents = equivalents
        #: The compiled canonicalizer (:func:`compiled_canonical`), asked first by
        #: :meth:`canonical`: a text's canonical IRI, or None for "ask the Python code".
        self.compiled = compiled

    def __repr__(self) -> str:
        return f"<Scheme {self.name}>"

    def claims(self, text: str) -> bool:
        """Whether ``text`` is written in this scheme's syntax (valid or not)."""
        return self._claim(text) is not None

    def check(self, text: str) -> list[Problem]:
        """Every problem that makes ``text`` invalid in this scheme; empty if valid."""
        return self._scan(text)[1]

    def parse(self, text: str) -> V:
        """The identifier ``text`` denotes; raises ParseError if it is invalid."""
        value, problems = self._scan(text)
        if problems or value is None:
            raise ParseError(text, problems or [Problem(f"{self.name}.invalid", "invalid identifier", 0, len(text))])
        return value

    def is_normalized(self, text: str) -> bool:
        """Cheap test: ``text`` is valid and already normalized (False means "don't know")."""
        if self._normalized is None:
            return False
        match = self._normalized(text)
        if match is None or (self._max_length is not None and len(text) > self._max_length):
            return False
        return self._normalized_check is None or self._normalized_check(match)

    def normalize(self, text: str) -> str:
        """``text`` rewritten in normal form in its own syntax; raises ParseError."""
        # is_normalized, inlined: this is the graph passes' innermost call.
        if self._normalized is not None:
            match = self._normalized(text)
            if (
                match is not None
                and (self._max_length is None or len(text) <= self._max_length)
                and (self._normalized_check is None or self._normalized_check(match))
            ):
                return text
        return str(self.parse(text))

    def canonical(self, text: str) -> str:
        """The canonical IRI of what ``text`` identifies; raises ParseError."""
        compiled = self.compiled
        if compiled is not None:
            # The common forms, compiled; None leaves the text to the Python paths below.
            iri = compiled(text)
            if iri is not None:
                return iri
        to_iri = self._iri_of_normalized
        normalized = self._normalized
        if to_iri is not None and normalized is not None:
            # is_normalized, inlined for the text and then its repair: a streamed dump
            # calls this once for every identifier its memo does not hold.
            limit, check = self._max_length, self._normalized_check
            match = normalized(text)
            if match is not None and (limit is None or len(text) <= limit) and (check is None or check(match)):
                return to_iri(text)
            repaired = None if self._repair is None else self._repair(text)
            if repaired is not None:
                match = normalized(repaired)
                if match is not None and (limit is None or len(repaired) <= limit) and (check is None or check(match)):
                    return to_iri(repaired)
        return self.parse(text).iri

    def reference(self) -> Scheme[V]:
        """This scheme without its compiled canonicalizer: the Python reference that the
        compiled one is held equal to."""
        python = copy.copy(self)
        python.compiled = None
        return python

    def full_canonical(self, text: str) -> str:
        """:meth:`canonical` by the full scan alone (the reference the shortcuts are tested against)."""
        return self.parse(text).iri

    def pid_namespace(self, text: str) -> str | None:
        """The namespace of the Fedora PID the identifier ``text`` carries, if it is valid
        and carries one."""
        if self._pid_namespace is None:
            return None
        try:
            canonical = self.canonical(text)  # the fast paths: subjects are met millions of times
        except ParseError:
            return None
        return self._pid_namespace(canonical)

    def to_iri(self, value: V) -> str:
        """The canonical IRI of a parsed identifier."""
        return value.iri

    def equivalents(self, value: V) -> tuple[str, ...]:
        """The other IRIs that name the same thing as ``value``, canonical IRI excluded."""
        return self._equivalents(value)


def _claim_of(prefix: str) -> str:
    """The claim regex of a declared prefix: its groups made non-capturing (the registry
    tells schemes apart by the group that matched), matched in any ASCII case."""
    return "(?ai:" + re.sub(r"(?<!\\)\((?!\?)", "(?:", prefix) + ")"
