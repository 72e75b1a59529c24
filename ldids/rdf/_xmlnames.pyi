"""Types of the compiled filter for namespace errors in well-formed XML (ldids/rdf/_xmlnames.c)."""

from typing_extensions import Buffer

def suspect(document: Buffer, /) -> int:
    """-1 when a well-formed XML document surely has no error of Namespaces in XML 1.0 that
    lxml's tree parser reports (and its target parser does not); else the offset of the '<' of
    the first start tag, processing instruction or DOCTYPE that may have one."""
