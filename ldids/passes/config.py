"""What the graph passes may assume about the data: one TOML file, or keyword arguments.

Detection is strict by default (DESIGN.md §2); everything that loosens it is named here::

    # ldids.toml
    bare-pid-predicates = ["http://purl.org/dc/elements/1.1/identifier"]
    bare-handle-predicates = []
    pid-namespaces = ["demo"]
    fedora-oai-namespaces = ["example.org"]
    identity-predicates = ["http://www.openarchives.org/OAI/2.0/itemID"]
    literals-to-iris = false
    rewrite-predicates = false

    [[resolvers]]
    authority = "arrow.resolver.au.gov:2641"
    segment = "hdl"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ldids.errors import InputError
from ldids.schemes import handle, pid
from ldids.schemes._chars import DOMAIN_PATTERN, is_plain_iri
from ldids.schemes.registry import Registry
from ldids.schemes.uri_schemes import is_uri_scheme

__all__ = ["ITEM_ID", "Config"]

#: Fedora's OAI provider links an info:fedora object to its OAI item with this predicate.
ITEM_ID = "http://www.openarchives.org/OAI/2.0/itemID"


@dataclass(frozen=True)
class Config:
    """Settings of the graph passes; the defaults are the strict ones."""

    #: Predicates whose literal values are bare PIDs (``demo:1``), e.g. dc:identifier in a Fedora export.
    bare_pid_predicates: frozenset[str] = frozenset()
    #: Predicates whose literal values are bare handles (``1765/315``).
    bare_handle_predicates: frozenset[str] = frozenset()
    #: PID namespaces whose bare PIDs are recognized anywhere (as IRIs and as literals).
    pid_namespaces: frozenset[str] = frozenset()
    #: OAI namespace-identifiers served by a Fedora repository: their local parts are PIDs,
    #: so ``oai:example.org:demo:1`` names ``info:fedora/demo:1``.
    fedora_oai_namespaces: frozenset[str] = frozenset()
    #: Predicates whose subject and object name the same thing (linked with owl:sameAs).
    identity_predicates: frozenset[str] = frozenset({ITEM_ID})
    #: HTTP handle resolvers besides hdl.handle.net.
    resolvers: tuple[handle.Resolver, ...] = ()
    #: Whether identifier literals become IRIs (default: keep the literal and its datatype).
    literals_to_iris: bool = False
    #: Whether identifiers in predicate position are rewritten (default: no, they are vocabulary).
    rewrite_predicates: bool = False
    #: Modules declaring schemes of one's own (each a module-level ``SCHEME``), registered
    #: beside the five; by name, so that every worker process builds the same registry.
    schemes: tuple[str, ...] = ()
    registry: Registry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for key, predicates in (
            ("bare-pid-predicates", self.bare_pid_predicates),
            ("bare-handle-predicates", self.bare_handle_predicates),
            ("identity-predicates", self.identity_predicates),
        ):
            # A predicate is an absolute IRI, of a registered URI scheme: "dc:identifier" (a
            # prefixed name) would name no predicate of any data, and rewrite nothing.
            for predicate in sorted(predicates):
                if not is_plain_iri(predicate) or not is_uri_scheme(predicate.partition(":")[0]):
                    raise InputError(f"{key}: {predicate!r} is no absolute IRI (write it whole: http://...)")
        for namespace in sorted(self.pid_namespaces):
            if not namespace or not set(namespace) <= pid.NAMESPACE_CHARS:
                raise InputError(
                    f"pid-namespaces: {namespace!r} is no PID namespace (letters, digits, '-', '.'; without ':')"
                )
        # A URI scheme's name is never a PID namespace (DESIGN.md §2): "urn" or "doi" here
        # would turn every urn:isbn:... or doi:10... into an info:fedora IRI.
        taken = sorted(name for name in self.pid_namespaces if is_uri_scheme(name))
        if taken:
            raise InputError(f"pid-namespaces: {', '.join(taken)} is a URI scheme, never a Fedora PID namespace")
        for namespace in sorted(self.fedora_oai_namespaces):
            if re.fullmatch(DOMAIN_PATTERN, namespace) is None:
                raise InputError(
                    f"fedora-oai-namespaces: {namespace!r} is no OAI namespace-identifier (a domain name: example.org)"
                )
        try:
            registry = Registry.build((*handle.DEFAULT_RESOLVERS, *self.resolvers), self.schemes)
        except (ImportError, TypeError) as error:  # a scheme module that is not there, or declares none
            raise InputError(f"schemes: {error}") from error
        object.__setattr__(self, "registry", registry)

    @property
    def namespace_needles(self) -> frozenset[str]:
        """What a bare PID of a configured namespace holds as written, ``ns:`` or ``ns%3`` (its
        colon escaped), matched as it is (a PID namespace is case-sensitive): with the registry's
        prefilter, what a term must hold for the passes to have something to say of it."""
        return frozenset(f"{namespace}{colon}" for namespace in self.pid_namespaces for colon in (":", "%3"))

    def __reduce__(self) -> tuple[Any, ...]:
        # Workers get the settings and build their own registry (its regexes and closures
        # do not pickle, and are cheap to build).
        return (_rebuild, (tuple((f.name, getattr(self, f.name)) for f in fields(self) if f.init),))

    @classmethod
    def from_toml(cls, path: str | Path) -> Config:
        """Read a TOML configuration file; unknown keys and wrong types are input errors."""
        source = str(path)
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise InputError(error.strerror or str(error), source=source) from error
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 (TOML is): byte {error.start}", source=source) from error
        except tomllib.TOMLDecodeError as error:
            raise InputError(f"invalid TOML: {error}", source=source) from error
        return cls.from_mapping(data, source)

    @classmethod
    def from_mapping(cls, data: dict[str, Any], source: str | None = None) -> Config:
        """A configuration from TOML-style keys (``bare-pid-predicates``) or field names."""
        known = {f.name for f in fields(cls) if f.init}
        arguments: dict[str, Any] = {}
        for key, value in data.items():
            name = key.replace("-", "_")
            if name not in known:
                keys = ", ".join(sorted(name.replace("_", "-") for name in known))
                raise InputError(f"unknown configuration key {key!r}; known: {keys}", source=source)
            if name == "resolvers":
                arguments[name] = tuple(_resolver(item, source) for item in _list(key, value, source, dict))
            elif name == "schemes":
                arguments[name] = tuple(_list(key, value, source, str))
            elif name in ("literals_to_iris", "rewrite_predicates"):
                if not isinstance(value, bool):
                    raise InputError(f"{key} must be true or false", source=source)
                arguments[name] = value
            else:
                arguments[name] = frozenset(_list(key, value, source, str))
        try:
            return cls(**arguments)
        except InputError as error:
            raise InputError(error.message, source=source) from error


#: A resolver's authority (host[:port]) and first segment.
_AUTHORITY = re.compile(r"[A-Za-z0-9.-]+(?::[0-9]{1,5})?")
_SEGMENT = re.compile(r"[^/?#\s]+")


def _rebuild(items: tuple[tuple[str, Any], ...]) -> Config:
    return Config(**dict(items))


def _list(key: str, value: Any, source: str | None, kind: type) -> list[Any]:
    if not isinstance(value, list | tuple | set | frozenset) or not all(isinstance(item, kind) for item in value):
        raise InputError(f"{key} must be a list of {'tables' if kind is dict else 'strings'}", source=source)
    return list(value)


def _resolver(item: dict[str, Any], source: str | None) -> handle.Resolver:
    authority, segment = item.get("authority"), item.get("segment")
    unknown = sorted(set(item) - {"authority", "segment"})
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} in [[resolvers]] (authority, segment)", source=source)
    if not isinstance(authority, str) or not authority or not (segment is None or isinstance(segment, str)):
        raise InputError(
            "each [[resolvers]] needs authority = 'host[:port]' and may have segment = '...'", source=source
        )
    return resolver(authority, segment or None, source)


def resolver(authority: str, segment: str | None = None, source: str | None = None) -> handle.Resolver:
    """An HTTP handle resolver of ``authority`` (host[:port]) and first ``segment``, if it
    can be one; else an InputError that says why (naming ``source``)."""
    port = authority.rpartition(":")[2] if ":" in authority else "0"
    if _AUTHORITY.fullmatch(authority) is None or int(port) > 65535:
        raise InputError(f"resolver authority {authority!r} is no host[:port]", source=source)
    if segment and _SEGMENT.fullmatch(segment) is None:
        said = f"resolver segment {segment!r} is no path segment (no '/', '?', '#', space)"
        raise InputError(said, source=source)
    return handle.Resolver(authority, segment or None)
