"""info:fedora URIs: every example of the Fedora text, and the DESIGN.md §1 decisions."""

from __future__ import annotations

import pytest

from ldids.errors import ParseError
from ldids.schemes import info_fedora


@pytest.mark.parametrize(
    "text",
    [
        # The spec's examples, each already normalized.
        "info:fedora/example:1",
        "info:fedora/example:9876",
        "info:fedora/example:3/DS1",
        "info:fedora/example:3/example:1/index",
        "info:fedora/*/DS1",
        "info:fedora/*/example:1/index",
        # A fragment with escapes and IRI characters is kept as written.
        "info:fedora/demo:1#a%2f%C3%A9é/?",
        # Fedora's own vocabulary IRIs pass through unchanged (fragment kept verbatim).
        "info:fedora/fedora-system:def/model#hasModel",
        "info:fedora/fedora-system:def/relations-external#isMemberOfCollection",
        "info:fedora/fedora-system:def/model#",
        "info:fedora/fedora-system:FedoraObject-3.0",
        "info:fedora/fedora-system:FedoraObject-3.0#datastreams/RELS-EXT/class",
        "info:fedora/demo:SmileyStuff/MEDIUM_SIZE",
        # Parameters already in order.
        "info:fedora/demo:1/bdef:1/view?a=1&b=2",
        # Escapes that are needed stay (upper case): é in a datastream id.
        "info:fedora/demo:1/DS%C3%A9",
    ],
)
def test_normalized_examples_are_fixed_points(text: str) -> None:
    assert info_fedora.check(text) == []
    assert info_fedora.normalize(text) == text
    assert info_fedora.parse(text).iri == text


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        # Scheme and namespace are case-insensitive (RFC 4452, DESIGN §1).
        ("INFO:FEDORA/demo:1", "info:fedora/demo:1"),
        ("Info:Fedora/demo:1/DS1", "info:fedora/demo:1/DS1"),
        # "Normalize the PID portion(s) of the URI."
        ("info:fedora/demo%3a1", "info:fedora/demo:1"),
        ("info:fedora/demo:a%2fb/DS1", "info:fedora/demo:a%2Fb/DS1"),
        ("info:fedora/demo:1/bdef%3A1/view", "info:fedora/demo:1/bdef:1/view"),
        ("info:fedora/*/bdef%3a1/view", "info:fedora/*/bdef:1/view"),
        # "Un-escape any URI-escaped characters that do not need escaping."
        ("info:fedora/demo:1/%44%53%31", "info:fedora/demo:1/DS1"),
        ("info:fedora/demo:1/DS%2D1%5f%2e", "info:fedora/demo:1/DS-1_."),
        ("info:fedora/demo:1/bdef:1/%76iew", "info:fedora/demo:1/bdef:1/view"),
        # "Make all remaining escaped octets use UPPERCASE (%ff becomes %FF)."
        ("info:fedora/demo:1/DS%c3%a9", "info:fedora/demo:1/DS%C3%A9"),
        # One to four UTF-8 octets per NCName character.
        ("info:fedora/demo:1/%e4%b8%ad", "info:fedora/demo:1/%E4%B8%AD"),
        ("info:fedora/demo:1/DS%f0%90%80%80", "info:fedora/demo:1/DS%F0%90%80%80"),
        # A raw non-ASCII NCName character (an IRI) gets its UTF-8 escapes (RFC 3987 §3.1).
        ("info:fedora/demo:1/DSé", "info:fedora/demo:1/DS%C3%A9"),
        # "Parameters should be alphabetized in order by name, then by value", UTF-8 order.
        ("info:fedora/demo:1/bdef:1/view?b=2&a=1", "info:fedora/demo:1/bdef:1/view?a=1&b=2"),
        ("info:fedora/demo:1/bdef:1/view?a=2&a=1", "info:fedora/demo:1/bdef:1/view?a=1&a=2"),
        ("info:fedora/demo:1/bdef:1/view?B=1&a=1", "info:fedora/demo:1/bdef:1/view?B=1&a=1"),
        ("info:fedora/demo:1/bdef:1/view?%c3%a9=1&z=1", "info:fedora/demo:1/bdef:1/view?z=1&%C3%A9=1"),
        ("info:fedora/demo:1/bdef:1/view?x=%41&w", "info:fedora/demo:1/bdef:1/view?w&x=A"),
        # The fragment is kept verbatim, the rest normalized.
        ("INFO:fedora/demo%3a1#Frag/x%2f", "info:fedora/demo:1#Frag/x%2f"),
    ],
)
def test_normalization(text: str, normalized: str) -> None:
    assert info_fedora.check(text) == []
    assert info_fedora.normalize(text) == normalized
    assert info_fedora.normalize(normalized) == normalized


def test_parts() -> None:
    value = info_fedora.parse("info:fedora/*/example:1/index?b=2&a=1#f")
    assert value.pid is None
    assert str(value.bdef) == "example:1"
    assert value.method == "index"
    assert value.parameters == (("a", "1"), ("b", "2"))
    assert value.fragment == "f"
    assert not value.is_object
    assert info_fedora.parse("info:fedora/demo:1").is_object


@pytest.mark.parametrize(
    ("text", "code", "span"),
    [
        ("info:fedora/", "info-fedora.empty", (12, 12)),
        ("info:fedora/*", "info-fedora.wildcard-alone", (12, 13)),
        ("info:fedora/demo", "info-fedora.missing-separator", (16, 16)),
        ("info:fedora/demo:1:2", "info-fedora.object-id-character", (18, 19)),
        ("info:fedora/demo:1/", "info-fedora.empty-segment", (19, 19)),
        # A second segment with ':' is a behaviour-definition PID: it needs a method.
        ("info:fedora/demo:1/bdef:1", "info-fedora.missing-method", (19, 25)),
        # Datastream ids and method names are XML NCNames.
        ("info:fedora/demo:1/1DS", "info-fedora.datastream-id", (19, 20)),
        ("info:fedora/demo:1/DS~1", "info-fedora.datastream-id", (21, 22)),
        ("info:fedora/demo:1/DS%2F", "info-fedora.datastream-id", (21, 24)),
        ("info:fedora/demo:1/bdef:1/-view", "info-fedora.method-name", (26, 27)),
        ("info:fedora/demo:1/DS%C3", "info-fedora.bad-utf8", (21, 24)),
        ("info:fedora/demo:1/DS%G1", "info-fedora.bad-escape", (21, 24)),
        ("info:fedora/demo:1/DS1/extra", "info-fedora.extra-segment", (22, 28)),
        ("info:fedora/demo:1/b:1/m/x", "info-fedora.extra-segment", (24, 26)),
        # A second segment that holds ':' is a behaviour-definition PID, checked as one
        # (DESIGN.md §1): its bad namespace character is the problem, not a datastream id's.
        ("info:fedora/demo:1/bd_ef:1/m", "info-fedora.namespace-character", (21, 22)),
        ("info:fedora/*/bd_ef:1/index", "info-fedora.namespace-character", (16, 17)),
        ("info:fedora/demo:1/bd%20f:1/m", "info-fedora.namespace-character", (21, 22)),
        # Parameters are defined for method disseminations only.
        ("info:fedora/demo:1?x=1", "info-fedora.unexpected-parameters", (18, 22)),
        ("info:fedora/demo:1/DS1?x=1", "info-fedora.unexpected-parameters", (22, 26)),
        ("info:fedora/demo:1/b:1/m?", "info-fedora.empty-parameter", (24, 25)),
        ("info:fedora/demo:1/b:1/m?a=1&&b=2", "info-fedora.empty-parameter", (28, 29)),
        ("info:fedora/demo:1/b:1/m?a=<", "info-fedora.parameter-character", (27, 28)),
        ("info:fedora/demo:1#a b", "info-fedora.fragment-character", (20, 21)),
        ("info:fedora/demo:1#a#b", "info-fedora.fragment-character", (20, 21)),
        # The fragment is kept verbatim, so it must be an RFC 3987 §2.2 ifragment.
        ("info:fedora/demo:1#a%zz", "info-fedora.bad-escape", (20, 23)),
        ("info:fedora/demo:1/DS1#50%", "info-fedora.bad-escape", (25, 26)),
        ("info:fedora/demo:1#x[1]", "info-fedora.fragment-character", (20, 21)),
        ("info:fedora/demo:1#\ue000", "info-fedora.fragment-character", (19, 20)),
        ("info:fedora/demo:1#\ufffe", "info-fedora.fragment-character", (19, 20)),
        # Real data: a Fedora-2 style IRI that is no PID (fcrepo demo FOXML) is reported.
        ("info:fedora/demo/content/JPEG#", "info-fedora.missing-separator", (16, 16)),
    ],
)
def test_invalid(text: str, code: str, span: tuple[int, int]) -> None:
    problems = info_fedora.check(text)
    assert problems, text
    assert (problems[0].code, (problems[0].start, problems[0].end)) == (code, span)
    with pytest.raises(ParseError):
        info_fedora.parse(text)
    with pytest.raises(ParseError):
        info_fedora.SCHEME.canonical(text)  # nor on the shortcuts


def test_pid_too_long_inside_uri() -> None:
    text = "info:fedora/n:" + "x" * 63
    assert [p.code for p in info_fedora.check(text)] == ["info-fedora.too-long"]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # What the repair is for: prefix case, escaped separator, escaped name characters.
        ("INFO:FEDORA/demo%3a1/DS%2d1", "info:fedora/demo:1/DS-1"),
        # A fragment is kept verbatim (DESIGN.md §1), whatever it looks like: a '/' in it
        # does not start a datastream id, and its escapes are not decoded.
        ("infO:fedora/0:a#bdef:1/view%2d", "info:fedora/0:a#bdef:1/view%2d"),
        ("info:fedora/0%3aa#x/DS%2d", "info:fedora/0:a#x/DS%2d"),
        ("INFO:fedora/0:a/DS%2d#x%2d", "info:fedora/0:a/DS-#x%2d"),
    ],
)
def test_shortcuts_leave_the_fragment_alone(text: str, canonical: str) -> None:
    assert info_fedora.SCHEME.canonical(text) == canonical
    assert info_fedora.SCHEME.full_canonical(text) == canonical
