"""The schemes, their precedence, and the questions asked of any identifier-looking text.

Overlaps are settled here and only here. Prefixed forms come first and their prefixes do
not overlap (``info:fedora/``, ``oai:``, ``http(s)://purl.org/poi/``, ``hdl:`` and known
resolver URLs); bare forms come last and are claimed only when the caller allows them
(DESIGN.md §2: a bare PID looks like any CURIE, a bare handle like a path or fraction).

>>> DEFAULT.canonical("oai:arXiv.org:hep-th/9901001")
'http://purl.org/poi/arXiv.org/hep-th/9901001'
>>> DEFAULT.detect("demo:1").name, DEFAULT.detect("demo:1", bare=False)
('fedora-pid', None)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ldids.errors import LdidsError, ParseError, Problem
from ldids.schemes import handle, info_fedora, oai, pid, poi
from ldids.schemes.scheme import Identifier, Scheme

__all__ = ["DEFAULT", "PRECEDENCE", "Inspection", "Registry", "UnknownSchemeError"]

#: Detection order. Prefixed schemes first; ``fedora-pid`` (bare) last. The handle
#: scheme also claims bare CORDRA-shaped handles, after the bare PID test (they cannot
#: both match: a PID needs ':' before any '/', the handle has no ':'). Each scheme's claim
#: regex is disjoint from the others' by construction; the order makes that a non-issue.
PRECEDENCE: tuple[str, ...] = ("info-fedora", "oai", "poi", "handle", "fedora-pid")
_BARE = ("fedora-pid",)


class UnknownSchemeError(LdidsError, KeyError):
    """A scheme name that no registered scheme has."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class Inspection:
    """Everything ``ldids inspect`` says about one text (DESIGN.md §5)."""

    input: str
    scheme: str | None
    profile: str | None = None
    normalized: str | None = None
    canonical: str | None = None
    equivalents: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def valid(self) -> bool:
        return self.scheme is not None and not self.problems

    def to_json(self) -> dict[str, Any]:
        """The stable JSON object, fields in contract order."""
        return {
            "input": self.input,
            "valid": self.valid,
            "scheme": self.scheme,
            "profile": self.profile,
            "normalized": self.normalized,
            "canonical": self.canonical,
            "equivalents": list(self.equivalents),
            "problems": [problem.to_json() for problem in self.problems],
        }


def _unrecognized(text: str) -> Problem:
    return Problem(
        "ldids.unrecognized", "not an identifier of any known scheme (info:fedora, PID, oai, POI, handle)", 0, len(text)
    )


@dataclass(frozen=True)
class Registry:
    """Schemes in precedence order; build your own to change resolvers or schemes."""

    schemes: tuple[Scheme[Any], ...]
    _by_name: dict[str, Scheme[Any]] = field(init=False, repr=False, compare=False)
    _prefixed: Callable[[str], re.Match[str] | None] = field(init=False, repr=False, compare=False)
    _any: Callable[[str], re.Match[str] | None] = field(init=False, repr=False, compare=False)
    _by_group: tuple[Scheme[Any] | None, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name = {scheme.name: scheme for scheme in self.schemes}
        # One anchored alternation, a group per claim in precedence order: a single regex
        # match finds the scheme, and match.lastindex says which (claims have no groups).
        prefixed = [scheme for scheme in self.schemes if scheme.name not in _BARE]
        bare = [scheme for scheme in self.schemes if scheme.name in _BARE]
        claims = [scheme.claim for scheme in prefixed + bare]
        groups: list[Scheme[Any] | None] = [None, *prefixed, *bare]
        if "handle" in by_name:
            claims.append(handle.BARE_CORDRA_CLAIM)
            groups.append(by_name["handle"])
        alternation = "|".join(f"({claim})" for claim in claims)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_by_group", tuple(groups))
        object.__setattr__(self, "_any", re.compile(alternation).match)
        object.__setattr__(self, "_prefixed", re.compile("|".join(f"({s.claim})" for s in prefixed)).match)

    @classmethod
    def build(cls, resolvers: Iterable[handle.Resolver] = handle.DEFAULT_RESOLVERS) -> Registry:
        """The five schemes, with the given HTTP handle resolvers known."""
        by_name: dict[str, Scheme[Any]] = {
            "info-fedora": info_fedora.SCHEME,
            "oai": oai.SCHEME,
            "poi": poi.SCHEME,
            "handle": handle.make_scheme(resolvers),
            "fedora-pid": pid.SCHEME,
        }
        return cls(tuple(by_name[name] for name in PRECEDENCE))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def __getitem__(self, name: str) -> Scheme[Any]:
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownSchemeError(f"unknown scheme {name!r}; known: {', '.join(self._by_name)}") from None

    def detect(self, text: str, *, bare: bool = True) -> Scheme[Any] | None:
        """The scheme whose syntax ``text`` is written in, or None.

        With ``bare=False`` (graph data) only prefixed forms are claimed; with ``bare=True``
        (one string asked about) a bare PID or CORDRA-shaped handle is claimed too.
        """
        match = (self._any if bare else self._prefixed)(text)
        return None if match is None or match.lastindex is None else self._by_group[match.lastindex]

    def detect_prefixed(self, text: str) -> Scheme[Any] | None:
        """``detect(text, bare=False)``, for callers that ask it millions of times."""
        match = self._prefixed(text)
        return None if match is None or match.lastindex is None else self._by_group[match.lastindex]

    def _scheme_for(self, text: str, scheme: str | None) -> Scheme[Any]:
        if scheme is not None:
            return self[scheme]
        match = self._any(text)  # detect(text), inlined for the hot path
        if match is None or match.lastindex is None:
            raise ParseError(text, [_unrecognized(text)])
        found = self._by_group[match.lastindex]
        assert found is not None
        return found

    def parse(self, text: str, scheme: str | None = None) -> Identifier:
        """The identifier ``text`` denotes, in the named or detected scheme; raises ParseError."""
        found: Identifier = self._scheme_for(text, scheme).parse(text)
        return found

    def normalize(self, text: str, scheme: str | None = None) -> str:
        """``text`` in normal form in its own syntax; raises ParseError."""
        found: str = self._scheme_for(text, scheme).normalize(text)
        return found

    def canonical(self, text: str, scheme: str | None = None) -> str:
        """The canonical IRI of the thing ``text`` identifies; raises ParseError."""
        iri: str = self._scheme_for(text, scheme).canonical(text)
        return iri

    def inspect(self, text: str, scheme: str | None = None) -> Inspection:
        """Scheme, normal form, canonical IRI, equivalents and problems of ``text``. Never raises
        for bad identifiers (an unknown ``scheme`` name raises UnknownSchemeError)."""
        found = self[scheme] if scheme is not None else self.detect(text)
        if found is None:
            return Inspection(text, None, problems=(_unrecognized(text),))
        try:
            value = found.parse(text)
        except ParseError as error:
            return Inspection(text, found.name, problems=error.problems)
        return Inspection(text, found.name, value.profile, str(value), value.iri, found.equivalents(value))


DEFAULT = Registry.build()
