"""Problems found in identifiers, and the one exception type ldids raises for them.

Every problem has a stable dotted code (``oai.lowercase-hex``) that the CLI, the HTTP
JSON and the tests all key on, a human message, and a 0-based character span into the
text that was checked.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from typing import Any, NoReturn

__all__ = [
    "ADVICE",
    "InputError",
    "LdidsError",
    "OutputError",
    "ParseError",
    "PieceError",
    "Problem",
    "ShapesError",
    "WriteError",
    "check_stop",
    "has_lone_cr",
    "offset_of",
    "place",
    "render_caret",
    "stop",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason why a text is not a valid identifier of some scheme."""

    code: str
    message: str
    start: int
    end: int

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "start": self.start, "end": self.end}


class LdidsError(Exception):
    """Base class of every error ldids raises on purpose."""


class ParseError(LdidsError, ValueError):
    """A text is not a valid identifier; carries every problem found, first one first.

    >>> from ldids.schemes import pid
    >>> try:
    ...     pid.parse("demo 1")
    ... except ParseError as error:
    ...     print(error.code, error.span)
    pid.missing-separator (4, 5)
    """

    def __init__(self, source: str, problems: list[Problem]) -> None:
        if not problems:
            raise ValueError("a ParseError needs at least one problem")
        self.source = source
        self.problems = tuple(problems)
        first = problems[0]
        self.code = first.code
        self.message = first.message
        self.span = (first.start, first.end)
        super().__init__(render_caret(source, first))

    def __reduce__(self) -> tuple[object, ...]:
        # Keep the error picklable, so it can cross process boundaries (workers).
        return (ParseError, (self.source, list(self.problems)))


def render_caret(source: str, problem: Problem, indent: str = "    ") -> str:
    """The problem as two or three lines, with a caret under the offending characters.

    >>> print(render_caret("oai:wibble.org:ab%2Fcd",
    ...       Problem("oai.escaped-reserved", "reserved character must not be escaped", 17, 20)))
    reserved character must not be escaped [oai.escaped-reserved]
        oai:wibble.org:ab%2Fcd
                         ^~~
    """
    # Control characters would break the alignment; show them as U+FFFD-free escapes.
    shown = "".join(ch if ch.isprintable() else "?" for ch in source)
    start = min(problem.start, len(shown))
    width = max(1, problem.end - problem.start)
    marker = "^" + "~" * (width - 1)
    return f"{problem.message} [{problem.code}]\n{indent}{shown}\n{indent}{' ' * start}{marker}"


# A line ends at LF, CR LF or CR alone: XML 1.0 §2.11, N-Triples and Turtle (EOL).
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_LONE_CR = re.compile(rb"\r(?!\n)")
_LF = re.compile(rb"\n")


def place(data: bytes | mmap.mmap, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in characters) of byte ``offset`` of ``data``, its lines
    ended by LF, CR LF or CR alone."""
    line, start = 1, 0
    for found in _LINE_BREAK.finditer(data, 0, offset):
        line, start = line + 1, found.end()
    return line, len(data[start:offset].decode("utf-8", "replace")) + 1


def offset_of(data: bytes, line: int, column: int, *, lf_only: bool = False) -> int:
    """The byte offset of a 1-based line and column (in characters) of ``data``; with
    ``lf_only``, as told by a parser that ends lines at LF alone (libxml2, and so lxml)."""
    breaks = _LF if lf_only else _LINE_BREAK
    start = 0
    for _ in range(line - 1):
        found = breaks.search(data, start)
        if found is None:
            break
        start = found.end()
    found = breaks.search(data, start)
    text = data[start : len(data) if found is None else found.start()].decode("utf-8", "replace")
    return start + len(text[: max(column - 1, 0)].encode("utf-8", "surrogatepass"))


def has_lone_cr(data: bytes) -> bool:
    """Whether a line of ``data`` ends at a CR alone, which a parser counting LFs miscounts."""
    return _LONE_CR.search(data) is not None


class InputError(LdidsError):
    """Input that could not be read at all (malformed XML, unreadable file): says where.

    ``line`` and ``column`` are 1-based, as editors show them; either may be unknown.
    ``advice``, one of :data:`ADVICE`, says what would have let it be read; each front end
    words it in its own terms (a command line option, a request's parameter or header).
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
        advice: str | None = None,
    ) -> None:
        assert advice is None or advice in ADVICE, advice
        self.source = source
        self.line = line
        self.column = column
        self.advice = advice
        where = ":".join(str(part) for part in (source, line, column) if part is not None)
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        # Whole across processes (the service's and Dask's workers): pickle would call the
        # class with the formatted message alone.
        return (_rebuilt, (type(self), self.__dict__, str(self)))


def _rebuilt(kind: type[InputError], state: dict[str, Any], text: str) -> InputError:
    error = kind.__new__(kind)
    Exception.__init__(error, text)
    error.__dict__.update(state)
    return error


#: What an InputError's ``advice`` may say, in general terms.
ADVICE = {
    "base": "a base IRI for relative IRIs",
    "named-graphs": "a format that holds named graphs (TriG, N-Quads, JSON-LD)",
    "output-format": "another format (Turtle, TriG, N-Triples, N-Quads or JSON-LD)",
    "line-format": "a format of one statement a line (N-Triples, N-Quads)",
}


class WriteError(InputError):
    """What was read that the format asked for cannot write (named graphs in Turtle, a
    predicate with no XML name in RDF/XML): another format can. An InputError to the command
    line (exit 2); the service answers 406, the representation asked for being none it has."""


class PieceError(LdidsError):
    """A piece of a document cut for the workers (:mod:`ldids.dumps.pieces`) did not parse:
    the run stops, and says the error of the whole document read in step."""


class OutputError(InputError):
    """An output that could not be written (its folder missing, a full disk, standard output
    closed): says which (``<stdout>`` for standard output). An InputError, so that the command
    line reports both alike: one line and exit 2.
    """


class ShapesError(InputError):
    """Shapes that ldids will not run: a pattern outside the XSD regex dialect, a shapes graph
    that would reach the network (DESIGN.md §6b, §7). ``code`` is stable and dotted
    (``shapes.network``), shown in brackets after the message; exit 2 on the command line."""

    def __init__(self, code: str, message: str, *, source: str | None = None, line: int | None = None) -> None:
        super().__init__(f"{message} [{code}]", source=source, line=line)
        self.code = code
        self.message = message


#: The signals that asked this process to stop (Ctrl-C, SIGTERM), as their handlers saw them.
_STOPS: list[BaseException] = []


def stop(error: BaseException) -> NoReturn:
    """Raise ``error`` for a signal that stops the run, and remember it: CPython runs a
    signal's handler wherever the main thread is, inside a finalizer too, where the exception
    is printed ("Exception ignored in ...") and dropped, and the run would go on as if not
    asked to stop. :func:`check_stop`, between blocks, raises it again."""
    _STOPS.append(error)
    raise error


def check_stop() -> None:
    """Raise the exception of a stop signal received and lost on its way (:func:`stop`)."""
    if _STOPS:
        raise _STOPS[0]
