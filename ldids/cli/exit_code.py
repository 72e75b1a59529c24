"""Exit codes (DESIGN.md §5), and the usage error that ends a command with ``EXIT_USAGE``."""

from __future__ import annotations

from ldids.errors import LdidsError

__all__ = ["EXIT_INVALID", "EXIT_OK", "EXIT_USAGE", "UsageError"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


class UsageError(LdidsError):
    """Options that argparse accepts but that do not go together; reported as argparse reports its own."""
