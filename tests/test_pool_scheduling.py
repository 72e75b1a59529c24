"""How the coordinator of a run on every core shares the chunks out among its workers."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from ldids.dumps import serve
from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.passes.config import Config

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="forked workers (Linux)")


def _dump(path: Path, lines: int) -> Path:
    path.write_text(
        "".join(
            f"<info:fedora/demo:{i}> <http://purl.org/dc/elements/1.1/identifier> <http://hdl.handle.net/1765/{i}> .\n"
            for i in range(lines)
        )
    )
    return path


def test_a_worker_done_gets_chunks_while_another_is_held_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker with the first chunk is held up until the other worker has done more
    chunks than it could hold queued (DEPTH): the coordinator must feed a worker that is
    done while the oldest chunk is still being worked on, rather than wait for it. A
    coordinator that waits for the oldest never feeds it, and the held-up worker gives up
    waiting after a while (said in its marker). The output is what one worker writes."""
    source = _dump(tmp_path / "dump.nt", 400)
    marks = tmp_path / "marks"
    marks.mkdir()
    run_chunk = serve._run_chunk

    def marked(chunk: Any, settings: Settings, slot: Any = None) -> Any:
        me = os.getpid()
        if chunk.start == 0:
            waited = 0.0
            while sum(1 for mark in marks.iterdir() if not mark.name.startswith(f"{me}-")) <= serve.DEPTH + 1:
                if waited > 30:
                    (marks / "gave-up").write_text("")
                    break
                time.sleep(0.05)
                waited += 0.05
        (marks / f"{me}-{chunk.start}").write_text("")
        return run_chunk(chunk, settings, slot)

    monkeypatch.setattr(serve, "_run_chunk", marked)
    alone, together = tmp_path / "alone.nt", tmp_path / "together.nt"
    normalize_dump([str(source)], str(alone), Settings(Config()), workers=1, block_size=1024)
    normalize_dump([str(source)], str(together), Settings(Config()), workers=2, block_size=1024)
    assert not (marks / "gave-up").exists()
    assert together.read_bytes() == alone.read_bytes()
