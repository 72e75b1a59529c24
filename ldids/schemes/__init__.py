"""Identifier schemes: one module per scheme, each declaring what it knows, and the registry
that puts them in precedence order (DESIGN.md §1, §8). Nothing here imports RDF."""
