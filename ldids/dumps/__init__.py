"""Dumps and stores at scale: streamed N-Triples/N-Quads on every core, Dask, live stores."""
