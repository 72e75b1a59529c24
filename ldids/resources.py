"""The vocabulary and the SHACL shapes that ship inside the package.

Installed, they are the packages ``ldids.shapes`` and ``ldids.vocab`` (pyproject maps the
repository's top-level ``shapes/`` and ``vocab/`` there). Run straight from a checkout
without installing, the top-level folders are read instead.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from rdflib import Graph

__all__ = ["shapes_file", "shapes_graph", "vocabulary_file", "vocabulary_graph"]

_CHECKOUT = Path(__file__).resolve().parent.parent


def _shipped(package: str, folder: str) -> Traversable:
    try:
        return resources.files(package) / "ldids.ttl"
    except ModuleNotFoundError:
        return _CHECKOUT / folder / "ldids.ttl"


def shapes_file() -> Traversable:
    """The shipped shapes (``ldids.shapes/ldids.ttl``)."""
    return _shipped("ldids.shapes", "shapes")


def vocabulary_file() -> Traversable:
    """The shipped vocabulary (``ldids.vocab/ldids.ttl``)."""
    return _shipped("ldids.vocab", "vocab")


def shapes_graph() -> Graph:
    return Graph().parse(data=shapes_file().read_bytes(), format="turtle")


def vocabulary_graph() -> Graph:
    return Graph().parse(data=vocabulary_file().read_bytes(), format="turtle")
