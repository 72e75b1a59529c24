"""Formats and files, without rdflib: naming and telling RDF formats, opening inputs
(decompressed), and outputs that appear whole or not at all. The graph I/O
(:mod:`ldids.rdf.io`) and the streamed dumps (:mod:`ldids.dumps.run`) share them; a dump
never imports rdflib for them (~0.2 s a start).

Knowledge of a format is in its :class:`Format`, of a compression in its
:class:`~ldids.rdf.compression.Compression`; readers, writers, the command line's options
and its messages ask them (oxigraph's ``RdfFormat`` is the model). Telling a format from
content is in :mod:`ldids.rdf.sniff`.
"""

from __future__ import annotations

import errno
import io
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO, TextIO, cast

from ldids.errors import InputError, OutputError
from ldids.rdf.compression import COMPRESSIONS, compression_of, plain_name
from ldids.rdf.formats import FORMATS, Format, format_named, resolve_format

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer, WriteableBuffer

__all__ = [
    "FORMATS",
    "STDIN",
    "STDOUT",
    "Format",
    "InputStream",
    "atomic_output",
    "format_named",
    "format_of_name",
    "guess_format",
    "open_input",
    "resolve_format",
    "scratch_file",
    "sniff_standard_input",
    "standard_output",
]


#: How errors name standard input (``-``) and standard output.
STDIN = "<stdin>"
STDOUT = "<stdout>"


def format_of_name(path: str) -> Format | None:
    """The format a file name says, after any compression extension: ``dump.nt.zst`` is N-Triples."""
    name = plain_name(path).lower()
    for candidate in FORMATS:
        if name.endswith(candidate.extensions):
            return candidate
    return None


def guess_format(path: str, data: bytes | None = None) -> Format:
    """The format of a file from its name (after .gz, .bz2, .xz, .zst), else from its content.
    ``path`` ``-`` (or empty) is standard input, told by content only."""
    found = format_of_name(path) if path not in ("", "-") else None
    if found is not None:
        return found
    source = STDIN if path in ("", "-") else path
    if data is not None:
        from ldids.rdf import sniff

        return sniff.sniff(data, source)
    known = ", ".join(f.name for f in FORMATS)
    raise InputError(f"cannot tell the format from the name; name it with -i ({known})", source=source)


# -- Inputs ----------------------------------------------------------------------------------


class _Lookahead(io.RawIOBase):
    """A stream whose first bytes can be looked at (:meth:`head`) before it is read: they
    are read again. Standard input cannot be rewound to be read twice."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._head = b""
        self._at = 0  # read of the head so far

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer at the end), read ahead if need be."""
        if self._at:
            raise ValueError("the stream is being read already")
        while len(self._head) < size:
            more = self._source.read(size - len(self._head))
            if not more:
                break
            self._head += more
        return self._head[:size]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        if self._at < len(self._head):
            with memoryview(buffer) as view, view.cast("B") as target:
                count = min(len(target), len(self._head) - self._at)
                target[:count] = self._head[self._at : self._at + count]
            self._at += count
            return count
        return self._source.readinto(buffer)  # type: ignore[attr-defined, no-any-return]

    def readall(self) -> bytes:
        rest = self._source.read()
        first, self._head, self._at = self._head[self._at :], b"", 0
        return first + rest


# The standard input of this process, as read: decompressed, its first bytes read again.
_STANDARD_INPUT: tuple[object, _Lookahead] | None = None


def _standard_input() -> _Lookahead:
    """Standard input, decompressed if its first bytes are those of a compression, its first
    bytes looked at as often as needed (:func:`sniff_standard_input`) and then read."""
    global _STANDARD_INPUT
    current = sys.stdin
    if _STANDARD_INPUT is not None and _STANDARD_INPUT[0] is current:
        return _STANDARD_INPUT[1]
    if current is None or not hasattr(current, "buffer"):
        raise InputError("standard input is closed", source=STDIN)
    raw = _Lookahead(cast(BinaryIO, current.buffer))
    try:
        start = raw.head(max(len(c.magic) for c in COMPRESSIONS))
    except OSError as error:
        raise InputError(error.strerror or str(error), source=STDIN) from error
    compression = next((c for c in COMPRESSIONS if start.startswith(c.magic)), None)
    stream = raw if compression is None else _Lookahead(compression.reader(cast(BinaryIO, raw), STDIN))
    _STANDARD_INPUT = (current, stream)
    return stream


def sniff_standard_input() -> Format:
    """The format of standard input, told by its first bytes (after decompression); raises
    InputError saying why it cannot tell. Nothing is consumed: the readers read it all."""
    from ldids.rdf import sniff

    try:
        head = _standard_input().head(sniff.SNIFF_SIZE + 1)
    except OSError as error:
        raise InputError(error.strerror or str(error), source=STDIN) from error
    return sniff.sniff(head, STDIN)


#: What :func:`open_input` gives: a stream that ``read`` and ``readinto`` read.
InputStream = io.BufferedIOBase | io.RawIOBase


@contextmanager
def open_input(path: str) -> Iterator[tuple[InputStream, BinaryIO, int | None]]:
    """(decompressed stream, raw stream for progress, raw size if known) of an input file,
    ``-`` for standard input. A file is decompressed as its extension says, standard input
    as its first bytes say."""
    if path == "-":
        stream = _standard_input()
        yield stream, cast(BinaryIO, stream), None
        return
    try:
        raw = open(path, "rb")  # noqa: SIM115 -- closed by the stack below
    except OSError as error:
        raise InputError(error.strerror or str(error), source=path) from error
    with ExitStack() as stack:
        stack.enter_context(raw)
        size = os.fstat(raw.fileno()).st_size
        compression = compression_of(path)
        if compression is None:
            yield raw, raw, size
        else:
            yield stack.enter_context(compression.reader(raw, path)), raw, size


# -- Outputs ---------------------------------------------------------------------------------


def _cannot_write(error: OSError, name: str) -> OutputError:
    return OutputError(f"cannot write: {error.strerror or error}", source=name)


class _Output(io.FileIO):
    """An output's file: an error writing it is an OutputError naming the output.

    After an error it is closed: what is still buffered above it is dropped rather than
    written again at exit (standard output is flushed then), which would fail a second time
    and print a traceback. Writes go through os.write, which tests replace to fill the disk.
    """

    def __init__(self, descriptor: int, name: str, *, closefd: bool = True) -> None:
        super().__init__(descriptor, "wb", closefd=closefd)
        # Not ``name``: gzip would put it in the header, and the same data must give the same bytes.
        self.shown = name

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return os.write(self.fileno(), data)
        except BrokenPipeError:
            self.close()
            raise  # the reader left (`ldids ... | head`): no error of ours, the command line ends quietly
        except OSError as error:
            self.close()
            raise _cannot_write(error, self.shown) from error


def standard_output() -> TextIO:
    """Standard output for the command line: its write errors are OutputErrors (``<stdout>``).

    Started with standard output closed (``>&-``), descriptor 1 is taken by /dev/null opened
    for reading: a file opened later cannot get the number and receive what is meant for
    standard output, and a write fails as on a closed descriptor (EBADF), reported as any
    output error is. Without a descriptor (replaced by a test's capture) it stays as it is.
    """
    current = sys.stdout
    if current is None:
        held = os.open(os.devnull, os.O_RDONLY)
        if held != 1:
            os.dup2(held, 1)
            os.close(held)
        return io.TextIOWrapper(io.BufferedWriter(_Output(1, STDOUT, closefd=False)), encoding="utf-8")
    try:
        descriptor = current.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return current
    current.flush()
    raw = _Output(descriptor, STDOUT, closefd=False)
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=current.encoding,
        errors=current.errors,
        line_buffering=bool(current.line_buffering),
    )


def _in_place(path: str) -> bool:
    """Whether ``path`` is written where it is, not renamed into place: anything but a regular
    file or nothing, such as a device (/dev/null), a FIFO or a symbolic link (/dev/stdout).
    A rename would replace the device or the link itself, as root even in /dev."""
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False  # nothing there (or no folder): making the temporary file says what is wrong


@contextmanager
def _writing(descriptor: int, name: str, commit: Callable[[], None] | None = None) -> Iterator[IO[bytes]]:
    """A buffered stream on ``descriptor``, compressed as ``name`` says, ended and flushed if
    the block ends without an error, then ``commit`` called; the descriptor is closed after.
    After an error what is still buffered is dropped, the output being abandoned."""
    raw = _Output(descriptor, name)
    stream = io.BufferedWriter(raw)
    try:
        compression = compression_of(name)
        sink = stream if compression is None else compression.writer(stream)
        yield sink
        if sink is not stream:
            sink.close()  # the end of the compressed data
        stream.flush()
        if commit is not None:
            commit()
    finally:
        raw.close()  # the buffered stream is closed with it, and not flushed again when collected


# O_TMPFILE: a file in a folder without a name there, until it is given one (Linux 3.11+).
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)
# What open(2) says where the kernel or the file system has no O_TMPFILE.
_NO_TMPFILE = (errno.EOPNOTSUPP, errno.EISDIR, errno.ENOENT, errno.EINVAL)


def _unnamed_file(folder: str, path: str) -> int | None:
    """A descriptor on a new, unnamed file in ``folder`` (mode 0666 less the umask), or
    None where there is none to be had: no O_TMPFILE, or no /proc to name it by at the end."""
    if not _O_TMPFILE or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        # read too: parts written in place are moved within it (ldids.dumps.placed)
        return os.open(folder, _O_TMPFILE | os.O_RDWR, 0o666)
    except OSError as error:
        if error.errno in _NO_TMPFILE:
            return None  # a folder that is not there is reported by the fallback, as it always was
        raise _cannot_write(error, path) from error


def _name_unnamed(descriptor: int, target: Path) -> None:
    """Gives the unnamed file ``descriptor`` the name ``target``, replacing what is there.

    With nothing there, the file is linked to its name directly: no other name ever exists.
    Else it is linked to a temporary name beside it (for the instant before the rename;
    link(2) cannot replace) and renamed over the old file, as a named temporary would be.
    """
    source = f"/proc/self/fd/{descriptor}"
    folder = os.open(target.parent or ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        # linkat(AT_SYMLINK_FOLLOW), as open(2) shows for O_TMPFILE: os.link does so given a folder.
        try:
            os.link(source, target.name, dst_dir_fd=folder, follow_symlinks=True)
            return
        except FileExistsError:
            pass
        while True:
            temporary = f".{target.name}.{secrets.token_hex(4)}.part"
            try:
                os.link(source, temporary, dst_dir_fd=folder, follow_symlinks=True)
                break
            except FileExistsError:
                continue
        try:
            os.replace(temporary, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            os.unlink(temporary, dir_fd=folder)
            raise
    finally:
        os.close(folder)


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


@contextmanager
def atomic_output(path: str) -> Iterator[IO[bytes]]:
    """A binary stream that becomes ``path`` only if the block ends without an error,
    compressed as the name says (``.gz``, ``.bz2``, ``.xz``, ``.zst``).

    ``-`` is standard output (never compressed). Elsewhere the data goes to a file without
    a name (O_TMPFILE), named ``path`` at the end: killed at any moment, even by SIGKILL, a
    run leaves nothing behind. Where the kernel or the file system has no unnamed files (not
    Linux, some network file systems), it goes to a temporary file beside ``path``
    (``.NAME.XXXX.part``), renamed into place at the end and removed after an error, which
    SIGKILL leaves behind. A device, FIFO or symbolic link is written in place (see
    :func:`_in_place`). An error making, writing or naming the output raises OutputError
    naming ``path``; other errors in the block pass through as they are.
    """
    if path == "-":
        if sys.stdout is None:  # closed, and not set up by the command line (standard_output)
            raise OutputError(f"cannot write: {os.strerror(errno.EBADF)}", source=STDOUT)
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if _in_place(path):
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as error:
            raise _cannot_write(error, path) from error
        with _writing(descriptor, path) as stream:
            yield stream
        return
    target = Path(path)
    unnamed = _unnamed_file(str(target.parent or "."), path)
    if unnamed is not None:

        def name_it() -> None:
            try:
                _name_unnamed(unnamed, target)
            except OSError as error:
                raise _cannot_write(error, path) from error

        with _writing(unnamed, path, name_it) as stream:
            yield stream
        return
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
    except OSError as error:
        raise _cannot_write(error, path) from error

    def rename() -> None:
        try:
            # mkstemp makes the file private (0600); an output gets the usual mode, umask applied.
            os.chmod(temporary, 0o666 & ~_umask())
            os.replace(temporary, target)
        except OSError as error:
            raise _cannot_write(error, path) from error

    try:
        with _writing(handle, path, rename) as stream:
            yield stream
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class WriteBehind:
    """Has the kernel write a growing output file to disk every few MiB, and drop the pages
    it has written from the page cache.

    Left to itself, the kernel keeps a dump's output in memory until it must write it:
    ext4 writes a file out when it is renamed over another one, so a run would end with
    all of it written at once, its workers idle (0.05-0.1 s per 100 MB here). Written
    behind, the output goes to disk while the run works, and the written pages leave the
    page cache, as a streamed dump's output should (POSIX_FADV_DONTNEED; on Linux it
    starts the write-back of dirty pages and drops the pages already written back).

    The advice covers the whole file written so far, not the last few MiB alone: pages
    still dirty when they are advised stay, and are dropped by a later call once written
    back. Dropped promptly, the same few MiB of memory take the output's next pages; kept,
    every write takes pages the process never touched, and the kernel's copy into them was
    a third of a run's time (1.1 GB of output: 2.3-2.7 s of system time against 0.4-0.5 s
    when the earlier pages are dropped, on this 2-core VM). Advice over pages already
    dropped finds none, at little cost."""

    STEP = 8 << 20

    def __init__(self, stream: IO[bytes]) -> None:
        self._descriptor: int | None = None
        self._done = 0
        try:
            descriptor = stream.fileno()
            if hasattr(os, "posix_fadvise") and stat.S_ISREG(os.fstat(descriptor).st_mode):
                self._descriptor = descriptor
        except (OSError, ValueError):  # no descriptor (io.UnsupportedOperation is both): nothing to do
            pass

    def advance(self) -> None:
        if self._descriptor is None:
            return
        end = os.lseek(self._descriptor, 0, os.SEEK_CUR)
        if end - self._done >= self.STEP:
            try:
                os.posix_fadvise(self._descriptor, 0, end, os.POSIX_FADV_DONTNEED)
            except OSError:  # advice a file system does not take: the output is written all the same
                self._descriptor = None
            self._done = end


def scratch_file() -> BinaryIO:
    """A file of this run's own, without a name (O_TMPFILE, else unlinked at once) in the
    temporary folder: a run killed by SIGKILL leaves nothing there."""
    return cast(BinaryIO, tempfile.TemporaryFile(prefix="ldids-", dir=scratch_folder()))


def scratch_folder() -> str:
    """The temporary folder, as tempfile would choose it but without trying it out: the
    first time a process asks, tempfile writes a file of a random name into the folder
    and removes it, which a SIGKILL at that instant would leave behind."""
    if tempfile.tempdir is not None:
        return tempfile.tempdir
    candidates = [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
    for folder in [*candidates, "/tmp", "/var/tmp", "/usr/tmp"]:
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return tempfile.gettempdir()
