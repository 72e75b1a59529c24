"""PURL-based Object Identifiers (scheme ``poi``): ``http://purl.org/poi/arXiv.org/hep-th/9901001``.

Spec: "The PURL-based Object Identifier (POI)", §2::

    "http://purl.org/poi/" namespace-identifier "/" local-identifier

with the namespace and local part of the oai-identifier (same ABNF, same escaping rules).
Only the first '/' after the namespace separates. Decided in DESIGN.md §1: scheme and
host compare case-insensitively and a default port is dropped, so ``HTTP://PURL.ORG:80``
and ``https://purl.org`` forms normalize to ``http://purl.org/poi/``; the path is
case-sensitive. POI ↔ oai-identifier is the mapping of POI §4.

>>> str(parse("HTTPS://PURL.ORG:443/poi/arXiv.org/hep-th/9901001"))
'http://purl.org/poi/arXiv.org/hep-th/9901001'
>>> str(from_oai("oai:xtcat.oclc.org:OCLCNo/ocm41020136"))
'http://purl.org/poi/xtcat.oclc.org/OCLCNo/ocm41020136'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ldids.errors import ParseError, Problem
from ldids.schemes import oai
from ldids.schemes._chars import (
    ALPHANUM,
    ASCII_ALPHA,
    DOMAIN_PATTERN,
    RFC2396_RESERVED,
    RFC2396_UNRESERVED,
    URIC_UNESCAPED_PATTERN,
    ascii_lower,
    check_domain_namespace,
)
from ldids.schemes.oai import POI_PREFIX, OaiIdentifier
from ldids.schemes.pid import namespace_of as pid_namespace_of
from ldids.schemes.scheme import Scheme, compiled_canonical

__all__ = [
    "CLAIM",
    "POI_PREFIX",
    "SCHEME",
    "Poi",
    "assign",
    "check",
    "claims",
    "from_oai",
    "normalize",
    "parse",
    "to_oai",
]

_PREFIX_RE = re.compile(r"(?ai:(https?)://(purl\.org))(?::(\d*))?/poi/")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
#: http(s)://purl.org[:port]/poi/ with scheme and host in any case; the path is case-sensitive.
CLAIM = r"(?ai:https?://purl\.org)(?::[0-9]*)?/poi/"
#: Valid POIs in normal form without escapes: the fast path.
NORMALIZED_RE = re.compile(f"{re.escape(POI_PREFIX)}{DOMAIN_PATTERN}/{URIC_UNESCAPED_PATTERN}+")


@dataclass(frozen=True, slots=True)
class Poi:
    """A valid POI."""

    namespace: str
    local: str

    def __str__(self) -> str:
        return f"{POI_PREFIX}{self.namespace}/{self.local}"

    @property
    def iri(self) -> str:
        return str(self)

    @property
    def profile(self) -> None:
        return None

    def to_oai(self) -> OaiIdentifier:
        """Strip the PURL prefix, the first '/' becomes ':', add 'oai:' (POI §4)."""
        return OaiIdentifier(self.namespace, self.local)


def _scan(text: str) -> tuple[Poi | None, list[Problem]]:
    match = _PREFIX_RE.match(text)
    if match is None:
        return None, [Problem("poi.prefix", f"a POI starts with {POI_PREFIX!r}", 0, min(len(text), len(POI_PREFIX)))]
    scheme, port = ascii_lower(match.group(1)), match.group(3)
    # An empty port is the default one (RFC 3986 §6.2.3).
    if port and port.lstrip("0") != _DEFAULT_PORTS[scheme]:
        # Another port is another web address, not the PURL service.
        return None, [
            Problem("poi.port", f"a POI is served on the default port of {scheme}", match.start(3) - 1, match.end(3))
        ]
    namespace, local, problems = oai.scan_parts(text, match.end(), "/", "poi")
    return (None, problems) if problems else (Poi(namespace, local), [])


def _equivalents(value: Poi) -> tuple[str, ...]:
    return (str(value.to_oai()),)


_REPAIRABLE = re.compile(r"(?ai:https?://purl\.org)/poi/")


def _repair(text: str) -> str | None:
    """``https://PURL.ORG/poi/...`` -> ``http://purl.org/poi/...`` (scheme and host in any
    case, no port; the path is case-sensitive and left as it is)."""
    match = _REPAIRABLE.match(text)
    return None if match is None else POI_PREFIX + text[match.end() :]


SCHEME: Scheme[Poi] = Scheme(
    "poi",
    _scan,
    precedence=30,
    # Scheme and host in any case, http or https, any port (POI §2, RFC 3986 §6.2.3).
    prefix=r"https?://purl\.org(:[0-9]*)?/poi/",
    claim=CLAIM,  # the path, "/poi/" included, is case-sensitive: "/POI/" is another PURL
    prefilter=("purl.org",),
    pid_namespace=lambda iri: pid_namespace_of(iri[len(POI_PREFIX) :].split("/", 1)[1]),
    normalized=NORMALIZED_RE,
    iri_of_normalized=str,
    repair=_repair,
    equivalents=_equivalents,
    # Valid ASCII POIs in any spelling of scheme, host and default port, compiled.
    compiled=compiled_canonical(
        "poi",
        poi_prefix=POI_PREFIX,
        http_port=_DEFAULT_PORTS["http"],
        https_port=_DEFAULT_PORTS["https"],
        label_start=ASCII_ALPHA,  # the namespace-identifier of the oai-identifier (POI §2)
        label=ALPHANUM | frozenset("-"),
        reserved=RFC2396_RESERVED,
        unreserved=RFC2396_UNRESERVED,
    ),
)
claims = SCHEME.claims
check = SCHEME.check
parse = SCHEME.parse
normalize = SCHEME.normalize


def from_oai(identifier: str | OaiIdentifier) -> Poi:
    """The POI of an oai-identifier (POI §4); raises ParseError if it is invalid."""
    value = identifier if isinstance(identifier, OaiIdentifier) else oai.parse(identifier)
    return Poi(value.namespace, value.local)


def to_oai(poi: str | Poi) -> OaiIdentifier:
    """The oai-identifier of a POI (POI §4, the reverse algorithm)."""
    return (poi if isinstance(poi, Poi) else parse(poi)).to_oai()


def assign(namespace: str, local: str) -> Poi:
    """Assign a POI explicitly (POI §3): a domain, a local name, escaped as needed.

    >>> str(assign("bath.ac.uk", "lisap 2003"))
    'http://purl.org/poi/bath.ac.uk/lisap%202003'
    """
    problems = check_domain_namespace(namespace, 0, len(namespace), "poi")
    if problems:
        raise ParseError(namespace, problems)
    return parse(f"{POI_PREFIX}{namespace}/{oai.escape_local(local)}")
