"""Untrusted input (DESIGN.md §7): nothing is fetched, entity declarations are refused, and
a failed run leaves no output behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ldids.errors import InputError
from ldids.rdf import io as rdfio

LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
 <!ENTITY a "lollollollollollollollollollollollollollollollollollollollollollollollollollollollollol">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"> <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"> <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"> <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
 <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;"> <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">
  <rdf:Description rdf:about="http://example.org/a"><ex:p>&i;</ex:p></rdf:Description>
</rdf:RDF>
"""


def ldids(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    # The timeout only guards the suite against a stall; the assertion is the exit code.
    return subprocess.run(
        [sys.executable, "-m", "ldids", *args], cwd=cwd, input=stdin, capture_output=True, timeout=120, check=False
    )


def test_billion_laughs_rdf_xml_is_refused(tmp_path: Path) -> None:
    assert len(LAUGHS) < 1500
    (tmp_path / "laughs.rdf").write_bytes(LAUGHS)
    done = ldids("normalize", "laughs.rdf", "-o", "out.ttl", cwd=tmp_path)
    assert done.returncode == 2
    assert b"refused: the document declares XML entities" in done.stderr
    assert not (tmp_path / "out.ttl").exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "laughs.rdf"]  # no temporary file left either


@pytest.mark.parametrize("fmt", ["foxml", "oai-pmh", "xml"])
def test_entity_declarations_are_refused_in_every_xml_reader(fmt: str) -> None:
    with pytest.raises(InputError, match="refused"):
        rdfio._parse_rdf(LAUGHS, rdfio.resolve_format("xml"), "x") if fmt == "xml" else rdfio.read_bytes(LAUGHS, fmt)


def test_external_dtd_is_refused() -> None:
    data = b'<?xml version="1.0"?><!DOCTYPE r SYSTEM "http://example.org/evil.dtd"><r/>'
    with pytest.raises(InputError, match="external DTD"):
        rdfio.read_bytes(data, "oai-pmh")


def test_remote_json_ld_contexts_are_refused() -> None:
    for document in (
        b'{"@context": "https://schema.org/", "@id": "http://example.org/a", "name": "x"}',
        b'{"@context": ["https://schema.org/", {"x": "http://x/"}], "@id": "http://example.org/a"}',
        b'{"@graph": [{"@context": {"@import": "https://example.org/ctx"}, "@id": "http://example.org/a"}]}',
    ):
        with pytest.raises(InputError, match="remote JSON-LD context"):
            rdfio.read_bytes(document, "json-ld")


def test_inline_json_ld_contexts_are_fine() -> None:
    document = b'{"@context": {"dc": "http://purl.org/dc/elements/1.1/"}, "@id": "oai:a.b:c", "dc:title": "x"}'
    assert len(rdfio.read_bytes(document, "json-ld").quads) == 1


def test_owl_imports_are_not_followed(tmp_path: Path) -> None:
    # An owl:imports of an unreachable address: validation runs offline and conforms.
    data = tmp_path / "d.ttl"
    data.write_text("<http://example.org/o> <http://www.w3.org/2002/07/owl#imports> <http://192.0.2.1/never> .\n")
    done = ldids("validate", str(data), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, b"conforms\n")


def test_syntax_errors_leave_an_existing_output_untouched(tmp_path: Path) -> None:
    (tmp_path / "bad.ttl").write_text("<http://a> <http://b> .\n")
    (tmp_path / "out.ttl").write_text("precious\n")
    done = ldids("normalize", "bad.ttl", "-o", "out.ttl", cwd=tmp_path)
    assert done.returncode == 2
    assert b"bad.ttl:1:" in done.stderr
    assert (tmp_path / "out.ttl").read_text() == "precious\n"


def test_outputs_get_the_usual_permissions(tmp_path: Path) -> None:
    import os
    import stat

    (tmp_path / "in.ttl").write_text("<oai:a.b:c> <http://x/p> <http://x/o> .\n")
    previous = os.umask(0o022)
    try:
        done = ldids("normalize", "in.ttl", "-o", "out.ttl", cwd=tmp_path)
    finally:
        os.umask(previous)
    assert done.returncode == 0
    assert stat.S_IMODE((tmp_path / "out.ttl").stat().st_mode) == 0o644


def test_importing_and_reading_change_no_setting_of_rdflibs() -> None:
    """Lexical forms are kept as written while ldids reads, and rdflib's own setting is as
    the program around ldids left it, before and after."""
    import rdflib

    from ldids.rdf import io as reading

    assert rdflib.NORMALIZE_LITERALS is True  # rdflib's default, untouched by importing ldids
    found = reading.read_bytes(b'<http://x/s> <http://x/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .\n', "nt")
    assert str(found.quads[0][2]) == "01"
    assert rdflib.NORMALIZE_LITERALS is True
