"""The schemes, in the order of their declared precedence, and the questions asked of any
identifier-looking text.

Overlaps are settled here and only here. Prefixed forms come first and their prefixes do
not overlap (``info:fedora/``, ``oai:``, ``http(s)://purl.org/poi/``, ``hdl:`` and known
resolver URLs); bare forms come last and are claimed only when the caller allows them
(DESIGN.md §2: a bare PID looks like any CURIE, a bare handle like a path or fraction),
and never when the would-be PID namespace is a URI scheme (``urn:isbn:…``, ``doi:10.…``)
or the text is another scheme's identifier percent-encoded (``oai%3Aarxiv.org%3A…``).

Everything derived from the schemes' declarations (the claim alternation, the prefilter
needles of streamed dumps, the SPARQL filter of live stores) is built here, once.

>>> DEFAULT.canonical("oai:arXiv.org:hep-th/9901001")
'http://purl.org/poi/arXiv.org/hep-th/9901001'
>>> DEFAULT.detect("demo:1").name, DEFAULT.detect("demo:1", bare=False)
('fedora-pid', None)
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ldids.errors import LdidsError, ParseError, Problem
from ldids.schemes import handle, info_fedora, oai, pid, poi
from ldids.schemes.scheme import Identifier, Scheme
from ldids.schemes.uri_schemes import is_uri_scheme

__all__ = ["DEFAULT", "PRECEDENCE", "Foreign", "Inspection", "Registry", "UnknownSchemeError"]

#: Why a bare-PID-shaped text is not a PID whatever its context (DESIGN.md §2).
Foreign = Literal["uri-scheme", "percent-encoded"]
_SEPARATOR = re.compile(r"[A-Za-z0-9.\-]+(?::|%3[aA])")
_HEAD = 96  # longer than any claim needs: the longest, a resolver URL's host and port, percent-encoded


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


def _unrecognized(text: str, tried: Iterable[str], why: str = "") -> Problem:
    return Problem("unrecognized", f"not an identifier of any scheme tried ({', '.join(tried)}){why}", 0, len(text))


_WHY = {
    "uri-scheme": ": {namespace!r} is a URI scheme, so this names something in that scheme, not a Fedora PID",
    "percent-encoded": ": it is another scheme's identifier with its characters percent-encoded (as in a request URL)",
}


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
        if len(by_name) != len(self.schemes):
            raise ValueError(f"two schemes share a name: {[scheme.name for scheme in self.schemes]}")
        # One anchored alternation, a group per claim in precedence order: a single regex
        # match finds the scheme, and match.lastindex says which (claims have no groups).
        prefixed = list(self.prefixed)
        bare: list[tuple[str, Scheme[Any]]] = [(s.claim, s) for s in self.schemes if s.bare]
        bare += [(s.bare_claim, s) for s in prefixed if s.bare_claim is not None]
        claims = [scheme.claim for scheme in prefixed] + [claim for claim, _ in bare]
        groups: list[Scheme[Any] | None] = [None, *prefixed, *(scheme for _, scheme in bare)]
        alternation = "|".join(f"({claim})" for claim in claims)
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_by_group", tuple(groups))
        object.__setattr__(self, "_any", re.compile(alternation).match)
        object.__setattr__(self, "_prefixed", re.compile("|".join(f"({s.claim})" for s in prefixed)).match)

    @classmethod
    def build(
        cls, resolvers: Iterable[handle.Resolver] = handle.DEFAULT_RESOLVERS, modules: Iterable[str] = ()
    ) -> Registry:
        """The five schemes, with the given HTTP handle resolvers known, and the scheme of
        each named module (its ``SCHEME``), all in order of their declared precedence."""
        schemes: list[Scheme[Any]] = [info_fedora.SCHEME, oai.SCHEME, poi.SCHEME, handle.make_scheme(resolvers)]
        schemes += [pid.SCHEME, *(_module_scheme(name) for name in modules)]
        return cls(tuple(sorted(schemes, key=lambda scheme: scheme.precedence)))

    @property
    def prefixed(self) -> tuple[Scheme[Any], ...]:
        """The schemes with prefixed forms, recognized anywhere (DESIGN.md §2)."""
        return tuple(scheme for scheme in self.schemes if not scheme.bare)

    @property
    def prefilter(self) -> tuple[str, ...]:
        """Lower-case substrings, one of which every prefixed form contains in some ASCII case."""
        return tuple(sorted({needle for scheme in self.prefixed for needle in scheme.prefilter}))

    @property
    def prefix_pattern(self) -> str:
        """One regular expression (XPath/SPARQL syntax, to match in any case) for the start
        of every prefixed form: ``REGEX(STR(?t), pattern, "i")`` selects them in a store."""
        return "^(" + "|".join(scheme.prefix or "" for scheme in self.prefixed) + ")"

    def foreign(self, text: str) -> Foreign | None:
        """Why a text shaped like a bare PID is no PID in any context, if it is not:
        its namespace is a URI scheme, or it is a prefixed identifier percent-encoded."""
        match = _SEPARATOR.match(text)
        if match is None:
            return None
        escaped = text[match.end() - 1] != ":"
        namespace_end = match.end() - (3 if escaped else 1)
        # Another scheme's identifier, percent-encoded, has its scheme's ':' escaped too
        # (written plainly it would be that scheme's prefixed form); claims are anchored
        # prefixes, so decoding the head of the text tells. Only ':' and '/' matter to a
        # claim, and an OAI-PMH request escapes nothing else there (unreserved characters
        # stay as they are): decoded by hand, as this runs for every escaped bare PID.
        if escaped and self._prefixed(_decoded_separators(text[:_HEAD])) is not None:
            return "percent-encoded"
        if is_uri_scheme(text[:namespace_end]):
            return "uri-scheme"
        return None

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
        (one string asked about) a bare PID or CORDRA-shaped handle is claimed too, unless
        it is :meth:`foreign`.
        """
        match = (self._any if bare else self._prefixed)(text)
        if match is None or match.lastindex is None:
            return None
        found = self._by_group[match.lastindex]
        if found is not None and bare and match.lastindex > len(self.prefixed) and self.foreign(text) is not None:
            return None
        return found

    def detect_prefixed(self, text: str) -> Scheme[Any] | None:
        """``detect(text, bare=False)``, for callers that ask it millions of times."""
        match = self._prefixed(text)
        return None if match is None or match.lastindex is None else self._by_group[match.lastindex]

    def _scheme_for(self, text: str, scheme: str | None) -> Scheme[Any]:
        if scheme is not None:
            return self[scheme]
        found = self.detect(text)
        if found is None:
            raise ParseError(text, [self._unrecognized(text)])
        return found

    def _unrecognized(self, text: str) -> Problem:
        reason = self.foreign(text)
        why = "" if reason is None else _WHY[reason].format(namespace=re.split("[:%]", text, maxsplit=1)[0])
        return _unrecognized(text, self.names, why)

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
            return Inspection(text, None, problems=(self._unrecognized(text),))
        try:
            value = found.parse(text)
        except ParseError as error:
            return Inspection(text, found.name, problems=error.problems)
        return Inspection(text, found.name, value.profile, str(value), value.iri, found.equivalents(value))


def _decoded_separators(text: str) -> str:
    """``text`` with its escaped ':' and '/' decoded."""
    return text.replace("%3A", ":").replace("%3a", ":").replace("%2F", "/").replace("%2f", "/")


def _module_scheme(name: str) -> Scheme[Any]:
    """The ``SCHEME`` a module declares: how a scheme of one's own is registered."""
    found = getattr(importlib.import_module(name), "SCHEME", None)
    if not isinstance(found, Scheme):
        raise TypeError(f"module {name!r} declares no SCHEME (an ldids.schemes.scheme.Scheme)")
    return found


DEFAULT = Registry.build()
#: The names of the default schemes, in detection order.
PRECEDENCE: tuple[str, ...] = DEFAULT.names
