"""Errors writing an output: one line naming the output and the cause, exit 2, and nothing
left behind (no output, no temporary file), for every command that writes and every file
it writes; a reader that leaves early (`| head`) ends a run quietly."""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from ldids.cli import main
from ldids.dumps import pool as pool_module
from ldids.dumps.stream import Settings

ROOT = Path(__file__).resolve().parents[1]
LDIDS = shutil.which("ldids", path=str(Path(sys.executable).parent))
COMMAND = [LDIDS] if LDIDS else [sys.executable, "-m", "ldids"]  # both run ldids.cli.run
ENOSPC = os.strerror(errno.ENOSPC)
EBADF = os.strerror(errno.EBADF)

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc and /dev/full")


def statements(count: int, first: int = 0) -> str:
    """N-Triples (Turtle too) with an identifier to rewrite and one to link in each line."""
    return "".join(
        f'<info:fedora/demo%3a{i}> <http://example.org/p> "hdl:1765/{i % 31}" .\n' for i in range(first, first + count)
    )


@dataclass(frozen=True)
class Inputs:
    turtle: Path  # read as a graph
    dump: Path  # streamed
    big_dump: Path  # streamed, in several chunks (of 2 MiB)
    bad: Path  # streamed, with malformed lines
    normalized: Path  # for undo, with
    crosswalk: Path
    invalid: Path  # for validate: does not conform, with a long report

    def format(self, args: list[str], **more: Path) -> list[str]:
        names = {name: str(value) for name, value in {**vars(self), **more}.items()}
        return [arg.format(**names) for arg in args]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    folder = tmp_path_factory.mktemp("inputs")
    turtle = folder / "data.ttl"
    turtle.write_text(statements(200))
    dump = folder / "dump.nt"
    dump.write_text(statements(3000))
    big_dump = folder / "big.nt"
    big_dump.write_text(statements(45_000))  # 3.5 MB
    bad = folder / "bad.nt"
    bad.write_text("".join(f"{statements(1, i)}<http://a> <http://b> .\n" for i in range(50)))
    normalized, crosswalk = folder / "normalized.nt", folder / "changes.csv"
    assert main(["normalize", str(turtle), "-q", "-o", str(normalized), "--crosswalk", str(crosswalk)]) == 0
    invalid = folder / "invalid.nt"
    invalid.write_text("".join(f'<info:fedora/demo%3a{i}> <http://example.org/p> "x" .\n' for i in range(100)))
    return Inputs(turtle, dump, big_dump, bad, normalized, crosswalk, invalid)


# Every output ldids writes: (arguments, the option naming the output that fails, its file
# name). {good} is a folder for the other outputs, which must not appear either.
WRITES = {
    "normalize graph -o": (["normalize", "{turtle}"], "-o", "out.ttl"),
    "normalize graph --links": (["normalize", "{turtle}", "-o", "{good}/out.ttl"], "--links", "links.nt"),
    "normalize graph --crosswalk": (["normalize", "{turtle}", "-o", "{good}/out.ttl"], "--crosswalk", "changes.csv"),
    "normalize dump -o, 1 worker": (["normalize", "{dump}", "--workers", "1"], "-o", "out.nt"),
    "normalize dump -o, 2 workers": (["normalize", "{dump}", "--workers", "2"], "-o", "out.nt.gz"),
    "normalize dump --links": (
        ["normalize", "{dump}", "--workers", "2", "-o", "{good}/out.nt", "--crosswalk", "{good}/changes.csv"],
        "--links",
        "links.nt",
    ),
    "normalize dump --crosswalk": (
        ["normalize", "{dump}", "--workers", "1", "-o", "{good}/out.nt", "--links", "{good}/links.nt"],
        "--crosswalk",
        "changes.csv",
    ),
    "normalize dump --error-file": (
        ["normalize", "{bad}", "--on-error", "skip", "-o", "{good}/out.nt"],
        "--error-file",
        "errors.tsv",
    ),
    "undo -o": (["undo", "{normalized}", "--crosswalk", "{crosswalk}"], "-o", "restored.nt"),
}


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder of the run's own temporary files (a dump's parts), which must end empty."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def run_writing(
    inputs: Inputs, write: str, failing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    args, option, _ = WRITES[write]
    good = tmp_path / "good"
    good.mkdir()
    code = main([*inputs.format(args, good=good), option, str(failing)])
    err = capsys.readouterr().err
    assert listing(good) == []
    return code, err


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize(
    ("where", "cause"),
    [
        pytest.param("missing/{name}", errno.ENOENT, id="no such folder"),
        # Tests may run as root, who may write anywhere else.
        pytest.param("a-file/{name}", errno.ENOTDIR, id="folder is a file"),
        pytest.param("{name}", errno.EISDIR, id="output is a folder"),
    ],
)
def test_an_output_that_cannot_be_made(
    write: str,
    where: str,
    cause: int,
    inputs: Inputs,
    tmp_path: Path,
    scratch: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = WRITES[write][2]
    out = tmp_path / "out"
    out.mkdir()
    (out / "a-file").write_text("not a folder\n")
    if cause == errno.EISDIR:
        (out / name).mkdir()
    before = listing(out)
    failing = out / where.format(name=name)
    code, err = run_writing(inputs, write, failing, tmp_path, capsys)
    assert (code, err) == (2, f"ldids: {failing}: cannot write: {os.strerror(cause)}\n")
    assert listing(out) == before
    assert listing(scratch) == []


class FullDisk:
    """os.write and os.sendfile, for files in ``folder``: ``room`` bytes fit, then ENOSPC."""

    def __init__(self, folder: Path, room: int, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folder = f"{folder}{os.sep}"
        self.left = room
        self.refused = 0
        self.sent = 0  # by sendfile
        self._write, self._sendfile = os.write, os.sendfile
        monkeypatch.setattr(os, "write", self.write)
        monkeypatch.setattr(os, "sendfile", self.sendfile)

    def _fits(self, descriptor: int, size: int) -> int:
        try:
            if not os.readlink(f"/proc/self/fd/{descriptor}").startswith(self.folder):
                return size
        except OSError:
            return size
        if self.left == 0:
            self.refused += 1
            raise OSError(errno.ENOSPC, ENOSPC)
        size = min(size, self.left)
        self.left -= size
        return size

    def write(self, descriptor: int, data: bytes) -> int:
        return self._write(descriptor, memoryview(data)[: self._fits(descriptor, len(data))])

    def sendfile(self, out: int, source: int, offset: int | None, count: int) -> int:
        sent = self._sendfile(out, source, offset, self._fits(out, count))
        self.sent += sent if count else 0
        return sent


@pytest.mark.parametrize("write", WRITES)
def test_a_disk_that_fills_up_while_an_output_is_written(
    write: str,
    inputs: Inputs,
    tmp_path: Path,
    scratch: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = tmp_path / "full"
    full.mkdir()
    disk = FullDisk(full, room=64, monkeypatch=monkeypatch)
    failing = full / WRITES[write][2]
    code, err = run_writing(inputs, write, failing, tmp_path, capsys)
    assert (code, err) == (2, f"ldids: {failing}: cannot write: {ENOSPC}\n")
    assert disk.left == 0  # some of it was written first: the error came mid-write
    assert disk.refused
    assert listing(full) == []
    assert listing(scratch) == []


def test_a_disk_that_fills_up_while_a_part_is_appended(
    inputs: Inputs, tmp_path: Path, scratch: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results handed back in files are appended to the output by sendfile: one that stops
    partway has the rest go through the buffer, whose error names the output."""
    pool = pool_module._Pool.__init__

    def in_files(self: pool_module._Pool, processes: int, settings: Settings, **_: int) -> None:
        pool(self, processes, settings, 0)  # no slots of shared memory

    monkeypatch.setattr(pool_module._Pool, "__init__", in_files)
    full = tmp_path / "full"
    full.mkdir()
    disk = FullDisk(full, room=64, monkeypatch=monkeypatch)
    out = full / "out.nt"
    assert main(["normalize", str(inputs.dump), "--workers", "2", "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"ldids: {out}: cannot write: {ENOSPC}\n"
    assert disk.sent == 64
    assert disk.refused
    assert listing(full) == []
    assert listing(scratch) == []


def test_a_device_or_link_is_written_in_place_not_replaced(
    inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Renamed into place, the output would replace the link (as root even /dev/full itself).
    full, null = tmp_path / "full.nt", tmp_path / "null.nt"
    full.symlink_to("/dev/full")
    null.symlink_to(os.devnull)
    assert main(["normalize", str(inputs.dump), "-q", "-o", str(null)]) == 0
    assert main(["normalize", str(inputs.dump), "-o", str(full)]) == 2
    assert capsys.readouterr().err == f"ldids: {full}: cannot write: {ENOSPC}\n"
    assert os.readlink(full) == "/dev/full"
    assert os.readlink(null) == os.devnull
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert listing(tmp_path) == ["full.nt", "null.nt"]


# Commands writing to standard output, with inputs giving more than a pipe and a buffer hold.
TO_STDOUT = {
    "normalize graph": ["normalize", "{turtle}", "-t", "turtle"],
    "normalize dump, 1 worker": ["normalize", "{big_dump}", "--workers", "1"],
    "normalize dump, 2 workers": ["normalize", "{big_dump}", "--workers", "2"],
    "undo": ["undo", "{normalized}", "--crosswalk", "{crosswalk}"],
    "validate": ["validate", "{invalid}", "--format", "turtle"],
    "inspect": ["inspect", *(f"demo:{i}" for i in range(1000))],
}


def ldids(args: list[str], scratch: Path, stdout: int | IO[bytes] | None = None) -> subprocess.Popen[bytes]:
    """The console script, its temporary files in ``scratch``."""
    environment = {**os.environ, "TMPDIR": str(scratch)}
    return subprocess.Popen(args, stdout=stdout, stderr=subprocess.PIPE, env=environment)


@pytest.mark.parametrize("command", TO_STDOUT)
def test_standard_output_on_a_full_disk(command: str, inputs: Inputs, scratch: Path) -> None:
    with (
        open("/dev/full", "wb") as full,
        ldids([*COMMAND, *inputs.format(TO_STDOUT[command])], scratch, stdout=full) as run,
    ):
        _, err = run.communicate(timeout=120)
    assert (run.returncode, err.decode()) == (2, f"ldids: <stdout>: cannot write: {ENOSPC}\n")
    assert listing(scratch) == []


@pytest.mark.parametrize("command", TO_STDOUT)
def test_standard_output_closed(command: str, inputs: Inputs, scratch: Path) -> None:
    closed = ["sh", "-c", 'exec "$@" >&-', "sh", *COMMAND, *inputs.format(TO_STDOUT[command])]
    with ldids(closed, scratch) as run:
        _, err = run.communicate(timeout=120)
    assert (run.returncode, err.decode()) == (2, f"ldids: <stdout>: cannot write: {EBADF}\n")
    assert listing(scratch) == []


def test_standard_output_closed_is_no_matter_to_a_run_writing_a_file(
    inputs: Inputs, scratch: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.nt"
    closed = ["sh", "-c", 'exec "$@" >&-', "sh", *COMMAND, "normalize", str(inputs.dump), "-q", "-o", str(out)]
    with ldids(closed, scratch) as run:
        _, err = run.communicate(timeout=120)
    assert (run.returncode, err) == (0, b"")
    assert main(["normalize", str(inputs.dump), "-q", "-o", str(tmp_path / "open.nt")]) == 0
    assert out.read_bytes() == (tmp_path / "open.nt").read_bytes()


@pytest.mark.parametrize("command", TO_STDOUT)
def test_a_reader_that_leaves_ends_the_run_quietly(command: str, inputs: Inputs, scratch: Path) -> None:
    # `ldids ... | head -c 10`: exit as cat and grep do, by SIGPIPE to a shell (128 + 13),
    # with nothing on standard error and nothing left behind.
    with ldids([*COMMAND, *inputs.format(TO_STDOUT[command])], scratch, stdout=subprocess.PIPE) as run:
        assert run.stdout is not None
        assert run.stderr is not None
        fcntl.fcntl(run.stdout, fcntl.F_SETPIPE_SZ, 4096)  # the smallest pipe: the run must wait
        assert len(run.stdout.read(10)) == 10
        run.stdout.close()
        err = run.stderr.read()
        run.wait(timeout=120)
    assert (run.returncode, err) == (128 + signal.SIGPIPE, b"")
    assert listing(scratch) == []
