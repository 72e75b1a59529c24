"""RDF in and out: formats, readers (RDF syntaxes, FOXML, OAI-PMH) and writers."""

import logging

#: The logger rdflib tells of a literal that is not of its datatype on, with a traceback.
RDFLIB_TERMS = logging.getLogger("rdflib.term")


def not_a_cast_failure(record: logging.LogRecord) -> bool:
    """A filter for :data:`RDFLIB_TERMS`: rdflib logs a traceback for each literal that is not
    of its datatype ("n.d."^^xsd:date), which for ldids is data, kept as written."""
    return not record.getMessage().startswith("Failed to convert Literal lexical form to value")
