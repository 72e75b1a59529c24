/* What the compiled readers of the common shapes of RDF/XML and Turtle (ldids/rdf/_rdfxml.c,
 * ldids/rdf/_turtle.c) share: a growing text, the checks that decide whether pyoxigraph would
 * keep an IRI or a language tag as it is written, and literals written as ldids writes them.
 * Each reader includes it; nothing here is exported. */
#ifndef LDIDS_COMMON_SHAPE_H
#define LDIDS_COMMON_SHAPE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define RDF_NS_LENGTH (sizeof(RDF_NS) - 1)
#define XSD_NS "http://www.w3.org/2001/XMLSchema#"
#define DECLINE 1 /* what a reader's steps return to say: not this document */

/* A step that fails (-1, an exception set) or declines (DECLINE) ends the reading. */
#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        int status_ = (call);                                                                                          \
        if (status_) {                                                                                                 \
            return status_;                                                                                            \
        }                                                                                                              \
    } while (0)

typedef struct {
    char *text;
    size_t length, size;
} Text;

static int text_grow(Text *text, size_t length);

static inline int text_add(Text *text, const char *bytes, size_t length) {
    if (length == 0) {
        return 0; /* bytes may be NULL (an empty text never grown): no memcpy of it, even of 0 bytes */
    }
    if (text->length + length > text->size && text_grow(text, length) < 0) {
        return -1;
    }
    memcpy(text->text + text->length, bytes, length);
    text->length += length;
    return 0;
}

static int text_grow(Text *text, size_t length) {
    size_t size = text->size ? text->size : 4096;
    while (text->length + length > size) {
        size *= 2;
    }
    char *grown = PyMem_Realloc(text->text, size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    text->text = grown;
    text->size = size;
    return 0;
}

static void put_utf8(char *out, size_t *length, uint32_t code) {
    if (code < 0x80) {
        out[(*length)++] = (char)code;
    } else if (code < 0x800) {
        out[(*length)++] = (char)(0xC0 | (code >> 6));
        out[(*length)++] = (char)(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out[(*length)++] = (char)(0xE0 | (code >> 12));
        out[(*length)++] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[(*length)++] = (char)(0x80 | (code & 0x3F));
    } else {
        out[(*length)++] = (char)(0xF0 | (code >> 18));
        out[(*length)++] = (char)(0x80 | ((code >> 12) & 0x3F));
        out[(*length)++] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[(*length)++] = (char)(0x80 | (code & 0x3F));
    }
}

static int is_hex(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }

static int is_alnum(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The characters of RFC 3986 by where they may stand (3.2 to 3.5): unreserved, sub-delims and
 * ':' in an authority; those, '@', '/' and '?' in a path, query or fragment. '%' and '#'
 * are read apart. */
enum { IN_AUTHORITY = 1, IN_PATH = 2 };
static unsigned char iri_class[256];

static void iri_classes(void) {
    for (int c = 0; c < 128; c++) {
        if (is_alnum((unsigned char)c) || (c != 0 && strchr("-._~!$&'()*+,;=:", c) != NULL)) {
            iri_class[c] = IN_AUTHORITY | IN_PATH;
        } else if (c != 0 && strchr("@/?", c) != NULL) {
            iri_class[c] = IN_PATH;
        }
    }
}

/* Whether ``iri`` is an absolute IRI that pyoxigraph keeps as it is written: ASCII, a scheme,
 * an authority of a registered name (no IP literal) with an optional port of digits, and a
 * path, query and fragment of RFC 3986's characters (3.3 to 3.5). Not sure: no. */
static int plain_iri(const char *iri, size_t length) {
    const char *p = iri, *end = iri + length;
    if (p == end || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
        return 0;
    }
    while (p < end && (is_alnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')) {
        p++;
    }
    if (p == end || *p != ':') {
        return 0;
    }
    p++;
    if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
        p += 2;
        const char *host = p;
        int at = 0;
        while (p < end && *p != '/' && *p != '?' && *p != '#') {
            unsigned char c = (unsigned char)*p;
            if (c == '@') {
                if (at++) {
                    return 0;
                }
                host = p + 1;
            } else if (c == '%') {
                if (end - p < 3 || !is_hex((unsigned char)p[1]) || !is_hex((unsigned char)p[2])) {
                    return 0;
                }
                p += 2;
            } else if (!(iri_class[c] & IN_AUTHORITY)) {
                return 0;
            }
            p++;
        }
        /* host[:port]: a colon in the host part starts the port, which is digits */
        const char *colon = memchr(host, ':', (size_t)(p - host));
        if (colon != NULL) {
            if (colon + 1 == p) {
                return 0;
            }
            for (const char *d = colon + 1; d < p; d++) {
                if (*d < '0' || *d > '9') {
                    return 0;
                }
            }
        }
    }
    int fragment = 0;
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%') {
            if (end - p < 3 || !is_hex((unsigned char)p[1]) || !is_hex((unsigned char)p[2])) {
                return 0;
            }
            p += 2;
        } else if (c == '#') {
            if (fragment++) {
                return 0;
            }
        } else if (!(iri_class[c] & IN_PATH)) {
            return 0;
        }
    }
    return 1;
}

static int alpha_run(const char *p, size_t length) {
    for (size_t i = 0; i < length; i++) {
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z'))) {
            return 0;
        }
    }
    return 1;
}

static int digit_run(const char *p, size_t length) {
    for (size_t i = 0; i < length; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return 0;
        }
    }
    return 1;
}

/* A language tag of BCP 47's common shape, language ["-" script] ["-" region] (RFC 5646 2.1:
 * 2*3ALPHA, 4ALPHA, 2ALPHA / 3DIGIT); the rest of the grammar (extlang, variants, extensions,
 * private use, grandfathered tags) declines. */
static int plain_language(const char *tag, size_t length) {
    const char *p = tag, *end = tag + length;
    const char *dash = memchr(p, '-', length);
    size_t n = (size_t)((dash ? dash : end) - p);
    if (n < 2 || n > 3 || !alpha_run(p, n)) {
        return 0;
    }
    p += n;
    int part = 0; /* 0: script next, 1: region next, 2: nothing more */
    while (p < end) {
        p++; /* the dash */
        dash = memchr(p, '-', (size_t)(end - p));
        n = (size_t)((dash ? dash : end) - p);
        if (part == 0 && n == 4 && alpha_run(p, n)) {
            part = 1;
        } else if (part <= 1 && ((n == 2 && alpha_run(p, n)) || (n == 3 && digit_run(p, n)))) {
            part = 2;
        } else {
            return 0;
        }
        p += n;
    }
    return 1;
}

/* A literal's text as ldids writes it in N-Quads: '"', '\' and LF escaped (CR too, which
 * only a character reference can give here), everything else as it is. */
static int put_literal_text(Text *out, const Text *value) {
    if (text_add(out, "\"", 1) < 0) {
        return -1;
    }
    if (value->length == 0) {
        return text_add(out, "\"", 1); /* "": no pointer arithmetic on an empty text's NULL */
    }
    const char *p = value->text, *end = value->text + value->length, *copied = p;
    for (; p < end; p++) {
        const char *escape = NULL;
        switch (*p) {
        case '"': escape = "\\\""; break;
        case '\\': escape = "\\\\"; break;
        case '\n': escape = "\\n"; break;
        case '\r': escape = "\\r"; break;
        default: continue;
        }
        if (text_add(out, copied, (size_t)(p - copied)) < 0 || text_add(out, escape, 2) < 0) {
            return -1;
        }
        copied = p + 1;
    }
    return text_add(out, copied, (size_t)(end - copied)) < 0 || text_add(out, "\"", 1) < 0 ? -1 : 0;
}

/* A language tag, lowercased as pyoxigraph writes it. */
static int put_language(Text *out, const char *tag, size_t length) {
    if (text_add(out, "@", 1) < 0) {
        return -1;
    }
    for (size_t i = 0; i < length; i++) {
        char c = tag[i];
        c = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        if (text_add(out, &c, 1) < 0) {
            return -1;
        }
    }
    return 0;
}

/* What a reader's nquads() returns for the ``status`` of its reading: the lines it wrote
 * (``out``), None where it declined, NULL where an exception is set. */
static PyObject *reading_result(int status, const Text *out) {
    if (status == 0) {
        return PyBytes_FromStringAndSize(out->text ? out->text : "", (Py_ssize_t)out->length);
    }
    return status == DECLINE ? Py_NewRef(Py_None) : NULL;
}

#endif
