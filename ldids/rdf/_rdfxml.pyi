"""Types of the compiled reader of RDF/XML's common shape (ldids/rdf/_rdfxml.c)."""

def nquads(document: bytes | bytearray | memoryview, /) -> bytes | None:
    """The N-Quads lines of a well-formed RDF/XML document of the common shape, as pyoxigraph
    reads them with their literals as ldids writes them; None: another shape, for pyoxigraph."""
