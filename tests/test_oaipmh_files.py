"""OAI-PMH files: several responses, wrapped ones, truncated and malformed ones, and the
counts of what was skipped in the summary, ``--strict`` and the service (DESIGN.md §5, §6a).

The responses are the fixtures of tests/data/oai/ (PROVENANCE.tsv); expected positions of
errors come from lxml reading the same bytes, never from ldids.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from fastapi.testclient import TestClient
from lxml import etree
from rdflib.term import BNode

from ldids.cli import main
from ldids.errors import InputError
from ldids.ntriples import Quad
from ldids.passes.config import Config
from ldids.passes.summary import Summary, schema
from ldids.rdf import io as rdfio
from ldids.rdf import oaipmh
from ldids.service.app import create_app

OAI = Path(__file__).resolve().parent / "data" / "oai"
OAI_NS = "http://www.openarchives.org/OAI/2.0/"
FORMATS = ("qdc.xml", "datacite-kernel4.xml", "oai_datacite-kernel3.xml", "mods.xml", "olac.xml", "marcxml.xml")


def read(name: str) -> rdfio.Input:
    return rdfio.read([str(OAI / name)], rdfio.resolve_format("oai-pmh"))


# -- Files of several responses -----------------------------------------------------------------


def test_concatenated_responses_are_all_read() -> None:
    first = (OAI / "sickle-GetRecord.xml").read_bytes()
    second = (OAI / "pyoai-fake1-00005.xml").read_bytes()
    third = (OAI / "sickle-ListIdentifiers.xml").read_bytes()
    alone = set()
    for name in ("sickle-GetRecord.xml", "pyoai-fake1-00005.xml", "sickle-ListIdentifiers.xml"):
        alone |= set(read(name).quads)
    without_declaration = third.split(b"?>", 1)[1].lstrip()
    for data in (
        first + second + third,  # each with its XML declaration
        first + b"\n<!-- next page -->\n" + second + without_declaration,
        first.rstrip() + second.rstrip() + without_declaration + b"\n",
    ):
        got = rdfio.read_bytes(data, "oai-pmh", "harvest.xml")
        assert set(got.quads) == alone
    assert len(alone) > len(set(read("pyoai-fake1-00005.xml").quads))


def test_a_wrapper_around_responses_is_read() -> None:
    responses = [(OAI / name).read_bytes().split(b"?>", 1)[1] for name in ("sickle-GetRecord.xml", "qdc.xml")]
    data = b"<harvest><info>run 7</info>" + b"".join(responses) + b"<batch>" + responses[0] + b"</batch></harvest>"
    found = rdfio.read_bytes(data, "oai-pmh")

    def named(quads: list[Quad]) -> set[Quad]:  # blank node labels depend on the whole file
        return {quad for quad in quads if not any(isinstance(node, BNode) for node in quad)}

    assert named(found.quads) == named(read("sickle-GetRecord.xml").quads) | named(read("qdc.xml").quads)
    assert len(found.quads) == len(read("qdc.xml").quads) + 2 * len(read("sickle-GetRecord.xml").quads)
    assert found.skipped == Counter({"not-oai-pmh info": 1})


def test_a_document_with_no_response_is_refused() -> None:
    with pytest.raises(InputError, match="not an OAI-PMH response"):
        oaipmh.read(b"<harvest><info/></harvest>")


# -- Truncated and malformed input: an error that says where, never a partial success --------


def lxml_position(data: bytes) -> tuple[int, int]:
    with pytest.raises(etree.XMLSyntaxError) as caught:
        etree.fromstring(data)
    line, column = caught.value.position
    return line, column


@pytest.mark.parametrize("name", ["qdc.xml", "datacite-kernel4.xml", "edm.xml", "pyoai-fake1-00005.xml"])
def test_truncated_xml_is_an_input_error_with_line_and_column(name: str) -> None:
    data = (OAI / name).read_bytes()
    cut = data[: len(data) * 2 // 3]
    with pytest.raises(InputError) as caught:
        rdfio.read_bytes(cut, "oai-pmh", name)
    assert (caught.value.line, caught.value.column) == lxml_position(cut)
    assert str(caught.value).startswith(f"{name}:{caught.value.line}:{caught.value.column}: malformed XML")


def test_errors_in_a_later_response_say_where_in_the_file() -> None:
    first = (OAI / "sickle-GetRecord.xml").read_bytes()
    broken = (OAI / "qdc.xml").read_bytes().replace(b"</dc:creator>", b"</dc:creatr>", 1)
    lines_before = first.count(b"\n")
    line, column = lxml_position(broken)
    assert line > 1
    with pytest.raises(InputError) as caught:
        oaipmh.read(first + broken, "two.xml")
    assert (caught.value.line, caught.value.column) == (line + lines_before, column)
    # The parser's message names the line too: the file's, not the response's.
    assert f"creator line {line + lines_before} and creatr" in str(caught.value)
    truncated = (OAI / "qdc.xml").read_bytes()[:900]
    line, column = lxml_position(truncated)
    with pytest.raises(InputError) as caught:
        oaipmh.read(first + truncated, "two.xml")
    assert (caught.value.line, caught.value.column) == (line + lines_before, column)


def test_an_error_on_the_first_line_of_a_later_response_shifts_the_column() -> None:
    first = (OAI / "sickle-GetRecord.xml").read_bytes()
    assert not first.endswith(b"\n")
    last_line = first.rsplit(b"\n", 1)[1]
    broken = f'<OAI-PMH xmlns="{OAI_NS}"><x></y></OAI-PMH>'.encode()
    line, column = lxml_position(broken)
    with pytest.raises(InputError) as caught:
        oaipmh.read(first + broken, "two.xml")
    assert (caught.value.line, caught.value.column) == (first.count(b"\n") + line, len(last_line) + column)


def test_the_column_on_a_shared_line_counts_characters_not_bytes() -> None:
    """A later response on the line where the one before ends: its columns shift by the
    characters before it (lxml counts characters), not by their UTF-8 bytes."""
    first = f'<OAI-PMH xmlns="{OAI_NS}"><x>caf\u00e9 \U0001f600 \u00fcn\u00efc\u00f6d\u00e9</x></OAI-PMH>'.encode()
    broken = f'<OAI-PMH xmlns="{OAI_NS}"><x></y></OAI-PMH>'.encode()
    line, column = lxml_position(broken)
    with pytest.raises(InputError) as caught:
        oaipmh.read(first + broken, "two.xml")
    assert (caught.value.line, caught.value.column) == (line, len(first.decode()) + column)


@pytest.mark.parametrize("several", [False, True])
def test_lines_that_end_at_cr_alone_are_counted(several: bool) -> None:
    """XML ends a line at CR alone too (XML 1.0 §2.11); libxml2 counts LFs, so such a file
    was one line to it, and so was each error's place."""
    lf = (OAI / "qdc.xml").read_bytes().replace(b"</dc:creator>", b"</dc:creatr>", 1)
    line, column = lxml_position(lf)
    assert b"\r" not in lf
    cr = lf.replace(b"\n", b"\r")
    first = (OAI / "sickle-GetRecord.xml").read_bytes().replace(b"\n", b"\r") + b"\r" if several else b""
    with pytest.raises(InputError) as caught:
        oaipmh.read(first + cr, "cr.xml")
    assert (caught.value.line, caught.value.column) == (line + first.count(b"\r"), column)


# -- The summary, --strict, the service ---------------------------------------------------------


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args, io.StringIO())
    return code, capsys.readouterr().err


def test_strict_exits_1_when_anything_was_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out.nt")
    sets = str(OAI / "sickle-ListSets.xml")
    assert run(["normalize", sets, "-i", "oai-pmh", "-o", out], capsys)[0] == 0
    code, err = run(["normalize", sets, "-i", "oai-pmh", "-o", out, "--strict"], capsys)
    assert code == 1
    assert "skipped: 131 unsupported-verb ListSets" in err
    for name in FORMATS:
        assert run(["normalize", str(OAI / name), "-i", "oai-pmh", "-o", out, "--strict"], capsys)[0] == 0, name


def test_the_summary_document_carries_the_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out.nt")
    inputs = [str(OAI / "sickle-ListSets.xml"), str(OAI / "sickle-ListRecords.xml")]
    code, err = run(["normalize", *inputs, "-i", "oai-pmh", "-o", out, "--summary", "json"], capsys)
    assert code == 0
    document = json.loads(err)
    jsonschema.validate(document, schema())
    assert document["skipped"] == {"text-outside-elements": 1, "unsupported-verb ListSets": 131}


def test_truncated_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = (OAI / "mods.xml").read_bytes()
    cut = tmp_path / "cut.xml"
    cut.write_bytes(data[:1200])
    out = tmp_path / "out.nt"
    code, err = run(["normalize", str(cut), "-i", "oai-pmh", "-o", str(out), "--strict"], capsys)
    line, column = lxml_position(data[:1200])
    assert code == 2
    assert f"{cut}:{line}:{column}: malformed XML" in err
    assert not out.exists()


def test_the_summary_adds_prints_and_publishes_skipped_counts() -> None:
    one = Summary(skipped=Counter({"unsupported-verb ListSets": 2}))
    one.add(Summary(skipped=Counter({"unsupported-verb ListSets": 1, "record-without-identifier": 1})))
    assert one.to_json()["skipped"] == {"record-without-identifier": 1, "unsupported-verb ListSets": 3}
    assert one.text().endswith("; skipped: 1 record-without-identifier, 3 unsupported-verb ListSets")
    jsonschema.validate(one.to_json(), schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**one.to_json(), "skipped": {"x": 0}}, schema())
    assert "skipped" in schema()["required"]


def test_the_service_reports_the_counts() -> None:
    with TestClient(create_app(Config())) as client:
        answer = client.post(
            "/normalize",
            content=(OAI / "sickle-ListSets.xml").read_bytes(),
            headers={"Content-Type": "application/oai-pmh+xml", "Accept": "application/n-triples"},
        )
    assert answer.status_code == 200
    summary = json.loads(answer.headers["ldids-summary"])
    jsonschema.validate(summary, schema())
    assert summary["skipped"] == {"unsupported-verb ListSets": 131}
