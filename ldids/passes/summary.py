"""The one summary every run that processes RDF reports (DESIGN.md §5).

A graph run, a streamed dump on one or many cores, Dask, a live store and the service
each count what they did in a :class:`Summary`, combine partial ones with
:meth:`Summary.add` (blocks, chunks, batches), and print or send :meth:`Summary.to_json`,
whose shape the JSON Schema ``summary.schema.json`` beside this module publishes
(:func:`schema`). What only one way of running knows (lines read, seconds, workers,
problem samples with their file and line) goes under ``"run"``, outside the comparison
of two paths.

>>> one = Summary(statements_in=2, statements_out=2, rewritten=Counter({"oai": 1}))
>>> one.add(Summary(statements_in=1, statements_out=1, left=Counter({"bare-pid-uri-scheme": 1})))
>>> one.to_json()["identifiers"]
{'rewritten': {'oai': 1}, 'invalid': {}, 'left': {'bare-pid-uri-scheme': 1}}
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

__all__ = ["Summary", "schema"]


@dataclass
class Summary:
    """Counts of one run, or of a part of one."""

    statements_in: int | None = 0  # None where a path cannot know (a live store is not read whole)
    statements_out: int | None = 0  # statements written, links not counted
    statements_rewritten: int = 0
    statements_merged: int = 0  # two statements that became one (graphs are sets; streams keep both)
    links: int = 0
    #: Occurrences of identifiers rewritten, by scheme.
    rewritten: Counter[str] = field(default_factory=Counter)
    #: Occurrences of invalid identifiers (reported, never rewritten), by scheme.
    invalid: Counter[str] = field(default_factory=Counter)
    #: Occurrences of identifier-shaped terms left alone, by reason (decision.REASONS).
    left: Counter[str] = field(default_factory=Counter)
    bad_lines: int = 0  # lines that are no statement, skipped with --on-error skip
    #: What a reader read and made no statement of, by kind (an OAI-PMH ListSets response's
    #: sets, a record without an identifier, ...): nothing is dropped silently.
    skipped: Counter[str] = field(default_factory=Counter)
    #: What only this way of running knows (``"run"`` in the JSON).
    run: dict[str, Any] = field(default_factory=dict)

    @property
    def problems(self) -> int:
        """Invalid identifiers found."""
        return sum(self.invalid.values())

    def add(self, other: Summary) -> None:
        """Combine: ``other`` counted into this one (the one combiner of partial summaries)."""
        self.statements_in = _plus(self.statements_in, other.statements_in)
        self.statements_out = _plus(self.statements_out, other.statements_out)
        self.statements_rewritten += other.statements_rewritten
        self.statements_merged += other.statements_merged
        self.links += other.links
        self.rewritten.update(other.rewritten)
        self.invalid.update(other.invalid)
        self.left.update(other.left)
        self.bad_lines += other.bad_lines
        self.skipped.update(other.skipped)

    def to_json(self) -> dict[str, Any]:
        """The summary document (``summary.schema.json``)."""
        document: dict[str, Any] = {
            "statements": {
                "in": self.statements_in,
                "out": self.statements_out,
                "rewritten": self.statements_rewritten,
                "merged": self.statements_merged,
            },
            "links": self.links,
            "identifiers": {
                "rewritten": dict(sorted(self.rewritten.items())),
                "invalid": dict(sorted(self.invalid.items())),
                "left": dict(sorted(self.left.items())),
            },
            "bad_lines": self.bad_lines,
            "skipped": dict(sorted(self.skipped.items())),
        }
        if self.run:
            document["run"] = self.run
        return document

    def text(self) -> str:
        """One line for people."""
        rewritten = ", ".join(f"{name} {count}" for name, count in sorted(self.rewritten.items())) or "none"
        left = ", ".join(f"{count} {reason}" for reason, count in sorted(self.left.items()))
        skipped = ", ".join(f"{count} {kind}" for kind, count in sorted(self.skipped.items()))
        merged = f", {self.statements_merged} merged" if self.statements_merged else ""
        return (
            f"{_count(self.statements_in)} statements in, {_count(self.statements_out)} out "
            f"({self.statements_rewritten} rewritten{merged}, {self.links} links); "
            f"identifiers rewritten: {rewritten}; invalid identifiers: {self.problems}"
            + (f"; left alone: {left}" if left else "")
            + (f"; {self.bad_lines} bad lines" if self.bad_lines else "")
            + (f"; skipped: {skipped}" if skipped else "")
        )


def _plus(left: int | None, right: int | None) -> int | None:
    return None if left is None or right is None else left + right


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


@functools.cache
def schema() -> dict[str, Any]:
    """The JSON Schema of :meth:`Summary.to_json`, as shipped in the package."""
    text = (resources.files("ldids.passes") / "summary.schema.json").read_text(encoding="utf-8")
    found: dict[str, Any] = json.loads(text)
    return found
