"""Validation of RDF with the shipped SHACL shapes (and the user's)."""
