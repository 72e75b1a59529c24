"""Relative references resolved as RFC 3986 §5.4 says, and against non-hierarchical bases."""

from __future__ import annotations

import pytest

from ldids.rdf.reference import has_scheme, resolve

BASE = "http://a/b/c/d;p?q"


@pytest.mark.parametrize(
    ("reference", "target"),
    [
        # RFC 3986 §5.4.1, normal examples.
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
        # §5.4.2, abnormal examples.
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),  # strict parsers
    ],
)
def test_rfc_3986_examples(reference: str, target: str) -> None:
    assert resolve(BASE, reference) == target


@pytest.mark.parametrize(
    ("base", "reference", "target"),
    [
        # The bases OAI-PMH records and Fedora objects give their RDF: no authority, and a
        # path without "/" (the OAI identifier) or with one (info:fedora/).
        ("oai:arXiv.org:hep-th/9901001", "", "oai:arXiv.org:hep-th/9901001"),
        ("oai:arXiv.org:hep-th/9901001", "#cho", "oai:arXiv.org:hep-th/9901001#cho"),
        ("oai:arXiv.org:hep-th/9901001", "9901002", "oai:arXiv.org:hep-th/9901002"),
        ("oai:a.b:c", "d", "oai:d"),
        ("info:fedora/demo:1", "DC", "info:fedora/DC"),
        ("info:fedora/demo:1/DC", "RELS-EXT", "info:fedora/demo:1/RELS-EXT"),
        ("http://a", "b", "http://a/b"),  # an empty path with an authority merges as "/"
    ],
)
def test_non_hierarchical_bases(base: str, reference: str, target: str) -> None:
    assert resolve(base, reference) == target


def test_has_scheme() -> None:
    assert has_scheme("oai:a.b:c")
    assert has_scheme("x+y.z-1:")
    assert not has_scheme("")
    assert not has_scheme("#a")
    assert not has_scheme("a/b:c")
    assert not has_scheme("1a:b")
