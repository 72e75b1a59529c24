"""Fedora PIDs (scheme ``fedora-pid``): ``demo:1``.

Spec: "Fedora Identifiers" (PIDs and info URIs), 2004, section "PIDs"::

    object-pid    = namespace-id ":" object-id
    namespace-id  = ( [A-Z] / [a-z] / [0-9] / "-" / "." ) 1+
    object-id     = ( [A-Z] / [a-z] / [0-9] / "-" / "." / "~" / "_" / escaped-octet ) 1+
    escaped-octet = "%" hex-digit hex-digit
    hex-digit     = [0-9] / [A-F]

Normalization: the separator may be written ``%3A``/``%3a`` and becomes ``:``; lower-case
hex digits become upper case. Decided in DESIGN.md §1: normalize first, then validate;
the 64-character limit applies to the normalized PID; only the separator is decoded (an
escaped colon inside the object-id stays escaped); no other case folding.

>>> str(parse("demo%3a1%7e"))
'demo:1%7E'
>>> parse("demo:1").iri
'info:fedora/demo:1'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ldids.errors import Problem
from ldids.schemes._chars import ALPHANUM, HEX_ANY, ascii_lower, describe
from ldids.schemes.scheme import Scheme

__all__ = [
    "CLAIM",
    "MAX_LENGTH",
    "PID_RE",
    "SCHEME",
    "Pid",
    "check",
    "claims",
    "namespace_of",
    "normalize",
    "parse",
    "scan",
]

MAX_LENGTH = 64

#: The spec's own regular expression for a *normalized* PID, verbatim.
PID_RE = re.compile(r"^([A-Za-z0-9]|-|\.)+:(([A-Za-z0-9])|-|\.|~|_|(%[0-9A-F]{2}))+$")

# Valid PIDs in any spelling, for the scanner's fast path; everything else is walked
# character by character to say exactly what is wrong where.
_SIMPLE = re.compile(r"([A-Za-z0-9.\-]+)(?::|%3[aA])((?:[A-Za-z0-9.~_\-]|%[0-9A-Fa-f]{2})+)")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")

NAMESPACE_CHARS = ALPHANUM | frozenset("-.")
OBJECT_ID_CHARS = ALPHANUM | frozenset("-.~_")

#: Bare PIDs look like any CURIE or URI scheme; a text is only *claimed* as a PID when it
#: starts like one and is not written in a prefixed form another scheme owns (DESIGN §2).
CLAIM = r"(?!(?ai:oai:|hdl:|info:fedora/))[A-Za-z0-9.\-]+(?::|%3[aA])(?!//)"


@dataclass(frozen=True, slots=True)
class Pid:
    """A normalized Fedora PID."""

    namespace: str
    object_id: str

    def __str__(self) -> str:
        return f"{self.namespace}:{self.object_id}"

    @property
    def iri(self) -> str:
        return f"info:fedora/{self.namespace}:{self.object_id}"

    @property
    def profile(self) -> None:
        return None


def scan(text: str, start: int = 0, end: int | None = None, code: str = "pid") -> tuple[Pid | None, list[Problem]]:
    """Parse ``text[start:end]`` as a PID; spans in problems index into ``text``.

    info:fedora URIs reuse this for their PID segments, with their own code prefix.
    """
    stop = len(text) if end is None else end
    simple = _SIMPLE.fullmatch(text, start, stop)
    if simple is not None:
        simple_namespace, simple_object_id = simple.group(1, 2)
        if "%" in simple_object_id:
            simple_object_id = _ESCAPE.sub(lambda escape: escape.group().upper(), simple_object_id)
        if len(simple_namespace) + 1 + len(simple_object_id) <= MAX_LENGTH:
            return Pid(simple_namespace, simple_object_id), []
    if start >= stop:
        return None, [Problem(f"{code}.empty", "a PID cannot be empty", start, stop)]
    position = start
    while position < stop and text[position] in NAMESPACE_CHARS:
        position += 1
    namespace = text[start:position]
    if text.startswith(":", position, stop):
        separator_length = 1
    elif ascii_lower(text[position : position + 3]) == "%3a" and position + 3 <= stop:
        separator_length = 3
    else:
        has_separator = ":" in text[position:stop] or "%3a" in ascii_lower(text[position:stop])
        if position < stop and has_separator:
            problem = Problem(
                f"{code}.namespace-character",
                f"{describe(text[position])} is not allowed in a PID namespace (letters, digits, '-', '.')",
                position,
                position + 1,
            )
        else:
            problem = Problem(
                f"{code}.missing-separator",
                "a PID is namespace ':' object-id, and no ':' follows the namespace",
                position,
                min(position + 1, stop),
            )
        return None, [problem]
    problems: list[Problem] = []
    if not namespace:
        problems.append(
            Problem(f"{code}.empty-namespace", "the PID namespace is empty", start, start + separator_length)
        )
    object_start = position + separator_length
    if object_start >= stop:
        problems.append(Problem(f"{code}.empty-object-id", "the PID object-id is empty", position, stop))
    object_id: list[str] = []
    index = object_start
    while index < stop:
        ch = text[index]
        if ch in OBJECT_ID_CHARS:
            object_id.append(ch)
            index += 1
        elif ch == "%" and index + 3 <= stop and text[index + 1] in HEX_ANY and text[index + 2] in HEX_ANY:
            object_id.append(text[index : index + 3].upper())
            index += 3
        else:
            if ch == "%":
                problems.append(
                    Problem(f"{code}.bad-escape", "'%' must be followed by two hex digits", index, min(index + 3, stop))
                )
            else:
                problems.append(
                    Problem(
                        f"{code}.object-id-character",
                        f"{describe(ch)} is not allowed in a PID object-id; escape it as %XX",
                        index,
                        index + 1,
                    )
                )
            index += 1
    value = Pid(namespace, "".join(object_id))
    normalized_length = len(namespace) + 1 + len(value.object_id)
    if normalized_length > MAX_LENGTH and not problems:
        # Offsets in the normalized PID shift left by 2 past an escaped separator.
        excess_start = start + MAX_LENGTH + (separator_length - 1 if len(namespace) < MAX_LENGTH else 0)
        problems.append(
            Problem(
                f"{code}.too-long",
                f"a PID is at most {MAX_LENGTH} characters long (normalized), this one has {normalized_length}",
                min(excess_start, stop),
                stop,
            )
        )
    return (None if problems else value), problems


def _scan(text: str) -> tuple[Pid | None, list[Problem]]:
    return scan(text)


_ESCAPED_SEPARATOR = re.compile(r"([A-Za-z0-9.\-]+)%3[aA]")


def _repair(text: str) -> str | None:
    """``ns%3Aid`` -> ``ns:id``: the separator escaped, as Fedora's URLs carry PIDs."""
    match = _ESCAPED_SEPARATOR.match(text)
    return None if match is None else f"{match.group(1)}:{text[match.end() :]}"


SCHEME: Scheme[Pid] = Scheme(
    "fedora-pid",
    _scan,
    precedence=90,  # bare: after every prefixed form
    claim=CLAIM,
    bare_claim=CLAIM,
    pid_namespace=lambda iri: iri[len("info:fedora/") :].split(":", 1)[0],
    normalized=PID_RE,
    max_length=MAX_LENGTH,
    iri_of_normalized="info:fedora/".__add__,
    repair=_repair,
)
claims = SCHEME.claims


def namespace_of(text: str) -> str | None:
    """The namespace of ``text`` if it is a valid PID (the PID an identifier carries).

    >>> namespace_of("demo:1"), namespace_of("hep-th/9901001")
    ('demo', None)
    """
    value, problems = scan(text)
    return None if value is None or problems else value.namespace


check = SCHEME.check
parse = SCHEME.parse
normalize = SCHEME.normalize
