/* The common shape of RDF/XML read straight to N-Quads lines, or declined.
 *
 * A large RDF/XML dump is read in pieces by the workers (ldids/dumps/pieces.py), and per
 * statement pyoxigraph's RDF/XML parser costs more than all of the normalization after it.
 * Most dumps are written in one shape: an rdf:RDF root whose children are rdf:Description
 * (or typed) node elements naming their subject, each holding property elements with an
 * rdf:resource, an rdf:nodeID or a literal. This reads that shape and nothing else.
 *
 * The contract: for a well-formed XML document (the caller checks it with lxml first), nquads()
 * returns exactly the N-Quads lines pyoxigraph's parser gives, in its order, with the literals
 * escaped as ldids.dumps.rdf_stream.as_written writes them; or None, and pyoxigraph reads the
 * document (and says what is wrong with it, if anything is). pyoxigraph is the reference, held
 * equal by a differential fuzz test (benchmarks/fuzz_rdfxml.py, tests/test_rdfxml_fast.py). So
 * every check here errs toward None: anything this code is not sure pyoxigraph reads the same
 * way (a relative or unusual IRI, xml:base, a comment, parseType, a CR, a language tag past
 * language-script-region, ...) declines the whole document.
 *
 * RDF/XML: https://www.w3.org/TR/rdf-syntax-grammar/ (section 7, the grammar; 7.2.11 nodeElement,
 * 7.2.16 resourcePropertyElt, 7.2.16 literalPropertyElt, 7.2.21 emptyPropertyElt).
 */
#include "_common_shape.h"

typedef struct {
    const char *start;
    size_t length;
} Span;

typedef struct {
    Span prefix; /* length 0: the default namespace */
    Text uri;
} Namespace;

/* Attributes a tag may have: a tag with more declines (none of the shape has more than a few). */
#define MAX_ATTRIBUTES 16

typedef struct {
    const unsigned char *at, *end;
    Namespace namespaces[MAX_ATTRIBUTES]; /* declared on the root only: one per attribute at most */
    int count;
    Text out, scratch, value;
} Reader;

/* An element's start tag: its name, its attributes (raw values, quotes excluded), whether it
 * closes itself. */
typedef struct {
    Span name;
    Span names[MAX_ATTRIBUTES], values[MAX_ATTRIBUTES];
    int count, empty;
} Tag;

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n'; }

static void skip_space(Reader *r) {
    while (r->at < r->end && is_space(*r->at)) {
        r->at++;
    }
}

/* White space and comments, where markup may stand (the prolog, between elements): the
 * comments are no part of the graph. A comment that does not end is left for the caller to
 * decline at its '<'. */
static void skip_misc(Reader *r) {
    for (;;) {
        skip_space(r);
        if (r->end - r->at < 4 || memcmp(r->at, "<!--", 4) != 0) {
            return;
        }
        const unsigned char *p = r->at + 4;
        for (;;) {
            p = memchr(p, '-', (size_t)(r->end - p));
            if (p == NULL || r->end - p < 3) {
                return;
            }
            if (p[1] == '-' && p[2] == '>') {
                break;
            }
            p++;
        }
        r->at = p + 3;
    }
}

/* An XML name of ASCII name characters with at most one colon (a QName): else decline. */
static int name(Reader *r, Span *span) {
    const unsigned char *start = r->at;
    int colons = 0;
    while (r->at < r->end) {
        unsigned char c = *r->at;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
        } else if (((c >= '0' && c <= '9') || c == '-' || c == '.') && r->at > start) {
        } else if (c == ':' && r->at > start) {
            colons++;
        } else {
            break;
        }
        r->at++;
    }
    if (r->at == start || colons > 1 || r->at[-1] == ':') {
        return DECLINE;
    }
    span->start = (const char *)start;
    span->length = (size_t)(r->at - start);
    return 0;
}

/* A start tag, after its '<'. */
static int start_tag(Reader *r, Tag *tag) {
    tag->count = 0;
    tag->empty = 0;
    if (name(r, &tag->name)) {
        return DECLINE;
    }
    for (;;) {
        const unsigned char *before = r->at;
        skip_space(r);
        if (r->at >= r->end) {
            return DECLINE;
        }
        if (*r->at == '>') {
            r->at++;
            return 0;
        }
        if (*r->at == '/') {
            if (r->at + 1 >= r->end || r->at[1] != '>') {
                return DECLINE;
            }
            r->at += 2;
            tag->empty = 1;
            return 0;
        }
        if (r->at == before || tag->count == MAX_ATTRIBUTES) {
            return DECLINE;
        }
        if (name(r, &tag->names[tag->count])) {
            return DECLINE;
        }
        skip_space(r);
        if (r->at >= r->end || *r->at != '=') {
            return DECLINE;
        }
        r->at++;
        skip_space(r);
        if (r->at >= r->end || (*r->at != '"' && *r->at != '\'')) {
            return DECLINE;
        }
        unsigned char quote = *r->at++;
        const unsigned char *value = r->at;
        const unsigned char *close = memchr(value, quote, (size_t)(r->end - value));
        if (close == NULL) {
            return DECLINE;
        }
        tag->values[tag->count].start = (const char *)value;
        tag->values[tag->count].length = (size_t)(close - value);
        tag->count++;
        r->at = close + 1;
    }
}

/* An end tag's name after its "</", which must be ``name``. */
static int end_tag(Reader *r, Span name_) {
    if ((size_t)(r->end - r->at) < name_.length + 1 || memcmp(r->at, name_.start, name_.length) != 0) {
        return DECLINE;
    }
    r->at += name_.length;
    skip_space(r);
    if (r->at >= r->end || *r->at != '>') {
        return DECLINE;
    }
    r->at++;
    return 0;
}

/* Character data with its references replaced (the five XML predefines and character
 * references; any other entity declines), into ``into``. */
static int unescape(Span raw, Text *into) {
    into->length = 0;
    const char *p = raw.start, *end = raw.start + raw.length;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        if (amp == NULL) {
            return text_add(into, p, (size_t)(end - p)) < 0 ? -1 : 0;
        }
        if (text_add(into, p, (size_t)(amp - p)) < 0) {
            return -1;
        }
        const char *semi = memchr(amp, ';', (size_t)(end - amp));
        if (semi == NULL) {
            return DECLINE;
        }
        size_t length = (size_t)(semi - amp - 1);
        const char *ref = amp + 1;
        char one[4];
        size_t n = 0;
        if (length == 3 && memcmp(ref, "amp", 3) == 0) {
            one[n++] = '&';
        } else if (length == 2 && memcmp(ref, "lt", 2) == 0) {
            one[n++] = '<';
        } else if (length == 2 && memcmp(ref, "gt", 2) == 0) {
            one[n++] = '>';
        } else if (length == 4 && memcmp(ref, "quot", 4) == 0) {
            one[n++] = '"';
        } else if (length == 4 && memcmp(ref, "apos", 4) == 0) {
            one[n++] = '\'';
        } else if (length >= 2 && ref[0] == '#') {
            uint32_t code = 0;
            int hex = ref[1] == 'x';
            size_t digits = length - 1 - (size_t)hex;
            if (digits == 0 || digits > 6) {
                return DECLINE;
            }
            for (const char *d = ref + 1 + hex; d < semi; d++) {
                int v;
                if (*d >= '0' && *d <= '9') {
                    v = *d - '0';
                } else if (hex && *d >= 'a' && *d <= 'f') {
                    v = *d - 'a' + 10;
                } else if (hex && *d >= 'A' && *d <= 'F') {
                    v = *d - 'A' + 10;
                } else {
                    return DECLINE;
                }
                code = code * (hex ? 16u : 10u) + (uint32_t)v;
            }
            /* XML 1.0 Char (section 2.2): anything else is not well-formed. */
            if (code == 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) || code == 0xFFFE ||
                code == 0xFFFF) {
                return DECLINE;
            }
            put_utf8(one, &n, code);
        } else {
            return DECLINE;
        }
        if (text_add(into, one, n) < 0) {
            return -1;
        }
        p = semi + 1;
    }
    return 0;
}

/* rdf:nodeID's value as a label pyoxigraph keeps: ASCII letters, digits, '_' and '-', not
 * starting with a digit or '-'. */
static int plain_label(const char *label, size_t length) {
    if (length == 0 || !((label[0] >= 'a' && label[0] <= 'z') || (label[0] >= 'A' && label[0] <= 'Z') || label[0] == '_')) {
        return 0;
    }
    for (size_t i = 1; i < length; i++) {
        unsigned char c = (unsigned char)label[i];
        if (!(is_alnum(c) || c == '_' || c == '-')) {
            return 0;
        }
    }
    return 1;
}

/* The namespace a QName's prefix names (length 0: the default namespace), or NULL. */
static Text *namespace_of(Reader *r, const char *prefix, size_t length) {
    for (int i = r->count - 1; i >= 0; i--) {
        Namespace *ns = &r->namespaces[i];
        if (ns->prefix.length == length && memcmp(ns->prefix.start, prefix, length) == 0) {
            return ns->uri.length || length == 0 ? &ns->uri : NULL;
        }
    }
    return NULL;
}

/* A QName read as RDF/XML reads it: namespace and local name. The local part of an unprefixed
 * name is in the default namespace (element names); ``element`` 0 declines unprefixed names. */
static int qname(Reader *r, Span name_, int element, Text **ns, Span *local) {
    const char *colon = memchr(name_.start, ':', name_.length);
    if (colon == NULL) {
        if (!element) {
            return DECLINE;
        }
        *ns = namespace_of(r, "", 0);
        local->start = name_.start;
        local->length = name_.length;
    } else {
        *ns = namespace_of(r, name_.start, (size_t)(colon - name_.start));
        local->start = colon + 1;
        local->length = name_.length - (size_t)(colon + 1 - name_.start);
    }
    unsigned char first = (unsigned char)local->start[0];
    if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_')) {
        return DECLINE; /* not an NCName */
    }
    return *ns == NULL || (*ns)->length == 0 ? DECLINE : 0;
}

static int is_rdf(const Text *ns) { return ns->length == RDF_NS_LENGTH && memcmp(ns->text, RDF_NS, RDF_NS_LENGTH) == 0; }

static int local_is(Span local, const char *word) {
    return local.length == strlen(word) && memcmp(local.start, word, local.length) == 0;
}

static int is_xml_attribute(Span name_, const char *local) {
    return name_.length == 4 + strlen(local) && memcmp(name_.start, "xml:", 4) == 0 &&
           memcmp(name_.start + 4, local, strlen(local)) == 0;
}

/* "<iri> " into the output, checked. */
static int put_iri(Reader *r, const char *iri, size_t length) {
    if (!plain_iri(iri, length)) {
        return DECLINE;
    }
    if (text_add(&r->out, "<", 1) < 0 || text_add(&r->out, iri, length) < 0 || text_add(&r->out, "> ", 2) < 0) {
        return -1;
    }
    return 0;
}

/* The IRI a namespace and local name make ("<ns local> "). */
static int put_name(Reader *r, const Text *ns, Span local) {
    Text *iri = &r->scratch;
    iri->length = 0;
    if (text_add(iri, ns->text, ns->length) < 0 || text_add(iri, local.start, local.length) < 0) {
        return -1;
    }
    return put_iri(r, iri->text, iri->length);
}

/* An attribute value (references replaced) as an IRI term, or a blank node's label. */
static int put_reference(Reader *r, Span raw, int blank) {
    int status = unescape(raw, &r->scratch);
    if (status) {
        return status;
    }
    if (blank) {
        if (!plain_label(r->scratch.text, r->scratch.length)) {
            return DECLINE;
        }
        if (text_add(&r->out, "_:", 2) < 0 || text_add(&r->out, r->scratch.text, r->scratch.length) < 0 ||
            text_add(&r->out, " ", 1) < 0) {
            return -1;
        }
        return 0;
    }
    return put_iri(r, r->scratch.text, r->scratch.length);
}

/* An xml:lang value: a plain tag (no references to replace), else decline. */
static int language(Span raw, Span *tag) {
    if (memchr(raw.start, '&', raw.length) != NULL || !plain_language(raw.start, raw.length)) {
        return DECLINE;
    }
    *tag = raw;
    return 0;
}


/* One property element, its '<' read (7.2.14 propertyElt, of the forms in the header). */
static int property(Reader *r, const Text *subject_line, Span language_in_scope, long long *li) {
    Tag tag;
    TRY(start_tag(r, &tag));
    Text *ns;
    Span local;
    TRY(qname(r, tag.name, 1, &ns, &local));
    int numbered = 0;
    if (is_rdf(ns)) {
        /* the names a property element may have in the rdf namespace, most of them: the others
         * (coreSyntaxTerms, rdf:Description, old terms, rdf:_n written out) decline */
        static const char *const allowed[] = {"type", "value", "first", "rest", "subject", "predicate", "object", "li", NULL};
        int found = 0;
        for (int i = 0; allowed[i] != NULL; i++) {
            found |= local_is(local, allowed[i]);
        }
        if (!found) {
            return DECLINE;
        }
        numbered = local_is(local, "li");
    }
    Span resource = {NULL, 0}, node = {NULL, 0}, datatype = {NULL, 0}, lang = language_in_scope;
    int has_resource = 0, has_node = 0, has_datatype = 0;
    for (int i = 0; i < tag.count; i++) {
        Span attribute = tag.names[i];
        if (is_xml_attribute(attribute, "lang")) {
            TRY(language(tag.values[i], &lang));
            continue;
        }
        Text *attribute_ns;
        Span attribute_local;
        TRY(qname(r, attribute, 0, &attribute_ns, &attribute_local));
        if (!is_rdf(attribute_ns)) {
            return DECLINE; /* a property attribute (7.2.21): declined */
        }
        if (local_is(attribute_local, "resource")) {
            resource = tag.values[i];
            has_resource = 1;
        } else if (local_is(attribute_local, "nodeID")) {
            node = tag.values[i];
            has_node = 1;
        } else if (local_is(attribute_local, "datatype")) {
            datatype = tag.values[i];
            has_datatype = 1;
        } else {
            return DECLINE;
        }
    }
    if (has_resource + has_node + has_datatype > 1) {
        return DECLINE;
    }
    if (text_add(&r->out, subject_line->text, subject_line->length) < 0) {
        return -1;
    }
    if (numbered) {
        char iri[sizeof(RDF_NS) + 24];
        int length = snprintf(iri, sizeof iri, "<" RDF_NS "_%lld> ", (*li)++);
        if (text_add(&r->out, iri, (size_t)length) < 0) {
            return -1;
        }
    } else {
        TRY(put_name(r, ns, local));
    }
    if (has_resource || has_node) {
        /* 7.2.21 emptyPropertyElt with rdf:resource or rdf:nodeID: nothing inside */
        if (!tag.empty) {
            if (r->end - r->at < 2 || r->at[0] != '<' || r->at[1] != '/') {
                return DECLINE;
            }
            r->at += 2;
            TRY(end_tag(r, tag.name));
        }
        TRY(put_reference(r, has_resource ? resource : node, has_node));
        return text_add(&r->out, ".\n", 2) < 0 ? -1 : 0;
    }
    Span content = {(const char *)r->at, 0};
    if (tag.empty) {
        if (has_datatype) {
            return DECLINE;
        }
    } else {
        const unsigned char *lt = memchr(r->at, '<', (size_t)(r->end - r->at));
        if (lt == NULL || lt + 1 >= r->end || lt[1] != '/') {
            return DECLINE; /* an element, a comment or CDATA inside: declined */
        }
        content.length = (size_t)(lt - r->at);
        r->at = lt + 2;
        TRY(end_tag(r, tag.name));
    }
    TRY(unescape(content, &r->value));
    TRY(put_literal_text(&r->out, &r->value));
    if (has_datatype) {
        TRY(unescape(datatype, &r->scratch));
        static const char xsd_string[] = "http://www.w3.org/2001/XMLSchema#string";
        if (r->scratch.length >= RDF_NS_LENGTH && memcmp(r->scratch.text, RDF_NS, RDF_NS_LENGTH) == 0) {
            return DECLINE; /* rdf:langString, rdf:XMLLiteral, ...: declined */
        }
        if (!(r->scratch.length == sizeof(xsd_string) - 1 && memcmp(r->scratch.text, xsd_string, r->scratch.length) == 0)) {
            if (text_add(&r->out, "^^", 2) < 0) {
                return -1;
            }
            TRY(put_iri(r, r->scratch.text, r->scratch.length));
            r->out.length--; /* the space put_iri writes after a term */
        }
    } else if (lang.length) {
        TRY(put_language(&r->out, lang.start, lang.length));
    }
    return text_add(&r->out, " .\n", 3) < 0 ? -1 : 0;
}

/* One node element, its '<' read (7.2.11 nodeElement, of the forms in the header). */
static int node_element(Reader *r, Span language_in_scope) {
    Tag tag;
    TRY(start_tag(r, &tag));
    Text *ns;
    Span local;
    TRY(qname(r, tag.name, 1, &ns, &local));
    int typed = !is_rdf(ns);
    if (!typed && !local_is(local, "Description")) {
        return DECLINE;
    }
    Span about = {NULL, 0}, lang = language_in_scope;
    int has_about = 0, has_node = 0;
    for (int i = 0; i < tag.count; i++) {
        if (is_xml_attribute(tag.names[i], "lang")) {
            TRY(language(tag.values[i], &lang));
            continue;
        }
        Text *attribute_ns;
        Span attribute_local;
        TRY(qname(r, tag.names[i], 0, &attribute_ns, &attribute_local));
        if (!is_rdf(attribute_ns)) {
            return DECLINE;
        }
        if (local_is(attribute_local, "about")) {
            has_about++;
        } else if (local_is(attribute_local, "nodeID")) {
            has_node++;
        } else {
            return DECLINE;
        }
        about = tag.values[i];
    }
    if (has_about + has_node != 1) {
        return DECLINE;
    }
    /* the subject's term, written once and copied before each property */
    size_t mark = r->out.length;
    TRY(put_reference(r, about, has_node));
    Text subject = {NULL, 0, 0};
    if (text_add(&subject, r->out.text + mark, r->out.length - mark) < 0) {
        return -1;
    }
    r->out.length = mark;
    int status = 0;
    if (typed) {
        status = text_add(&r->out, subject.text, subject.length) < 0 ? -1 : 0;
        if (!status) {
            static const char type[] = "<" RDF_NS "type> ";
            status = text_add(&r->out, type, sizeof(type) - 1) < 0 ? -1 : 0;
        }
        if (!status) {
            status = put_name(r, ns, local);
        }
        if (!status) {
            status = text_add(&r->out, ".\n", 2) < 0 ? -1 : 0;
        }
    }
    long long li = 1;
    while (!status && !tag.empty) {
        skip_misc(r);
        if (r->end - r->at < 2 || r->at[0] != '<') {
            status = DECLINE;
        } else if (r->at[1] == '/') {
            r->at += 2;
            status = end_tag(r, tag.name);
            break;
        } else if (r->at[1] == '!' || r->at[1] == '?') {
            status = DECLINE;
        } else {
            r->at++;
            status = property(r, &subject, lang, &li);
        }
    }
    PyMem_Free(subject.text);
    return status;
}

/* The XML declaration, if any: version 1.0, encoding UTF-8 or none (UTF-8 by default). */
static int declaration(Reader *r) {
    if (r->end - r->at < 6 || memcmp(r->at, "<?xml", 5) != 0 || !is_space(r->at[5])) {
        return 0;
    }
    const unsigned char *close = NULL;
    for (const unsigned char *p = r->at; p + 1 < r->end; p++) {
        if (p[0] == '?' && p[1] == '>') {
            close = p;
            break;
        }
    }
    if (close == NULL) {
        return DECLINE;
    }
    r->at += 5;
    Tag tag;
    tag.count = 0;
    /* pseudo-attributes: name="value" pairs */
    while (r->at < close) {
        skip_space(r);
        if (r->at >= close) {
            break;
        }
        if (tag.count == MAX_ATTRIBUTES || name(r, &tag.names[tag.count])) {
            return DECLINE;
        }
        skip_space(r);
        if (r->at >= close || *r->at != '=') {
            return DECLINE;
        }
        r->at++;
        skip_space(r);
        if (r->at >= close || (*r->at != '"' && *r->at != '\'')) {
            return DECLINE;
        }
        unsigned char quote = *r->at++;
        const unsigned char *end = memchr(r->at, quote, (size_t)(close - r->at));
        if (end == NULL) {
            return DECLINE;
        }
        Span value = {(const char *)r->at, (size_t)(end - r->at)};
        Span key = tag.names[tag.count];
        if (local_is(key, "version")) {
            if (!(value.length == 3 && memcmp(value.start, "1.0", 3) == 0)) {
                return DECLINE;
            }
        } else if (local_is(key, "encoding")) {
            if (!(value.length == 5 && (value.start[0] | 32) == 'u' && (value.start[1] | 32) == 't' &&
                  (value.start[2] | 32) == 'f' && value.start[3] == '-' && value.start[4] == '8')) {
                return DECLINE;
            }
        } else if (!local_is(key, "standalone")) {
            return DECLINE;
        }
        tag.count++;
        r->at = end + 1;
    }
    r->at = close + 2;
    return 0;
}

static int document(Reader *r) {
    if (memchr(r->at, '\r', (size_t)(r->end - r->at)) != NULL) {
        return DECLINE; /* line ends XML normalizes (2.11) and pyoxigraph may not: declined */
    }
    TRY(declaration(r));
    skip_misc(r);
    if (r->end - r->at < 2 || r->at[0] != '<' || r->at[1] == '!' || r->at[1] == '?') {
        return DECLINE;
    }
    r->at++;
    Tag root;
    TRY(start_tag(r, &root));
    if (root.empty) {
        return DECLINE;
    }
    Span lang = {NULL, 0};
    /* the root's namespaces first: its own name and attributes are read in them */
    for (int i = 0; i < root.count; i++) {
        Span key = root.names[i];
        int is_default = key.length == 5 && memcmp(key.start, "xmlns", 5) == 0;
        if (!is_default && !(key.length > 6 && memcmp(key.start, "xmlns:", 6) == 0)) {
            continue;
        }
        /* the prefixes xml and xmlns are bound once and for all (Namespaces in XML 1.0, 3):
         * a declaration of either is pyoxigraph's to refuse or read */
        if ((key.length == 9 && memcmp(key.start, "xmlns:xml", 9) == 0) ||
            (key.length == 11 && memcmp(key.start, "xmlns:xmlns", 11) == 0)) {
            return DECLINE;
        }
        Namespace *ns = &r->namespaces[r->count++];
        ns->prefix.start = is_default ? key.start : key.start + 6;
        ns->prefix.length = is_default ? 0 : key.length - 6;
        ns->uri.text = NULL;
        ns->uri.length = ns->uri.size = 0;
        TRY(unescape(root.values[i], &ns->uri));
    }
    Text *ns;
    Span local;
    TRY(qname(r, root.name, 1, &ns, &local));
    if (!is_rdf(ns) || !local_is(local, "RDF")) {
        return DECLINE;
    }
    for (int i = 0; i < root.count; i++) {
        Span key = root.names[i];
        if ((key.length == 5 && memcmp(key.start, "xmlns", 5) == 0) || (key.length > 6 && memcmp(key.start, "xmlns:", 6) == 0)) {
            continue;
        }
        if (!is_xml_attribute(key, "lang")) {
            return DECLINE;
        }
        TRY(language(root.values[i], &lang));
    }
    for (;;) {
        skip_misc(r);
        if (r->end - r->at < 2 || r->at[0] != '<' || r->at[1] == '!' || r->at[1] == '?') {
            return DECLINE;
        }
        if (r->at[1] == '/') {
            r->at += 2;
            TRY(end_tag(r, root.name));
            skip_misc(r);
            return r->at == r->end ? 0 : DECLINE;
        }
        r->at++;
        TRY(node_element(r, lang));
    }
}

static PyObject *nquads(PyObject *module, PyObject *arg) {
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Reader *r = PyMem_Calloc(1, sizeof(Reader));
    if (r == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    r->at = view.buf;
    r->end = r->at + view.len;
    int status = document(r);
    PyObject *result = reading_result(status, &r->out);
    for (int i = 0; i < r->count; i++) {
        PyMem_Free(r->namespaces[i].uri.text);
    }
    PyMem_Free(r->out.text);
    PyMem_Free(r->scratch.text);
    PyMem_Free(r->value.text);
    PyMem_Free(r);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"nquads", nquads, METH_O,
     "nquads(document) -> bytes or None: the N-Quads lines of a well-formed RDF/XML document of the\n"
     "common shape (an rdf:RDF root of node elements naming their subjects, holding property\n"
     "elements), as pyoxigraph reads them, literals escaped as ldids writes them; None: another\n"
     "shape, for pyoxigraph to read."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rdfxml", NULL, 0, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__rdfxml(void) {
    iri_classes();
    return PyModule_Create(&module);
}
