"""URI scheme names registered with IANA, which are never Fedora PID namespaces.

A bare PID (``demo:1``) is written like the start of any URI or CURIE. ``urn:isbn:…``,
``doi:10.…`` or ``http:…`` in a ``dc:identifier`` name things in other schemes, and
rewriting them to ``info:fedora/`` IRIs would destroy them (DESIGN.md §2). The list ships
as data (``data/uri-schemes.tsv``: permanent, provisional and historical registrations,
with its source and date), so that it can be brought up to date without touching code.

>>> is_uri_scheme("URN"), is_uri_scheme("doi"), is_uri_scheme("demo")
(True, True, False)
"""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["is_uri_scheme", "registered"]


@functools.cache
def registered() -> frozenset[str]:
    """Every registered scheme name, in lower case."""
    text = (resources.files("ldids.schemes") / "data" / "uri-schemes.tsv").read_text(encoding="utf-8")
    return frozenset(line.split("\t", 1)[0] for line in text.splitlines() if line and not line.startswith("#"))


def is_uri_scheme(name: str) -> bool:
    """Whether ``name`` is a registered URI scheme (compared in any case, RFC 3986 §3.1)."""
    return name.lower() in registered()
