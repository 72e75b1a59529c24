"""The optional C extensions (ldids/dumps/_scan.c, ldids/schemes/_canonical.c,
ldids/rdf/_rdfxml.c, ldids/rdf/_turtle.c,
ldids/rdf/_xmlnames.c); everything
else is in pyproject.toml."""

from setuptools import Extension, setup

# optional: without a C compiler the package installs all the same, and the per-line loop
# of ldids.dumps.stream and Scheme.canonical run in Python (same output, slower).
setup(
    ext_modules=[
        Extension(name, [source], optional=True, extra_compile_args=["-O2"], depends=depends)
        for name, source, depends in (
            ("ldids.dumps._scan", "ldids/dumps/_scan.c", []),
            ("ldids.schemes._canonical", "ldids/schemes/_canonical.c", []),
            ("ldids.rdf._rdfxml", "ldids/rdf/_rdfxml.c", ["ldids/rdf/_common_shape.h"]),
            ("ldids.rdf._turtle", "ldids/rdf/_turtle.c", ["ldids/rdf/_common_shape.h"]),
            ("ldids.rdf._xmlnames", "ldids/rdf/_xmlnames.c", []),
        )
    ]
)
