"""Types of the compiled canonicalizers (ldids/schemes/_canonical.c)."""

from collections.abc import Callable

def canonicalizer(scheme: str, declarations: dict[str, str | int], /) -> Callable[[str], str | None]:
    """The compiled canonicalizer of ``scheme`` ("info-fedora", "oai", "poi" or "handle"),
    bound to the scheme's declarations: the canonical IRI of a text, or None (ask Python)."""

# The canonicalizers for C callers (a PyCapsule: ldids/dumps/_scan.c takes it).
_api: object
