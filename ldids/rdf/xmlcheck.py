"""An RDF/XML file's well-formedness checked beside its parse, in a process of its own.

pyoxigraph's RDF/XML parser accepts documents that are not XML: cut short, with control
characters, ``]]>`` in text, ``--`` in comments, element names starting with a digit
(XML 1.0 §2.2, §2.4, §2.5, §2.3). lxml reads every byte to refuse them (:mod:`ldids.rdf.rdfxml`).
In the stream, where one process parses the document and the others wait for its
statements, that check is a third of the reading process's time; a file that can be read
again is checked in another process instead, on the other core, while pyoxigraph parses it.
Nothing is written until the check has passed: the reader asks for the verdict before it
gives its last statement (:meth:`Check.verdict`), so a malformed file fails the run with the
same error, line and column as when lxml reads in step.

The check beside the parse runs :mod:`ldids.rdf.wellformed`, which imports nothing but
lxml. Run as ``python -m ldids.rdf.xmlcheck PATH``: nothing on standard output and exit 0 when
``PATH`` is well-formed; else the error as JSON (message, line, column) and exit 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from lxml import etree

from ldids.errors import InputError
from ldids.rdf import wellformed
from ldids.rdf.rdfxml import well_formed

__all__ = ["Check", "check_file"]

#: Below this size a file is checked in step: starting a process would cost more than it saves.
SEPARATE_FROM = 8 << 20


def check_file(path: str) -> InputError | None:
    """The error that makes the XML file ``path`` malformed, if any (lxml's, as in step)."""
    try:
        with open(path, "rb") as source:
            well_formed(source, path)
    except InputError as error:
        return error
    return None


class Check:
    """The check of the file ``path`` (named ``shown`` in errors), running in a process started
    by the constructor."""

    def __init__(self, path: str, shown: str) -> None:
        self._shown = shown
        # The check only needs lxml: ldids.rdf.wellformed run as a script, with neither site
        # nor the ldids package imported (python -I -S), takes 0.02 s of CPU to start where
        # python -m ldids.rdf.xmlcheck takes 0.09 s, on the cores the run's workers use.
        lxml_folder = os.path.dirname(os.path.dirname(os.path.abspath(etree.__file__)))
        command = [sys.executable, "-I", "-S", os.path.abspath(wellformed.__file__), lxml_folder, os.path.abspath(path)]
        names = wellformed.names_extension()
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            command if names is None else [*command, names],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def verdict(self) -> InputError | None:
        """The error that makes the file malformed, if any; waits for the check to end."""
        process = self._process
        assert process is not None, "the check was stopped"
        out, err = process.communicate()
        self._process = None
        if process.returncode == 0:
            return None
        if process.returncode == 1 and out:
            found = json.loads(out)
            return InputError(found["message"], source=self._shown, line=found["line"], column=found["column"])
        # The check itself failed (killed, out of memory): the file is not known to be XML.
        detail = err.decode("utf-8", "replace").strip().splitlines()
        return InputError(
            f"could not check the XML (exit {process.returncode}{': ' + detail[-1] if detail else ''})",
            source=self._shown,
        )

    def stop(self) -> None:
        """End the check, its verdict no longer wanted (the run ended another way)."""
        if self._process is not None:
            self._process.kill()
            self._process.communicate()
            self._process = None


def main() -> int:
    error = check_file(sys.argv[1])
    if error is None:
        return 0
    print(json.dumps({"message": error.message, "line": error.line, "column": error.column}))
    return 1


if __name__ == "__main__":
    sys.exit(main())
