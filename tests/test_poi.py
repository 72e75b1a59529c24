"""POIs: the examples, the assignment algorithm and the POI <-> oai-identifier mapping."""

from __future__ import annotations

import pytest

from ldids.errors import ParseError
from ldids.schemes import oai, poi

# POI §2 examples.
EXAMPLES = [
    "http://purl.org/poi/bath.ac.uk/lisap-2003-1286544",
    "http://purl.org/poi/rdn.ac.uk/12345-67890",
    "http://purl.org/poi/arXiv.org/hep-th/9901001",
    "http://purl.org/poi/foo.org/some-local-id-53",
    "http://purl.org/poi/xtcat.oclc.org/OCLCNo/ocm41020136",
]

# POI §4 mapping examples, both directions.
MAPPINGS = [
    ("oai:bath.ac.uk:lisap-2003-1286544", "http://purl.org/poi/bath.ac.uk/lisap-2003-1286544"),
    ("oai:rdn.ac.uk:12345-67890", "http://purl.org/poi/rdn.ac.uk/12345-67890"),
    ("oai:arXiv.org:hep-th/9901001", "http://purl.org/poi/arXiv.org/hep-th/9901001"),
    ("oai:foo.org:some-local-id-53", "http://purl.org/poi/foo.org/some-local-id-53"),
    ("oai:xtcat.oclc.org:OCLCNo/ocm41020136", "http://purl.org/poi/xtcat.oclc.org/OCLCNo/ocm41020136"),
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_examples_are_valid_and_normal(text: str) -> None:
    assert poi.check(text) == []
    assert poi.normalize(text) == text
    assert poi.parse(text).iri == text


@pytest.mark.parametrize(("identifier", "purl"), MAPPINGS)
def test_oai_to_poi(identifier: str, purl: str) -> None:
    assert str(poi.from_oai(identifier)) == purl
    assert oai.parse(identifier).iri == purl


@pytest.mark.parametrize(("identifier", "purl"), MAPPINGS)
def test_poi_to_oai(identifier: str, purl: str) -> None:
    assert str(poi.to_oai(purl)) == identifier
    assert poi.SCHEME.equivalents(poi.parse(purl)) == (identifier,)


def test_only_the_first_slash_separates() -> None:
    value = poi.parse("http://purl.org/poi/xtcat.oclc.org/OCLCNo/ocm41020136")
    assert (value.namespace, value.local) == ("xtcat.oclc.org", "OCLCNo/ocm41020136")


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        # Scheme and host compare case-insensitively; default ports are dropped; https is
        # the same POI (DESIGN §1). The path stays as it is.
        ("HTTP://PURL.ORG/poi/arXiv.org/hep-th/9901001", "http://purl.org/poi/arXiv.org/hep-th/9901001"),
        ("http://purl.org:80/poi/arXiv.org/X", "http://purl.org/poi/arXiv.org/X"),
        ("https://purl.org/poi/arXiv.org/X", "http://purl.org/poi/arXiv.org/X"),
        ("HTTPS://Purl.Org:443/poi/arXiv.org/X", "http://purl.org/poi/arXiv.org/X"),
        ("http://purl.org:/poi/a.b/c", "http://purl.org/poi/a.b/c"),
    ],
)
def test_normalization(text: str, normalized: str) -> None:
    assert poi.normalize(text) == normalized


@pytest.mark.parametrize(
    ("text", "code", "span"),
    [
        ("http://purl.org:8080/poi/a.b/c", "poi.port", (15, 20)),
        ("https://purl.org:80/poi/a.b/c", "poi.port", (16, 19)),
        ("http://purl.org/poi/a.b", "poi.missing-local-identifier", (23, 23)),
        ("http://purl.org/poi/a.b/", "poi.empty-local-identifier", (24, 24)),
        ("http://purl.org/poi/999/x", "poi.label-start", (20, 21)),
        ("http://purl.org/poi/wibble/x", "poi.namespace-not-domain", (20, 26)),
        ("http://purl.org/poi/a.b/c%3c", "poi.lowercase-hex", (25, 28)),
        ("http://purl.org/poi/a.b/c%3A", "poi.escaped-reserved", (25, 28)),
        ("http://purl.org/poi/a.b/c#d", "poi.invalid-character", (25, 26)),
        ("http://example.org/poi/a.b/c", "poi.prefix", (0, 20)),
    ],
)
def test_invalid(text: str, code: str, span: tuple[int, int]) -> None:
    problems = poi.check(text)
    assert problems
    assert (problems[0].code, (problems[0].start, problems[0].end)) == (code, span)


@pytest.mark.parametrize(
    "text",
    ["http://purl.org/POI/a.b/c", "http://purl.org/poi", "ftp://purl.org/poi/a.b/c", "http://purl.org.evil/poi/a.b/c"],
)
def test_other_purls_are_not_claimed(text: str) -> None:
    # The path is case-sensitive: /POI/ is some other PURL, not a POI.
    assert not poi.claims(text)


@pytest.mark.parametrize(
    ("namespace", "local", "expected"),
    [
        ("bath.ac.uk", "lisap-2003-1286544", "http://purl.org/poi/bath.ac.uk/lisap-2003-1286544"),
        ("xtcat.oclc.org", "OCLCNo/ocm41020136", "http://purl.org/poi/xtcat.oclc.org/OCLCNo/ocm41020136"),
        # "If necessary, apply character escaping the local-identifier as described above."
        ("bath.ac.uk", "a b#c", "http://purl.org/poi/bath.ac.uk/a%20b%23c"),
    ],
)
def test_assignment(namespace: str, local: str, expected: str) -> None:
    assert str(poi.assign(namespace, local)) == expected


def test_assignment_needs_a_domain() -> None:
    with pytest.raises(ParseError) as caught:
        poi.assign("localhost", "x")
    assert caught.value.code == "poi.namespace-not-domain"
