"""Relative IRI references resolved against a base, as RFC 3986 §5.2 says, for every scheme.

rdflib resolves only against the schemes that :mod:`urllib.parse` knows to be hierarchical
(``http``, ``file``, ...), and leaves ``#a`` as it is against ``oai:arXiv.org:1`` or
``info:fedora/demo:1``: the bases an OAI-PMH record or a Fedora object gives its RDF.
The algorithm of RFC 3986 is scheme-blind, and so is this.

>>> resolve("oai:arXiv.org:hep-th/9901001", "#cho")
'oai:arXiv.org:hep-th/9901001#cho'
>>> resolve("http://a/b/c/d;p?q", "../g")
'http://a/b/g'
"""

from __future__ import annotations

import re

__all__ = ["has_scheme", "resolve"]

# RFC 3986 appendix B: scheme, authority, path, query, fragment.
_PARTS = re.compile(r"^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.S)


def has_scheme(text: str) -> bool:
    """True for an absolute IRI (one that starts with a scheme), false for a relative reference."""
    match = _PARTS.match(text)
    return match is not None and match.group(1) is not None


def resolve(base: str, reference: str) -> str:
    """``reference`` resolved against the absolute IRI ``base`` (RFC 3986 §5.2.2, non-strict).

    >>> resolve("info:fedora/demo:1", "")
    'info:fedora/demo:1'
    >>> resolve("http://a/b/c/d;p?q", "g?y#s")
    'http://a/b/c/g?y#s'
    """
    r_scheme, r_authority, r_path, r_query, r_fragment = _split(reference)
    b_scheme, b_authority, b_path, b_query, _ = _split(base)
    scheme: str | None
    authority: str | None
    query: str | None
    if r_scheme is not None:
        scheme, authority, path, query = r_scheme, r_authority, _remove_dot_segments(r_path), r_query
    elif r_authority is not None:
        scheme, authority, path, query = b_scheme, r_authority, _remove_dot_segments(r_path), r_query
    elif r_path == "":
        scheme, authority, path, query = b_scheme, b_authority, b_path, r_query if r_query is not None else b_query
    else:
        if r_path.startswith("/"):
            path = _remove_dot_segments(r_path)
        elif b_authority is not None and b_path == "":
            path = _remove_dot_segments("/" + r_path)
        else:
            path = _remove_dot_segments(b_path[: b_path.rfind("/") + 1] + r_path)
        scheme, authority, query = b_scheme, b_authority, r_query
    text = f"{scheme}:" if scheme is not None else ""
    text += f"//{authority}" if authority is not None else ""
    text += path
    text += f"?{query}" if query is not None else ""
    return text + (f"#{r_fragment}" if r_fragment is not None else "")


def _split(text: str) -> tuple[str | None, str | None, str, str | None, str | None]:
    match = _PARTS.match(text)
    if match is None:  # the pattern matches every string
        raise AssertionError(text)
    scheme, authority, path, query, fragment = match.groups()
    return scheme, authority, path, query, fragment


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4."""
    output: list[str] = []
    rest = path
    while rest:
        if rest.startswith("../"):
            rest = rest[3:]
        elif rest.startswith("./") or rest.startswith("/./"):
            rest = rest[2:]
        elif rest == "/.":
            rest = "/"
        elif rest.startswith("/../"):
            rest = rest[3:]
            if output:
                output.pop()
        elif rest == "/..":
            rest = "/"
            if output:
                output.pop()
        elif rest in (".", ".."):
            rest = ""
        else:
            end = rest.find("/", 1)
            segment, rest = (rest, "") if end < 0 else (rest[:end], rest[end:])
            output.append(segment)
    return "".join(output)
