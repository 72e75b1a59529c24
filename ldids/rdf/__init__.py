"""RDF in and out: formats, readers (RDF syntaxes, FOXML, OAI-PMH) and writers."""
