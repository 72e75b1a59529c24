"""What deriving a streamed plan costs most, kept between runs: the shapes' SPARQL queries as
parsed (:mod:`ldids.shacl.algebra`) and the automata of their regular expressions as packed
(:mod:`ldids.shacl.dfa`).

:func:`ldids.shacl.streamed.plan` derives its checks from the shapes graph at every start;
two steps of it took 0.5 s of a run's start (rdflib's pyparsing grammar reading the targets'
queries, and the automata's subset construction), and the parser's imports some 8 MiB. Both
are pure functions of their input text, so each entry is keyed by that text itself: the
query, the regular expression's pattern and flags. The file as a whole is keyed by what made
its entries: ldids' version, this format's number, Python's (the automata read its ``re``
parser) and rdflib's versions, and the source of the modules that derive them (a checkout
whose code changes starts a new file).

One JSON file, ``plan-<key>.json``, in ``$LDIDS_CACHE_DIR``, else ``$XDG_CACHE_HOME/ldids``,
else ``~/.cache/ldids``; ``LDIDS_NO_CACHE=1`` neither reads nor writes it. Its first line
says its key and a digest of the rest; a file that cannot be read, whose key or digest
differs, or an entry of the wrong form is not used (it is derived again, and the file written
again). Nothing in it is code: lists, strings and the automata's bytes, checked again as
``select_lines`` takes them (``automaton_valid`` in ``ldids/dumps/_scan.c``). Written to a
file of its own and renamed over the old one, so a reader sees one whole file or the other.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import re
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

from ldids.shacl.algebra import Op, PlainError, from_plain, parse_query, to_plain

__all__ = ["FORMAT", "cache_file", "packed", "query", "save"]

#: The form of the file; a change of it starts a new file.
FORMAT = 1
#: Entries of each kind at most: past it, a file keeps the entries of this process only.
ENTRY_LIMIT = 1024
#: Files of other keys kept in the folder (other versions, other checkouts), newest first.
OTHER_FILES = 8

Packed = tuple[bytes, bytes]


class _Store:
    def __init__(self, queries: dict[str, Any], automata: dict[str, Any]) -> None:
        #: The entries as the file has them (JSON's values).
        self.queries, self.automata = queries, automata
        #: The automata read or derived in this process: the tables, or None for none.
        self.tables: dict[str, Packed | None] = {}
        self.used: set[tuple[str, str]] = set()
        self.changed = False


_store: _Store | None = None


def _folder() -> Path | None:
    if os.environ.get("LDIDS_NO_CACHE"):
        return None
    chosen = os.environ.get("LDIDS_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base and os.path.isabs(base) else Path.home() / ".cache") / "ldids"


@functools.cache
def _key() -> str:
    import rdflib

    from ldids import __version__
    from ldids.shacl import algebra, dfa, pyregex, xsd_regex

    digest = hashlib.blake2b(digest_size=16)
    for part in (str(FORMAT), __version__, sys.version, rdflib.__version__):
        digest.update(part.encode() + b"\0")
    for module in (algebra, dfa, pyregex, xsd_regex, sys.modules[__name__]):
        digest.update(Path(module.__file__ or "").read_bytes() + b"\0")
    return digest.hexdigest()


def cache_file() -> Path | None:
    """The file of this version's entries (None: no cache, ``LDIDS_NO_CACHE``)."""
    folder = _folder()
    return None if folder is None else folder / f"plan-{_key()}.json"


def _loaded() -> _Store:
    global _store
    if _store is None:
        _store = _read(cache_file())
    return _store


def _read(path: Path | None) -> _Store:
    empty = _Store({}, {})
    if path is None:
        return empty
    try:
        with path.open("rb") as file:
            header, body = json.loads(file.readline()), file.read()
        if not isinstance(header, dict) or header.get("key") != _key():
            return empty
        if header.get("digest") != hashlib.blake2b(body, digest_size=16).hexdigest():
            return empty
        content = json.loads(body)
        queries, automata = content["queries"], content["automata"]
        if not isinstance(queries, dict) or not isinstance(automata, dict):
            return empty
    except (OSError, ValueError, KeyError, TypeError):
        return empty
    return _Store(queries, automata)


def query(text: str) -> Op:
    """The algebra of a SPARQL query (:func:`ldids.shacl.algebra.parse_query`), a new copy at
    each call (the compiler may change the lists it is given)."""
    store = _loaded()
    store.used.add(("queries", text))
    found = store.queries.get(text)
    if found is not None:
        try:
            algebra = from_plain(found)
            if isinstance(algebra, Op):
                return algebra
        except PlainError:
            pass
    algebra = parse_query(text)
    try:
        store.queries[text] = to_plain(algebra)
        store.changed = True
    except PlainError:  # a value with no plain form: derived again at each run
        store.queries.pop(text, None)
    return algebra


def packed(regex: re.Pattern[str]) -> Packed:
    """The packed automaton of ``regex`` (:meth:`ldids.shacl.dfa.Automaton.packed`); raises
    :class:`~ldids.shacl.dfa.UnsupportedError` when it has none."""
    from ldids.shacl.dfa import UnsupportedError, search

    store = _loaded()
    name = f"{regex.flags}:{regex.pattern}"
    store.used.add(("automata", name))
    if name not in store.tables:
        entry = store.automata.get(name, False)
        found = None if entry is None else _automaton(entry)
        if found is None and entry is not None:  # not in the file, or not whole: derived
            try:
                found = search(regex).packed()
            except UnsupportedError:
                found = None
            store.automata[name] = None if found is None else [_text(part) for part in found]
            store.changed = True
        store.tables[name] = found
    tables = store.tables[name]
    if tables is None:
        raise UnsupportedError(f"no automaton for {regex.pattern!r}")
    return tables


def _text(part: bytes) -> str:
    return base64.b64encode(part).decode("ascii")


def _automaton(entry: object) -> Packed | None:
    if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(part, str) for part in entry)):
        return None
    try:
        classes, rows = (base64.b64decode(part, validate=True) for part in entry)
    except ValueError:
        return None
    return (classes, rows) if _whole(classes, rows) else None


def _whole(classes: bytes, rows: bytes) -> bool:
    """Is the automaton whole, as ``select_lines`` requires (``automaton_valid``): each
    symbol's class before the end marker's, each offset a row's start, each flag in range?"""
    if len(classes) != 2 * 257 or len(rows) % 4:
        return False
    of, table = array("H", classes), array("I", rows)
    width, size = of[256] + 2, len(table)
    if max(of[:256]) >= of[256] or size < width or size % width:
        return False
    flags = table[width - 1 :: width]
    del table[width - 1 :: width]  # the targets are left
    return max(flags) <= 3 and all(target % width == 0 and target < size for target in set(table))


def save() -> None:
    """Write the entries derived in this process, if any were (errors are not raised: a
    cache that cannot be written is no cache)."""
    store, path = _store, cache_file()
    if store is None or not store.changed or path is None:
        return
    queries, automata = store.queries, store.automata
    if len(queries) > ENTRY_LIMIT or len(automata) > ENTRY_LIMIT:
        queries = {text: found for text, found in queries.items() if ("queries", text) in store.used}
        automata = {name: found for name, found in automata.items() if ("automata", name) in store.used}
    body = json.dumps({"queries": queries, "automata": automata}, separators=(",", ":")).encode()
    header = {"key": _key(), "digest": hashlib.blake2b(body, digest_size=16).hexdigest(), "format": FORMAT}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".plan-", dir=path.parent)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(json.dumps(header).encode() + b"\n" + body)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        _forget_others(path)
    except OSError:
        return
    store.changed = False


def _forget_others(kept: Path) -> None:
    """Remove the oldest files of other keys, past :data:`OTHER_FILES`."""
    others = sorted(
        (found for found in kept.parent.glob("plan-*.json") if found != kept),
        key=lambda found: found.stat().st_mtime,
        reverse=True,
    )
    for found in others[OTHER_FILES:]:
        found.unlink(missing_ok=True)
