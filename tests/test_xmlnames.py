"""The compiled filter for namespace errors (ldids/rdf/_xmlnames.c) against lxml.

lxml's target parser (a target with only ``close()``) checks XML 1.0 but lets the errors of
Namespaces in XML 1.0 pass that lxml's tree parser reports. ``suspect(document)`` says where a
well-formed document may have one (the offset of a tag's ``<``), or -1: surely none. The law:
never -1 for a document the target parser accepts and the tree parser refuses. Each verdict
below is lxml's, asked at test time; the tables check the errors one by one and that ordinary
RDF/XML is not flagged, generated documents check the law on names, prefixes and declarations
put together at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import cast

import pytest
from lxml import etree

pytest.importorskip("ldids.rdf._xmlnames")
from ldids.rdf._xmlnames import suspect

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


class _Close:
    """A target with only close(): lxml's fast well-formedness check."""

    def close(self) -> None:
        return None


def target_accepts(document: bytes) -> bool:
    parser = etree.XMLParser(
        target=cast("etree.ParserTarget[None]", _Close()),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
    )
    try:
        etree.fromstring(document, parser)
    except etree.XMLSyntaxError:
        return False
    return True


def tree_accepts(document: bytes) -> bool:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        etree.fromstring(document, parser)
    except etree.XMLSyntaxError:
        return False
    return True


# -- Tables ------------------------------------------------------------------------------------

#: Well-formed documents the tree parser refuses for a namespace reason.
NAMESPACE_ERRORS = [
    text.encode()
    for text in [
        # Not QNames (section 4): colons first, last, twice; a local part an NCName cannot start.
        "<p:/>",
        '<p:a:b xmlns:p="u"/>',
        "<:a/>",
        '<p:1a xmlns:p="u"/>',
        '<p:-a xmlns:p="u"/>',
        '<p:.a xmlns:p="u"/>',
        '<p:\u00b7a xmlns:p="u"/>',
        '<p:\u0300a xmlns:p="u"/>',
        '<p:\u036fa xmlns:p="u"/>',
        '<p:\u203fa xmlns:p="u"/>',
        '<p:\u2040a xmlns:p="u"/>',
        '<a p:="x"/>',
        '<a :b="x"/>',
        '<a xmlns:p="u" p:b:c="x"/>',
        '<a xmlns:p="u" p:1="x"/>',
        # Undeclared prefixes (section 5), on elements and attributes, out of scope.
        "<p:a/>",
        '<a p:b="1"/>',
        "<xmlns:a/>",
        '<a><b xmlns:p="u"/><p:c/></a>',
        '<a><b xmlns:p="u"></b><c p:x="1"/></a>',
        '<a xmlns:q="u"><q:b><p:c/></q:b></a>',
        # Declarations (section 3): reserved prefixes and names, an empty name, not a URI.
        '<a xmlns:p=""/>',
        '<a xmlns:xmlns="u"/>',
        '<a xmlns:xml="u"/>',
        '<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>',
        '<a xmlns="http://www.w3.org/XML/1998/namespace"/>',
        '<a xmlns:p="http://www.w3.org/2000/xmlns/"/>',
        '<a xmlns="http://www.w3.org/2000/xmlns/"/>',
        '<a xmlns:p="&#104;ttp://www.w3.org/2000/xmlns/"/>',
        '<a xmlns:p="u v"/>',
        '<a xmlns="u v"/>',
        '<a xmlns:p="http://a.example/%zz"/>',
        '<a xmlns:p="http://a.example:x/"/>',
        '<a xmlns:p="a#b#c"/>',
        '<a xmlns:p="&lt;"/>',
        # One expanded name twice (section 6.3).
        '<e a:x="1" b:x="2" xmlns:a="u" xmlns:b="u"/>',
        '<r xmlns:a="u"><e a:x="1" b:x="2" xmlns:b="u"/></r>',
        # Colons in PI targets and entity names (section 7); a DOCTYPE is flagged as it is.
        "<?a:b x?><e/>",
        "<e><?a:b?></e>",
        '<!DOCTYPE a [<!ENTITY a:b "x">]><a/>',
    ]
] + [
    # Not read as ASCII: flagged at 0.
    '<?xml version="1.0" encoding="UTF-16"?><p:a/>'.encode("utf-16"),
]

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    f'<rdf:RDF xmlns:rdf="{RDF}" xmlns:dc="http://purl.org/dc/elements/1.1/"'
    ' xmlns:v="http://example.org/vocab#" xmlns:xsd="http://www.w3.org/2001/XMLSchema#">\n'
)

#: Ordinary RDF/XML, which the filter lets pass.
PLAIN = [
    HEAD + '<rdf:Description rdf:about="http://a.example/1"><dc:title xml:lang="en">T</dc:title>'
    '<v:p rdf:resource="info:fedora/demo:1"/>'
    '<v:n rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">3</v:n></rdf:Description></rdf:RDF>',
    HEAD + '<v:Thing rdf:about="urn:x:1"><v:q rdf:nodeID="b1"/></v:Thing>'
    '<rdf:Description rdf:nodeID="b1"><v:p>x &amp; y</v:p></rdf:Description></rdf:RDF>',
    # Comments, CDATA and attribute values that look like markup.
    HEAD + "<!-- <p:> <a:b:c> <?x:y?> --><rdf:Description rdf:about='http://a.example/2'>"
    "<v:p><![CDATA[<a:b:c> <p:1> ]]></v:p><v:q v:r='a > b &lt;p:x &lt;q:'/></rdf:Description></rdf:RDF>",
    HEAD + '<rdf:Description rdf:about="http://a.example/3" v:r="1 > 0"><v:p xmlns:w="http://w.example/">'
    '<w:x xml:lang="de">y</w:x></v:p><v:p rdf:parseType="Literal"><v:b>z</v:b></v:p></rdf:Description></rdf:RDF>',
    # Declarations deeper in, a default namespace, an undeclared default, PIs, odd spacing.
    '<?xml version="1.0"?>\n<?xml-stylesheet href="s.xsl"?>\n'
    f'<RDF xmlns="{RDF}" xmlns:v="http://example.org/v#">\n'
    '  <Description about="http://a.example/4" >\n'
    '    <v:p\n      resource = "http://a.example/5" />\n'
    '    <v:q xmlns="" xmlns:d="urn:d"><d:e>f</d:e></v:q>\n'
    "  </Description>\n</RDF>\n",
    # Namespace names of every shape the dumps use.
    f'<rdf:RDF xmlns:rdf="{RDF}" xmlns:a="urn:isbn:0451450523" xmlns:b="info:fedora/"'
    ' xmlns:c="http://a.example:8080/p;q=1?r=s#" xmlns:d="tag:a.example,2024:x" xmlns:e="relative/path"'
    ' xmlns:f="http://a.example/%C3%A9/" xmlns:g="#"><rdf:Description a:x="1" b:y="2"/></rdf:RDF>',
    # xml: attributes and elements need no declaration; xmlns:xml bound rightly may be flagged.
    '<a xml:lang="en" xml:space="preserve"><xml:b/></a>',
]


@pytest.mark.parametrize("data", NAMESPACE_ERRORS)
def test_namespace_errors_are_flagged(data: bytes) -> None:
    assert target_accepts(data), "the target parser takes it: well-formed XML 1.0"
    assert not tree_accepts(data), "the tree parser refuses it"
    assert suspect(data) >= 0


@pytest.mark.parametrize("document", PLAIN)
def test_plain_documents_pass(document: str) -> None:
    data = document.encode()
    assert target_accepts(data)
    assert tree_accepts(data)
    assert suspect(data) == -1


def test_the_offset_is_the_tag() -> None:
    data = b'<a xmlns:p="u"><b/><!-- <q:x> --><c><p:d/><q:e/></c></a>'
    assert suspect(data) == data.index(b"<q:e")
    assert suspect(b"<a><?x:y?></a>") == 3
    assert suspect(bytearray(b"<a/>")) == -1
    assert suspect(memoryview(b"<a/><b:c/>")[4:]) == 0


def test_not_a_buffer() -> None:
    with pytest.raises(TypeError):
        suspect("<a/>")  # type: ignore[arg-type]


# -- Generated documents -----------------------------------------------------------------------

PREFIXES = ["p", "q", "xml", "xmlns", "a", "rdf", ""]
LOCALS = ["a", "b", "x", "1a", "-a", ".a", "\u00b7a", "\u0300a", "\u203fa", "\u00e9", "_", "lang", ""]
NAMESPACE_NAMES = [
    "u",
    "urn:u",
    "http://a.example/",
    "",
    "http://www.w3.org/XML/1998/namespace",
    "http://www.w3.org/2000/xmlns/",
    "&#104;ttp://www.w3.org/2000/xmlns/",
    "u v",
    "http://a:b/",
    "http://a.example:80/x?y#z",
    "%zz",
    "a#b#c",
    "1a:b",
    "//a",
    "#",
    "\u00e9",
    "&amp;",
    "x > y",
]


def qname(rng: random.Random, odd: float) -> str:
    """A name: mostly an NCName or one with the prefixes p and q (which the root declares);
    with odds ``odd``, colons in odd places (:local, prefix:, a:b:c), prefixes that may be
    declared or not, and the characters an NCName may not start with."""
    if rng.random() >= odd:
        local = rng.choice(["a", "b", "x", "lang"])
        return rng.choice(["", "", "p:", "q:"]) + local
    local = rng.choice(LOCALS)
    shape = rng.random()
    if shape < 0.3:
        name = local
    elif shape < 0.85:
        name = f"{rng.choice(PREFIXES)}:{local}"
    else:
        name = f"{rng.choice(PREFIXES)}:{rng.choice(LOCALS)}:{local}"
    return name if rng.random() < 0.9 else rng.choice(["a", "b"]) + name


def attribute_value(rng: random.Random) -> str:
    return rng.choice(["1", "a > b", "&lt;p:x", "", "&amp;", "x'y", 'x"y'])


def declaration(rng: random.Random, odd: float) -> tuple[str, str]:
    """An xmlns attribute: a prefix (or none) and a namespace name, unusual ones with odds ``odd``."""
    if rng.random() >= odd:
        prefix, value = rng.choice(["", "p", "q", "r"]), rng.choice(NAMESPACE_NAMES[:3])
    else:
        prefix, value = rng.choice(PREFIXES), rng.choice(NAMESPACE_NAMES)
    return (f"xmlns:{prefix}" if prefix else "xmlns"), value


def element(rng: random.Random, depth: int, odd: float) -> str:
    name = qname(rng, odd)
    attributes = [("xmlns:p", "u"), ("xmlns:q", "urn:q")] if depth == 0 and rng.random() > odd else []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if rng.random() < 0.3:
            key, value = declaration(rng, odd)
        else:
            key, value = qname(rng, odd), attribute_value(rng)
        attributes.append((key, value))
    written = []
    for key, value in attributes:
        quote = rng.choice("\"'")
        value = value.replace(quote, "&quot;" if quote == '"' else "&apos;")
        space = rng.choice([" ", " ", "\n", "\t "])
        written.append(f"{space}{key}={quote}{value}{quote}")
    start = f"<{name}{''.join(written)}"
    if depth > 3 or rng.random() < 0.3:
        return start + "/>"
    children = []
    for _ in range(rng.choice([0, 1, 2, 3])):
        kind = rng.random()
        if kind < 0.6:
            children.append(element(rng, depth + 1, odd))
        elif kind < 0.7:
            target = (
                rng.choice(["a", "x-y", "xml-stylesheet"]) if rng.random() >= odd else rng.choice(["a:b", "p:", ":"])
            )
            children.append(f"<?{target} d?>")
        elif kind < 0.8:
            children.append(f"<!-- <{qname(rng, 1)}> -->")
        elif kind < 0.9:
            children.append(f"<![CDATA[<{qname(rng, 1)}>]]>")
        else:
            children.append("t &amp; &lt;a:b:c&gt; > ")
    return f"{start}>{''.join(children)}</{name}>"


def document(rng: random.Random) -> bytes:
    """A document whose names and declarations are unusual at odds of 0 to 1 in 5."""
    odd = rng.choice([0.0, 0.01, 0.03, 0.1, 0.2])
    head = rng.choice(["", '<?xml version="1.0" encoding="UTF-8"?>\n', "<?pi x?>\n"])
    return (head + element(rng, 0, odd)).encode()


def check_generated(count: int, seed: int) -> tuple[int, int, int]:
    """``count`` documents: the law asserted for each; how many the target parser accepts, how
    many of them the tree parser refuses, how many of those the filter flags."""
    rng = random.Random(seed)
    accepted = refused = flagged = 0
    for _ in range(count):
        data = document(rng)
        if not target_accepts(data):
            continue
        accepted += 1
        found = suspect(data)
        assert -1 <= found < len(data)
        flagged += found >= 0
        if not tree_accepts(data):
            refused += 1
            assert found >= 0, data
    return accepted, refused, flagged


def test_generated_documents() -> None:
    accepted, refused, flagged = check_generated(4000, seed=20240611)
    # The generator makes both kinds, or it tests nothing.
    assert refused > 500
    assert accepted - refused > 500
    assert flagged >= refused


# -- Memory safety -----------------------------------------------------------------------------


def test_every_prefix_before_a_guard_page(
    guard_page: Callable[[bytes], AbstractContextManager[memoryview]],
) -> None:
    """Every prefix of some documents, each ending where a page no one may read starts: a read
    of one byte past what the filter is given faults."""
    for data in [
        (HEAD + '<rdf:Description rdf:about="x"><v:p xml:lang="en">x</v:p></rdf:Description></rdf:RDF>').encode(),
        b'<a xmlns:p="http://a.example:80/%41?b#c"><!-- c --><![CDATA[d]]><?e f?><p:g h="i"/></a>',
        b'<?xml version="1.0" encoding="iso-8859-1"?><a:b:c/>',
        b"\xef\xbb\xbf<!DOCTYPE a><a/>",
    ]:
        for end in range(len(data) + 1):
            with guard_page(data[:end]) as view:
                assert -1 <= suspect(view) < max(end, 1)
