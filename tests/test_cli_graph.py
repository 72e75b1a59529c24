"""`ldids normalize`, `validate` and `undo` through main([...]) and as a process."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from rdflib import Graph
from rdflib.compare import isomorphic

from ldids.cli import main
from ldids.passes.summary import schema

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "fedora-export.ttl"
CONFIG = ROOT / "examples" / "ldids.toml"
REALDATA = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "realdata"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(args, out)
    captured = capsys.readouterr()
    return code, out.getvalue() + captured.out, captured.err


def test_normalize_the_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.ttl"
    code, _, err = run(["normalize", str(EXAMPLE), "--config", str(CONFIG), "-o", str(out)], capsys)
    assert code == 0
    graph = Graph().parse(out)
    text = out.read_text()
    assert "<info:fedora/demo:1>" in text
    assert "hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5" in text
    assert '"info:fedora/demo:1"' in text  # the bare PID literal, by configuration
    assert len(graph) == 11 + 7  # 11 statements, 7 links
    assert "11 statements in, 11 out (11 rewritten, 7 links)" in err
    # The subject is rewritten in each of its 11 statements, the collection once; of the
    # five dc:identifier values only the object's own PID is (DESIGN.md §2).
    assert "identifiers rewritten: fedora-pid 1, handle 2, info-fedora 12, oai 1, poi 1" in err
    assert "left alone: 2 bare-pid-foreign-namespace, 2 bare-pid-uri-scheme" in err
    for value in ('"catkey:1234567"', '"barcode:36105123456789"', '"urn:isbn:0451450523"', '"doi:10.1000/182"'):
        assert value in text


@pytest.mark.parametrize(
    ("option", "marker"),
    [
        (["-t", "nt"], "<info:fedora/demo:1> <http://purl.org/dc/elements/1.1/identifier>"),
        (["-t", "application/n-quads"], "<info:fedora/demo:1> <http://purl.org/dc/elements/1.1/identifier>"),
        (["-t", "xml"], "<rdf:RDF"),
        (["-t", "json-ld"], '"@id": "info:fedora/demo:1"'),
        (["-t", "trig"], "<info:fedora/demo:1>"),
        (["-t", "text/turtle"], "<info:fedora/demo:1>"),
    ],
)
def test_output_formats(option: list[str], marker: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, _, _ = run(["normalize", str(EXAMPLE), "-q", "-o", str(out), *option], capsys)
    assert code == 0
    assert marker in out.read_text()


def test_format_is_guessed_from_the_output_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.nt"
    assert run(["normalize", str(EXAMPLE), "-q", "-o", str(out)], capsys)[0] == 0
    assert all(line.endswith(" .") for line in out.read_text().splitlines())


def test_links_to_a_separate_file_or_nowhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, links = tmp_path / "out.nt", tmp_path / "links.nt"
    assert run(["normalize", str(EXAMPLE), "-q", "-o", str(out), "--links", str(links)], capsys)[0] == 0
    assert "owl#sameAs" not in out.read_text()
    assert len(links.read_text().splitlines()) == 7
    assert all("owl#sameAs" in line for line in links.read_text().splitlines())
    assert run(["normalize", str(EXAMPLE), "-q", "-o", str(out), "--no-links"], capsys)[0] == 0
    assert "owl#sameAs" not in out.read_text()


@pytest.mark.parametrize("suffix", [".csv", ".nt"])
def test_crosswalk_and_undo(suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, walk, back = tmp_path / "out.nt", tmp_path / f"walk{suffix}", tmp_path / "back.nt"
    args = ["normalize", str(EXAMPLE), "--config", str(CONFIG), "-q", "-o", str(out), "--crosswalk", str(walk)]
    assert run(args, capsys)[0] == 0
    assert run(["undo", str(out), "--crosswalk", str(walk), "-o", str(back)], capsys)[0] == 0
    assert isomorphic(Graph().parse(back), Graph().parse(EXAMPLE))


def test_stdin_to_stdout() -> None:
    # N-Triples in and out: streamed, statements in input order, then the links.
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", "-i", "nt", "-q"],
        input=b"<oai:a.b:c> <http://x/p> <http://x/o> .\n",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == [
        "<http://purl.org/poi/a.b/c> <http://x/p> <http://x/o> .",
        "<http://purl.org/poi/a.b/c> <http://www.w3.org/2002/07/owl#sameAs> <oai:a.b:c> .",
    ]


def test_summary_json_and_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("<oai:wibble:1> <http://x/p> <hdl:1765/1> .\n")
    code, _, err = run(["normalize", str(bad), "-o", str(tmp_path / "o.ttl"), "--summary", "json"], capsys)
    assert code == 0
    summary = json.loads(err)
    jsonschema.validate(summary, schema())
    assert summary["identifiers"]["invalid"] == {"oai": 1}
    assert summary["run"]["problem_samples"][0]["problems"][0]["code"] == "oai.namespace-not-domain"
    code, _, err = run(["normalize", str(bad), "-o", str(tmp_path / "o.ttl"), "--strict"], capsys)
    assert code == 1
    assert "invalid oai identifier in subject" in err
    assert "[oai.namespace-not-domain]" in err


def test_deterministic_across_processes(tmp_path: Path) -> None:
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}.ttl"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", "ldids", "normalize", str(EXAMPLE), "-q", "-o", str(out)]
        subprocess.run(command, env=env, check=True)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["normalize", "/nonexistent.ttl"], "No such file"),
        (["normalize", "-i", "nope", str(EXAMPLE)], "unknown format 'nope'"),
        (["normalize", "--config", "/nonexistent.toml", str(EXAMPLE)], "No such file"),
    ],
)
def test_input_errors_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(args, capsys)
    assert code == 2
    assert message in err


@pytest.mark.shared
def test_malformed_oai_pmh_exits_2_with_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = REALDATA / "pyoai" / "fake4" / "00001.xml"
    out = tmp_path / "out.ttl"
    code, _, err = run(["normalize", "-i", "oai-pmh", str(broken), "-o", str(out)], capsys)
    assert code == 2
    assert f"{broken}:1:295: malformed XML: Entity 'bogus' not defined" in err
    assert not out.exists()


def test_bad_config_keys_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text('bare-pid-predicate = ["x"]\n')
    code, _, err = run(["normalize", "--config", str(config), str(EXAMPLE)], capsys)
    assert code == 2
    assert "unknown configuration key 'bare-pid-predicate'" in err


def test_validate_exit_codes_and_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["validate", str(EXAMPLE)], capsys)
    assert code == 1
    assert "does not conform" in out
    assert "INFO:FEDORA/demo%3a1" in out
    normalized = tmp_path / "n.ttl"
    assert run(["normalize", str(EXAMPLE), "-q", "--config", str(CONFIG), "-o", str(normalized)], capsys)[0] == 0
    assert run(["validate", str(normalized)], capsys)[:2] == (0, "conforms\n")
    code, out, _ = run(["validate", str(EXAMPLE), "--format", "json", "--limit", "2"], capsys)
    report = json.loads(out)
    assert (code, report["conforms"], len(report["results"]), report["truncated"]) == (1, False, 2, True)
    assert report["per_shape"]["https://w3id.org/ldids/shapes#CanonicalIdentifier"] == report["violations"]
    code, out, _ = run(["validate", str(EXAMPLE), "--format", "turtle"], capsys)
    assert code == 1
    assert "sh:ValidationReport" in out


def test_validate_with_user_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shapes = tmp_path / "mine.ttl"
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "<http://x/NeedsTitle> a sh:NodeShape ; sh:targetSubjectsOf <http://www.openarchives.org/OAI/2.0/itemID> ;\n"
        "  sh:property [ sh:path <http://purl.org/dc/elements/1.1/title> ; sh:minCount 1 ] .\n"
    )
    normalized = tmp_path / "n.ttl"
    run(["normalize", str(EXAMPLE), "-q", "--config", str(CONFIG), "-o", str(normalized)], capsys)
    code, out, _ = run(["validate", str(normalized), "--shapes", str(shapes)], capsys)
    # The shipped shapes pass on normalized data: the one result is the user's shape's.
    assert code == 1
    assert out.splitlines()[0] == "does not conform: 1 results"
    # Users' shapes run on the compiled engine, which writes no message where the shape has none.
    assert "Violation: info:fedora/demo:1: [property shape of http://purl.org/dc/elements/1.1/title]" in out
    assert "MinCountConstraintComponent" in out


def test_validate_could_not_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.ttl"
    broken.write_text("this is not turtle\n")
    assert run(["validate", str(broken)], capsys)[0] == 2
    assert run(["validate", str(EXAMPLE), "--shapes", str(broken)], capsys)[0] == 2


BLANK = (
    "_:b1 <http://ex.org/p> <hdl:1765/315> <https://hdl.handle.net/1765/315> .\n"
    "<http://ex.org/s7> <http://ex.org/p> _:b2 .\n"
    '_:b2 <http://ex.org/q> "v" _:g1 .\n'
)


@pytest.mark.parametrize("suffix", [".trig", ".nq", ".jsonld"])
def test_a_second_run_over_the_output_writes_the_same_bytes(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Blank nodes were labelled by the content of the input: a rewrite changes it, so a
    second run over the output labelled them otherwise (the same RDF, other bytes). They are
    labelled by the output's content, and its crosswalk with them."""
    source = tmp_path / "in.nq"
    source.write_text(BLANK)
    first, second, walk = tmp_path / f"p1{suffix}", tmp_path / f"p2{suffix}", tmp_path / "walk.csv"
    assert run(["normalize", "-q", str(source), "-o", str(first), "--crosswalk", str(walk)], capsys)[0] == 0
    assert run(["normalize", "-q", str(first), "-o", str(second)], capsys)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    if suffix == ".nq":  # the crosswalk names the output's blank nodes: undo gives the input back
        backs = []
        for name in ("back1.nq", "back2.nq"):
            assert run(["undo", str(first), "--crosswalk", str(walk), "-o", str(tmp_path / name)], capsys)[0] == 0
            backs.append((tmp_path / name).read_bytes())
        assert backs[0] == backs[1]
        assert _canonical(backs[0]) == _canonical(BLANK.encode())


def _canonical(data: bytes) -> list[str]:
    import pyoxigraph as ox

    dataset = ox.Dataset(ox.parse(data, format=ox.RdfFormat.N_QUADS))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return sorted(str(quad) for quad in dataset)


def test_undo_restores_only_what_the_statements_given_were_made_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every row's original statement was added back whether or not its rewritten one was
    among the statements given: undo of an empty file gave back the whole input."""
    out, walk = tmp_path / "norm.nt", tmp_path / "walk.csv"
    assert run(["normalize", "-q", str(EXAMPLE), "-o", str(out), "--crosswalk", str(walk)], capsys)[0] == 0
    empty, other, part = tmp_path / "empty.nt", tmp_path / "other.nt", tmp_path / "part.nt"
    empty.write_text("")
    other.write_text('<http://x/s> <http://x/p> "unrelated" .\n')
    lines = out.read_text().splitlines()
    part.write_text("\n".join(line for line in lines if "1765" not in line) + "\n")
    for given, expected in ((empty, set()), (other, {'<http://x/s> <http://x/p> "unrelated" .'})):
        back = tmp_path / f"back-{given.name}"
        assert run(["undo", str(given), "--crosswalk", str(walk), "-o", str(back)], capsys)[0] == 0
        assert set(back.read_text().splitlines()) == expected
    back = tmp_path / "back-part.nt"
    assert run(["undo", str(part), "--crosswalk", str(walk), "-o", str(back)], capsys)[0] == 0
    assert "1765" not in back.read_text()


def test_a_long_list_of_like_values_is_labelled_and_written_alike_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Colour refinement split one node of such a chain a round: 2,000 zeros took a minute,
    4,000 did not end in two. At most REFINEMENT_ROUNDS rounds, then the order the
    statements name them in: the same bytes on a second run."""
    source = tmp_path / "list.ttl"
    source.write_text("<http://ex.org/s> <http://ex.org/p> ( " + " ".join(["0"] * 3000) + " ) .\n")
    first, second = tmp_path / "a.ttl", tmp_path / "b.ttl"
    assert run(["normalize", "-q", str(source), "-o", str(first)], capsys)[0] == 0
    assert run(["normalize", "-q", str(first), "-o", str(second)], capsys)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    import pyoxigraph as ox

    statements = list(ox.parse(first.read_bytes(), format=ox.RdfFormat.TURTLE))
    assert len(statements) == 2 * 3000 + 1
    assert sum(str(quad.object) == '"0"^^<http://www.w3.org/2001/XMLSchema#integer>' for quad in statements) == 3000


@pytest.mark.parametrize("depth", [300, 5000])
def test_json_ld_nested_too_deeply_is_an_input_error(depth: int, tmp_path: Path) -> None:
    """A thousand levels raised RecursionError (a traceback); a few hundred took memory
    square in the depth in the parser."""
    source = tmp_path / "deep.jsonld"
    source.write_text(
        '{"@id": "http://ex.org/s", ' + '"http://ex.org/p": {' * depth + '"http://ex.org/q": "x"' + "}" * depth + "}"
    )
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", str(source), "-o", str(tmp_path / "o.nt")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "nests" in done.stderr
    assert "Traceback" not in done.stderr
