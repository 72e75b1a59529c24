"""SHACL shapes shipped with ldids: a data package (see ldids.resources)."""
