"""Writers users expect: every output compressed as its name says and every input read
compressed, the output format from the output's name (a format's word as the name
refused), the input's prefixes kept, standard input told by its first bytes, and outputs
that a kill, even SIGKILL, never leaves half-written or with a temporary file beside them."""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest
import zstandard
from rdflib import Graph

from ldids.cli import main
from ldids.errors import InputError
from ldids.rdf import files
from ldids.rdf.files import FORMATS, atomic_output, format_of_name
from ldids.rdf.io import read_bytes
from ldids.rdf.sniff import SNIFF_SIZE, sniff

ROOT = Path(__file__).resolve().parents[1]
W3C = ROOT.parent / "shared" / "w3c-rdf-tests"
LDIDS = shutil.which("ldids", path=str(Path(sys.executable).parent))
COMMAND = [LDIDS] if LDIDS else [sys.executable, "-m", "ldids"]
LINUX = Path("/proc/self/fd").is_dir()


def _zstd_decompress(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True).read()


# The compressions, as their own modules read and write them (not as ldids does).
DECOMPRESS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": gzip.decompress,
    ".bz2": bz2.decompress,
    ".xz": lzma.decompress,
    ".zst": _zstd_decompress,
}
COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
    ".zst": zstandard.ZstdCompressor().compress,
}
SUFFIXES = list(DECOMPRESS)


def statements(count: int, first: int = 0) -> str:
    """N-Triples (Turtle too) with an identifier to rewrite and one to link in each line."""
    return "".join(
        f'<info:fedora/demo%3a{i}> <http://example.org/p> "hdl:1765/{i % 31}" .\n' for i in range(first, first + count)
    )


@dataclass(frozen=True)
class Inputs:
    turtle: Path
    dump: Path
    big_dump: Path  # two chunks of 2 MiB
    bad: Path  # with malformed lines
    normalized: Path
    crosswalk: Path

    def format(self, args: list[str], **more: Path) -> list[str]:
        names = {name: str(value) for name, value in {**vars(self), **more}.items()}
        return [arg.format(**names) for arg in args]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    folder = tmp_path_factory.mktemp("inputs")
    turtle = folder / "data.ttl"
    turtle.write_text("@prefix ex: <http://example.org/> .\n" + statements(200))
    dump = folder / "dump.nt"
    dump.write_text(statements(3000))
    big_dump = folder / "big.nt"
    big_dump.write_text(statements(30_000))
    bad = folder / "bad.nt"
    bad.write_text("".join(f"{statements(1, i)}<http://a> <http://b> .\n" for i in range(50)))
    normalized, crosswalk = folder / "normalized.nt", folder / "changes.csv"
    assert main(["normalize", str(turtle), "-q", "-o", str(normalized), "--crosswalk", str(crosswalk)]) == 0
    return Inputs(turtle, dump, big_dump, bad, normalized, crosswalk)


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


# -- Compression from the output's name -----------------------------------------------------

# Every output ldids writes: (arguments, the option naming the output tested, its name).
# {good} is a folder for the other outputs.
WRITES = {
    "graph -o": (["normalize", "{turtle}"], "-o", "out.ttl"),
    "graph --links": (["normalize", "{turtle}", "-o", "{good}/out.ttl"], "--links", "links.nt"),
    "graph --crosswalk csv": (["normalize", "{turtle}", "-o", "{good}/out.ttl"], "--crosswalk", "changes.csv"),
    "graph --crosswalk nt": (["normalize", "{turtle}", "-o", "{good}/out.ttl"], "--crosswalk", "changes.nt"),
    "dump -o, 1 worker": (["normalize", "{dump}", "--workers", "1"], "-o", "out.nt"),
    "dump -o, 2 workers": (["normalize", "{big_dump}", "--workers", "2"], "-o", "out.nt"),
    "dump --links": (["normalize", "{dump}", "--workers", "2", "-o", "{good}/out.nt"], "--links", "links.nt"),
    "dump --crosswalk": (["normalize", "{dump}", "-o", "{good}/out.nt"], "--crosswalk", "changes.csv"),
    "dump --error-file": (
        ["normalize", "{bad}", "--on-error", "skip", "-o", "{good}/out.nt"],
        "--error-file",
        "errors.tsv",
    ),
    "undo -o": (["undo", "{normalized}", "--crosswalk", "{crosswalk}"], "-o", "restored.nt"),
}


def write(inputs: Inputs, what: str, folder: Path, name: str) -> Path:
    args, option, _ = WRITES[what]
    good = folder / "good"
    good.mkdir(parents=True)
    quiet = [] if args[0] == "undo" else ["-q"]
    assert main([*inputs.format(args, good=good), option, str(folder / name), *quiet]) == 0
    return folder / name


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("what", WRITES)
def test_every_output_is_compressed_as_its_name_says(
    what: str, suffix: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = WRITES[what][2]
    plain = write(inputs, what, tmp_path / "plain", name)
    packed = write(inputs, what, tmp_path / "packed", name + suffix)
    capsys.readouterr()
    assert plain.stat().st_size > 0
    assert DECOMPRESS[suffix](packed.read_bytes()) == plain.read_bytes()
    assert listing(tmp_path / "packed" / "good") == listing(tmp_path / "plain" / "good")


@pytest.mark.parametrize("what", ["graph -o", "dump -o, 1 worker", "dump -o, 2 workers"])
def test_gzip_output_is_the_same_bytes_every_time(
    what: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write(inputs, what, tmp_path / "first", WRITES[what][2] + ".gz")
    second = write(inputs, what, tmp_path / "second", WRITES[what][2] + ".gz")
    capsys.readouterr()
    assert first.read_bytes() == second.read_bytes()
    header = first.read_bytes()[:10]
    assert header[3] == 0  # no file name (FLG), RFC 1952 §2.3.1
    assert header[4:8] == b"\0\0\0\0"  # no modification time


def test_standard_output_is_never_compressed(inputs: Inputs, tmp_path: Path) -> None:
    done = subprocess.run(
        [*COMMAND, "normalize", str(inputs.dump), "-q", "-o", "-"], capture_output=True, check=True, timeout=120
    )
    assert done.stdout.startswith(b"<")


# -- Compressed inputs -----------------------------------------------------------------------

READS = {
    "graph": ("turtle", "data.ttl", ["-t", "nt"]),
    "dump, 1 worker": ("dump", "dump.nt", ["--workers", "1"]),
    "dump, 2 workers": ("big_dump", "big.nt", ["--workers", "2"]),
}


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("how", READS)
def test_compressed_inputs_are_read(
    how: str, suffix: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    field, name, args = READS[how]
    source: Path = getattr(inputs, field)
    packed = tmp_path / (name + suffix)
    packed.write_bytes(COMPRESS[suffix](source.read_bytes()))
    assert main(["normalize", str(source), "-q", "-o", str(tmp_path / "plain.nt"), *args]) == 0
    assert main(["normalize", str(packed), "-q", "-o", str(tmp_path / "packed.nt"), *args]) == 0
    assert (tmp_path / "packed.nt").read_bytes() == (tmp_path / "plain.nt").read_bytes()


def test_concatenated_zstd_frames_are_read_as_one(inputs: Inputs, tmp_path: Path) -> None:
    data = inputs.dump.read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    packed = tmp_path / "dump.nt.zst"
    packed.write_bytes(COMPRESS[".zst"](data[:half]) + COMPRESS[".zst"](data[half:]))
    assert main(["normalize", str(inputs.dump), "-q", "-o", str(tmp_path / "plain.nt")]) == 0
    assert main(["normalize", str(packed), "-q", "-o", str(tmp_path / "packed.nt")]) == 0
    assert (tmp_path / "packed.nt").read_bytes() == (tmp_path / "plain.nt").read_bytes()


def test_undo_reads_compressed_outputs_and_crosswalks(
    inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, walk = tmp_path / "out.nt.xz", tmp_path / "changes.csv.zst"
    assert main(["normalize", str(inputs.turtle), "-q", "-o", str(out), "--crosswalk", str(walk)]) == 0
    assert main(["undo", str(out), "--crosswalk", str(walk), "-o", str(tmp_path / "back.nt.gz")]) == 0
    back = Graph().parse(data=gzip.decompress((tmp_path / "back.nt.gz").read_bytes()), format="nt")
    assert len(back) == 200
    assert len(back ^ Graph().parse(inputs.turtle)) == 0


NAMES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize(("how", "damage"), [("dump", "cut"), ("dump", "garbage"), ("graph", "cut")])
def test_a_damaged_compressed_input_is_an_input_error(
    how: str, damage: str, suffix: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A truncated file (zstandard's own reader ends there quietly) or a corrupt one stops
    the run: one line naming the file, exit 2, no output."""
    source = inputs.dump if how == "dump" else inputs.turtle
    data = COMPRESS[suffix](source.read_bytes())
    damaged = data[: len(data) - 20] if damage == "cut" else data[:30] + b"\x00garbage\xff" * 8 + data[30:]
    packed = tmp_path / (source.name + suffix)
    packed.write_bytes(damaged)
    out = tmp_path / "out" / "out.nt"
    out.parent.mkdir()
    assert main(["normalize", str(packed), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ldids: {packed}: cannot decompress ({NAMES[suffix]}): "), err
    assert err.count("\n") == 1
    assert listing(out.parent) == []


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize(("source", "expected"), [("dump", "nt"), ("turtle", "turtle")])
def test_compressed_standard_input_is_told_by_its_first_bytes(
    suffix: str, source: str, expected: str, inputs: Inputs
) -> None:
    data = getattr(inputs, source).read_bytes()
    plain = subprocess.run([*COMMAND, "normalize", "-q"], input=data, capture_output=True, timeout=120)
    packed = subprocess.run(
        [*COMMAND, "normalize", "-q", "-"], input=COMPRESS[suffix](data), capture_output=True, timeout=120
    )
    assert (packed.returncode, packed.stderr) == (0, b"")
    assert packed.stdout == plain.stdout
    assert read_bytes(packed.stdout, expected).quads  # the input's format, by default


# -- The format from the output's name ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("out.nq.gz", "nquads"),
        ("out.ttl.bz2", "turtle"),
        ("out.trig.xz", "trig"),
        ("out.jsonld.zst", "json-ld"),
        ("out.rdf.gz", "xml"),
        ("OUT.NT.GZ", "nt"),
    ],
)
def test_the_output_format_follows_the_name_after_its_compression(
    name: str, expected: str, inputs: Inputs, tmp_path: Path
) -> None:
    out = tmp_path / name
    assert main(["normalize", str(inputs.dump), "-q", "-o", str(out)]) == 0
    data = DECOMPRESS["." + name.lower().rsplit(".", 1)[1]](out.read_bytes())
    assert len(read_bytes(data, expected).quads) == 2 * 3000  # the statements, and a link for each


def test_output_format_overrides_the_name(inputs: Inputs, tmp_path: Path) -> None:
    out = tmp_path / "out.nt.gz"
    assert main(["normalize", str(inputs.dump), "-q", "-o", str(out), "--output-format", "turtle"]) == 0
    assert gzip.decompress(out.read_bytes()).startswith(b"@prefix")


WORDS = sorted(
    {f.name for f in FORMATS}
    | {ext.lstrip(".") for f in FORMATS for ext in f.extensions}
    | {"n3", "ntriples", "n-triples", "n-quads", "rdfxml", "rdf/xml", "jsonld", "json", "oaipmh", "NT", "Turtle"}
)


@pytest.mark.parametrize("word", WORDS)
def test_a_format_word_as_the_output_name_is_a_usage_error(
    word: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for source in (inputs.turtle, inputs.dump):  # the graph path and the stream alike
        assert main(["normalize", str(source), "-o", word]) == 2
        err = capsys.readouterr().err
        assert f"error: -o {word} names a file called '{word}'; " in err
        assert f"./{word} if that is the file you mean" in err
    assert listing(tmp_path) == []


def test_the_usage_error_says_what_to_type(inputs: Inputs, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalize", str(inputs.dump), "-o", "nt"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "ldids normalize: error: -o nt names a file called 'nt'; to write N-Triples to standard output use "
        "--output-format nt, or name a file like out.nt (./nt if that is the file you mean)"
    )
    assert main(["normalize", str(inputs.dump), "-o", "turtle", "--output-format", "nt"]) == 2
    assert "to write Turtle to standard output use --output-format turtle" in capsys.readouterr().err
    assert main(["normalize", str(inputs.turtle), "-o", "out.ttl", "--links", "nt"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "ldids normalize: error: --links nt names a file called 'nt'; name a file like links.nt "
        "(./nt if that is the file you mean)"
    )
    assert main(["normalize", str(inputs.dump), "-o", "foxml"]) == 2
    assert "FOXML is read, not written: name a file like out.ttl" in capsys.readouterr().err
    assert main(["undo", "x.nt", "--crosswalk", "c.csv", "-o", "nq"]) == 2
    assert "to write N-Quads to standard output use --output-format nquads" in capsys.readouterr().err


def test_a_file_of_that_name_is_still_written_as_such(
    inputs: Inputs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["normalize", str(inputs.dump), "-q", "-o", "./nt"]) == 0
    assert (tmp_path / "nt").read_bytes().startswith(b"<")  # the input's format


def test_help_names_the_options_the_messages_suggest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["normalize", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for said in ("-o FILE, --output FILE", "-t FORMAT, --output-format FORMAT", ".gz, .bz2, .xz, .zst", "out.nt.gz"):
        assert said in shown


# -- The input's prefixes -----------------------------------------------------------------------

PREFIXED = """\
@prefix ex: <http://example.org/> .
@prefix : <http://default.example/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix rel: <http://other.example/rel#> .
@prefix fm: <info:fedora/fedora-system:def/model#> .
ex:a dcterms:isPartOf <info:fedora/demo:1> ;
    :p "x" ;
    rel:x ex:b ;
    <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/demo:c> ;
    fm:hasModel <info:fedora/demo:model> .
"""


def prefixes_of(text: str) -> dict[str, str]:
    return {
        line.split()[1].rstrip(":"): line.split()[2].strip("<>")
        for line in text.splitlines()
        if line.startswith("@prefix")
    }


@pytest.mark.parametrize("fmt", ["turtle", "trig"])
def test_the_inputs_prefixes_are_kept_and_ldids_own_win_a_clash(fmt: str, tmp_path: Path) -> None:
    source = tmp_path / "in.ttl"
    source.write_text(PREFIXED)
    out = tmp_path / f"out.{'ttl' if fmt == 'turtle' else 'trig'}"
    assert main(["normalize", str(source), "-q", "-o", str(out)]) == 0
    text = out.read_text()
    bound = prefixes_of(text)
    assert bound[""] == "http://default.example/"
    assert bound["ex"] == "http://example.org/"
    assert bound["dcterms"] == "http://purl.org/dc/terms/"
    # ldids's own prefixes stay: the input's rel: and fm: give way.
    assert bound["rel"] == "info:fedora/fedora-system:def/relations-external#"
    assert bound["fedora-model"] == "info:fedora/fedora-system:def/model#"
    assert "fm" not in bound
    assert "http://other.example/rel#" in bound.values()
    assert "ex:a" in text
    assert ":p " in text
    assert len(read_bytes(text.encode(), fmt).quads) == 5


def test_the_first_declaration_of_a_prefix_wins_among_inputs(tmp_path: Path) -> None:
    first, second = tmp_path / "a.ttl", tmp_path / "b.ttl"
    first.write_text("@prefix ex: <http://one.example/> .\nex:s ex:p ex:o .\n")
    second.write_text("@prefix ex: <http://two.example/> .\n@prefix o: <http://one.example/> .\nex:s ex:p ex:o .\n")
    out = tmp_path / "out.ttl"
    assert main(["normalize", str(first), str(second), "-q", "-o", str(out)]) == 0
    assert prefixes_of(out.read_text())["ex"] == "http://one.example/"
    assert "o" not in prefixes_of(out.read_text())


def test_rdf_xml_namespaces_become_turtle_prefixes(tmp_path: Path) -> None:
    source = tmp_path / "in.rdf"
    source.write_text(
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">'
        '<rdf:Description rdf:about="http://example.org/a"><ex:p>x</ex:p></rdf:Description></rdf:RDF>'
    )
    out = tmp_path / "out.ttl"
    assert main(["normalize", str(source), "-q", "-o", str(out)]) == 0
    assert prefixes_of(out.read_text())["ex"] == "http://example.org/"
    assert "ex:a ex:p" in out.read_text()


def test_line_formats_hold_no_prefixes(tmp_path: Path) -> None:
    source = tmp_path / "in.ttl"
    source.write_text(PREFIXED)
    out = tmp_path / "out.nt"
    assert main(["normalize", str(source), "-q", "-o", str(out)]) == 0
    assert all(line.startswith("<") for line in out.read_text().splitlines())


# -- What the writers write is what was read ----------------------------------------------------

XSD_NS = "http://www.w3.org/2001/XMLSchema#"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
#: Literals rdflib's writers write bare or as JSON values, made again from their values:
#: another lexical form, or (a boolean written 1) another datatype; and those whose lexical
#: form rdflib's constructor rewrites whatever it is told (white space in xsd:token and
#: xsd:normalizedString). Each must read back as it is.
AS_WRITTEN = [
    (" a  b ", "token"),
    ("\\tx  y ", "normalizedString"),
    ("2020-01-01Z", "date"),
    ("1.0e0", "double"),
    ("-2e3", "double"),
    ("NaN", "double"),
    ("1", "decimal"),
    ("1.50", "decimal"),
    ("01", "integer"),
    ("+7", "integer"),
    ("1", "boolean"),
    ("0", "boolean"),
    ("true", "boolean"),
    ("TRUE", "boolean"),  # not a boolean's lexical form: kept all the same
    ("x", "integer"),  # nor this an integer's
]
LITERALS = "".join(
    f'<http://e/s> <http://e/p{n}> "{text}"^^<{XSD_NS}{kind}> .\n' for n, (text, kind) in enumerate(AS_WRITTEN)
)


def _statements(data: bytes, fmt: ox.RdfFormat) -> list[str]:
    dataset = ox.Dataset(ox.parse(data, format=fmt))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return sorted(str(quad) for quad in dataset)


@pytest.mark.parametrize(
    ("suffix", "fmt"),
    [
        (".ttl", ox.RdfFormat.TURTLE),
        (".trig", ox.RdfFormat.TRIG),
        (".jsonld", ox.RdfFormat.JSON_LD),
        (".rdf", ox.RdfFormat.RDF_XML),
    ],
)
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(LITERALS, id="numbers and booleans"),
        pytest.param(
            f'<http://e/s> {TYPE} "text" .\n<http://e/s> {TYPE} _:b .\n_:b <http://e/p> "1" .\n', id="rdf:type"
        ),
    ],
)
def test_every_writer_writes_the_statements_it_was_given(
    data: str, suffix: str, fmt: ox.RdfFormat, tmp_path: Path
) -> None:
    # rdflib's Turtle and TriG writers wrote "1.0e0"^^xsd:double as 1e+00 and "1"^^xsd:boolean
    # as 1 (an xsd:integer); its JSON-LD writer wrote JSON numbers and booleans, and a literal
    # or blank node in "@type", which no reader takes.
    source, out = tmp_path / "in.nt", tmp_path / f"out{suffix}"
    source.write_text(data)
    assert main(["normalize", str(source), "-q", "-o", str(out)]) == 0
    assert _statements(out.read_bytes(), fmt) == _statements(source.read_bytes(), ox.RdfFormat.N_TRIPLES)


@pytest.mark.parametrize(
    ("statement", "said"),
    [
        ('<http://e/s> <http://e/0/1> "x" .', "RDF/XML cannot write the predicate <http://e/0/1>"),
        ('<http://e/s> <http://e/p> "a\\u0001b" .', 'RDF/XML cannot write the character U+0001 of "a\\u0001b"'),
        ('<http://e/s> <http://e/p> "\\uFFFE" .', "RDF/XML cannot write the character U+FFFE"),
    ],
)
def test_what_rdf_xml_cannot_write_is_an_error_that_names_it(
    statement: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # rdflib's writer failed with a traceback on the predicate, and wrote the characters into
    # a document no reader takes (XML 1.0 §2.2).
    source, out = tmp_path / "in.nt", tmp_path / "out.rdf"
    source.write_text(statement + "\n")
    assert main(["normalize", str(source), "-q", "-o", str(out)]) == 2
    assert said in capsys.readouterr().err
    assert not out.exists()
    assert main(["normalize", str(source), "-q", "-o", str(tmp_path / "out.ttl")]) == 0  # the advice holds


# -- Telling a format from its first bytes ------------------------------------------------------

RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
SNIFFED = {
    # Line formats
    "n-triples": (b'<http://a> <http://b> <http://c> .\n<http://a> <http://b> "x"@en .\n', "nt"),
    "n-triples, comments and blank lines": (b"# a dump\n\n<http://a> <http://b> _:c . # end\n", "nt"),
    "n-triples, CRLF and typed literal": (b'_:a <http://b> "1"^^<http://www.w3.org/2001/XMLSchema#int> .\r\n', "nt"),
    "n-triples, no spaces": (b"<http://a><http://b><http://c>.\n", "nt"),
    "n-triples, escapes": (b'<http://a\\u0062> <http://b> "\\"q\\" \\n" .\n', "nt"),
    "n-quads": (b"<http://a> <http://b> <http://c> .\n<http://a> <http://b> <http://c> <http://g> .\n", "nquads"),
    "n-quads, blank graph": (b'<http://a> <http://b> "c" _:g .\n', "nquads"),
    "empty": (b"", "nt"),
    "comments only": (b"# nothing here\n  \n", "nt"),
    # Turtle and TriG
    "turtle, @prefix": (b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n", "turtle"),
    "turtle, PREFIX": (b"PREFIX ex: <http://example.org/>\nex:a ex:b ex:c .\n", "turtle"),
    "turtle, BASE without spaces": (b"BASE<http://example/>\n<a><b><c>.\n", "turtle"),
    "turtle, IRIs then abbreviations": (b"<http://a> <http://b> <http://c> ;\n  <http://d> 1 .\n", "turtle"),
    "turtle, comment first": (b"# about\n@base <http://example.org/> .\n<a> <b> <c> .\n", "turtle"),
    "turtle, prefixed name": (b"ex:a ex:b ex:c .\n", "turtle"),
    "turtle, default prefix": (b":a :b :c .\n", "turtle"),
    "turtle, blank node property list": (b"[ <http://b> <http://c> ] .\n", "turtle"),
    "turtle, empty blank node": (b"[] a <http://c> .\n", "turtle"),
    "turtle, collection": (b"( 1 2 ) <http://b> <http://c> .\n", "turtle"),
    "turtle, braces in strings and IRIs": (
        b'<http://a> <http://b> "{x}", """{\n}""" ; <http://c> <urn:{}> .\n',
        "turtle",
    ),
    "turtle, a GRAPH in a comment": (b"<http://a> <http://b> 1 . # GRAPH <g> {\n", "turtle"),
    "trig, graph block": (b"@prefix ex: <http://example.org/> .\nex:g { ex:a ex:b ex:c . }\n", "trig"),
    "trig, default graph block": (b"{ <http://a> <http://b> <http://c> . }\n", "trig"),
    "trig, GRAPH": (b"PREFIX ex: <http://example.org/>\nGRAPH ex:g { ex:a ex:b ex:c }\n", "trig"),
    # XML
    "rdf/xml": (f'<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="{RDF_NS}"/>'.encode(), "xml"),
    "rdf/xml, comment and doctype": (
        b'<?xml version="1.0"?><!-- x --><!DOCTYPE rdf:RDF [ <!ENTITY a "b"> ]>\n'
        + f'<rdf:RDF xmlns:rdf="{RDF_NS}"/>'.encode(),
        "xml",
    ),
    "rdf/xml, no declaration": (f'<rdf:RDF\n xmlns:rdf="{RDF_NS}"></rdf:RDF>'.encode(), "xml"),
    "rdf/xml, other prefix": (f'<r:RDF xmlns:r="{RDF_NS}"/>'.encode(), "xml"),
    "rdf/xml, a node element at the top": (
        f'<ex:Book xmlns:ex="http://example.org/" xmlns:rdf="{RDF_NS}" rdf:about="http://a"/>'.encode(),
        "xml",
    ),
    "rdf/xml, utf-8 byte order mark": (f'\ufeff<rdf:RDF xmlns:rdf="{RDF_NS}"/>'.encode(), "xml"),
    "rdf/xml, utf-16": (
        f'<?xml version="1.0" encoding="UTF-16"?><rdf:RDF xmlns:rdf="{RDF_NS}"/>'.encode("utf-16"),
        "xml",
    ),
    "foxml": (
        b'<?xml version="1.0"?>\n<foxml:digitalObject xmlns:foxml="info:fedora/fedora-system:def/foxml#"/>',
        "foxml",
    ),
    "foxml, default namespace": (b'<digitalObject xmlns="info:fedora/fedora-system:def/foxml#" PID="a:1"/>', "foxml"),
    "oai-pmh": (b'<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"/>', "oai-pmh"),
    "oai-pmh holding rdf:RDF": (
        f'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><rdf:RDF xmlns:rdf="{RDF_NS}"/></OAI-PMH>'.encode(),
        "oai-pmh",
    ),
    # JSON-LD
    "json-ld object": (b'{\n  "@id": "http://a",\n  "http://b": "c"\n}\n', "json-ld"),
    "json-ld empty object": (b"{}", "json-ld"),
    "json-ld array": (b'[ { "@id": "http://a" } ]', "json-ld"),
    "json-ld empty array": (b"[ ]\n", "json-ld"),
}


@pytest.mark.parametrize("case", SNIFFED)
def test_a_format_is_told_by_its_first_bytes(case: str) -> None:
    data, expected = SNIFFED[case]
    assert sniff(data).name == expected


CANNOT_TELL = {
    "text": (b"hello world\n", "cannot tell the format: it starts 'hello world'; name it with -i ("),
    "other xml": (
        b'<?xml version="1.0"?>\n<mets:mets xmlns:mets="http://www.loc.gov/METS/"/>',
        "cannot tell the format: it is XML whose root element <mets:mets> is none of rdf:RDF, "
        "foxml:digitalObject or OAI-PMH; name it with -i (",
    ),
    "a literal first": (b'"hello" <http://b> <http://c> .\n', "it starts '\"hello\" <http://b> <http://c> .'"),
    "a long first line": (b"x" * 100, "it starts 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"),
    "an unended prolog": (b"<?xml version='1.0'" + b" " * SNIFF_SIZE, "its XML prolog goes on past the first 64 KiB"),
}


@pytest.mark.parametrize("case", CANNOT_TELL)
def test_what_cannot_be_told_says_how_it_starts(case: str) -> None:
    data, said = CANNOT_TELL[case]
    with pytest.raises(InputError) as caught:
        sniff(data, "<stdin>")
    assert str(caught.value).startswith("<stdin>: cannot tell the format: ")
    assert said in str(caught.value)
    assert str(caught.value).endswith("(turtle, nt, nquads, trig, xml, json-ld, foxml, oai-pmh)")


def test_only_the_first_bytes_are_looked_at() -> None:
    lines = b"<http://a> <http://b> <http://c> .\n" * (SNIFF_SIZE // 35 + 10)
    assert sniff(lines + b"<http://a> <http://b> <http://c> <http://g> .\n").name == "nt"
    # A line cut off at the end of what is looked at is not held against the line formats.
    assert sniff(lines[: SNIFF_SIZE - 5] + b"ex:a ex:b ex:c .\n").name == "nt"


def w3c_documents() -> list[Path]:
    if not W3C.is_dir():
        return []
    return sorted(path for path in W3C.glob("rdf-*/*") if format_of_name(path.name) is not None)


@pytest.mark.skipif(not W3C.is_dir(), reason="needs ../shared/w3c-rdf-tests")
def test_every_w3c_document_is_told_as_a_format_that_reads_it_alike() -> None:
    """Each document rdflib reads in the format of its extension is told, by content, as
    that format or one that reads the same statements from it (N-Triples is Turtle,
    N-Triples is N-Quads without graphs, Turtle is TriG without graph blocks). Negative
    syntax tests (``-bad-``) are left out: rdflib accepts some, and what they are is moot."""
    told = 0
    for path in w3c_documents():
        fmt = format_of_name(path.name)
        assert fmt is not None
        data = path.read_bytes()
        if "-bad-" in path.name:
            continue
        try:
            expected = read_bytes(data, fmt).quads
        except InputError:
            continue  # not read by rdflib either way: nothing to compare
        found = sniff(data, str(path))
        told += 1
        if found != fmt and path.name != "minimal_whitespace.nq":  # rdflib's N-Triples reader needs spaces
            assert read_bytes(data, found).quads == expected, (path, found.name)
    assert told > 700


STANDARD_INPUTS = {
    "n-triples": ("dump", "nt"),
    "turtle": ("turtle", "turtle"),
}


@pytest.mark.parametrize("case", STANDARD_INPUTS)
def test_standard_input_without_a_format_is_told_and_written_alike(case: str, inputs: Inputs) -> None:
    """``ldids normalize -`` with no -i: told by its first bytes, written in its own format
    by default, as the file is (N-Triples streamed: statements in input order)."""
    field, name = STANDARD_INPUTS[case]
    source: Path = getattr(inputs, field)
    by_name = subprocess.run(
        [*COMMAND, "normalize", str(source), "-q"], capture_output=True, check=True, timeout=120
    ).stdout
    piped = subprocess.run(
        [*COMMAND, "normalize", "-q"], input=source.read_bytes(), capture_output=True, check=True, timeout=120
    )
    assert piped.stdout == by_name
    assert read_bytes(piped.stdout, name).quads


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (ROOT / "tests/data/kramerius/original.foxml.xml", "foxml"),
        (ROOT / "tests/data/paths/pyoai-fake1-00004.xml", "oai-pmh"),
        (ROOT / "tests/data/paths/identifiers.trig", "trig"),
        (ROOT / "tests/data/paths/escapes.nq", "nquads"),
    ],
)
def test_standard_input_of_every_kind_is_read_as_its_file_is(path: Path, name: str, tmp_path: Path) -> None:
    assert sniff(path.read_bytes()).name == name
    args = ["normalize", "-q", "-t", "nq"]
    by_name = subprocess.run([*COMMAND, *args, str(path)], capture_output=True, timeout=120)
    piped = subprocess.run([*COMMAND, *args, "-"], input=path.read_bytes(), capture_output=True, timeout=120)
    assert (piped.returncode, piped.stdout) == (by_name.returncode, by_name.stdout)


def test_standard_input_that_cannot_be_told_is_a_clear_error() -> None:
    done = subprocess.run([*COMMAND, "normalize", "-"], input=b"hello\n", capture_output=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "ldids: <stdin>: cannot tell the format: it starts 'hello'; "
        "name it with -i (turtle, nt, nquads, trig, xml, json-ld, foxml, oai-pmh)\n"
    )


def test_standard_input_told_as_n_triples_is_streamed(inputs: Inputs) -> None:
    """Streamed, as -i nt would: statements in input order (the graph path sorts them)."""
    done = subprocess.run(
        [*COMMAND, "normalize", "-q", "--workers", "2"],
        input=inputs.big_dump.read_bytes(),
        capture_output=True,
        check=True,
        timeout=120,
    )
    told = subprocess.run(
        [*COMMAND, "normalize", "-q", "-i", "nt", "--workers", "1"],
        input=inputs.big_dump.read_bytes(),
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert done.stdout == told.stdout


# -- Outputs without a name until they are whole -------------------------------------------------


@pytest.mark.skipif(not LINUX, reason="unnamed files are Linux's (O_TMPFILE)")
def test_an_output_has_no_name_until_it_is_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.nt"
    with atomic_output(str(target)) as stream:
        stream.write(b"data\n")
        stream.flush()
        assert listing(tmp_path) == []
    assert target.read_bytes() == b"data\n"
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    # Replacing a file: linked to a temporary name for the instant of the rename only.
    with atomic_output(str(target)) as stream:
        stream.write(b"new\n")
        assert listing(tmp_path) == ["out.nt"]
    assert target.read_bytes() == b"new\n"
    assert listing(tmp_path) == ["out.nt"]

    def failing() -> None:
        with atomic_output(str(target)) as stream:
            stream.write(b"lost\n")
            raise KeyError

    with pytest.raises(KeyError):
        failing()
    assert target.read_bytes() == b"new\n"
    assert listing(tmp_path) == ["out.nt"]


@pytest.mark.parametrize("why", ["no O_TMPFILE", "EOPNOTSUPP", "EISDIR", "ENOENT"])
def test_without_unnamed_files_a_temporary_file_is_renamed_into_place(
    why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if why == "no O_TMPFILE":
        monkeypatch.setattr(files, "_O_TMPFILE", 0)
    else:
        opened = os.open

        def refused(path: str, flags: int, mode: int = 0o777, **more: int) -> int:
            if files._O_TMPFILE and flags & files._O_TMPFILE == files._O_TMPFILE:
                raise OSError(getattr(errno, why), os.strerror(getattr(errno, why)))
            return opened(path, flags, mode, **more)

        monkeypatch.setattr(os, "open", refused)
    target = tmp_path / "out.nt.gz"
    with atomic_output(str(target)) as stream:
        stream.write(b"data\n")
        seen = listing(tmp_path)
    assert len(seen) == 1
    assert seen[0].startswith(".out.nt.gz.")
    assert seen[0].endswith(".part")
    assert gzip.decompress(target.read_bytes()) == b"data\n"
    assert listing(tmp_path) == ["out.nt.gz"]


def unnamed_size(pid: int, folder: Path) -> int | None:
    """The size of the file without a name (O_TMPFILE) that process ``pid`` writes in
    ``folder``, if it has one open."""
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for descriptor in descriptors:
        try:
            if os.readlink(f"/proc/{pid}/fd/{descriptor}").startswith(f"{folder}/#"):
                return os.stat(f"/proc/{pid}/fd/{descriptor}").st_size
        except OSError:
            continue
    return None


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A dump of 600,000 lines (40 MB; a tenth with identifiers), plain and gzipped."""
    folder = tmp_path_factory.mktemp("big")
    plain = folder / "dump.nt"
    with plain.open("w") as out:
        for start in range(0, 600_000, 100_000):
            out.write(
                "".join(
                    f'<info:fedora/demo%3a{i}> <http://example.org/p> "hdl:1765/{i % 31}" .\n'
                    if i % 10 == 0
                    else f'<http://example.org/s{i}> <http://example.org/p> "value {i}" .\n'
                    for i in range(start, start + 100_000)
                )
            )
    packed = folder / "dump.nt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=1))
    return plain, packed


# (arguments, input, output name). From a compressed input, the chunks go to the workers in
# files (without names); their results come back in shared memory or files (likewise).
KILLED = {
    "1 worker, out.nt": (["--workers", "1"], "plain", "out.nt"),
    "2 workers, out.nt.gz": (["--workers", "2"], "plain", "out.nt.gz"),
    "2 workers, from dump.nt.gz": (["--workers", "2"], "packed", "out.nt"),
}


def killed_command(run: str, big: tuple[Path, Path], output: Path) -> list[str]:
    args, which, _ = KILLED[run]
    source = big[0] if which == "plain" else big[1]
    return [*COMMAND, "normalize", str(source), "-q", *args, "-o", str(output)]


@pytest.fixture(scope="module")
def whole(big: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], bytes]:
    """The output of each run of KILLED, left to end: for its size, and to tell a run that
    ended before the kill."""
    outputs: dict[str, bytes] = {}

    def output(run: str) -> bytes:
        if run not in outputs:
            path = tmp_path_factory.mktemp("whole") / KILLED[run][2]
            subprocess.run(killed_command(run, big, path), check=True, timeout=300)
            outputs[run] = path.read_bytes()
        return outputs[run]

    return output


@pytest.mark.skipif(not LINUX, reason="unnamed files are Linux's (O_TMPFILE)")
@pytest.mark.parametrize("when", [0.0, 0.5, 0.95], ids=["early", "midway", "late"])
@pytest.mark.parametrize("run", KILLED)
def test_sigkill_at_any_moment_leaves_nothing_behind(
    run: str, when: float, big: tuple[Path, Path], whole: Callable[[str], bytes], tmp_path: Path
) -> None:
    """Killed by SIGKILL (nothing to clean up with) early, midway or late: the output folder
    holds no new file, nor a partial output, and the temporary folder nothing, at any moment
    of the run and after it; the worker processes end by themselves."""
    name = KILLED[run][2]
    scratch, folder = tmp_path / "tmp", tmp_path / "out"
    scratch.mkdir()
    folder.mkdir()
    environment = {**os.environ, "TMPDIR": str(scratch)}
    command = killed_command(run, big, folder / name)
    expected = whole(run)
    wanted = when * len(expected)
    with subprocess.Popen(command, env=environment, start_new_session=True, stderr=subprocess.DEVNULL) as process:
        while process.poll() is None:
            assert listing(scratch) == []
            assert listing(folder) in ([], [name])  # a name only for the whole output
            size = unnamed_size(process.pid, folder)
            if size is not None and size >= wanted:
                break
            time.sleep(0.001)
        process.kill()
        process.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the workers see their pipes close, and end
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail("a worker process was left running")
    assert listing(scratch) == []
    left = listing(folder)
    assert left in ([], [name])
    if left:  # the run ended before the kill: the output is whole
        assert (folder / name).read_bytes() == expected


def test_a_turtle_validation_report_gives_the_value_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The report's sh:value is the data's literal: rdflib's writer gave 1e+00.
    shapes, data = tmp_path / "shapes.ttl", tmp_path / "data.nt"
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "<http://e/S> a sh:NodeShape ; sh:targetSubjectsOf <http://e/p> ;\n"
        "  sh:property [ sh:path <http://e/p> ; sh:datatype xsd:integer ] .\n"
    )
    data.write_text(f'<http://e/s> <http://e/p> "1.0e0"^^<{XSD_NS}double> .\n')
    assert main(["validate", "-s", str(shapes), "-f", "turtle", str(data)]) == 1
    report = ox.parse(capsys.readouterr().out.encode(), format=ox.RdfFormat.TURTLE)  # rdflib's would normalize
    values = [quad.object for quad in report if quad.predicate.value == "http://www.w3.org/ns/shacl#value"]
    assert values == [ox.Literal("1.0e0", datatype=ox.NamedNode(f"{XSD_NS}double"))]


@pytest.mark.parametrize("command", [["normalize", "-t", "turtle"], ["normalize", "-t", "json-ld"], ["validate", "-s"]])
def test_a_literal_not_of_its_datatype_is_data_not_a_traceback(command: list[str], tmp_path: Path) -> None:
    # rdflib logs a traceback for each such literal; ldids keeps it as written, and says nothing.
    data, shapes = tmp_path / "data.ttl", tmp_path / "shapes.ttl"
    data.write_text(f'<http://e/s> <http://e/p> "n.d."^^<{XSD_NS}date>, "x"^^<{XSD_NS}integer> .\n')
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "<http://e/S> a sh:NodeShape ; sh:targetSubjectsOf <http://e/p> ; sh:property [ sh:path <http://e/p> ] .\n"
    )
    args = [*command, str(shapes)] if command[-1] == "-s" else command
    done = subprocess.run([*COMMAND, *args, str(data)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Failed to convert" not in done.stderr
    assert "n.d." in done.stdout or command[0] == "validate"


@pytest.mark.parametrize(("suffix", "fmt"), [(".jsonld", ox.RdfFormat.JSON_LD), (".trig", ox.RdfFormat.TRIG)])
def test_graphs_are_written_as_they_were_read(suffix: str, fmt: ox.RdfFormat, tmp_path: Path) -> None:
    # rdflib's JSON-LD writer put a graph named by a blank node into the default graph, and
    # the default graph's nodes, beside a named graph, into an object of "@graph" alone: to a
    # conforming reader (JSON-LD 1.1 §4.9), a graph named by a blank node.
    source, out = tmp_path / "in.nq", tmp_path / f"out{suffix}"
    source.write_text(
        "<http://e/s> <http://e/p> <http://e/o> .\n<http://e/t> <http://e/p> <http://e/o> .\n"
        "<http://e/a> <http://e/p> <http://e/o> <http://e/g> .\n<http://e/b> <http://e/p> <http://e/o> _:g .\n"
    )
    assert main(["normalize", str(source), "-q", "-o", str(out)]) == 0
    assert _statements(out.read_bytes(), fmt) == _statements(source.read_bytes(), ox.RdfFormat.N_QUADS)


def test_trig_output_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    """rdflib's TriG writer took the graphs in the order of its store's set of them, which
    changes with Python's hash seed: the same data gave other bytes from run to run."""
    source = tmp_path / "in.trig"
    source.write_text(
        '_:g { <http://e/s> <http://e/p> "x" . }\n<http://e/g> { <http://e/s> <http://e/p> "y" . }\n'
        '<http://e/h> { <http://e/s> <http://e/p> "z" . }\n<http://e/s> <http://e/p> "w" .\n'
    )
    written = set()
    for seed in range(6):
        done = subprocess.run(
            [sys.executable, "-m", "ldids", "normalize", "-q", "-t", "trig", "-o", "-", str(source)],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        )
        written.add(done.stdout)
    assert len(written) == 1


def test_data_nested_deeper_than_the_writer_goes_is_an_error_that_says_what_to_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rdflib's Turtle writer nests a blank node used once, a call deeper each: a thousand
    levels, which the reader reads, ran out of Python's stack (a traceback, exit 1)."""
    source = tmp_path / "deep.ttl"
    source.write_text("<http://e/s> <http://e/p> " + "[ <http://e/p> " * 1000 + "<http://e/o>" + " ]" * 1000 + " .\n")
    assert main(["normalize", "-q", str(source), "-o", str(tmp_path / "out.ttl")]) == 2
    assert "nests blank nodes too deeply for the turtle writer (write N-Triples or N-Quads" in capsys.readouterr().err
    assert not (tmp_path / "out.ttl").exists()
    assert main(["normalize", "-q", str(source), "-o", str(tmp_path / "out.nt")]) == 0
