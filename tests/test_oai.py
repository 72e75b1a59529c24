"""OAI identifiers: every example of the OAI identifier format text, request encoding,
internal-identifier escaping and the Identify description block."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ldids.errors import InputError, ParseError
from ldids.schemes import oai

SHARED = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "realdata"


@pytest.mark.parametrize(
    ("text", "poi"),
    [
        # "The following are valid oai-identifier identifiers:"
        ("oai:arXiv.org:hep-th/9901001", "http://purl.org/poi/arXiv.org/hep-th/9901001"),
        ("oai:foo.org:some-local-id-53", "http://purl.org/poi/foo.org/some-local-id-53"),
        ("oai:FOO.ORG:some-local-id-53", "http://purl.org/poi/FOO.ORG/some-local-id-53"),
        ("oai:foo.org:some-local-id-54", "http://purl.org/poi/foo.org/some-local-id-54"),
        ("oai:foo.org:Some-Local-Id-54", "http://purl.org/poi/foo.org/Some-Local-Id-54"),
        ("oai:wibble.org:ab%20cd", "http://purl.org/poi/wibble.org/ab%20cd"),
        ("oai:wibble.org:ab?cd", "http://purl.org/poi/wibble.org/ab?cd"),
        # The encoding example and the Identify description examples.
        ("oai:an.oai.org:ab%3Ccd", "http://purl.org/poi/an.oai.org/ab%3Ccd"),
        ("oai:bespa.org:medi99-123", "http://purl.org/poi/bespa.org/medi99-123"),
        ("oai:oai-stuff.foo.org:5324", "http://purl.org/poi/oai-stuff.foo.org/5324"),
        # The local part starts after the second colon and may contain colons (DESIGN §1;
        # real data: sickle's ListIdentifiers has an empty first segment).
        ("oai:test.example.com::1585310", "http://purl.org/poi/test.example.com/:1585310"),
        ("oai:a.b:c:d", "http://purl.org/poi/a.b/c:d"),
        # All reserved and unreserved characters, unescaped, are allowed.
        ("oai:a.b:;/?:@&=+$,-_.!~*'()", "http://purl.org/poi/a.b/;/?:@&=+$,-_.!~*'()"),
        # Single-character labels: the ABNF allows them, though the XSD pattern does not.
        ("oai:a.b:1", "http://purl.org/poi/a.b/1"),
        ("oai:x-1.y2:1", "http://purl.org/poi/x-1.y2/1"),
    ],
)
def test_valid(text: str, poi: str) -> None:
    assert oai.check(text) == []
    # An oai-identifier is never rewritten: normalized is the identical string.
    assert oai.normalize(text) == text
    assert str(oai.parse(text)) == text
    assert oai.parse(text).iri == poi
    assert oai.SCHEME.canonical(text) == poi


def test_case_distinguishes_identifiers() -> None:
    # "oai:foo.org:some-local-id-54" and "...:Some-Local-Id-54" are distinct identifiers.
    assert oai.parse("oai:foo.org:some-local-id-54") != oai.parse("oai:foo.org:Some-Local-Id-54")
    assert oai.parse("oai:foo.org:x") != oai.parse("oai:FOO.ORG:x")


@pytest.mark.parametrize(
    ("text", "code", "span"),
    [
        # "The following are not valid oai-identifier identifiers:"
        ("something:arXiv.org:hep-th/9901001", "oai.scheme", (0, 9)),
        ("oai:999:abc123", "oai.label-start", (4, 5)),
        ("oai:wibble:abc123", "oai.namespace-not-domain", (4, 10)),
        ("oai:wibble.org:ab cd", "oai.invalid-character", (17, 18)),
        ("oai:wibble.org:ab#cd", "oai.invalid-character", (17, 18)),
        ("oai:wibble.org:ab<cd", "oai.invalid-character", (17, 18)),
        ("oai:wibble.org:ab%3ccd", "oai.lowercase-hex", (17, 20)),
        # Characters in the reserved and unreserved sets must not be escaped.
        ("oai:wibble.org:ab%2Fcd", "oai.escaped-reserved", (17, 20)),
        ("oai:wibble.org:ab%3Acd", "oai.escaped-reserved", (17, 20)),
        ("oai:wibble.org:ab%41cd", "oai.escaped-unreserved", (17, 20)),
        ("oai:wibble.org:ab%7Ecd", "oai.escaped-unreserved", (17, 20)),
        ("oai:wibble.org:ab%2", "oai.bad-escape", (17, 19)),
        ("oai:wibble.org:abé", "oai.invalid-character", (17, 18)),
        # The scheme is case-sensitive and is never repaired.
        ("OAI:wibble.org:abc", "oai.scheme-case", (0, 3)),
        ("oai:wibble.org", "oai.missing-local-identifier", (14, 14)),
        ("oai:wibble.org:", "oai.empty-local-identifier", (15, 15)),
        ("oai::abc", "oai.empty-namespace", (4, 4)),
        ("oai:a..b:c", "oai.empty-label", (6, 7)),
        ("oai:a.b_c:d", "oai.namespace-character", (7, 8)),
        ("oai:-a.b:c", "oai.label-start", (4, 5)),
    ],
)
def test_invalid(text: str, code: str, span: tuple[int, int]) -> None:
    problems = oai.check(text)
    assert problems, text
    assert (problems[0].code, (problems[0].start, problems[0].end)) == (code, span)
    with pytest.raises(ParseError) as caught:
        oai.normalize(text)
    assert caught.value.span == span


def test_caret_rendering_matches_house_style() -> None:
    with pytest.raises(ParseError) as caught:
        oai.parse("oai:wibble.org:ab%2Fcd")
    assert str(caught.value) == (
        "reserved character '/' must not be escaped [oai.escaped-reserved]\n"
        "    oai:wibble.org:ab%2Fcd\n"
        "                     ^~~"
    )


# -- OAI-PMH request encoding ------------------------------------------------------------


def test_request_encoding_example_from_the_spec() -> None:
    assert oai.request_argument("oai:an.oai.org:ab%3Ccd") == "identifier=oai%3Aan.oai.org%3Aab%253Ccd"


@pytest.mark.parametrize(
    ("identifier", "argument"),
    [
        ("oai:arXiv.org:hep-th/9901001", "identifier=oai%3AarXiv.org%3Ahep-th%2F9901001"),
        ("oai:a.b:x?y&z=1+2", "identifier=oai%3Aa.b%3Ax%3Fy%26z%3D1%2B2"),
        ("oai:a.b:it's~(1)!*", "identifier=oai%3Aa.b%3Ait's~(1)!*"),
    ],
)
def test_request_encoding(identifier: str, argument: str) -> None:
    assert oai.request_argument(identifier) == argument
    assert str(oai.decode_request_argument(argument)) == identifier


def test_request_url() -> None:
    assert oai.request_url("http://an.oai.org/oai", "oai:an.oai.org:ab%3Ccd", "GetRecord", None) == (
        "http://an.oai.org/oai?verb=GetRecord&identifier=oai%3Aan.oai.org%3Aab%253Ccd"
    )


def test_request_encoding_refuses_invalid_identifiers() -> None:
    with pytest.raises(ParseError):
        oai.request_argument("oai:wibble.org:ab cd")


# -- Escaping internal identifiers -------------------------------------------------------


@pytest.mark.parametrize(
    ("internal", "local"),
    [
        # The spec: a space in an internal id "correctly escaped" as %20.
        ("ab cd", "ab%20cd"),
        # '<' is escaped as %3C (not %3c); '?' is reserved and stays.
        ("ab<cd", "ab%3Ccd"),
        ("ab?cd", "ab?cd"),
        # '#' and '%' are neither reserved nor unreserved.
        ("ab#cd", "ab%23cd"),
        ("100%", "100%25"),
        # Non-ASCII: its UTF-8 octets.
        ("café", "caf%C3%A9"),
        ("hep-th/9901001", "hep-th/9901001"),
    ],
)
def test_escape_local(internal: str, local: str) -> None:
    assert oai.escape_local(internal) == local
    assert oai.unescape_local(local) == internal
    assert str(oai.from_internal("wibble.org", internal)) == f"oai:wibble.org:{local}"


def test_from_internal_refuses_a_bad_namespace() -> None:
    with pytest.raises(ParseError) as caught:
        oai.from_internal("wibble", "x")
    assert caught.value.code == "oai.namespace-not-domain"


# -- The Identify description block ------------------------------------------------------

SPEC_DESCRIPTION = """<description> <oai-identifier xmlns="http://www.openarchives.org/OAI/2.0/oai-identifier"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
 xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai-identifier http://www.openarchives.org/OAI/2.0/oai-identifier.xsd">
 <scheme>oai</scheme> <repositoryIdentifier>{repository}</repositoryIdentifier> <delimiter>:</delimiter>
 <sampleIdentifier>{sample}</sampleIdentifier> </oai-identifier> </description>"""


@pytest.mark.parametrize(
    ("repository", "sample"),
    [("bespa.org", "oai:bespa.org:medi99-123"), ("oai-stuff.foo.org", "oai:oai-stuff.foo.org:5324")],
)
def test_reads_the_spec_description_examples(repository: str, sample: str) -> None:
    found = oai.read_description(SPEC_DESCRIPTION.format(repository=repository, sample=sample))
    assert found == oai.IdentifyDescription(repository, sample)
    assert oai.check_description(found) == []


@pytest.mark.shared
def test_reads_a_real_identify_response() -> None:
    data = (SHARED / "sickle" / "sample_data" / "Identify.xml").read_bytes()
    found = oai.read_description(data)
    assert found == oai.IdentifyDescription("test.example.com", "oai:test.example.com:2342")
    assert oai.check_description(found) == []


@pytest.mark.parametrize("sample", ["oai:ab.org:a&b=1", "oai:ab.org:x;y?z@w", "oai:ab.org:%3C&%3E"])
def test_a_written_description_reads_back_whatever_the_sample_holds(sample: str) -> None:
    """'&' is a reserved character an identifier holds unescaped (OAI identifier format,
    syntax): it was written as it is, and the block was no XML, not even to ldids' reader."""
    assert oai.check(sample) == []
    xml = oai.description_xml("ab.org", sample)
    assert oai.read_description(xml) == oai.IdentifyDescription("ab.org", sample)


def test_written_description_reads_back() -> None:
    xml = oai.description_xml("bespa.org", "oai:bespa.org:medi99-123")
    assert "<repositoryIdentifier>bespa.org</repositoryIdentifier>" in xml
    assert oai.read_description(xml) == oai.IdentifyDescription("bespa.org", "oai:bespa.org:medi99-123")


@pytest.mark.parametrize(
    ("description", "codes"),
    [
        (oai.IdentifyDescription("bespa.org", "oai:other.org:1"), ["oai-description.mismatch"]),
        (
            oai.IdentifyDescription("bespa", "oai:bespa:1"),
            ["oai-description.repository-identifier.namespace-not-domain", "oai-description.sample-identifier"],
        ),
        (oai.IdentifyDescription("bespa.org", "oai:bespa.org:a b"), ["oai-description.sample-identifier"]),
        (oai.IdentifyDescription("bespa.org", "oai:bespa.org:1", scheme="urn"), ["oai-description.scheme"]),
        (oai.IdentifyDescription("bespa.org", "oai:bespa.org:1", delimiter="/"), ["oai-description.delimiter"]),
    ],
)
def test_inconsistent_descriptions(description: oai.IdentifyDescription, codes: list[str]) -> None:
    assert [p.code for p in oai.check_description(description)] == codes


def test_writing_an_inconsistent_description_fails() -> None:
    with pytest.raises(ParseError) as caught:
        oai.description_xml("bespa.org", "oai:other.org:1")
    assert caught.value.code == "oai-description.mismatch"


@pytest.mark.parametrize(
    ("xml", "line"),
    [
        (b"<a><b></a>", 1),
        (b"<?xml version='1.0'?>\n<a>\n<b></c>", 3),
    ],
)
def test_malformed_xml_says_where(xml: bytes, line: int) -> None:
    with pytest.raises(InputError) as caught:
        oai.read_description(xml, source="x.xml")
    assert caught.value.line == line
    assert caught.value.column is not None
    assert str(caught.value).startswith(f"x.xml:{line}:")


def test_entity_declarations_are_refused() -> None:
    laughs = b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><l>&b;</l>'
    with pytest.raises(InputError, match="refused"):
        oai.read_description(laughs)


def test_missing_block_and_elements() -> None:
    with pytest.raises(InputError, match="no oai-identifier"):
        oai.read_description("<Identify/>")
    incomplete = '<oai-identifier xmlns="http://www.openarchives.org/OAI/2.0/oai-identifier"><scheme>oai</scheme></oai-identifier>'
    with pytest.raises(InputError, match="repositoryIdentifier"):
        oai.read_description(incomplete)
