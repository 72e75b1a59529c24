"""The core against identifiers that other projects wrote (../shared/realdata)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import ldids

REALDATA = Path(os.environ.get("LDIDS_SHARED") or Path(__file__).resolve().parents[2] / "shared") / "realdata"
FOUND = re.compile(r"""(?:info:fedora/|oai:|hdl:|https?://hdl\.handle\.net/)[^\s"'<>`)]*""")
pytestmark = pytest.mark.shared


def harvest() -> set[str]:
    texts: set[str] = set()
    for path in REALDATA.rglob("*.xml"):
        texts.update(FOUND.findall(path.read_text(encoding="utf-8", errors="replace")))
    return texts


HARVEST = harvest()


def test_realdata_is_there() -> None:
    assert len(HARVEST) > 200


def test_every_real_identifier_is_handled_and_normalizes_idempotently() -> None:
    for text in sorted(HARVEST):
        result = ldids.inspect(text)
        assert result.scheme is not None, text
        if result.valid:
            assert result.normalized is not None
            assert result.canonical is not None
            assert ldids.normalize(result.normalized) == result.normalized
            assert ldids.canonical(result.canonical) == result.canonical


def test_fedora_vocabulary_iris_pass_through_unchanged() -> None:
    vocabulary = sorted(t for t in HARVEST if t.startswith("info:fedora/fedora-system:"))
    assert len(vocabulary) > 30
    for text in vocabulary:
        assert ldids.normalize(text) == text
        assert ldids.canonical(text) == text


def test_fedora_demo_objects_are_valid_and_already_normal() -> None:
    demo = sorted(t for t in HARVEST if re.fullmatch(r"info:fedora/demo:[A-Za-z0-9_\-.]+(?:/[A-Za-z_][\w\-.]*)?", t))
    assert "info:fedora/demo:SmileyStuff" in demo
    for text in demo:
        assert ldids.normalize(text) == text


def test_dspace_handles_are_generic_handles() -> None:
    handles = sorted(t for t in HARVEST if t.startswith(("hdl:1765/", "http://hdl.handle.net/1765/")))
    assert len(handles) > 20
    for text in handles:
        result = ldids.inspect(text)
        assert result.valid, text
        assert result.profile is None, text
        assert result.canonical == "hdl:1765/" + text.rsplit("/", 1)[1]


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("oai:test.example.com::1585310", True),  # sickle: an empty first segment of the local part
        ("oai:example.org:item1", True),  # Fedora's OAI provider
        ("oai:lcoa1.loc.gov:loc.rbc/rbpe.00000111", True),
        ("oai:test:oaiprovider-object-item-c.d_a.d", False),  # "test" is no domain name
        ("oai:itemID", False),  # an XML element name with an oai: prefix, not an identifier
        ("info:fedora/demo/content/JPEG#", False),  # no PID
    ],
)
def test_particular_real_identifiers(text: str, valid: bool) -> None:
    assert text in HARVEST
    assert ldids.inspect(text).valid is valid
