"""A sixth scheme, registered only by the tests: ``toy:`` and hexadecimal digits.

It shows that a scheme of one's own needs its module and nothing else: a test registers
it by name (``Config(schemes=("toy_scheme",))``), with this folder on ``sys.path`` (and on
``PYTHONPATH`` for worker processes), and every path of ldids picks it up from this
declaration alone.

Grammar (made up for the tests)::

    toy-id    = "toy:" 1*16HEXDIG         ; "toy" in any case, hex digits in any case
    toy-iri   = "https://toy.example/id/" 1*16HEXDIG

Scheme, host and the ``/id/`` segment compare case-insensitively; the hex digits are one
number, written in upper case in the canonical IRI ``https://toy.example/id/<HEX>``,
which is itself a form of the scheme (a second run finds it canonical).

>>> SCHEME.canonical("TOY:c0ffee")
'https://toy.example/id/C0FFEE'
>>> SCHEME.canonical("https://toy.example/id/BEEF")
'https://toy.example/id/BEEF'
>>> [problem.code for problem in SCHEME.check("toy:xyz")]
['toy.not-hex']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ldids.errors import Problem
from ldids.schemes.scheme import Scheme

__all__ = ["CANONICAL_PREFIX", "SCHEME", "Toy"]

CANONICAL_PREFIX = "https://toy.example/id/"
MAX_DIGITS = 16
_PREFIX = re.compile(r"(?ai:toy:|https?://toy\.example/id/)")
_HEX = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True, slots=True)
class Toy:
    """A valid toy identifier: its hex digits, upper case."""

    digits: str

    def __str__(self) -> str:
        return f"toy:{self.digits}"

    @property
    def iri(self) -> str:
        return CANONICAL_PREFIX + self.digits

    @property
    def profile(self) -> None:
        return None


def _scan(text: str) -> tuple[Toy | None, list[Problem]]:
    match = _PREFIX.match(text)
    if match is None:
        return None, [Problem("toy.prefix", "a toy identifier starts with 'toy:'", 0, min(len(text), 4))]
    start = match.end()
    digits = text[start:]
    if not digits:
        return None, [Problem("toy.empty", "a toy identifier needs at least one hex digit", start, start)]
    problems = [
        Problem("toy.not-hex", f"{char!r} is not a hex digit", start + offset, start + offset + 1)
        for offset, char in enumerate(digits)
        if char not in _HEX
    ][:1]
    if not problems and len(digits) > MAX_DIGITS:
        problems.append(Problem("toy.too-long", f"at most {MAX_DIGITS} hex digits", start + MAX_DIGITS, len(text)))
    return (None, problems) if problems else (Toy(digits.upper()), [])


SCHEME: Scheme[Toy] = Scheme(
    "toy",
    _scan,
    precedence=50,  # after the other prefixed schemes, before bare PIDs
    prefix=r"(toy:|https?://toy\.example/id/)",
    prefilter=("toy:", "toy.example/id/"),
    equivalents=lambda value: (str(value),),
)
