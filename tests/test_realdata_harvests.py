"""Every real OAI-PMH harvest in ../shared/realdata keeps every metadata value and every
handle: the values are counted in the XML with lxml, not by ldids."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree
from rdflib.term import Literal, URIRef

from ldids.errors import InputError
from ldids.rdf import io as rdfio

pytestmark = pytest.mark.shared

SHARED = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "realdata"
OAI = "{http://www.openarchives.org/OAI/2.0/}"


def harvests() -> list[Path]:
    found = []
    for path in sorted(SHARED.glob("**/*.xml")) if SHARED.is_dir() else []:
        head = path.read_bytes()[:4096]
        if b"http://www.openarchives.org/OAI/2.0/" in head and b"OAI-PMH" in head:
            found.append(path)
    return found


def values_in_xml(root: etree._Element) -> Counter[str]:
    """The text of every element without children inside a record's metadata."""
    values: Counter[str] = Counter()
    for metadata in root.iter(f"{OAI}metadata"):
        for element in metadata.iter():
            if isinstance(element.tag, str) and len(element) == 0 and element.text and element.text.strip():
                values[element.text.strip()] += 1
    return values


@pytest.mark.parametrize("path", harvests() or [None], ids=lambda p: "none" if p is None else p.name)
def test_every_metadata_value_is_kept(path: Path | None) -> None:
    assert path is not None, f"no OAI-PMH harvest found under {SHARED}"
    try:
        root = etree.fromstring(path.read_bytes(), etree.XMLParser(resolve_entities=False))
    except etree.XMLSyntaxError:
        # Malformed XML is an error with its place, never a partial success.
        with pytest.raises(InputError) as raised:
            rdfio.read([str(path)], rdfio.resolve_format("oai-pmh"))
        assert raised.value.line is not None
        return
    expected = values_in_xml(root)
    quads = rdfio.read([str(path)], rdfio.resolve_format("oai-pmh")).quads
    found = Counter(str(o).strip() for _, _, o, _ in quads if isinstance(o, Literal | URIRef))
    missing = {value: count for value, count in expected.items() if found[value] < count}
    assert missing == {}
    handles = [value for value in expected if "hdl:" in value or "handle.net" in value]
    assert all(found[value] >= expected[value] for value in handles)


def test_the_harvests_are_there() -> None:
    assert len(harvests()) >= 20
