"""OAI identifiers (scheme ``oai``): ``oai:arXiv.org:hep-th/9901001``.

Spec: "Specification and XML Schema for the OAI Identifier Format" (OAI-PMH 2.0
implementation guidelines)::

    oai-identifier       = scheme ":" namespace-identifier ":" local-identifier
    scheme               = "oai"
    namespace-identifier = domainname-word "." domainname
    domainname           = domainname-word [ "." domainname ]
    domainname-word      = alpha *( alphanum | "-" )
    local-identifier     = 1*uric          ; RFC 2396, escapes with upper-case hex

Characters outside ``reserved`` and ``unreserved`` must be escaped; characters inside
them must not be. Two oai-identifiers are equivalent only if identical, all three parts
are case-sensitive, and an oai-identifier is never unescaped or repaired (DESIGN.md §1):
normalizing a valid one returns it unchanged, and an invalid one is only reported.
Its canonical IRI is the POI (POI §4); the local part starts after the second colon.

>>> parse("oai:arXiv.org:hep-th/9901001").iri
'http://purl.org/poi/arXiv.org/hep-th/9901001'
>>> request_argument("oai:an.oai.org:ab%3Ccd")
'identifier=oai%3Aan.oai.org%3Aab%253Ccd'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, unquote_to_bytes, urlencode
from xml.sax.saxutils import escape

from ldids.errors import InputError, ParseError, Problem
from ldids.schemes._chars import (
    ALPHANUM,
    ASCII_ALPHA,
    DOMAIN_PATTERN,
    RFC2396_MARK,
    RFC2396_RESERVED,
    RFC2396_UNRESERVED,
    URIC_UNESCAPED_PATTERN,
    ascii_lower,
    check_domain_namespace,
    check_uric_run,
    percent_encode,
)
from ldids.schemes.pid import namespace_of as pid_namespace_of
from ldids.schemes.scheme import Scheme, compiled_canonical

__all__ = [
    "DESCRIPTION_NAMESPACE",
    "POI_PREFIX",
    "SCHEME",
    "IdentifyDescription",
    "OaiIdentifier",
    "check",
    "check_description",
    "claims",
    "decode_request_argument",
    "description_xml",
    "escape_local",
    "from_internal",
    "normalize",
    "parse",
    "read_description",
    "request_argument",
    "request_url",
    "unescape_local",
]

#: The PURL template of the POI (POI §2), the canonical IRI of every oai-identifier.
POI_PREFIX = "http://purl.org/poi/"
DESCRIPTION_NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai-identifier"

#: Valid oai-identifiers without escapes: the fast path.
NORMALIZED_RE = re.compile(f"oai:{DOMAIN_PATTERN}:{URIC_UNESCAPED_PATTERN}+")
#: The ``oai:`` scheme in any case: only lower case is valid, but OAI:... is still reported.
_URIC_CHARS = RFC2396_RESERVED | RFC2396_UNRESERVED


@dataclass(frozen=True, slots=True)
class OaiIdentifier:
    """A valid oai-identifier."""

    namespace: str
    local: str

    def __str__(self) -> str:
        return f"oai:{self.namespace}:{self.local}"

    @property
    def iri(self) -> str:
        """The POI: strip 'oai:', the separating colon becomes '/', prepend the PURL (POI §4)."""
        return f"{POI_PREFIX}{self.namespace}/{self.local}"

    @property
    def profile(self) -> None:
        return None


def scan_parts(text: str, start: int, separator: str, code: str) -> tuple[str, str, list[Problem]]:
    """Split ``text[start:]`` at the first ``separator`` and check both halves.

    Shared with the POI, whose namespace and local part obey the same rules.
    """
    cut = text.find(separator, start)
    if cut < 0:
        problems = check_domain_namespace(text, start, len(text), code)
        problems.append(
            Problem(
                f"{code}.missing-local-identifier",
                f"the namespace-identifier must be followed by {separator!r} and a local-identifier",
                len(text),
                len(text),
            )
        )
        return text[start:], "", problems
    problems = check_domain_namespace(text, start, cut, code) + check_uric_run(text, cut + 1, code)
    return text[start:cut], text[cut + 1 :], problems


def _scan(text: str) -> tuple[OaiIdentifier | None, list[Problem]]:
    if not text.startswith("oai:"):
        colon = text.find(":")
        end = colon if colon >= 0 else len(text)
        if ascii_lower(text[:4]) == "oai:":
            problem = Problem(
                "oai.scheme-case", "the scheme is 'oai' in lower case (oai-identifiers are case-sensitive)", 0, 3
            )
        else:
            problem = Problem("oai.scheme", "an oai-identifier starts with 'oai:'", 0, max(end, 1) if text else 0)
        return None, [problem]
    namespace, local, problems = scan_parts(text, 4, ":", "oai")
    return (None, problems) if problems else (OaiIdentifier(namespace, local), [])


def _equivalents(value: OaiIdentifier) -> tuple[str, ...]:
    return (str(value),)


def _poi_of_normalized(text: str) -> str:
    # POI §4 on a valid oai-identifier: drop "oai:", the first remaining ":" becomes "/".
    return POI_PREFIX + text[4:].replace(":", "/", 1)


SCHEME: Scheme[OaiIdentifier] = Scheme(
    "oai",
    _scan,
    precedence=20,
    prefix="oai:",  # the scheme "oai" in any case (RFC 3986 §3.1)
    prefilter=("oai:",),
    # A Fedora repository's OAI provider uses the object's PID as the local part; the
    # canonical IRI is the POI, whose local part follows the namespace's '/'.
    pid_namespace=lambda iri: pid_namespace_of(iri[len(POI_PREFIX) :].split("/", 1)[1]),
    normalized=NORMALIZED_RE,
    iri_of_normalized=_poi_of_normalized,
    equivalents=_equivalents,
    # Valid ASCII oai-identifiers, compiled (escapes included: they are only checked).
    compiled=compiled_canonical(
        "oai",
        scheme="oai",
        poi_prefix=POI_PREFIX,
        label_start=ASCII_ALPHA,  # domainname-word = alpha *( alphanum | "-" )
        label=ALPHANUM | frozenset("-"),
        reserved=RFC2396_RESERVED,
        unreserved=RFC2396_UNRESERVED,
    ),
)
claims = SCHEME.claims
check = SCHEME.check
parse = SCHEME.parse
normalize = SCHEME.normalize


# -- Making oai-identifiers from internal identifiers -------------------------------------


def escape_local(internal: str) -> str:
    """Escape an internal identifier into a valid local-identifier.

    Every character outside ``reserved`` and ``unreserved`` becomes its UTF-8 octets as
    ``%HH`` (upper-case hex); nothing else is escaped, as the spec requires.

    >>> escape_local("ab cd#1<2>")
    'ab%20cd%231%3C2%3E'
    """
    return percent_encode(internal, _URIC_CHARS)


def unescape_local(local: str) -> str:
    """The internal identifier a repository escaped into ``local`` (UTF-8).

    Raises ParseError if the escapes are not UTF-8.
    """
    try:
        return unquote_to_bytes(local).decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(
            local, [Problem("oai.bad-utf8", "the escapes do not decode as UTF-8", 0, len(local))]
        ) from error


def from_internal(namespace: str, internal: str) -> OaiIdentifier:
    """The oai-identifier a repository in ``namespace`` gives an internal identifier.

    >>> str(from_internal("wibble.org", "ab cd"))
    'oai:wibble.org:ab%20cd'
    """
    return parse(f"oai:{namespace}:{escape_local(internal)}")


# -- OAI-PMH requests ----------------------------------------------------------------------

# In a request the whole oai-identifier is URL encoded once more: the colons and the '%'
# of escapes at least (the spec's example), and every other reserved character, which
# would otherwise be read as part of the query syntax. RFC 2396 marks stay as they are.
_REQUEST_SAFE = "".join(sorted(RFC2396_MARK))


def request_argument(identifier: str | OaiIdentifier) -> str:
    """The ``identifier=`` argument of an OAI-PMH request (oai-identifier format §2).

    Raises ParseError if ``identifier`` is not a valid oai-identifier.
    """
    value = identifier if isinstance(identifier, OaiIdentifier) else parse(identifier)
    return "identifier=" + quote(str(value), safe=_REQUEST_SAFE)


def decode_request_argument(argument: str) -> OaiIdentifier:
    """The oai-identifier in an ``identifier=`` request argument: decoded once, then parsed."""
    _, _, value = argument.partition("identifier=") if argument.startswith("identifier=") else ("", "", argument)
    return parse(unquote(value, errors="strict"))


def request_url(
    base_url: str, identifier: str | OaiIdentifier, verb: str = "GetRecord", metadata_prefix: str | None = "oai_dc"
) -> str:
    """A complete OAI-PMH GET request for one identifier.

    >>> request_url("http://an.oai.org/oai", "oai:an.oai.org:ab%3Ccd")
    'http://an.oai.org/oai?verb=GetRecord&identifier=oai%3Aan.oai.org%3Aab%253Ccd&metadataPrefix=oai_dc'
    """
    arguments = urlencode({"verb": verb}) + "&" + request_argument(identifier)
    if metadata_prefix is not None:
        arguments += "&" + urlencode({"metadataPrefix": metadata_prefix})
    return f"{base_url}?{arguments}"


# -- The Identify description block --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IdentifyDescription:
    """The ``oai-identifier`` description container of an Identify response."""

    repository_identifier: str
    sample_identifier: str
    scheme: str = "oai"
    delimiter: str = ":"


def check_description(description: IdentifyDescription) -> list[Problem]:
    """Problems with a description block; spans index into the element named in the code.

    The schema fixes ``scheme`` to "oai" and ``delimiter`` to ":"; ``repositoryIdentifier``
    holds the namespace-identifier and ``sampleIdentifier`` must be a valid oai-identifier
    in that namespace.
    """
    problems: list[Problem] = []
    if description.scheme != "oai":
        problems.append(Problem("oai-description.scheme", "<scheme> must be 'oai'", 0, len(description.scheme)))
    if description.delimiter != ":":
        problems.append(Problem("oai-description.delimiter", "<delimiter> must be ':'", 0, len(description.delimiter)))
    repository = description.repository_identifier
    for problem in check_domain_namespace(repository, 0, len(repository), "oai-description.repository-identifier"):
        problems.append(problem)
    sample = check(description.sample_identifier)
    problems += [
        Problem("oai-description.sample-identifier", f"<sampleIdentifier>: {p.message} [{p.code}]", p.start, p.end)
        for p in sample
    ]
    if not sample:
        namespace = parse(description.sample_identifier).namespace
        if namespace != repository:
            problems.append(
                Problem(
                    "oai-description.mismatch",
                    f"<sampleIdentifier> is in namespace {namespace!r}, not the <repositoryIdentifier> {repository!r}",
                    4,
                    4 + len(namespace),
                )
            )
    return problems


def description_xml(repository_identifier: str, sample_identifier: str) -> str:
    """The description block for an Identify response; raises ParseError if inconsistent."""
    description = IdentifyDescription(repository_identifier, sample_identifier)
    problems = check_description(description)
    if problems:
        raise ParseError(sample_identifier, problems)
    schema = "http://www.openarchives.org/OAI/2.0/oai-identifier.xsd"
    return (
        f'<oai-identifier xmlns="{DESCRIPTION_NAMESPACE}"\n'
        '    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
        f'    xsi:schemaLocation="{DESCRIPTION_NAMESPACE} {schema}">\n'
        "  <scheme>oai</scheme>\n"
        f"  <repositoryIdentifier>{escape(repository_identifier)}</repositoryIdentifier>\n"
        "  <delimiter>:</delimiter>\n"
        # "&" is a reserved character an identifier may hold unescaped (OAI identifier
        # format, syntax): in XML text it is written &amp;.
        f"  <sampleIdentifier>{escape(sample_identifier)}</sampleIdentifier>\n"
        "</oai-identifier>\n"
    )


def read_description(xml: str | bytes, source: str | None = None) -> IdentifyDescription:
    """The first ``oai-identifier`` description in a block or a whole Identify response.

    The XML is parsed without DTDs or entity expansion. Raises InputError for malformed
    XML, a missing block or missing elements; use :func:`check_description` on the result.
    """
    from ldids import safexml  # lxml, imported only by those who read XML

    root = safexml.parse(xml.encode("utf-8") if isinstance(xml, str) else xml, source)
    tag = f"{{{DESCRIPTION_NAMESPACE}}}"
    block = root if root.tag == f"{tag}oai-identifier" else root.find(f".//{tag}oai-identifier")
    if block is None:
        raise InputError("no oai-identifier description block", source=source)
    values: dict[str, str] = {}
    for name in ("scheme", "repositoryIdentifier", "delimiter", "sampleIdentifier"):
        element = block.find(tag + name)
        if element is None:
            raise InputError(f"the oai-identifier description has no <{name}>", source=source)
        values[name] = (element.text or "").strip()
    return IdentifyDescription(
        values["repositoryIdentifier"], values["sampleIdentifier"], values["scheme"], values["delimiter"]
    )
