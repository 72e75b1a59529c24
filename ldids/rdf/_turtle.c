/* The common shape of Turtle and TriG read straight to N-Quads lines, or declined.
 *
 * The companion of ldids/rdf/_rdfxml.c, for the pieces of a large Turtle or TriG file that the
 * workers read (ldids/dumps/pieces.py): pyoxigraph's Turtle parser costs more per statement
 * than all of the normalization after it. Dumps are mostly written in one shape, the one
 * pyoxigraph's and most serializers write: directives first, then statements of absolute IRIs,
 * prefixed names, labelled blank nodes and literals, in predicate-object lists (';' and ','),
 * and in TriG, graph blocks around them. This reads that shape and nothing else.
 *
 * The contract is _rdfxml.c's: nquads() returns exactly the N-Quads lines pyoxigraph's parser
 * gives for the document, in its order, with the literals escaped as
 * ldids.dumps.rdf_stream.as_written writes them; or None, and pyoxigraph reads the document and
 * says what is wrong with it, if anything. Held equal by a differential fuzz test
 * (benchmarks/fuzz_turtle.py, tests/test_turtle_fast.py). Whatever this code is not sure of
 * declines: relative IRIs (no resolution is done here), escapes in IRIs and local names,
 * non-ASCII outside literals, doubles, [] and collections, RDF 1.2 syntax,
 * directives after a statement, nested or anonymous graph blocks.
 *
 * RDF 1.1 Turtle (https://www.w3.org/TR/turtle/, section 6.5, the grammar) and RDF 1.1 TriG
 * (https://www.w3.org/TR/trig/, section 5.5).
 */
#include "_common_shape.h"

#define MAX_PREFIXES 1024

typedef struct {
    const unsigned char *name; /* PN_PREFIX, without its ':' */
    size_t length;
    Text iri;
} Prefix;

typedef struct {
    const unsigned char *start, *at, *end;
    Py_ssize_t directives_before; /* where a directive may no longer start */
    int trig, statements;
    int count;
    Prefix prefixes[MAX_PREFIXES];
    /* the terms of the statement being read, each written with the space after it */
    Text subject, predicate, graph, datatype, value, scratch, out;
} Reader;

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* How many bytes the UTF-8 character at p takes (RFC 3629 section 4: no overlong forms, no
 * surrogates, nothing past U+10FFFF), 0 if it is not one. */
static int utf8_character(const unsigned char *p, const unsigned char *end) {
    unsigned char c = p[0];
    if (c < 0x80) {
        return 1;
    }
    int length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (length == 0 || end - p < length) {
        return 0;
    }
    for (int i = 1; i < length; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] > 0x8F)) {
        return 0;
    }
    return length;
}

/* White space and comments (a '#' to the end of the line, which must be UTF-8). */
static int skip(Reader *r) {
    for (;;) {
        while (r->at < r->end && is_space(*r->at)) {
            r->at++;
        }
        if (r->at >= r->end || *r->at != '#') {
            return 0;
        }
        while (r->at < r->end && *r->at != '\n' && *r->at != '\r') {
            int n = utf8_character(r->at, r->end);
            if (n == 0) {
                return DECLINE;
            }
            r->at += n;
        }
    }
}

/* A keyword, ASCII letters compared without case, ending where a letter cannot follow. */
static int keyword(Reader *r, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->at) < n) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if ((r->at[i] | 32) != (unsigned char)word[i]) {
            return 0;
        }
    }
    if ((size_t)(r->end - r->at) > n && !is_space(r->at[n]) && r->at[n] != '<') {
        return 0;
    }
    r->at += n;
    return 1;
}

/* An IRIREF: '<', characters IRIREF allows (no escapes, ASCII), '>': its text, if absolute and
 * plain (what pyoxigraph keeps as it is; a relative IRI would need the base resolved). */
static int iri_ref(Reader *r, const unsigned char **iri, size_t *length) {
    const unsigned char *p = r->at + 1;
    while (p < r->end && *p != '>') {
        unsigned char c = *p;
        if (c <= 0x20 || c >= 0x7F || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' ||
            c == '`' || c == '\\') {
            return DECLINE;
        }
        p++;
    }
    if (p >= r->end || !plain_iri((const char *)r->at + 1, (size_t)(p - r->at - 1))) {
        return DECLINE;
    }
    *iri = r->at + 1;
    *length = (size_t)(p - r->at - 1);
    r->at = p + 1;
    return 0;
}

static int put_iri(Text *into, const unsigned char *iri, size_t length) {
    if (text_add(into, "<", 1) < 0 || text_add(into, (const char *)iri, length) < 0 || text_add(into, "> ", 2) < 0) {
        return -1;
    }
    return 0;
}

/* PN_PREFIX (ASCII): a letter, then letters, digits, '_', '-' and '.', not ending with '.'. */
static const unsigned char *prefix_end(const unsigned char *p, const unsigned char *end) {
    if (p >= end || !is_letter(*p)) {
        return p;
    }
    const unsigned char *q = p + 1;
    while (q < end && (is_alnum(*q) || *q == '_' || *q == '-' || *q == '.')) {
        q++;
    }
    while (q > p + 1 && q[-1] == '.') {
        q--;
    }
    return q;
}

static Prefix *prefix_named(Reader *r, const unsigned char *name, size_t length) {
    for (int i = 0; i < r->count; i++) {
        if (r->prefixes[i].length == length && memcmp(r->prefixes[i].name, name, length) == 0) {
            return &r->prefixes[i];
        }
    }
    return NULL;
}

/* A prefixed name, at its prefix: the IRI its prefix and local part make ("<iri> "). PN_LOCAL
 * of ASCII letters, digits, '_', ':', '-', '.' (not first or last) and %HH; '\' escapes decline. */
static int prefixed_name(Reader *r, Text *into) {
    const unsigned char *name = r->at, *colon = prefix_end(r->at, r->end);
    if (colon >= r->end || *colon != ':') {
        return DECLINE;
    }
    Prefix *prefix = prefix_named(r, name, (size_t)(colon - name));
    if (prefix == NULL) {
        return DECLINE;
    }
    const unsigned char *local = colon + 1, *p = local;
    while (p < r->end) {
        unsigned char c = *p;
        if (is_alnum(c) || c == '_' || c == ':' || ((c == '-' || c == '.') && p > local)) {
            p++;
        } else if (c == '%' && r->end - p >= 3 && is_hex(p[1]) && is_hex(p[2])) {
            p += 3;
        } else if (c == '\\' || c >= 0x80) {
            return DECLINE;
        } else {
            break;
        }
    }
    while (p > local && p[-1] == '.') {
        p--;
    }
    r->at = p;
    Text *iri = &r->scratch;
    iri->length = 0;
    if (text_add(iri, prefix->iri.text, prefix->iri.length) < 0 || text_add(iri, (const char *)local, (size_t)(p - local)) < 0) {
        return -1;
    }
    if (!plain_iri(iri->text, iri->length)) {
        return DECLINE;
    }
    return put_iri(into, (const unsigned char *)iri->text, iri->length);
}

/* BLANK_NODE_LABEL (ASCII): "_:", a letter, digit or '_', then those, '-' and '.', not ending
 * with '.'; written as it is (pyoxigraph keeps a label as the document writes it). */
static int blank_node(Reader *r, Text *into) {
    const unsigned char *label = r->at + 2, *p = label;
    if (p >= r->end || !(is_alnum(*p) || *p == '_')) {
        return DECLINE;
    }
    while (p < r->end && (is_alnum(*p) || *p == '_' || *p == '-' || *p == '.')) {
        p++;
    }
    while (p[-1] == '.') {
        p--;
    }
    r->at = p;
    if (text_add(into, "_:", 2) < 0 || text_add(into, (const char *)label, (size_t)(p - label)) < 0 ||
        text_add(into, " ", 1) < 0) {
        return -1;
    }
    return 0;
}

/* An IRI, a prefixed name or (``blank``) a blank node label: a term of the statement. */
static int resource(Reader *r, Text *into, int blank) {
    into->length = 0;
    if (r->at >= r->end) {
        return DECLINE;
    }
    if (*r->at == '<') {
        const unsigned char *iri;
        size_t length;
        TRY(iri_ref(r, &iri, &length));
        return put_iri(into, iri, length);
    }
    if (*r->at == '_') {
        return blank && r->end - r->at > 2 && r->at[1] == ':' ? blank_node(r, into) : DECLINE;
    }
    return prefixed_name(r, into);
}

static int hex_value(const unsigned char *p, int digits, uint32_t *code) {
    *code = 0;
    for (int i = 0; i < digits; i++) {
        unsigned char c = p[i];
        if (!is_hex(c)) {
            return DECLINE;
        }
        *code = *code * 16 + (uint32_t)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
    }
    return 0;
}

/* A string ('"' or '\'' quoted, or three of either), its escapes replaced (ECHAR, UCHAR), into r->value. */
static int string(Reader *r) {
    unsigned char quote = *r->at;
    /* STRING_LITERAL_LONG_QUOTE and _SINGLE_QUOTE ([24], [25]): line breaks and lone quotes in it */
    int long_string = r->end - r->at >= 3 && r->at[1] == quote && r->at[2] == quote;
    Text *value = &r->value;
    value->length = 0;
    const unsigned char *p = r->at + (long_string ? 3 : 1), *copied = p;
    for (;;) {
        if (p >= r->end || (!long_string && (*p == '\n' || *p == '\r'))) {
            return DECLINE;
        }
        unsigned char c = *p;
        if (c == quote) {
            if (!long_string) {
                break;
            }
            if (r->end - p >= 3 && p[1] == quote && p[2] == quote) {
                if (r->end - p >= 4 && p[3] == quote) {
                    return DECLINE; /* a quote before the three that end it: read apart by readers */
                }
                break;
            }
            p++;
            continue;
        }
        if (c == '\\') {
            if (text_add(value, (const char *)copied, (size_t)(p - copied)) < 0) {
                return -1;
            }
            if (r->end - p < 2) {
                return DECLINE;
            }
            char one[4];
            size_t n = 0;
            switch (p[1]) {
            case 't': one[n++] = '\t'; break;
            case 'b': one[n++] = '\b'; break;
            case 'n': one[n++] = '\n'; break;
            case 'r': one[n++] = '\r'; break;
            case 'f': one[n++] = '\f'; break;
            case '"': one[n++] = '"'; break;
            case '\'': one[n++] = '\''; break;
            case '\\': one[n++] = '\\'; break;
            case 'u':
            case 'U': {
                int digits = p[1] == 'u' ? 4 : 8;
                uint32_t code;
                if (r->end - p < 2 + digits || hex_value(p + 2, digits, &code)) {
                    return DECLINE;
                }
                if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
                    return DECLINE;
                }
                put_utf8(one, &n, code);
                p += digits;
                break;
            }
            default: return DECLINE;
            }
            if (text_add(value, one, n) < 0) {
                return -1;
            }
            p += 2;
            copied = p;
            continue;
        }
        int n = utf8_character(p, r->end);
        if (n == 0) {
            return DECLINE;
        }
        p += n;
    }
    if (text_add(value, (const char *)copied, (size_t)(p - copied)) < 0) {
        return -1;
    }
    r->at = p + (long_string ? 3 : 1);
    return 0;
}

/* A literal: a string with its language or datatype, a number (integer, decimal), a boolean. */
static int literal(Reader *r, Text *into) {
    unsigned char c = *r->at;
    if (c == '"' || c == '\'') {
        TRY(string(r));
        TRY(put_literal_text(into, &r->value));
        if (r->at < r->end && *r->at == '@') {
            const unsigned char *tag = ++r->at;
            while (r->at < r->end && (is_alnum(*r->at) || *r->at == '-')) {
                r->at++;
            }
            if (!plain_language((const char *)tag, (size_t)(r->at - tag))) {
                return DECLINE;
            }
            TRY(put_language(into, (const char *)tag, (size_t)(r->at - tag)));
        } else if (r->end - r->at >= 2 && r->at[0] == '^' && r->at[1] == '^') {
            r->at += 2;
            Text *type = &r->datatype;
            TRY(resource(r, type, 0));
            static const char xsd_string[] = "<" XSD_NS "string> ";
            if (type->length >= 1 + RDF_NS_LENGTH && memcmp(type->text + 1, RDF_NS, RDF_NS_LENGTH) == 0) {
                return DECLINE; /* rdf:langString, rdf:dirLangString, rdf:XMLLiteral, ...: declined */
            }
            /* xsd:string is written as a simple literal, as pyoxigraph writes it */
            if (!(type->length == sizeof(xsd_string) - 1 && memcmp(type->text, xsd_string, type->length) == 0)) {
                if (text_add(into, "^^", 2) < 0 || text_add(into, type->text, type->length - 1) < 0) {
                    return -1;
                }
            }
        }
        return text_add(into, " ", 1) < 0 ? -1 : 0;
    }
    if (c == 't' || c == 'f') {
        const char *word = c == 't' ? "true" : "false";
        size_t n = strlen(word);
        if ((size_t)(r->end - r->at) < n || memcmp(r->at, word, n) != 0 ||
            ((size_t)(r->end - r->at) > n && (is_alnum(r->at[n]) || r->at[n] == ':' || r->at[n] == '_' ||
                                             r->at[n] == '-' || r->at[n] == '.' || r->at[n] >= 0x80))) {
            return DECLINE; /* a prefixed name, or not a literal */
        }
        r->at += n;
        static const char boolean[] = "^^<" XSD_NS "boolean> ";
        if (text_add(into, "\"", 1) < 0 || text_add(into, word, n) < 0 || text_add(into, "\"", 1) < 0 ||
            text_add(into, boolean, sizeof(boolean) - 1) < 0) {
            return -1;
        }
        return 0;
    }
    /* INTEGER [+-]?[0-9]+ and DECIMAL [+-]?[0-9]*'.'[0-9]+, kept as written; an exponent
     * (DOUBLE) declines */
    const unsigned char *start = r->at, *p = r->at;
    if (*p == '+' || *p == '-') {
        p++;
    }
    const unsigned char *digits = p;
    while (p < r->end && *p >= '0' && *p <= '9') {
        p++;
    }
    int decimal = 0;
    if (r->end - p >= 2 && *p == '.' && p[1] >= '0' && p[1] <= '9') {
        decimal = 1;
        p++;
        while (p < r->end && *p >= '0' && *p <= '9') {
            p++;
        }
    } else if (p == digits) {
        return DECLINE;
    }
    /* an exponent, or '.' and one ("1.e5", and "1.e:x", which the lexer reads as a double
     * with no exponent's digits) */
    if (p < r->end && (*p == 'e' || *p == 'E' || (*p == '.' && r->end - p >= 2 && (p[1] == 'e' || p[1] == 'E')))) {
        return DECLINE;
    }
    r->at = p;
    static const char integer[] = "\"^^<" XSD_NS "integer> ", decimal_type[] = "\"^^<" XSD_NS "decimal> ";
    if (text_add(into, "\"", 1) < 0 || text_add(into, (const char *)start, (size_t)(p - start)) < 0) {
        return -1;
    }
    return (decimal ? text_add(into, decimal_type, sizeof(decimal_type) - 1)
                    : text_add(into, integer, sizeof(integer) - 1)) < 0
               ? -1
               : 0;
}

/* One statement's line: subject, predicate, ``object``, graph. */
static int put_statement(Reader *r, const Text *object) {
    Text *out = &r->out;
    if (text_add(out, r->subject.text, r->subject.length) < 0 || text_add(out, r->predicate.text, r->predicate.length) < 0 ||
        text_add(out, object->text, object->length) < 0 || text_add(out, r->graph.text, r->graph.length) < 0 ||
        text_add(out, ".\n", 2) < 0) {
        return -1;
    }
    return 0;
}

/* predicateObjectList (Turtle [7]), after the subject, which is in r->subject. */
static int predicate_objects(Reader *r) {
    Text object = {NULL, 0, 0};
    int status = 0;
    for (;;) {
        if ((status = skip(r))) {
            break;
        }
        /* verb: 'a' or an IRI */
        if (r->end - r->at >= 2 && r->at[0] == 'a' && (is_space(r->at[1]) || r->at[1] == '<' || r->at[1] == '"')) {
            static const char type[] = "<" RDF_NS "type> ";
            r->predicate.length = 0;
            r->at++;
            status = text_add(&r->predicate, type, sizeof(type) - 1) < 0 ? -1 : 0;
        } else {
            status = resource(r, &r->predicate, 0);
        }
        if (status) {
            break;
        }
        /* objectList */
        for (;;) {
            if ((status = skip(r))) {
                break;
            }
            if (r->at >= r->end) {
                status = DECLINE;
                break;
            }
            unsigned char c = *r->at;
            object.length = 0;
            if (c == '<' || c == '_' || is_letter(c) || c == ':') {
                if ((c == 't' || c == 'f') && r->end - r->at >= 4 &&
                    (memcmp(r->at, "true", 4) == 0 || (r->end - r->at >= 5 && memcmp(r->at, "false", 5) == 0))) {
                    status = literal(r, &object);
                    if (status == DECLINE) { /* true:x, falsehood:y ... : a prefixed name */
                        status = resource(r, &object, 1);
                    }
                } else {
                    status = resource(r, &object, 1);
                }
            } else if (c == '"' || c == '\'' || c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')) {
                status = literal(r, &object);
            } else {
                status = DECLINE; /* [ ], ( ), << >>, ... */
            }
            if (status || (status = put_statement(r, &object)) || (status = skip(r))) {
                break;
            }
            if (r->at < r->end && *r->at == ',') {
                r->at++;
                continue;
            }
            break;
        }
        if (status) {
            break;
        }
        if (r->at < r->end && *r->at == ';') {
            while (r->at < r->end && *r->at == ';') {
                r->at++;
                if ((status = skip(r))) {
                    break;
                }
            }
            if (status) {
                break;
            }
            if (r->at < r->end && (*r->at == '.' || *r->at == '}')) {
                break;
            }
            continue;
        }
        break;
    }
    PyMem_Free(object.text);
    return status;
}

/* A directive (Turtle [3] to [6s]) at r->at: '@prefix', '@base', 'PREFIX', 'BASE'. 0 and
 * ``*found`` 0: none here. */
static int directive(Reader *r, int *found) {
    int sparql, is_prefix;
    const unsigned char *directive_at = r->at;
    *found = 1;
    if (r->end - r->at >= 7 && memcmp(r->at, "@prefix", 7) == 0 && r->end - r->at > 7 && is_space(r->at[7])) {
        r->at += 7;
        sparql = 0, is_prefix = 1;
    } else if (r->end - r->at >= 5 && memcmp(r->at, "@base", 5) == 0 && r->end - r->at > 5 &&
               (is_space(r->at[5]) || r->at[5] == '<')) {
        r->at += 5;
        sparql = 0, is_prefix = 0;
    } else if (keyword(r, "prefix")) {
        sparql = 1, is_prefix = 1;
    } else if (keyword(r, "base")) {
        sparql = 1, is_prefix = 0;
    } else {
        *found = 0;
        return 0;
    }
    if (r->statements || directive_at - r->start >= r->directives_before) {
        return DECLINE; /* a directive after a statement, or in a piece's own text: its state would change */
    }
    TRY(skip(r));
    const unsigned char *name = r->at, *colon = r->at;
    if (is_prefix) {
        colon = prefix_end(r->at, r->end);
        if (colon >= r->end || *colon != ':') {
            return DECLINE;
        }
        r->at = colon + 1;
        TRY(skip(r));
    }
    const unsigned char *iri;
    size_t length;
    if (r->at >= r->end || *r->at != '<') {
        return DECLINE;
    }
    TRY(iri_ref(r, &iri, &length));
    if (is_prefix) {
        Prefix *prefix = prefix_named(r, name, (size_t)(colon - name));
        if (prefix == NULL) {
            if (r->count == MAX_PREFIXES) {
                return DECLINE;
            }
            prefix = &r->prefixes[r->count++];
            prefix->name = name;
            prefix->length = (size_t)(colon - name);
            prefix->iri.text = NULL;
            prefix->iri.size = 0;
        }
        prefix->iri.length = 0;
        if (text_add(&prefix->iri, (const char *)iri, length) < 0) {
            return -1;
        }
    }
    if (!sparql) {
        TRY(skip(r));
        if (r->at >= r->end || *r->at != '.') {
            return DECLINE;
        }
        r->at++;
    }
    return 0;
}

/* Statements until the end of the document or (in a graph block) its '}'. */
static int statements(Reader *r, int in_block) {
    for (;;) {
        TRY(skip(r));
        if (r->at >= r->end) {
            return in_block ? DECLINE : 0;
        }
        if (*r->at == '}') {
            if (!in_block) {
                return DECLINE;
            }
            r->at++;
            return 0;
        }
        int found;
        TRY(directive(r, &found));
        if (found) {
            if (in_block) {
                return DECLINE;
            }
            continue;
        }
        if (r->trig && !in_block) {
            int graph_keyword = keyword(r, "graph");
            if (graph_keyword) {
                TRY(skip(r));
            }
            if (r->at < r->end && *r->at == '{' && !graph_keyword) {
                r->at++;
                r->graph.length = 0; /* the default graph's block */
                TRY(statements(r, 1));
                continue;
            }
            TRY(resource(r, &r->subject, 1));
            TRY(skip(r));
            if (r->at < r->end && *r->at == '{') {
                /* a graph block: the term read is its label */
                r->graph.length = 0;
                if (text_add(&r->graph, r->subject.text, r->subject.length) < 0) {
                    return -1;
                }
                r->at++;
                TRY(statements(r, 1));
                r->graph.length = 0;
                continue;
            }
            if (graph_keyword) {
                return DECLINE;
            }
        } else {
            TRY(resource(r, &r->subject, 1));
        }
        r->statements = 1;
        TRY(predicate_objects(r));
        TRY(skip(r));
        if (r->at < r->end && *r->at == '.') {
            r->at++;
        } else if (!(in_block && r->at < r->end && *r->at == '}')) {
            return DECLINE;
        }
    }
}

static PyObject *nquads(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer view;
    int trig;
    Py_ssize_t directives_before = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "y*p|n:nquads", &view, &trig, &directives_before)) {
        return NULL;
    }
    Reader *r = PyMem_Calloc(1, sizeof(Reader));
    if (r == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    r->start = r->at = view.buf;
    r->end = r->at + view.len;
    r->trig = trig;
    r->directives_before = directives_before;
    int status = view.len >= 3 && memcmp(view.buf, "\xEF\xBB\xBF", 3) == 0 ? DECLINE : statements(r, 0);
    PyObject *result = reading_result(status, &r->out);
    for (int i = 0; i < r->count; i++) {
        PyMem_Free(r->prefixes[i].iri.text);
    }
    Text *texts[] = {&r->subject, &r->predicate, &r->graph, &r->datatype, &r->value, &r->scratch, &r->out};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        PyMem_Free(texts[i]->text);
    }
    PyMem_Free(r);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"nquads", nquads, METH_VARARGS,
     "nquads(document, trig, directives_before=len(document)) -> bytes or None: the N-Quads lines of a Turtle (or\n"
     "TriG) document of the common shape (directives, all before the first statement and before\n"
     "byte directives_before, then statements of absolute IRIs, prefixed names, labelled blank\n"
     "nodes and literals; graph blocks), as pyoxigraph reads them, literals escaped as ldids\n"
     "writes them; None: another shape, for pyoxigraph to read."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_turtle", NULL, 0, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__turtle(void) {
    iri_classes();
    return PyModule_Create(&module);
}
