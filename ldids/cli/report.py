"""What ``ldids normalize`` tells on standard error: a summary, notes and the first invalid identifiers.

``--summary json`` gives the same as one JSON object; ``--quiet`` gives nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ldids.errors import render_caret

if TYPE_CHECKING:
    from collections import Counter

    from ldids.dumps.run import DumpSummary
    from ldids.dumps.sparql import StoreSummary
    from ldids.passes.graph import Result

__all__ = ["report_dump", "report_normalization", "report_store"]


def report_dump(args: argparse.Namespace, summary: DumpSummary) -> None:
    """A streamed dump's summary, with line counts, time and workers, and samples of its problems."""
    if not args.quiet:
        if args.summary == "json":
            sys.stderr.write(json.dumps(summary.to_json()) + "\n")
        else:
            skipped = (
                f", {summary.bad_lines} bad lines skipped into {args.error_file or 'ldids-errors.tsv'}"
                if summary.bad_lines
                else ""
            )
            sys.stderr.write(
                f"ldids: {summary.summary().text()}; {summary.lines_in} lines in, {summary.lines_out} out{skipped} "
                f"({summary.seconds:.1f} s, {args.workers} worker{'s' if args.workers != 1 else ''})\n"
            )
            for sample in summary.problem_samples:
                sys.stderr.write(f"ldids: {sample}\n")


def report_store(args: argparse.Namespace, summary: StoreSummary) -> None:
    """A live store's summary, with the number of updates sent."""
    if not args.quiet:
        report = summary.summary()
        plural = "" if summary.updates == 1 else "s"
        text = f"ldids: {report.text()}; {summary.updates} update{plural}"
        sys.stderr.write((json.dumps(report.to_json()) if args.summary == "json" else text) + "\n")


def report_normalization(
    result: Result, notes: list[str], style: str, skipped: Counter[str], *, links_written: bool = True
) -> None:
    """A graph's summary (Result.document) with the readers' counts of what they skipped,
    their notes and the first invalid identifiers, each with a caret."""
    from ldids.ntriples import quad_line
    from ldids.passes.graph import PROBLEM_SAMPLES

    summary = result.document(notes, skipped, links_written=links_written)
    if style == "json":
        sys.stderr.write(json.dumps(summary.to_json()) + "\n")
        return
    sys.stderr.write(f"ldids: {summary.text()}\n")
    for note in notes:
        sys.stderr.write(f"ldids: note: {note}\n")
    for finding in result.findings[:PROBLEM_SAMPLES]:
        problem = finding.problems[0]
        sys.stderr.write(
            f"ldids: invalid {finding.scheme} identifier in {finding.position} of {quad_line(finding.quad)}\n"
            f"  {render_caret(str(finding.term), problem, indent='      ')}\n"
        )
    hidden = len(result.findings) - PROBLEM_SAMPLES
    if hidden > 0:
        sys.stderr.write(f"ldids: ... and {hidden} more invalid identifiers (--summary json lists them by count)\n")
