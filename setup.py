"""The optional C extension (ldids/dumps/_scan.c); everything else is in pyproject.toml."""

from setuptools import Extension, setup

# optional: without a C compiler the package installs all the same and the per-line loop
# of ldids.dumps.stream runs in Python (same output, slower).
setup(ext_modules=[Extension("ldids.dumps._scan", ["ldids/dumps/_scan.c"], optional=True, extra_compile_args=["-O2"])])
