"""Compression, told by a file's name (or by the first bytes of standard input): gzip,
bzip2, xz and zstd, read and written as their own tools do, for every input and output
ldids has. Python 3.11 has no zstd module: the ``zstandard`` package reads and writes it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, BinaryIO, cast

from ldids.errors import InputError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["COMPRESSIONS", "Compression", "compression_of", "plain_name"]


@dataclass(frozen=True)
class Compression:
    """A compression ldids reads and writes, told by a file's extension (or, on standard
    input, by its first bytes). Written as its own tool writes by default, gzip without a
    time stamp (the same data gives the same bytes)."""

    name: str
    extension: str
    magic: bytes

    def reader(self, raw: BinaryIO, source: str) -> io.BufferedReader:
        """What ``raw`` holds, decompressed; a fault in it is an InputError naming ``source``."""
        stream: BinaryIO
        if self.name == "gzip":
            import gzip

            stream = cast(BinaryIO, gzip.GzipFile(fileobj=raw, mode="rb"))
        elif self.name == "bzip2":
            import bz2

            stream = cast(BinaryIO, bz2.BZ2File(raw, "rb"))
        elif self.name == "xz":
            import lzma

            stream = cast(BinaryIO, lzma.LZMAFile(raw, "rb"))  # noqa: SIM115 -- the caller's to close
        else:
            stream = cast(BinaryIO, io.BufferedReader(_ZstdReader(raw), 1 << 17))
        return io.BufferedReader(_Checked(stream, self, source), 1 << 17)

    def writer(self, raw: IO[bytes]) -> IO[bytes]:
        """A stream compressing into ``raw``; closing it ends the compressed data, not ``raw``."""
        if self.name == "gzip":
            import gzip

            return cast(IO[bytes], gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=6, mtime=0))
        if self.name == "bzip2":
            import bz2

            return cast(IO[bytes], bz2.BZ2File(raw, "wb"))
        if self.name == "xz":
            import lzma

            return cast(IO[bytes], lzma.LZMAFile(raw, "wb"))
        import zstandard

        return zstandard.ZstdCompressor(level=3, write_checksum=True).stream_writer(raw, closefd=False)


COMPRESSIONS: tuple[Compression, ...] = (
    Compression("gzip", ".gz", b"\x1f\x8b"),
    Compression("bzip2", ".bz2", b"BZh"),
    Compression("xz", ".xz", b"\xfd7zXZ\x00"),
    Compression("zstd", ".zst", b"\x28\xb5\x2f\xfd"),
)


def compression_of(path: str) -> Compression | None:
    """The compression a file name says (``out.nt.gz``: gzip); None for plain files and ``-``."""
    name = path.lower()
    return next((c for c in COMPRESSIONS if name.endswith(c.extension)), None)


def plain_name(path: str) -> str:
    """``path`` without its compression extension: what it holds once decompressed."""
    found = compression_of(path)
    return path[: -len(found.extension)] if found is not None else path


class _ZstdReader(io.RawIOBase):
    """zstd frames one after another, as the zstd tool reads them. Data that ends inside a
    frame is an error, as a truncated gzip file is (zstandard's own stream reader ends there
    quietly). Fed 4 KiB at a time: a frame's output is made whole per call, and 4 KiB of a
    zstd "bomb" make at most ~128 MiB."""

    PIECE = 1 << 12

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._raw = raw
        self._context = zstandard.ZstdDecompressor()
        self._frame: zstandard.ZstdDecompressionObj | None = None
        self._out = b""
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while self._at == len(self._out):
            data = self._raw.read(self.PIECE)
            if not data:
                if self._frame is not None:
                    raise EOFError("the data ends inside a zstd frame")
                return 0
            self._out, self._at = self._decompress(data), 0
        with memoryview(buffer) as view, view.cast("B") as target:
            count = min(len(target), len(self._out) - self._at)
            target[:count] = self._out[self._at : self._at + count]
        self._at += count
        return count

    def _decompress(self, data: bytes) -> bytes:
        pieces = []
        while data:
            if self._frame is None:
                self._frame = self._context.decompressobj()
            pieces.append(self._frame.decompress(data))
            if not self._frame.eof:
                break
            data, self._frame = self._frame.unused_data, None
        return b"".join(pieces)


class _Checked(io.RawIOBase):
    """A decompressing stream whose faults (a corrupt or truncated file) are InputErrors."""

    def __init__(self, stream: BinaryIO, compression: Compression, source: str) -> None:
        self._stream = stream
        self._compression = compression
        self._source = source

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()

    def readinto(self, buffer: WriteableBuffer) -> int:
        try:
            return self._stream.readinto(buffer)  # type: ignore[attr-defined, no-any-return]
        except InputError:
            raise
        except Exception as error:  # gzip, bz2, lzma and zstandard raise types of their own
            if isinstance(error, OSError) and error.errno is not None:
                raise InputError(error.strerror or str(error), source=self._source) from error
            detail = str(error) or type(error).__name__
            raise InputError(f"cannot decompress ({self._compression.name}): {detail}", source=self._source) from error
