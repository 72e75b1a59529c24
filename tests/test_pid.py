"""Fedora PIDs: the spec's syntax, regex and normalization, and DESIGN.md §1 decisions."""

from __future__ import annotations

import re

import pytest

from ldids.errors import ParseError
from ldids.schemes import pid

# The spec's regular expression, copied from the text: the module must use exactly it.
SPEC_REGEX = r"^([A-Za-z0-9]|-|\.)+:(([A-Za-z0-9])|-|\.|~|_|(%[0-9A-F]{2}))+$"


def test_module_uses_the_spec_regex() -> None:
    assert pid.PID_RE.pattern == SPEC_REGEX


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        # Examples of the spec (the PIDs inside its info:fedora examples).
        ("example:1", "example:1"),
        ("example:9876", "example:9876"),
        ("demo:SmileyStuff", "demo:SmileyStuff"),
        ("fedora-system:FedoraObject-3.0", "fedora-system:FedoraObject-3.0"),
        # Every character class of the ABNF.
        ("a.b-c:x.y-z~_9", "a.b-c:x.y-z~_9"),
        # Normalization: the separator may be %3A or %3a ...
        ("demo%3A1", "demo:1"),
        ("demo%3a1", "demo:1"),
        # ... and hex digits become upper case.
        ("demo:1%7e", "demo:1%7E"),
        ("demo%3ab%2fc", "demo:b%2Fc"),
        # Only the separator is decoded: an escaped colon in the object-id stays (DESIGN §1).
        ("demo:a%3ab", "demo:a%3Ab"),
        ("demo%3Aa%3Ab", "demo:a%3Ab"),
        # No other case folding.
        ("Demo:ABC", "Demo:ABC"),
        # The 64-character limit applies to the normalized PID.
        ("n:" + "x" * 62, "n:" + "x" * 62),
        ("n%3A" + "x" * 62, "n:" + "x" * 62),
    ],
)
def test_valid(text: str, normalized: str) -> None:
    assert pid.check(text) == []
    assert pid.normalize(text) == normalized
    assert str(pid.parse(text)) == normalized
    assert pid.parse(text).iri == "info:fedora/" + normalized
    assert re.fullmatch(SPEC_REGEX, normalized)


@pytest.mark.parametrize(
    ("text", "code", "span"),
    [
        ("", "pid.empty", (0, 0)),
        ("demo", "pid.missing-separator", (4, 4)),
        ("demo 1", "pid.missing-separator", (4, 5)),
        ("de mo:1", "pid.namespace-character", (2, 3)),
        ("dem_o:1", "pid.namespace-character", (3, 4)),
        (":1", "pid.empty-namespace", (0, 1)),
        ("%3A1", "pid.empty-namespace", (0, 3)),
        # An empty object-id is invalid (DESIGN §1).
        ("demo:", "pid.empty-object-id", (4, 5)),
        ("demo%3A", "pid.empty-object-id", (4, 7)),
        ("demo:1:2", "pid.object-id-character", (6, 7)),
        ("demo:a/b", "pid.object-id-character", (6, 7)),
        ("demo:é", "pid.object-id-character", (5, 6)),
        ("demo:1%", "pid.bad-escape", (6, 7)),
        ("demo:1%4", "pid.bad-escape", (6, 8)),
        ("demo:1%g0", "pid.bad-escape", (6, 9)),
        # 65 characters once normalized; the span covers what is too much.
        ("n:" + "x" * 63, "pid.too-long", (64, 65)),
        # 67 characters as written, 65 normalized: the escaped separator shifts the span.
        ("n%3A" + "x" * 63, "pid.too-long", (66, 67)),
    ],
)
def test_invalid(text: str, code: str, span: tuple[int, int]) -> None:
    problems = pid.check(text)
    assert problems, text
    assert (problems[0].code, (problems[0].start, problems[0].end)) == (code, span)
    with pytest.raises(ParseError) as caught:
        pid.parse(text)
    assert caught.value.code == code


def test_64_characters_with_escape_in_object_id_is_valid() -> None:
    # Escapes count as three characters: the normalized form is what is measured.
    text = "n:" + "%41" * 20 + "x" * 2
    assert len(text) == 64
    assert pid.check(text) == []


@pytest.mark.parametrize("text", ["demo:1", "a:b", "demo%3a1", "x.y-z:1"])
def test_claims_bare_pids(text: str) -> None:
    assert pid.claims(text)


@pytest.mark.parametrize("text", ["oai:a.b:c", "hdl:1/2", "info:fedora/a:b", "http://x.org/", "demo", "1765/315", ""])
def test_does_not_claim_other_forms(text: str) -> None:
    assert not pid.claims(text)
