"""ldids: find persistent identifiers in RDF and put each into one canonical form.

Fedora PIDs and info:fedora URIs, OAI identifiers, PURL-based Object Identifiers and
Handles (with CORDRA identifiers) are checked, parsed and normalized by one module per
scheme (:mod:`ldids.schemes.pid`, :mod:`ldids.schemes.info_fedora`, :mod:`ldids.schemes.oai`, :mod:`ldids.schemes.poi`,
:mod:`ldids.schemes.handle`); the functions here detect the scheme first.

>>> canonical("demo%3a1")
'info:fedora/demo:1'
>>> inspect("hdl:100.102/f58fb49eb1f848f0a606e84cef294be5").profile
'cordra'
"""

from __future__ import annotations

from ldids.errors import InputError, LdidsError, ParseError, Problem
from ldids.schemes.registry import DEFAULT, PRECEDENCE, Inspection, Registry, UnknownSchemeError
from ldids.schemes.scheme import Identifier, Scheme

__all__ = [
    "DEFAULT",
    "PRECEDENCE",
    "Identifier",
    "InputError",
    "Inspection",
    "LdidsError",
    "ParseError",
    "Problem",
    "Registry",
    "Scheme",
    "UnknownSchemeError",
    "canonical",
    "check",
    "detect",
    "inspect",
    "normalize",
    "parse",
]

__version__ = "0.1.0"


def detect(text: str, *, bare: bool = True, registry: Registry = DEFAULT) -> str | None:
    """The name of the scheme ``text`` is written in, or None."""
    scheme = registry.detect(text, bare=bare)
    return None if scheme is None else scheme.name


def check(text: str, scheme: str | None = None, *, registry: Registry = DEFAULT) -> list[Problem]:
    """Every problem with ``text`` as an identifier (empty if valid). Never raises for bad text."""
    return list(registry.inspect(text, scheme).problems)


def parse(text: str, scheme: str | None = None, *, registry: Registry = DEFAULT) -> Identifier:
    """The identifier ``text`` denotes; raises ParseError."""
    return registry.parse(text, scheme)


def normalize(text: str, scheme: str | None = None, *, registry: Registry = DEFAULT) -> str:
    """``text`` in normal form in its own syntax; raises ParseError."""
    return registry.normalize(text, scheme)


def canonical(text: str, scheme: str | None = None, *, registry: Registry = DEFAULT) -> str:
    """The canonical IRI of what ``text`` identifies; raises ParseError."""
    return registry.canonical(text, scheme)


def inspect(text: str, scheme: str | None = None, *, registry: Registry = DEFAULT) -> Inspection:
    """What ``ldids inspect`` reports about ``text``."""
    return registry.inspect(text, scheme)
