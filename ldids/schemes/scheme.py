"""The one small interface every identifier scheme implements.

A scheme module supplies a *scanner* (text -> value or problems) and a *claim* test (does
this text use the scheme's syntax at all, valid or not?); :class:`Scheme` turns them into
``check``/``parse``/``normalize``/``to_iri``/``equivalents``. ``check`` never raises;
``parse`` raises :class:`~ldids.errors.ParseError` built from what ``check`` found.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from ldids.errors import ParseError, Problem

__all__ = ["Identifier", "Scheme"]


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
        claim: str,
        *,
        normalized: re.Pattern[str] | None = None,
        normalized_check: Callable[[re.Match[str]], bool] | None = None,
        max_length: int | None = None,
        iri_of_normalized: Callable[[str], str] | None = None,
        repair: Callable[[str], str | None] | None = None,
        equivalents: Callable[[V], tuple[str, ...]] = lambda value: (),
    ) -> None:
        self.name = name
        self._scan = scan
        #: A regex (no capturing groups) matching the start of every text written in this
        #: scheme's syntax, valid or not; the registry joins these into one alternation.
        self.claim = claim
        self._claim = re.compile(claim).match
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

    def full_canonical(self, text: str) -> str:
        """:meth:`canonical` by the full scan alone (the reference the shortcuts are tested against)."""
        return self.parse(text).iri

    def to_iri(self, value: V) -> str:
        """The canonical IRI of a parsed identifier."""
        return value.iri

    def equivalents(self, value: V) -> tuple[str, ...]:
        """The other IRIs that name the same thing as ``value``, canonical IRI excluded."""
        return self._equivalents(value)
