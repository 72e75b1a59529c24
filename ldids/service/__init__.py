"""The HTTP service (needs the ``service`` extra)."""
