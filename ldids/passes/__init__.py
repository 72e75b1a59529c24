"""The passes: the one decision about a term (:mod:`ldids.passes.decision`), and the graph
passes built on it (rewrite, link, record) over quads (DESIGN.md §3)."""
