"""The command line, through main([...]) and through the installed console script."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from ldids.cli import main

SHARED = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "realdata"


def run(args: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(args, out)
    finally:
        sys.stdin = old
    return code, out.getvalue()


def test_inspect_json_lines_in_order() -> None:
    code, out = run(["inspect", "--json", "demo%3a1", "hdl:1765/315"])
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert (first["input"], first["canonical"]) == ("demo%3a1", "info:fedora/demo:1")
    assert (second["input"], second["canonical"]) == ("hdl:1765/315", "hdl:1765/315")


def test_inspect_exit_1_when_any_is_invalid() -> None:
    code, out = run(["inspect", "--json", "demo:1", "oai:wibble.org:ab%3ccd"])
    assert code == 1
    assert [json.loads(line)["valid"] for line in out.splitlines()] == [True, False]


def test_inspect_human_output_has_a_caret() -> None:
    code, out = run(["inspect", "oai:wibble.org:ab%2Fcd"])
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "oai:wibble.org:ab%2Fcd: invalid oai identifier"
    assert "[oai.escaped-reserved]" in lines[1]
    source, caret = lines[2], lines[3]
    assert source.strip() == "oai:wibble.org:ab%2Fcd"
    assert caret.index("^") - source.index("o") == 17
    assert caret.strip() == "^~~"


def test_inspect_human_output_for_a_valid_handle() -> None:
    code, out = run(["inspect", "hdl:100.102/f58fb49eb1f848f0a606e84cef294be5"])
    assert code == 0
    assert "  profile     cordra" in out.splitlines()
    assert "  canonical   hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5" in out.splitlines()


def test_inspect_reads_stdin_and_skips_blank_lines() -> None:
    code, out = run(["inspect", "--json"], stdin="demo:1\r\n\n oai:a.b:c\n")
    assert code == 1  # " oai:a.b:c" keeps its leading space, which no scheme accepts
    assert [json.loads(line)["input"] for line in out.splitlines()] == ["demo:1", " oai:a.b:c"]


def test_inspect_double_dash_allows_leading_dashes() -> None:
    # A PID namespace may start with '-': "-x:1" is a valid PID, reachable after "--".
    code, out = run(["inspect", "--json", "--", "-x:1"])
    assert code == 0
    assert json.loads(out)["canonical"] == "info:fedora/-x:1"


def test_inspect_with_scheme_and_resolver() -> None:
    code, out = run(["inspect", "--json", "--scheme", "handle", "1765/315"])
    assert (code, json.loads(out)["canonical"]) == (0, "hdl:1765/315")
    url = "http://arrow.resolver.au.gov:2641/hdl/100.102/F58FB49EB1F848F0A606E84CEF294BE5"
    code, out = run(["inspect", "--json", "--resolver", "arrow.resolver.au.gov:2641/hdl", url])
    assert (code, json.loads(out)["canonical"]) == (0, "hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5")


@pytest.mark.parametrize(
    "args",
    [[], ["inspect", "--scheme", "doi", "x"], ["nosuch"], ["mint"], ["mint", "1", "--count", "0"], ["oai-description"]],
)
def test_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(args)[0] == 2
    assert "usage:" in capsys.readouterr().err


def test_mint() -> None:
    code, out = run(["mint", "100.102", "-n", "3"])
    assert code == 0
    lines = out.splitlines()
    assert len(set(lines)) == 3
    assert all(line.startswith("hdl:100.102/") and len(line) == len("hdl:100.102/") + 32 for line in lines)
    given = uuid.UUID("f58fb49e-b1f8-48f0-a606-e84cef294be5")
    assert run(["mint", "100.102", "--uuid", str(given), "--form", "host"]) == (
        0,
        "hdl://100.102/F58FB49EB1F848F0A606E84CEF294BE5\n",
    )


def test_mint_bad_naming_authority_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["mint", "abc"])[0] == 1
    assert "handle.cordra-naming-authority" in capsys.readouterr().err


def test_oai_request() -> None:
    assert run(["oai-request", "oai:an.oai.org:ab%3Ccd"]) == (0, "identifier=oai%3Aan.oai.org%3Aab%253Ccd\n")
    _code, out = run(["oai-request", "--base-url", "http://an.oai.org/oai", "oai:an.oai.org:ab%3Ccd"])
    assert out == "http://an.oai.org/oai?verb=GetRecord&identifier=oai%3Aan.oai.org%3Aab%253Ccd&metadataPrefix=oai_dc\n"
    assert run(["oai-request", "oai:bad"])[0] == 1


@pytest.mark.shared
def test_oai_description_check_and_write(tmp_path: Path) -> None:
    code, out = run(["oai-description", "--json", str(SHARED / "sickle" / "sample_data" / "Identify.xml")])
    assert code == 0
    assert json.loads(out) == {
        "repositoryIdentifier": "test.example.com",
        "sampleIdentifier": "oai:test.example.com:2342",
        "valid": True,
        "problems": [],
    }
    code, out = run(["oai-description", "--write", "bespa.org", "oai:bespa.org:medi99-123"])
    assert code == 0
    written = tmp_path / "d.xml"
    written.write_text(out)
    assert run(["oai-description", str(written)])[0] == 0
    written.write_text(out.replace("<repositoryIdentifier>bespa.org", "<repositoryIdentifier>other.org"))
    assert run(["oai-description", str(written)])[0] == 1


@pytest.mark.shared
def test_oai_description_malformed_input_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    broken = SHARED / "sickle" / "sample_data" / "ListRecordsBroken.xml"
    assert run(["oai-description", str(broken)])[0] == 2
    assert f"{broken}:1:1: malformed XML" in capsys.readouterr().err
    assert run(["oai-description", "/nonexistent/file.xml"])[0] == 2


def test_installed_console_script() -> None:
    # The script is installed beside the interpreter running the tests.
    script = shutil.which("ldids", path=str(Path(sys.executable).parent))
    assert script is not None, "ldids is not installed in this environment"
    done = subprocess.run([script, "inspect", "--json", "demo%3a1"], capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert json.loads(done.stdout)["canonical"] == "info:fedora/demo:1"
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "inspect", "nothing"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ('schemes = ["no.such.module"]', "schemes: No module named"),
        ('schemes = ["os"]', "schemes: module 'os' declares no SCHEME"),
        ('bare-pid-predicates = ["dc:identifier"]', "no absolute IRI"),
        ('identity-predicates = ["not an iri"]', "no absolute IRI"),
        ('bare-handle-predicates = [""]', "no absolute IRI"),
        ('pid-namespaces = ["demo:"]', "is no PID namespace"),
        ('pid-namespaces = ["a b"]', "is no PID namespace"),
        ('pid-namespaces = ["urn", "demo"]', "urn is a URI scheme"),
        ('fedora-oai-namespaces = ["not a domain"]', "is no OAI namespace-identifier"),
        ('[[resolvers]]\nauthority = "http://bad host/x"', "is no host[:port]"),
        ('[[resolvers]]\nauthority = "a.b:99999"', "is no host[:port]"),
        ('[[resolvers]]\nauthority = "a.b"\nsegment = "x/y?z"', "is no path segment"),
        ('[[resolvers]]\nauthority = "a.b"\nsegmnt = "hdl"', "unknown key 'segmnt'"),
        ('bare-pid-predicate = ["http://x/p"]', "known: bare-handle-predicates, bare-pid-predicates"),
    ],
)
def test_a_configuration_that_cannot_be_used_is_an_error_that_names_its_file(
    toml: str, said: str, tmp_path: Path
) -> None:
    """Each of these gave a traceback (a scheme module not there, or declaring none), or was
    taken without a word (a predicate that is no IRI, which rewrites nothing)."""
    config = tmp_path / "bad.toml"
    config.write_text(toml + "\n")
    data = tmp_path / "in.nt"
    data.write_text("<http://ex.org/s> <http://ex.org/p> <oai:arXiv.org:x> .\n")
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "normalize", "--config", str(config), str(data), "-o", str(tmp_path / "o.nt")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"{config}: " in done.stderr
    assert said in done.stderr
    assert not (tmp_path / "o.nt").exists()


def test_a_configuration_that_is_no_utf_8_is_an_error(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_bytes(b"\xff\xfe bad = 1\n")
    argv = [sys.executable, "-m", "ldids", "normalize", "--config", str(config), "-"]
    done = subprocess.run(argv, capture_output=True, text=True, input="")
    assert done.returncode == 2
    assert "not UTF-8" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "options",
    [
        ["-o", "{d}/a.nt", "--links", "{d}/a.nt"],
        ["-o", "{d}/a.csv", "-t", "nt", "--crosswalk", "{d}/a.csv"],
        ["-o", "{d}/out.nt", "--on-error", "skip", "--error-file", "{d}/in.nt"],
        ["-o", "{d}/in.nt"],
    ],
)
def test_two_files_of_one_name_are_a_usage_error(options: list[str], tmp_path: Path) -> None:
    """One output kept, the other lost, or the input replaced (by its error file): exit 0."""
    source = tmp_path / "in.nt"
    data = "<http://ex.org/s> <http://ex.org/p> <oai:arXiv.org:x> .\nnot a statement\n"
    source.write_text(data)
    argv = ["normalize", str(source), *(option.format(d=tmp_path) for option in options)]
    done = subprocess.run([sys.executable, "-m", "ldids", *argv], capture_output=True, text=True)
    assert done.returncode == 2
    assert "name a file of its own" in done.stderr
    assert source.read_text() == data
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.nt"]


def test_strict_exits_1_on_lines_skipped(tmp_path: Path) -> None:
    """--strict makes anything skipped exit 1: bad lines skipped into the error file too."""
    source = tmp_path / "in.nt"
    source.write_text("<http://ex.org/s> <http://ex.org/p> <oai:arXiv.org:x> .\nnot a statement\n")
    argv = ["normalize", "-q", str(source), "-o", str(tmp_path / "o.nt"), "--on-error", "skip"]
    argv += ["--error-file", str(tmp_path / "bad.tsv")]  # not ldids-errors.tsv where the tests run
    assert subprocess.run([sys.executable, "-m", "ldids", *argv], capture_output=True).returncode == 0
    done = subprocess.run([sys.executable, "-m", "ldids", *argv, "--strict"], capture_output=True)
    assert done.returncode == 1


@pytest.mark.parametrize(
    "options",
    [
        ["--base-url", "notaurl"],
        ["--base-url", "http://a.org/oai?verb=Identify"],
        ["--verb", "ListSets", "--base-url", "http://a.org/oai"],
        ["--metadata-prefix", "oai_dc"],
    ],
)
def test_an_oai_request_that_cannot_be_made_is_a_usage_error(options: list[str]) -> None:
    """A base URL that is none, or holds a query, gave a malformed URL; a verb that takes no
    identifier was written with one; --verb without --base-url was ignored."""
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "oai-request", *options, "oai:a.org:1"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stdout == ""


def test_a_resolver_that_is_none_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ldids", "inspect", "--resolver", "a b", "hdl:1/2"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "is no host[:port]" in done.stderr
