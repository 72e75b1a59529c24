"""The bare-PID policy (DESIGN.md §2) on real exports, copied into tests/data/ (see its
PROVENANCE.tsv): what is rewritten, what is left alone and counted, on every way of running."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

from ldids.dumps.run import normalize_dump
from ldids.dumps.stream import Settings
from ldids.errors import InputError
from ldids.ntriples import Quad, quad_line
from ldids.passes import graph as passes
from ldids.passes.config import Config
from ldids.passes.decision import DC_IDENTIFIER, decide
from ldids.rdf import io as rdfio
from ldids.schemes.registry import DEFAULT

DATA = Path(__file__).parent / "data"
FOXML = DATA / "kramerius" / "original.foxml.xml"  # a Czech national library object, PID uuid:04bec0a0-…
PID = "uuid:04bec0a0-7869-11e9-ba7f-005056827e51"
CONFIG = Config(bare_pid_predicates=frozenset({DC_IDENTIFIER}))
IDENTIFIER = URIRef(DC_IDENTIFIER)


def identifiers(quads: list[Quad]) -> set[str]:
    return {str(o) for s, p, o, _ in quads if p == IDENTIFIER and s == URIRef(f"info:fedora/{PID}")}


def test_the_objects_own_pid_is_rewritten_and_catalogue_keys_are_not() -> None:
    quads = rdfio.read([str(FOXML)], rdfio.resolve_format("foxml")).quads
    assert identifiers(quads) == {
        PID,
        "urnnbn:urn:nbn:cz:nk-0051lj",
        "oclc:70142323",
        "barCode:1001700789",
        "ccnb:cnb000500209",
    }
    result = passes.normalize(quads, CONFIG)
    # The DC datastream's own PID becomes the object's IRI; every other value stays as written.
    assert identifiers(result.quads) == {
        f"info:fedora/{PID}",
        "urnnbn:urn:nbn:cz:nk-0051lj",
        "oclc:70142323",
        "barCode:1001700789",
        "ccnb:cnb000500209",
    }
    summary = result.summary().to_json()
    assert summary["identifiers"]["left"] == {"bare-pid-foreign-namespace": 4}
    assert summary["identifiers"]["invalid"] == {}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_dump_of_the_same_export_says_the_same(tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The streamed path decides with the same function: same statements, same counts (the
    compiled loop, and the Python loop it is held to)."""
    quads = rdfio.read([str(FOXML)], rdfio.resolve_format("foxml")).quads
    dump = tmp_path / "in.nq"
    dump.write_text("".join(quad_line(quad) + "\n" for quad in quads), encoding="utf-8")
    graph = passes.normalize(quads, CONFIG)
    expected = sorted(quad_line(quad) for quad in graph.quads + graph.links)
    for pure in ("", "1"):
        monkeypatch.setenv("LDIDS_PURE_PYTHON", pure)
        out = tmp_path / f"out{pure}.nq"
        summary = normalize_dump([str(dump)], str(out), Settings(CONFIG, quads=True), workers=workers)
        assert sorted(out.read_text(encoding="utf-8").splitlines()) == expected
        streamed = summary.summary().to_json()
        assert streamed["identifiers"] == graph.summary().to_json()["identifiers"]


def test_percent_encoded_request_identifiers_are_never_pids() -> None:
    """An OAI-PMH request carries its identifier percent-encoded (a recorded DSpace harvest:
    ``identifier=hdl%3A1765%2F315``). Even in a statement whose subject is of that
    'namespace', it is left alone, and inspect does not call it a PID."""
    text = (DATA / "pyoai" / "fake1-mapping.txt").read_text(encoding="utf-8")
    encoded = sorted(set(re.findall(r"identifier=([^&\s]+)", text)))
    assert encoded == ["hdl%3A1765%2F315"]
    for value in encoded:
        found = decide(value, True, DC_IDENTIFIER, "hdl", CONFIG)
        assert found is not None
        assert (found.action, found.reason) == ("leave", "bare-pid-percent-encoded")
        assert DEFAULT.inspect(value).scheme is None
        # Decoded, it is the handle it names.
        assert DEFAULT.canonical("hdl:1765/315") == "hdl:1765/315"


def test_a_literal_of_a_uri_scheme_is_left_even_in_its_own_namespace() -> None:
    """'urn' or 'doi' are never PID namespaces, whatever the subject says (IANA list)."""
    for value, namespace in [("urn:isbn:0451450523", "urn"), ("doi:10.1000/182", "doi")]:
        found = decide(value, True, DC_IDENTIFIER, namespace, CONFIG)
        assert found is not None
        assert (found.action, found.reason) == ("leave", "bare-pid-uri-scheme")
    with pytest.raises(InputError, match="URI scheme"):
        Config(pid_namespaces=frozenset({"doi"}))


def test_literal_terms_keep_their_datatype_when_rewritten() -> None:
    quad = (URIRef(f"info:fedora/{PID}"), IDENTIFIER, Literal(PID), None)
    [after] = passes.normalize([quad], CONFIG).quads
    assert after[2] == Literal(f"info:fedora/{PID}")


# -- An EDM record in an OAI-PMH harvest -------------------------------------------------------

EDM = DATA / "oai" / "edm-identifiers.xml"


def test_an_edm_records_dc_identifiers_are_left_alone_but_its_handle() -> None:
    """Its subject carries no PID namespace and none is configured: no bare value is a PID.
    Only the handle, written in its prefixed form, is an identifier anywhere."""
    result = passes.normalize(rdfio.read([str(EDM)], rdfio.resolve_format("oai-pmh")).quads, CONFIG)
    # The record's own OAI identifier becomes its POI; hdl:1765/315 is canonical already.
    assert {(str(r.original), str(r.canonical)) for r in result.rewrites} == {
        ("oai:aggregator.example.org:2048604/item_R3KJ", "http://purl.org/poi/aggregator.example.org/2048604/item_R3KJ")
    }
    values = {str(o) for _, p, o, _ in result.quads if p == IDENTIFIER}
    assert values == {
        "catkey:1187304",
        "barcode:36105021387761",
        "urn:nbn:de:bsz:15-qucosa2-163",
        "ark:/12148/btv1b53095180x",
        "isbn:978-3-16-148410-0",
        "oai%3Aaggregator.example.org%3A2048604%2Fitem_R3KJ",
        "hdl:1765/315",
    }
    # catkey, barcode, ark: not this subject's namespace (ark is no IANA URI scheme); urn,
    # isbn: URI schemes (IANA); the OAI request form: an OAI identifier percent-encoded.
    assert result.left == {
        "bare-pid-foreign-namespace": 3,
        "bare-pid-uri-scheme": 2,
        "bare-pid-percent-encoded": 1,
    }
    assert not result.findings
