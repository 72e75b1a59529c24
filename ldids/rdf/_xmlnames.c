/* Where a well-formed XML document may break the rules of Namespaces in XML, or nowhere.
 *
 * lxml's fast well-formedness check (an XMLParser whose target has only close()) reads XML 1.0
 * but does not report the errors of Namespaces in XML 1.0 that lxml's tree parser reports
 * (libxml2 raises them as namespace errors, which the target parser lets pass): a name that is
 * not a QName, an undeclared prefix, a prefix bound to "" or to a reserved namespace name, a
 * namespace name that is not a URI, two attributes with one expanded name, a colon in a
 * processing instruction's target or an entity's name. This finds the first tag where one of
 * those may stand, so that only such documents are read again by the tree parser.
 *
 * The contract: suspect() returns -1 only when the tree parser finds no namespace error in a
 * document the target parser accepted; else the offset of the '<' of the first start tag,
 * processing instruction or DOCTYPE that may hold one. It is a filter, held to lxml by a
 * differential test (tests/test_xmlnames.py): every check here errs toward flagging, and none
 * of them flags the RDF/XML dumps are made of. On bytes that are not XML any answer will do, but
 * nothing is read outside the buffer.
 *
 * Namespaces in XML 1.0 (third edition): https://www.w3.org/TR/xml-names/ (section 3, declaring
 * namespaces; section 4, QNames; section 5, using them; section 6.3, unique attributes; section 7,
 * conformance: no colon in PI targets, entity or notation names).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Namespaces declared by the open elements, all at once: a document with more is flagged. */
#define MAX_DECLARATIONS 1024
/* Prefixed attributes of one tag: a tag with more is flagged. */
#define MAX_ATTRIBUTES 64

#define NO_ERROR ((Py_ssize_t)-1)

typedef struct {
    const unsigned char *start;
    size_t length;
} Span;

/* A prefix declared by an open element, with the element's depth (the root's is 1). */
typedef struct {
    Span prefix;
    size_t depth;
} Declaration;

typedef struct {
    Declaration declarations[MAX_DECLARATIONS];
    int count;
    size_t depth;
    /* Where a prefix was last found, by a hash of it: a dump uses a few prefixes declared on its
     * root, each found by one comparison instead of a search of the scope. */
    int hints[64];
} Scope;

/* A prefixed attribute of the tag being read: its prefix and local part. */
typedef struct {
    Span prefix, local;
} Attribute;

enum { NAME = 0, COLON = 1, STOP = 2 };

/* What ends a name in a tag (XML 1.0 2.3: S, '=', '/', '>'; the rest cannot stand there in a
 * well-formed tag, and end it all the same in one that is not). */
static unsigned char name_class[256];

/* RFC 3986 pchar but the percent-encoded ones: unreserved, sub-delims, ':' and '@'. '&' is a
 * sub-delim, but a raw '&' in an attribute value starts a reference, whose value is not read
 * here: excluded, flagged. */
static unsigned char pchar[256];

static void classes(void) {
    const char *stops = " \t\r\n/>=\"'<";
    for (const char *s = stops; *s; s++) {
        name_class[(unsigned char)*s] = STOP;
    }
    name_class[':'] = COLON;
    for (int c = 'a'; c <= 'z'; c++) {
        pchar[c] = pchar[c - 'a' + 'A'] = 1;
    }
    for (int c = '0'; c <= '9'; c++) {
        pchar[c] = 1;
    }
    for (const char *s = "-._~!$'()*+,;=:@"; *s; s++) {
        pchar[(unsigned char)*s] = 1;
    }
}

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int is_hex(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }

static int is_alpha(unsigned char c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }

/* Whether two short runs of bytes are equal: prefixes and local names are a few bytes long,
 * shorter than a call to memcmp. */
static inline int equal(const unsigned char *a, const unsigned char *b, size_t length) {
    for (size_t i = 0; i < length; i++) {
        if (a[i] != b[i]) {
            return 0;
        }
    }
    return 1;
}

static inline int same(Span a, const char *word) {
    return a.length == strlen(word) && equal(a.start, (const unsigned char *)word, a.length);
}

/* The first ``length`` bytes ``needle`` from ``p`` on, before ``end``; or NULL. */
static const unsigned char *find(const unsigned char *p, const unsigned char *end, const char *needle, size_t length) {
    for (;;) {
        p = memchr(p, needle[0], (size_t)(end - p));
        if (p == NULL || (size_t)(end - p) < length) {
            return NULL;
        }
        if (memcmp(p, needle, length) == 0) {
            return p;
        }
        p++;
    }
}

static int contains(Span text, const char *needle) {
    return find(text.start, text.start + text.length, needle, strlen(needle)) != NULL;
}

/* pchar / "/" / "?" and percent-encodings from ``p`` on, as RFC 3986 3.4, 3.5 allow in a query
 * or fragment (with ``query`` 0: pchar / "/", a path, section 3.3); where they end. */
static const unsigned char *uri_chars(const unsigned char *p, const unsigned char *end, int query) {
    while (p < end) {
        if (pchar[*p] || *p == '/' || (query && *p == '?')) {
            p++;
        } else if (*p == '%' && end - p >= 3 && is_hex(p[1]) && is_hex(p[2])) {
            p += 3;
        } else {
            break;
        }
    }
    return p;
}

/* Whether libxml2 surely takes a namespace name as a URI reference: it reports one it cannot
 * parse (RFC 3986 4.1) as an error, where Namespaces in XML 1.0 section 2 only asks for one.
 * A strict subset of RFC 3986: a scheme, or a relative reference whose first segment has no
 * colon (4.2); an authority of a registered name and a port of at most 5 digits (libxml2
 * refuses an empty or overflowing one), no userinfo, no IP literal; a path; a query; a
 * fragment. Anything else (a space, non-ASCII, a reference) is flagged. */
static int plain_uri(Span value) {
    const unsigned char *p = value.start, *end = value.start + value.length;
    const unsigned char *q = p;
    if (q < end && is_alpha(*q)) {
        while (q < end && (is_alpha(*q) || (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.')) {
            q++;
        }
    }
    if (q > p && q < end && *q == ':') {
        p = q + 1; /* a scheme: the rest is its hierarchical part */
    } else {
        const unsigned char *segment = p;
        while (segment < end && *segment != '/' && *segment != '?' && *segment != '#') {
            if (*segment++ == ':') {
                return 0;
            }
        }
    }
    if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
        p += 2;
        while (p < end) {
            if (*p == '%' && end - p >= 3 && is_hex(p[1]) && is_hex(p[2])) {
                p += 3;
            } else if (pchar[*p] && *p != ':' && *p != '@') {
                p++;
            } else {
                break;
            }
        }
        if (p < end && *p == ':') {
            const unsigned char *digits = ++p;
            while (p < end && *p >= '0' && *p <= '9') {
                p++;
            }
            if (p == digits || p - digits > 5) {
                return 0;
            }
        }
        if (p < end && *p != '/' && *p != '?' && *p != '#') {
            return 0;
        }
    }
    p = uri_chars(p, end, 0);
    if (p < end && *p == '?') {
        p = uri_chars(p + 1, end, 1);
    }
    if (p < end && *p == '#') {
        p = uri_chars(p + 1, end, 1);
    }
    return p == end;
}

/* Whether a namespace declaration may be an error (Namespaces in XML 1.0 section 3): the
 * prefixes xml and xmlns are bound once and for all (xmlns:xml may only repeat its binding:
 * flagged all the same), their namespace names are bound to nothing else, a prefix is not
 * bound to "" (that is Namespaces 1.1), and the name is a URI reference (libxml2's own rule). */
static int bad_declaration(Span prefix, int prefixed, Span value) {
    if (prefixed && (value.length == 0 || same(prefix, "xml") || same(prefix, "xmlns"))) {
        return 1;
    }
    if (contains(value, "www.w3.org/XML/1998/namespace") || contains(value, "www.w3.org/2000/xmlns")) {
        return 1;
    }
    return value.length != 0 && !plain_uri(value);
}

/* Whether a name in a tag is surely a QName (Namespaces in XML 1.0 section 4): at most one
 * colon, neither first nor last, and a local part that starts as an NCName may. XML 1.0 made
 * sure the whole is a Name; of the name characters a Name may hold after its first, an NCName
 * may not start with a digit, '-', '.', U+00B7, U+0300-U+036F, U+203F-U+2040 (XML 1.0 2.3): the
 * last three, and every other non-ASCII character, are flagged by their first byte. */
static int qname(const unsigned char *start, const unsigned char *end, const unsigned char *colon, int colons) {
    if (colons == 0) {
        return end > start;
    }
    if (colons > 1 || colon == start || colon + 1 == end) {
        return 0;
    }
    unsigned char first = colon[1];
    return !((first >= '0' && first <= '9') || first == '-' || first == '.' || first >= 0x80);
}

/* Where a name in a tag from ``p`` on ends, with its last colon and how many it has. The loop
 * that runs over most bytes of a dump's markup: one test a byte until a colon or the end. */
static inline const unsigned char *name_end(const unsigned char *p, const unsigned char *end, const unsigned char **colon,
                                            int *colons) {
    for (;;) {
        while (p < end && name_class[*p] == NAME) {
            p++;
        }
        if (p == end || name_class[*p] == STOP) {
            return p;
        }
        *colon = p++;
        (*colons)++;
    }
}

/* Whether ``prefix`` is bound where it is used (Namespaces in XML 1.0 section 5): by the
 * element's own declarations or an ancestor's, or it is xml, bound by definition (section 3). */
static int declared(Scope *scope, Span prefix) {
    int *hint = &scope->hints[(prefix.start[0] ^ prefix.length) & 63];
    if (*hint < scope->count) {
        const Declaration *d = &scope->declarations[*hint];
        if (d->prefix.length == prefix.length && equal(d->prefix.start, prefix.start, prefix.length)) {
            return 1;
        }
    }
    if (same(prefix, "xml")) {
        return 1;
    }
    for (int i = scope->count - 1; i >= 0; i--) {
        const Declaration *d = &scope->declarations[i];
        if (d->prefix.length == prefix.length && equal(d->prefix.start, prefix.start, prefix.length)) {
            *hint = i;
            return 1;
        }
    }
    return 0;
}

/* A start or empty-element tag after its '<': 0 and ``at`` after the tag when it surely keeps
 * the namespace rules; else 1. Its declarations stay on ``scope`` while it is open. */
static int tag(Scope *scope, const unsigned char **at, const unsigned char *end, Attribute *attributes) {
    const unsigned char *p = *at, *colon = NULL;
    int colons = 0;
    const unsigned char *name = p;
    p = name_end(p, end, &colon, &colons);
    if (!qname(name, p, colon, colons)) {
        return 1;
    }
    Span element_prefix = {name, colon ? (size_t)(colon - name) : 0};
    int count = 0, first = scope->count, empty;
    for (;;) {
        const unsigned char *before = p;
        while (p < end && is_space(*p)) {
            p++;
        }
        if (p >= end) {
            return 1;
        }
        if (*p == '>') {
            p++;
            empty = 0;
            break;
        }
        if (*p == '/') {
            if (end - p < 2 || p[1] != '>') {
                return 1;
            }
            p += 2;
            empty = 1;
            break;
        }
        if (p == before) {
            return 1; /* no space before an attribute: not XML */
        }
        const unsigned char *key = p;
        colon = NULL;
        colons = 0;
        p = name_end(p, end, &colon, &colons);
        if (!qname(key, p, colon, colons)) {
            return 1;
        }
        Span name_ = {key, (size_t)(p - key)};
        while (p < end && is_space(*p)) {
            p++;
        }
        if (p >= end || *p != '=') {
            return 1;
        }
        p++;
        while (p < end && is_space(*p)) {
            p++;
        }
        if (p >= end || (*p != '"' && *p != '\'')) {
            return 1;
        }
        const unsigned char *close = memchr(p + 1, *p, (size_t)(end - p - 1));
        if (close == NULL) {
            return 1;
        }
        Span value = {p + 1, (size_t)(close - p - 1)};
        p = close + 1;
        Span prefix = {key, colon ? (size_t)(colon - key) : 0};
        if (same(name_, "xmlns")) { /* the default namespace: no prefix to bind */
            if (bad_declaration(name_, 0, value)) {
                return 1;
            }
        } else if (colon && same(prefix, "xmlns")) {
            Span bound = {colon + 1, (size_t)(name_.start + name_.length - (colon + 1))};
            if (bad_declaration(bound, 1, value) || scope->count == MAX_DECLARATIONS) {
                return 1;
            }
            scope->declarations[scope->count].prefix = bound;
            scope->declarations[scope->count].depth = scope->depth + 1;
            scope->count++;
        } else if (colon) {
            if (count == MAX_ATTRIBUTES) {
                return 1;
            }
            attributes[count].prefix = prefix;
            attributes[count].local.start = colon + 1;
            attributes[count].local.length = (size_t)(name_.start + name_.length - (colon + 1));
            count++;
        }
    }
    /* Every prefix used is declared, the tag's own declarations included (section 5); xmlns is
     * never declared (section 3), so an element so prefixed is flagged. */
    if (element_prefix.length && (same(element_prefix, "xmlns") || !declared(scope, element_prefix))) {
        return 1;
    }
    for (int i = 0; i < count; i++) {
        if (!declared(scope, attributes[i].prefix)) {
            return 1;
        }
        /* No two attributes with one expanded name (section 6.3): two prefixed attributes with
         * one local part are flagged, whatever their prefixes are bound to. An unprefixed
         * attribute is in no namespace, and a prefixed one always in one. */
        for (int j = 0; j < i; j++) {
            if (attributes[i].local.length == attributes[j].local.length &&
                equal(attributes[i].local.start, attributes[j].local.start, attributes[i].local.length)) {
                return 1;
            }
        }
    }
    if (empty) {
        scope->count = first; /* an empty element's declarations are its own */
    } else {
        scope->depth++;
    }
    *at = p;
    return 0;
}

/* Whether the bytes are read as ASCII is: an encoding in which '<', quotes, ':' and the rest of
 * the markup are the bytes this reads (XML 1.0 4.3.3, appendix F). No byte-order mark but
 * UTF-8's, no NUL among the first bytes (UTF-16 or UTF-32 without a mark), and a declared
 * encoding of UTF-8, ASCII, ISO-8859-n or windows-125n; anything else is flagged. */
static int ascii_compatible(const unsigned char *p, const unsigned char *end) {
    if (end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        p += 3;
    }
    if (p == end) {
        return 1;
    }
    if (*p != '<' && !is_space(*p)) {
        return 0;
    }
    if (end - p >= 2 && p[1] == 0) {
        return 0;
    }
    if (end - p < 6 || memcmp(p, "<?xml", 5) != 0 || !is_space(p[5])) {
        return 1;
    }
    const unsigned char *close = find(p, end, "?>", 2);
    if (close == NULL) {
        return 0;
    }
    const unsigned char *e = find(p, close, "encoding", 8);
    if (e == NULL) {
        return 1;
    }
    e += 8;
    while (e < close && (is_space(*e) || *e == '=')) {
        e++;
    }
    if (e >= close || (*e != '"' && *e != '\'')) {
        return 0;
    }
    const unsigned char *start = e + 1, *stop = memchr(start, *e, (size_t)(close - start));
    if (stop == NULL) {
        return 0;
    }
    char name[16];
    size_t length = (size_t)(stop - start);
    if (length >= sizeof(name)) {
        return 0;
    }
    for (size_t i = 0; i < length; i++) {
        name[i] = (char)(start[i] >= 'A' && start[i] <= 'Z' ? start[i] | 32 : start[i]);
    }
    name[length] = 0;
    if (!strcmp(name, "utf-8") || !strcmp(name, "us-ascii") || !strcmp(name, "ascii")) {
        return 1;
    }
    const char *rest = NULL;
    if (!strncmp(name, "iso-8859-", 9)) {
        rest = name + 9;
    } else if (!strncmp(name, "windows-125", 11)) {
        rest = name + 11;
    }
    if (rest == NULL || *rest == 0) {
        return 0;
    }
    for (; *rest; rest++) {
        if (*rest < '0' || *rest > '9') {
            return 0;
        }
    }
    return 1;
}

static Py_ssize_t scan(const unsigned char *base, Py_ssize_t size, Scope *scope, Attribute *attributes) {
    const unsigned char *p = base, *end = base + size;
    if (!ascii_compatible(p, end)) {
        return 0;
    }
    for (;;) {
        p = memchr(p, '<', (size_t)(end - p));
        if (p == NULL) {
            return NO_ERROR;
        }
        const unsigned char *lt = p++;
        if (p >= end) {
            return lt - base;
        }
        if (*p == '/') {
            /* An end tag closes the element whose declarations go out of scope. Its name is
             * XML's to match; it holds no '>' and no quote. */
            while (scope->count > 0 && scope->declarations[scope->count - 1].depth >= scope->depth) {
                scope->count--;
            }
            if (scope->depth > 0) {
                scope->depth--;
            }
            p = memchr(p, '>', (size_t)(end - p));
            if (p == NULL) {
                return lt - base;
            }
        } else if (*p == '!') {
            const unsigned char *close;
            if (end - p >= 3 && p[1] == '-' && p[2] == '-') {
                close = find(p + 3, end, "-->", 3);
            } else if (end - p >= 8 && memcmp(p, "![CDATA[", 8) == 0) {
                close = find(p + 8, end, "]]>", 3);
            } else {
                /* A DOCTYPE: its entities and notations may have colons in their names (section 7),
                 * and its attribute defaults may declare namespaces. Not in dumps: flagged. */
                return lt - base;
            }
            if (close == NULL) {
                return lt - base;
            }
            p = close + 3;
        } else if (*p == '?') {
            /* A processing instruction's target has no colon (section 7). */
            p++;
            while (p < end && !is_space(*p) && *p != '?') {
                if (*p++ == ':') {
                    return lt - base;
                }
            }
            const unsigned char *close = find(p, end, "?>", 2);
            if (close == NULL) {
                return lt - base;
            }
            p = close + 2;
        } else if (tag(scope, &p, end, attributes)) {
            return lt - base;
        }
    }
}

static PyObject *suspect(PyObject *module, PyObject *arg) {
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Scope *scope = PyMem_Malloc(sizeof(Scope));
    Attribute *attributes = PyMem_Malloc(MAX_ATTRIBUTES * sizeof(Attribute));
    if (scope == NULL || attributes == NULL) {
        PyMem_Free(scope);
        PyMem_Free(attributes);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    memset(scope, 0, sizeof(*scope));
    Py_ssize_t found;
    /* No Python object is touched while the bytes are read, and the export keeps them where they
     * are: other threads may run. */
    Py_BEGIN_ALLOW_THREADS
    found = scan(view.buf, view.len, scope, attributes);
    Py_END_ALLOW_THREADS
    PyMem_Free(scope);
    PyMem_Free(attributes);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(found);
}

static PyMethodDef methods[] = {
    {"suspect", suspect, METH_O,
     "suspect(document) -> int: -1 when a well-formed XML document surely keeps the rules of\n"
     "Namespaces in XML 1.0 that lxml's tree parser checks and its target parser does not; else\n"
     "the offset of the '<' of the first start tag, processing instruction or DOCTYPE that may\n"
     "break one."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_xmlnames", NULL, 0, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__xmlnames(void) {
    classes();
    return PyModule_Create(&module);
}
