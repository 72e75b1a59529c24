"""Types of the compiled reader of Turtle's and TriG's common shape (ldids/rdf/_turtle.c)."""

def nquads(document: bytes | bytearray | memoryview, trig: bool, directives_before: int = ..., /) -> bytes | None:
    """The N-Quads lines of a Turtle (``trig``: TriG) document of the common shape, its
    directives before its first statement and before byte ``directives_before``, as pyoxigraph
    reads them with their literals as ldids writes them; None: another shape, for pyoxigraph."""
