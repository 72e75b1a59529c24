"""A large Turtle, TriG or RDF/XML file parsed in a process of its own, beside the run.

One process must parse a document: its statements come in order, each depending on what came
before (prefixes, base, blank node labels, RDF/XML's nesting). Where that process is also the
one that cuts the lines into blocks, hands them out, normalizes some and writes the output,
its parse holds back the workers; the parse of 1M RDF/XML statements costs about as much CPU
as normalizing them. Where the run's workers leave a core free, a file of
:data:`BESIDE_FROM` bytes or more is therefore parsed by
``python -m ldids.dumps.parse_beside``, which writes the N-Quads lines of
:class:`~ldids.dumps.rdf_stream.NQuadsReader` (the same bytes) to a pipe that the run reads
as it reads any dump, so that the parse and the normalization overlap on separate cores.

Nothing is lost in the handing over: the run takes the end of the lines only once the parse
has ended well (:meth:`Beside.readinto`); a parse that failed raises its InputError, with the
file, line and column the parse found, before the last block is given, so nothing is written.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
from typing import IO, TYPE_CHECKING

from ldids.errors import InputError
from ldids.rdf.files import scratch_file

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["BESIDE_FROM", "Beside", "worth_it"]

#: Below this size a file is parsed in step: starting a process (some 0.15 s of imports)
#: would cost more than it saves.
BESIDE_FROM = 8 << 20
#: How the parsing process says why it failed: this, then the error as JSON, last on its
#: standard error.
_MARK = "ldids-parse-error: "


def worth_it(path: str, workers: int) -> bool:
    """Whether ``path`` is a file (not standard input, a pipe or a device) big enough to be
    parsed beside a run of ``workers`` processes, on a core they leave free. Where they take
    every core the parse is better in step: on 2 cores and 2 workers, parsing beside cost
    6% (RDF/XML) and 11% (Turtle) more time, as the parse takes its core from them and its
    statements cross one more pipe; on 1 worker it saved 8% (benchmarks/README.md)."""
    if path == "-" or workers >= _cores():
        return False
    try:
        status = os.stat(path)
    except OSError:  # said when the file is opened
        return False
    return stat.S_ISREG(status.st_mode) and status.st_size >= BESIDE_FROM


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Beside(io.RawIOBase):
    """The N-Quads lines of the document ``path`` (a ``fmt`` of ldids.dumps.rdf_stream), as
    a process started by the constructor parses it; ``shown`` names it in errors."""

    def __init__(self, path: str, fmt: str, shown: str, *, base: str | None, rename_blank_nodes: bool) -> None:
        super().__init__()
        self._shown = shown
        self._errors: IO[bytes] = scratch_file()  # closed by close()
        command = [sys.executable, "-m", "ldids.dumps.parse_beside", fmt, base or "", str(int(rename_blank_nodes))]
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [*command, path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._errors
        )

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        process = self._process
        if process is None:
            return 0
        assert process.stdout is not None
        count = process.stdout.readinto(buffer)  # type: ignore[attr-defined]
        if count:
            return int(count)
        self._process = None
        process.stdout.close()
        if process.wait() != 0:
            raise self._failure(process.returncode)
        return 0

    def _failure(self, code: int) -> InputError:
        self._errors.seek(0)
        lines = self._errors.read().decode("utf-8", "replace").strip().splitlines()
        if lines and lines[-1].startswith(_MARK):
            found = json.loads(lines[-1][len(_MARK) :])
            return InputError(
                found["message"],
                source=self._shown,
                line=found["line"],
                column=found["column"],
                advice=found.get("advice"),
            )
        # The parse itself failed (killed, out of memory): the document was not read whole.
        return InputError(
            f"could not parse the file (exit {code}{': ' + lines[-1] if lines else ''})", source=self._shown
        )

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:  # the run ended another way: the parse is not wanted
            process.kill()
            assert process.stdout is not None
            process.stdout.close()
            process.wait()
        self._errors.close()
        super().close()


def main() -> int:
    from ldids.dumps.rdf_stream import NQuadsReader
    from ldids.rdf.files import open_input

    fmt, base, rename, path = sys.argv[1:]
    try:
        with open_input(path) as (source, _, _):
            lines = NQuadsReader(source, fmt, name=path, base=base or None, rename_blank_nodes=rename == "1")
            with lines:
                shutil.copyfileobj(lines, sys.stdout.buffer, 1 << 20)
    except InputError as error:
        said = {"message": error.message, "line": error.line, "column": error.column, "advice": error.advice}
        sys.stderr.write(_MARK + json.dumps(said))
        return 1
    except BrokenPipeError:  # the run stopped reading: it ended another way
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
