/*
 * ldids.dumps._scan: the per-line loop of ldids.dumps.stream.process_block, compiled.
 *
 * ldids/dumps/stream.py holds the reference implementation in Python and says what a block's
 * processing means; this module does the same work without running Python code for the
 * lines that need none, which is most of a dump. It checks each line against the
 * N-Triples/N-Quads statement grammar (RDF 1.1 N-Triples §7, N-Quads §7), its IRIs against
 * RFC 3987 and its language tags against BCP 47 (as ldids/dumps/grammar.py does), copies lines
 * without an identifier candidate byte for byte, and for each candidate term looks up a
 * memo of decisions; only a term never seen before calls back into Python, where the
 * scheme modules decide. Lines the Python side must see whole (owl:sameAs, identity
 * predicates, crosswalks, escaped predicates) and malformed lines go to callbacks.
 * Worker processes of one run may also share their decisions through a table in shared
 * memory (SharedDecisions, below), so that a term is decided once per run.
 *
 * The two implementations are held equal by tests/test_scan.py (tables and Hypothesis).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>
#ifndef _WIN32
#define MERGED_RUNS 1 /* pread() */
#include <unistd.h>
#endif

#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define SHARED_DECISIONS 1
#include <sys/mman.h>
#endif

/* -- Output buffer ------------------------------------------------------------------------ */

/* The block's output, written straight into the object that is returned: a block's output
 * is about as long as its input, and copying megabytes into a new object per block costs a
 * copy. The object is a new bytes object, or the caller's bytearray (``into``), which a
 * worker hands in block after block: a new object of megabytes is a fresh mapping from the
 * allocator each time, every page of it faulted in afresh (on a VM that gives freed pages
 * back to its host, ~500 faults a block and 7% more CPU for a run on two cores). */
typedef struct {
    PyObject *object; /* bytes or bytearray; NULL until the first reserve */
    char *text;       /* its contents */
    Py_ssize_t length;
    Py_ssize_t capacity;
    int reused; /* object is the caller's bytearray */
    /* The caller's writable memory, written in place while the output fits (a worker's
     * slot of memory shared with the coordinator, which writes the output from there: no
     * copy of it into the slot afterwards, ~1 GB at 10M triples), and view, the memoryview
     * it is of; NULL otherwise, and once the output outgrows it (it goes on in a new bytes
     * object, what was written copied over). */
    Py_buffer *fixed;
    PyObject *view;
} Buffer;

static int buffer_reserve(Buffer *buffer, Py_ssize_t more) {
    if (buffer->length + more <= buffer->capacity) {
        return 0;
    }
    Py_ssize_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity < buffer->length + more) {
        capacity = buffer->capacity ? capacity * 2 : buffer->length + more; /* the first: as asked */
    }
    if (buffer->fixed != NULL) {
        PyObject *object = PyBytes_FromStringAndSize(NULL, capacity);
        if (object == NULL) {
            return -1;
        }
        memcpy(PyBytes_AS_STRING(object), buffer->text, (size_t)buffer->length);
        buffer->fixed = NULL;
        buffer->object = object;
        buffer->text = PyBytes_AS_STRING(object);
        buffer->capacity = capacity;
        return 0;
    }
    if (buffer->reused) {
        /* Resizing within what the bytearray holds allocated only sets its length. */
        if (PyByteArray_Resize(buffer->object, capacity) < 0) {
            return -1;
        }
        buffer->text = PyByteArray_AS_STRING(buffer->object);
    } else {
        if (buffer->object == NULL) {
            buffer->object = PyBytes_FromStringAndSize(NULL, capacity);
            if (buffer->object == NULL) {
                return -1;
            }
        } else if (_PyBytes_Resize(&buffer->object, capacity) < 0) {
            return -1; /* the object is gone (object is NULL) */
        }
        buffer->text = PyBytes_AS_STRING(buffer->object);
    }
    buffer->capacity = capacity;
    return 0;
}

static int buffer_add(Buffer *buffer, const char *text, Py_ssize_t length) {
    if (buffer_reserve(buffer, length) < 0) {
        return -1;
    }
    memcpy(buffer->text + buffer->length, text, (size_t)length);
    buffer->length += length;
    return 0;
}

/* A line copied as it came, with its line break (LF if it had none: the last of a block). */
static int add_line(Buffer *buffer, const unsigned char *line, Py_ssize_t keep, int ended) {
    if (buffer_add(buffer, (const char *)line, keep) < 0) {
        return -1;
    }
    return ended ? 0 : buffer_add(buffer, "\n", 1);
}

/* The object written (a new reference; the buffer is left empty), or NULL on error. */
static PyObject *buffer_finish(Buffer *buffer) {
    if (buffer->fixed != NULL) {
        buffer->fixed = NULL;
        return PySequence_GetSlice(buffer->view, 0, buffer->length); /* a view of what was written */
    }
    PyObject *object = buffer->object;
    buffer->object = NULL;
    if (object == NULL) {
        return PyBytes_FromStringAndSize(NULL, 0);
    }
    if (buffer->reused) {
        if (PyByteArray_Resize(object, buffer->length) < 0) {
            Py_DECREF(object);
            return NULL;
        }
        return object;
    }
    if (_PyBytes_Resize(&object, buffer->length) < 0) {
        return NULL; /* the object is gone */
    }
    return object;
}

/* -- UTF-8 (strict, as Python's decoder: no overlongs, surrogates or code points past
 *    U+10FFFF) ------------------------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s[0..available), or 0 if it is not one. */
static int utf8_length(const unsigned char *s, Py_ssize_t available) {
    unsigned char c = s[0];
    if (c < 0x80) {
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        return available >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (available < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) {
            return 0;
        }
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)) {
            return 0; /* overlong, or a UTF-16 surrogate */
        }
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (available < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) {
            return 0;
        }
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)) {
            return 0; /* overlong, or past U+10FFFF */
        }
        return 4;
    }
    return 0;
}

static int valid_utf8(const unsigned char *s, Py_ssize_t length) {
    Py_ssize_t i = 0;
    /* Most lines are ASCII: eight bytes at a time while no byte has its high bit set. */
    while (i + 8 <= length) {
        uint64_t word;
        memcpy(&word, s + i, sizeof word);
        if (word & UINT64_C(0x8080808080808080)) {
            break;
        }
        i += 8;
    }
    while (i < length) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        int n = utf8_length(s + i, length - i);
        if (n == 0) {
            return 0;
        }
        i += n;
    }
    return 1;
}

/* The code point of the valid UTF-8 sequence at s, and its length in *n. */
static Py_UCS4 code_point(const unsigned char *s, Py_ssize_t available, int *n) {
    *n = utf8_length(s, available);
    switch (*n) {
    case 1:
        return s[0];
    case 2:
        return ((Py_UCS4)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    case 3:
        return ((Py_UCS4)(s[0] & 0x0F) << 12) | ((Py_UCS4)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    case 4:
        return ((Py_UCS4)(s[0] & 0x07) << 18) | ((Py_UCS4)(s[1] & 0x3F) << 12) | ((Py_UCS4)(s[2] & 0x3F) << 6) |
               (s[3] & 0x3F);
    default:
        return 0;
    }
}

/* -- The statement grammar -------------------------------------------------------------------- */

/* What an ASCII character may be in the components of an IRI (RFC 3987 §2.2): bits of
 * iri_class, combined per component below. Percent-encodings and non-ASCII characters are
 * checked apart. */
enum { IRI_UNRESERVED_SUB_DELIMS = 1, IRI_COLON = 2, IRI_AT = 4, IRI_SLASH = 8, IRI_QUESTION = 16 };
#define IRI_USERINFO (IRI_UNRESERVED_SUB_DELIMS | IRI_COLON)
#define IRI_HOST IRI_UNRESERVED_SUB_DELIMS
#define IRI_PATH (IRI_UNRESERVED_SUB_DELIMS | IRI_COLON | IRI_AT | IRI_SLASH)
#define IRI_QUERY (IRI_PATH | IRI_QUESTION) /* the fragment's too; the query also takes iprivate */
static unsigned char iri_class[128];

/* IRIREF's characters besides UCHAR (IRI_PLAIN): anything but controls, space and
 * <>"{}|^`\\ (N-Triples [8]); bytes of multi-byte UTF-8 sequences are all allowed (a
 * statement is checked to be UTF-8 before its terms are checked further). And what
 * iri_term_valid needs to know of them. Most IRIs hold only ASCII characters that are valid in any part of an IRI once its
 * scheme and authority are found (unreserved, sub-delims, ":", "@", "/", "?") and at most
 * one "#" (IRI_HASH): those are checked by their scheme and authority alone. An IRI with
 * any other character (IRI_OTHER: "%", "[", "]", DEL, an escape, non-ASCII) or a second
 * "#" is checked whole. */
enum { IRI_PLAIN = 1, IRI_OTHER = 2, IRI_HASH = 4 };
static unsigned char iri_byte[256];

static void init_tables(void) {
    for (int c = 0; c < 256; c++) {
        int plain = c > 0x20 && strchr("<>\"{}|^`\\", c) == NULL;
        int alphanumeric = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        int any_part = alphanumeric || (c != 0 && c < 0x80 && strchr("-._~!$&'()*+,;=:@/?", c) != NULL);
        iri_byte[c] = (unsigned char)(plain ? IRI_PLAIN | (c == '#' ? IRI_HASH : any_part ? 0 : IRI_OTHER) : 0);
    }
    for (int c = 0; c < 128; c++) {
        int unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         (c != 0 && strchr("-._~!$&'()*+,;=", c) != NULL);
        iri_class[c] = (unsigned char)((unreserved ? IRI_UNRESERVED_SUB_DELIMS : 0) | (c == ':' ? IRI_COLON : 0) |
                                       (c == '@' ? IRI_AT : 0) | (c == '/' ? IRI_SLASH : 0) |
                                       (c == '?' ? IRI_QUESTION : 0));
    }
}

static int is_hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int hex_value(unsigned char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c; }

/* PN_CHARS_U and [0-9], which may start a blank node label (N-Triples [141s], [163s]). */
static int pn_start(Py_UCS4 c) {
    return is_alpha((unsigned char)(c < 0x80 ? c : 0)) || (c >= '0' && c <= '9') || c == '_' ||
           (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
           (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) || (c >= 0x200C && c <= 0x200D) ||
           (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
           (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
}

/* PN_CHARS (N-Triples [166s]). */
static int pn_rest(Py_UCS4 c) {
    return pn_start(c) || c == '-' || c == 0xB7 || (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}

static Py_ssize_t skip_ws(const unsigned char *s, Py_ssize_t p, Py_ssize_t end) {
    while (p < end && (s[p] == ' ' || s[p] == '\t')) {
        p++;
    }
    return p;
}

/* UCHAR after its backslash: 'u' HEX{4} or 'U' HEX{8} naming a Unicode scalar value (no
 * UTF-16 surrogate, nothing past U+10FFFF: those name no character, and make the line a
 * bad one); the position after it, or -1. */
static Py_ssize_t uchar(const unsigned char *s, Py_ssize_t p, Py_ssize_t end) {
    int digits = p < end && s[p] == 'u' ? 4 : p < end && s[p] == 'U' ? 8 : 0;
    if (digits == 0 || end - p - 1 < digits) {
        return -1;
    }
    uint32_t value = 0;
    for (int i = 1; i <= digits; i++) {
        if (!is_hex(s[p + i])) {
            return -1;
        }
        value = value << 4 | (uint32_t)hex_value(s[p + i]);
    }
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
        return -1;
    }
    return p + 1 + digits;
}

/* IRIREF at s[p] == '<' (N-Triples [8]); the position after it, or -1. In *shape, what
 * iri_term_valid needs to know of its characters (IRI_OTHER). */
static Py_ssize_t iri(const unsigned char *s, Py_ssize_t p, Py_ssize_t end, unsigned char *shape) {
    unsigned seen = 0, hashes = 0;
    p++;
    while (p < end) {
        unsigned char kind = iri_byte[s[p]];
        if (kind & IRI_PLAIN) {
            seen |= kind;
            hashes += kind & IRI_HASH;
            p++;
        } else if (s[p] == '>') {
            *shape = (unsigned char)((seen & IRI_OTHER) | (hashes > IRI_HASH ? IRI_OTHER : 0));
            return p + 1;
        } else if (s[p] == '\\') {
            seen |= IRI_OTHER;
            p = uchar(s, p + 1, end);
            if (p < 0) {
                return -1;
            }
        } else {
            return -1;
        }
    }
    return -1;
}

/* BLANK_NODE_LABEL at s[p] == '_' (N-Triples [141s]), matched longest first: the label
 * takes every label character it can, and gives back only trailing dots. */
static Py_ssize_t blank_node(const unsigned char *s, Py_ssize_t p, Py_ssize_t end) {
    int n;
    if (end - p < 3 || s[p + 1] != ':' || !pn_start(code_point(s + p + 2, end - p - 2, &n))) {
        return -1;
    }
    p += 2 + n;
    Py_ssize_t last = p; /* after the last PN_CHARS */
    while (p < end) {
        if (s[p] == '.') {
            p++;
            continue;
        }
        Py_UCS4 c = code_point(s + p, end - p, &n);
        if (!pn_rest(c)) {
            break;
        }
        p += n;
        last = p;
    }
    return last;
}

typedef struct {
    Py_ssize_t start[4];
    Py_ssize_t stop[4];             /* start[3] < 0: no graph name */
    unsigned char shape[4];         /* of each IRI (iri), and of the datatype's in shape_datatype */
    unsigned char shape_datatype;
    Py_ssize_t language, datatype;  /* the object literal's LANGTAG (after '@') and datatype IRI, or -1 */
    Py_ssize_t language_stop;
    int spaced;                     /* white space between the object literal's terminals */
    Py_ssize_t end;                 /* where the statement ends: its comment, if any, starts */
    Py_ssize_t closing;             /* the object literal's closing '"', or -1 */
    int unescaped;                  /* 1: the line holds no backslash (escaped), 0: not known */
} Terms;

/* literal at s[p] == '"' (N-Triples [6], [9], [144s]); the position after it, or -1. A
 * literal is up to three terminals, and white space may stand between them. */
static Py_ssize_t literal(const unsigned char *s, Py_ssize_t p, Py_ssize_t end, Terms *terms) {
    p++;
    for (;;) {
        if (p >= end) {
            return -1;
        }
        unsigned char c = s[p];
        if (c == '"') {
            p++;
            break;
        }
        if (c == '\\') {
            if (p + 1 < end && strchr("tbnrf\"'\\", s[p + 1]) != NULL && s[p + 1] != '\0') {
                p += 2;
            } else {
                p = uchar(s, p + 1, end);
                if (p < 0) {
                    return -1;
                }
            }
        } else if (c == '\n' || c == '\r') {
            return -1;
        } else {
            p++;
        }
    }
    terms->closing = p - 1;
    Py_ssize_t q = skip_ws(s, p, end);
    if (q < end && s[q] == '@') {
        /* LANGTAG: '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)* */
        Py_ssize_t r = q + 1;
        while (r < end && is_alpha(s[r])) {
            r++;
        }
        if (r == q + 1) {
            return -1;
        }
        while (r + 1 < end && s[r] == '-' && (is_alpha(s[r + 1]) || is_digit(s[r + 1]))) {
            r += 2;
            while (r < end && (is_alpha(s[r]) || is_digit(s[r]))) {
                r++;
            }
        }
        terms->language = q + 1;
        terms->language_stop = r;
        terms->spaced = q != p;
        return r;
    }
    if (end - q >= 2 && s[q] == '^' && s[q + 1] == '^') {
        Py_ssize_t r = skip_ws(s, q + 2, end);
        if (r < end && s[r] == '<') {
            terms->datatype = r;
            terms->spaced = q != p || r != q + 2;
            return iri(s, r, end, &terms->shape_datatype);
        }
        return -1;
    }
    return p;
}

/* The terms of a line written by ldids normalize (check_output): every statement it writes
 * has been through statement() and terms_valid (scan_block checks each input line, and the
 * terms it writes in their place are canonical IRIs and links it makes), so here the terms
 * are only told apart. An IRIREF holds no '>' (N-Triples [8]: an escape spells one as a
 * UCHAR), and a literal's closing '"' is the first one no backslash escapes ([9], ECHAR): on
 * a valid line the spans are statement()'s. split_statement(..., 1) splits such a line; 0 if it does not
 * (a blank or comment line; select_lines then looks at it with the whole grammar). */
static Py_ssize_t trusted_iri(const unsigned char *s, Py_ssize_t p, Py_ssize_t end) {
    const unsigned char *close = memchr(s + p + 1, '>', (size_t)(end - p - 1));
    return close == NULL ? -1 : close - s + 1;
}

static Py_ssize_t trusted_literal(const unsigned char *s, Py_ssize_t p, Py_ssize_t end, Terms *terms) {
    Py_ssize_t q = p + 1;
    for (;;) {
        const unsigned char *quote = q < end ? memchr(s + q, '"', (size_t)(end - q)) : NULL;
        if (quote == NULL) {
            return -1;
        }
        q = quote - s;
        Py_ssize_t backslashes = 0;
        while (q - 1 - backslashes > p && s[q - 1 - backslashes] == '\\') {
            backslashes++;
        }
        q++;
        if (backslashes % 2 == 0) {
            break;
        }
    }
    terms->closing = q - 1;
    Py_ssize_t r = skip_ws(s, q, end);
    if (r < end && s[r] == '@') {
        Py_ssize_t stop = r + 1;
        while (stop < end && (is_alpha(s[stop]) || is_digit(s[stop]) || s[stop] == '-')) {
            stop++;
        }
        terms->language = r + 1;
        terms->language_stop = stop;
        terms->spaced = r != q;
        return stop;
    }
    if (end - r >= 2 && s[r] == '^' && s[r + 1] == '^') {
        Py_ssize_t t = skip_ws(s, r + 2, end);
        if (t < end && s[t] == '<') {
            terms->datatype = t;
            terms->spaced = r != q || t != r + 2;
            return trusted_iri(s, t, end);
        }
        return -1;
    }
    return q;
}

/* One statement filling the whole body, its terms' spans in *terms; 1 if it is one, as far
 * as its terminals go (terms_valid checks the rest). ``trusted``: a line ldids wrote, only
 * split into its terms (trusted_iri, trusted_literal). */
static int split_statement(const unsigned char *s, Py_ssize_t end, Terms *terms, int trusted) {
    Py_ssize_t p = skip_ws(s, 0, end), q;
    terms->language = terms->language_stop = terms->datatype = terms->closing = -1;
    terms->spaced = terms->unescaped = 0;
    for (int index = 0; index < 4; index++) {
        unsigned char c = p < end ? s[p] : 0;
        if (c == '<') {
            q = trusted ? trusted_iri(s, p, end) : iri(s, p, end, &terms->shape[index]);
        } else if (c == '_' && index != 1) {
            q = blank_node(s, p, end);
        } else if (c == '"' && index == 2) {
            q = trusted ? trusted_literal(s, p, end, terms) : literal(s, p, end, terms);
        } else if (index == 3) {
            terms->start[3] = terms->stop[3] = -1;
            break;
        } else {
            return 0;
        }
        if (q < 0) {
            return 0;
        }
        terms->start[index] = p;
        terms->stop[index] = q;
        p = skip_ws(s, q, end);
    }
    if (p >= end || s[p] != '.') {
        return 0;
    }
    p = skip_ws(s, p + 1, end);
    terms->end = p;
    return p == end || s[p] == '#';
}

static int statement(const unsigned char *s, Py_ssize_t end, Terms *terms) {
    return split_statement(s, end, terms, 0);
}

/* Blank or a comment only: [ \t]* ('#' .*)? (what a comment holds need not be UTF-8). */
static int nothing(const unsigned char *s, Py_ssize_t end) {
    Py_ssize_t p = skip_ws(s, 0, end);
    return p == end || s[p] == '#';
}

/* -- What the terminals do not say ------------------------------------------------------------
 *
 * That every IRI is an absolute IRI (RFC 3987 §2.2), every language tag well-formed (BCP 47,
 * RFC 5646 §2.2.9), and no literal without one has the datatype rdf:langString: as the
 * reference in Python checks them (ldids/dumps/grammar.py, term_problem), following
 * pyoxigraph's libraries (oxiri, oxilangtag). Run on statements already known to be UTF-8. */

static int is_ucschar(Py_UCS4 c) {
    if (c < 0x10000) {
        return (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFEF);
    }
    /* U+10000 to U+DFFFD, plane by plane without each plane's last two code points; U+E1000 to U+EFFFD. */
    return ((c & 0xFFFF) <= 0xFFFD && c <= 0xDFFFD) || (c >= 0xE1000 && c <= 0xEFFFD);
}

static int is_iprivate(Py_UCS4 c) {
    return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) || (c >= 0x100000 && c <= 0x10FFFD);
}

/* One component of an IRI: ASCII characters of the classes `allowed`, percent-encodings,
 * ucschar (and iprivate in a query). */
static int component_valid(const unsigned char *s, Py_ssize_t n, int allowed, int iprivate) {
    Py_ssize_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if (iri_class[c] & allowed) {
                i++;
            } else if (c == '%' && i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2])) {
                i += 3;
            } else {
                return 0;
            }
            continue;
        }
        int length;
        Py_UCS4 value = code_point(s + i, n - i, &length);
        if (length == 0 || !(is_ucschar(value) || (iprivate && is_iprivate(value)))) {
            return 0;
        }
        i += length;
    }
    return 1;
}

static int all_digits(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_digit(s[i])) {
            return 0;
        }
    }
    return 1;
}

/* IPv6 addresses as Rust's Ipv6Addr::from_str reads them (oxiri checks them so): groups of
 * one to four hex digits, "::" for one or more zero groups, a dotted IPv4 address (octets
 * without leading zeros) for the last two groups. */
static Py_ssize_t hex_group(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    Py_ssize_t q = p;
    while (q < n && is_hex(s[q])) {
        q++;
    }
    return q == p || q - p > 4 ? -1 : q;
}

static Py_ssize_t octet(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    Py_ssize_t q = p;
    int value = 0;
    while (q < n && is_digit(s[q])) {
        value = value * 10 + (s[q] - '0');
        q++;
        if (q - p > 3 || value > 255) {
            return -1;
        }
    }
    return q == p || (q - p > 1 && s[p] == '0') ? -1 : q;
}

static Py_ssize_t ipv4(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    for (int i = 0; i < 4; i++) {
        if (i > 0) {
            if (p >= n || s[p] != '.') {
                return -1;
            }
            p++;
        }
        p = octet(s, p, n);
        if (p < 0) {
            return -1;
        }
    }
    return p;
}

/* Up to `limit` groups from p; where reading stopped, with the groups read in *count and
 * whether the last was an IPv4 address (two groups) in *v4. */
static Py_ssize_t ipv6_groups(const unsigned char *s, Py_ssize_t p, Py_ssize_t n, int limit, int *count, int *v4) {
    *v4 = 0;
    for (int i = 0; i < limit; i++) {
        Py_ssize_t start = p;
        if (i > 0) {
            if (p >= n || s[p] != ':') {
                *count = i;
                return p;
            }
            start = p + 1;
        }
        if (i < limit - 1) {
            Py_ssize_t q = ipv4(s, start, n);
            if (q >= 0) {
                *count = i + 2;
                *v4 = 1;
                return q;
            }
        }
        Py_ssize_t q = hex_group(s, start, n);
        if (q < 0) {
            *count = i;
            return p;
        }
        p = q;
    }
    *count = limit;
    return p;
}

static int ipv6_valid(const unsigned char *s, Py_ssize_t n) {
    int head, tail, v4;
    Py_ssize_t p = ipv6_groups(s, 0, n, 8, &head, &v4);
    if (head == 8) {
        return p == n;
    }
    if (v4 || p + 1 >= n || s[p] != ':' || s[p + 1] != ':') {
        return 0;
    }
    return ipv6_groups(s, p + 2, n, 7 - head, &tail, &v4) == n;
}

/* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
static int ip_future_valid(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t p = 1;
    while (p < n && is_hex(s[p])) {
        p++;
    }
    if (p == 1 || p >= n || s[p] != '.' || p + 1 == n) {
        return 0;
    }
    for (p++; p < n; p++) {
        if (s[p] >= 0x80 || !(iri_class[s[p]] & (IRI_UNRESERVED_SUB_DELIMS | IRI_COLON))) {
            return 0;
        }
    }
    return 1;
}

static int authority_valid(const unsigned char *s, Py_ssize_t n) {
    const unsigned char *at = memchr(s, '@', (size_t)n);
    if (at != NULL) {
        if (!component_valid(s, at - s, IRI_USERINFO, 0)) {
            return 0;
        }
        n -= at + 1 - s;
        s = at + 1;
    }
    if (n > 0 && s[0] == '[') {
        const unsigned char *close = memchr(s, ']', (size_t)n);
        if (close == NULL) {
            return 0;
        }
        Py_ssize_t size = close - s - 1;
        int valid = size > 0 && (s[1] == 'v' || s[1] == 'V') ? ip_future_valid(s + 1, size) : ipv6_valid(s + 1, size);
        Py_ssize_t rest = n - (close + 1 - s);
        return valid && (rest == 0 || (close[1] == ':' && all_digits(close + 2, rest - 1)));
    }
    const unsigned char *colon = memchr(s, ':', (size_t)n);
    if (colon != NULL) {
        if (!all_digits(colon + 1, n - (colon + 1 - s))) {
            return 0;
        }
        n = colon - s;
    }
    return component_valid(s, n, IRI_HOST, 0);
}

/* An absolute IRI (RFC 3987 §2.2), its text unescaped: the components found as oxiri finds
 * them (the scheme ends at the first ':', the path at the first '?' or '#', the query at
 * the next '#'), then each checked. */
static int iri_valid(const unsigned char *s, Py_ssize_t n) {
    const unsigned char *colon = memchr(s, ':', (size_t)n);
    if (colon == NULL || colon == s || !is_alpha(s[0])) {
        return 0;
    }
    for (const unsigned char *c = s + 1; c < colon; c++) {
        if (!is_alpha(*c) && !is_digit(*c) && *c != '+' && *c != '-' && *c != '.') {
            return 0;
        }
    }
    Py_ssize_t path_start = colon + 1 - s, path_end = n, query_end = n;
    for (Py_ssize_t i = path_start; i < n; i++) {
        if (s[i] == '?' || s[i] == '#') {
            path_end = i;
            break;
        }
    }
    const unsigned char *hash = memchr(s + path_end, '#', (size_t)(n - path_end));
    if (hash != NULL) {
        query_end = hash - s;
    }
    if (path_start + 2 <= path_end && s[path_start] == '/' && s[path_start + 1] == '/') {
        const unsigned char *slash = memchr(s + path_start + 2, '/', (size_t)(path_end - path_start - 2));
        Py_ssize_t authority_end = slash == NULL ? path_end : slash - s;
        if (!authority_valid(s + path_start + 2, authority_end - path_start - 2)) {
            return 0;
        }
        path_start = authority_end;
    }
    return component_valid(s + path_start, path_end - path_start, IRI_PATH, 0) &&
           (query_end <= path_end || component_valid(s + path_end + 1, query_end - path_end - 1, IRI_QUERY, 1)) &&
           (query_end >= n || component_valid(s + query_end + 1, n - query_end - 1, IRI_QUERY, 0));
}

/* The text of an IRIREF (without its angle brackets) with its UCHARs decoded, as UTF-8, into
 * `out` (as long as the text at least); its length. The escapes name scalar values (uchar). */
static Py_ssize_t unescape_iri(const unsigned char *s, Py_ssize_t n, unsigned char *out) {
    Py_ssize_t length = 0;
    for (Py_ssize_t i = 0; i < n;) {
        if (s[i] != '\\') {
            out[length++] = s[i++];
            continue;
        }
        int digits = s[i + 1] == 'u' ? 4 : 8;
        uint32_t c = 0;
        for (int k = 0; k < digits; k++) {
            c = c << 4 | (uint32_t)hex_value(s[i + 2 + k]);
        }
        i += 2 + digits;
        if (c < 0x80) {
            out[length++] = (unsigned char)c;
        } else if (c < 0x800) {
            out[length++] = (unsigned char)(0xC0 | c >> 6);
            out[length++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[length++] = (unsigned char)(0xE0 | c >> 12);
            out[length++] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            out[length++] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            out[length++] = (unsigned char)(0xF0 | c >> 18);
            out[length++] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
            out[length++] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            out[length++] = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    return length;
}

static const char LANG_STRING[] = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
static const char DIR_LANG_STRING[] = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString";

static int language_datatype(const unsigned char *text, Py_ssize_t length) {
    return (length == (Py_ssize_t)sizeof LANG_STRING - 1 && memcmp(text, LANG_STRING, (size_t)length) == 0) ||
           (length == (Py_ssize_t)sizeof DIR_LANG_STRING - 1 && memcmp(text, DIR_LANG_STRING, (size_t)length) == 0);
}

/* An IRIREF (angle brackets included) naming an absolute IRI; a datatype must not be
 * rdf:langString (nor RDF 1.2's rdf:dirLangString): a literal with it has a language tag.
 * -1 if memory ran out. */
static int iri_term_valid(const unsigned char *raw, Py_ssize_t n, unsigned char shape, int datatype) {
    const unsigned char *text = raw + 1;
    Py_ssize_t length = n - 2;
    if (!(shape & IRI_OTHER)) {
        /* Its path, query and fragment are valid whatever they are (see iri_byte); its scheme
         * is what comes before the first ':'. */
        Py_ssize_t p = 0;
        while (p < length && (is_alpha(text[p]) || is_digit(text[p]) || text[p] == '+' || text[p] == '-' ||
                              text[p] == '.')) {
            p++;
        }
        if (p == 0 || p == length || text[p] != ':' || !is_alpha(text[0])) {
            return 0;
        }
        p++;
        if (p + 1 < length && text[p] == '/' && text[p + 1] == '/') {
            /* Of the authority's characters here, only ':' (a port) and '@' (user
             * information) can make it invalid. */
            Py_ssize_t q = p + 2;
            int delimited = 0;
            while (q < length && text[q] != '/' && text[q] != '?' && text[q] != '#') {
                delimited |= text[q] == ':' || text[q] == '@';
                q++;
            }
            if (delimited && !authority_valid(text + p + 2, q - p - 2)) {
                return 0;
            }
        }
        return !datatype || !language_datatype(text, length);
    }
    unsigned char small[512], *decoded = NULL;
    if (memchr(text, '\\', (size_t)length) != NULL) {
        decoded = length <= (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)length);
        if (decoded == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        length = unescape_iri(text, length, decoded);
        text = decoded;
    }
    int valid = iri_valid(text, length) && !(datatype && language_datatype(text, length));
    if (decoded != NULL && decoded != small) {
        PyMem_Free(decoded);
    }
    return valid;
}

/* BCP 47 well-formedness (RFC 5646 §2.1, §2.2.9) of a LANGTAG's text, as oxilangtag checks
 * it; the lexer has made it ASCII letters and digits in subtags joined by '-'. */
static const char *const GRANDFATHERED[] = {
    "art-lojban", "cel-gaulish", "en-gb-oed", "i-ami",     "i-bnn",     "i-default", "i-enochian",
    "i-hak",      "i-klingon",   "i-lux",     "i-mingo",   "i-navajo",  "i-pwn",     "i-tao",
    "i-tay",      "i-tsu",       "no-bok",    "no-nyn",    "sgn-be-fr", "sgn-be-nl", "sgn-ch-de",
    "zh-guoyu",   "zh-hakka",    "zh-min",    "zh-min-nan", "zh-xiang",
};

static int grandfathered(const unsigned char *s, Py_ssize_t n) {
    if (memchr(s, '-', (size_t)n) == NULL) {
        return 0; /* each of them has two subtags or more */
    }
    for (size_t g = 0; g < sizeof GRANDFATHERED / sizeof GRANDFATHERED[0]; g++) {
        const char *tag = GRANDFATHERED[g];
        Py_ssize_t i = 0;
        while (i < n && tag[i] != '\0' && fold(s[i]) == (unsigned char)tag[i]) {
            i++;
        }
        if (i == n && tag[i] == '\0') {
            return 1;
        }
    }
    return 0;
}

enum { LANG_START, LANG_LANGUAGE, LANG_EXTLANG, LANG_SCRIPT, LANG_REGION, LANG_EXTENSION, LANG_EXTENSION_EMPTY,
       LANG_PRIVATE, LANG_PRIVATE_EMPTY };

static int language_valid(const unsigned char *s, Py_ssize_t n) {
    if (grandfathered(s, n)) {
        return 1;
    }
    int private_only = n >= 2 && (s[0] == 'x' || s[0] == 'X') && s[1] == '-';
    int state = private_only ? LANG_PRIVATE_EMPTY : LANG_START, extlangs = 0;
    for (Py_ssize_t p = private_only ? 2 : 0; p <= n;) {
        const unsigned char *dash = memchr(s + p, '-', (size_t)(n - p));
        Py_ssize_t size = (dash == NULL ? n : dash - s) - p;
        const unsigned char *subtag = s + p;
        p += size + 1;
        int alpha = 1, digits = 1;
        for (Py_ssize_t i = 0; i < size; i++) {
            alpha = alpha && is_alpha(subtag[i]);
            digits = digits && is_digit(subtag[i]);
        }
        if (size == 0 || size > 8) {
            return 0;
        }
        if (state == LANG_START) {
            if (size < 2 || !alpha) {
                return 0;
            }
            state = size < 4 ? LANG_LANGUAGE : LANG_EXTLANG;
        } else if (state == LANG_PRIVATE || state == LANG_PRIVATE_EMPTY) {
            state = LANG_PRIVATE;
        } else if (size == 1) {
            if (state == LANG_EXTENSION_EMPTY) {
                return 0;
            }
            state = subtag[0] == 'x' || subtag[0] == 'X' ? LANG_PRIVATE_EMPTY : LANG_EXTENSION_EMPTY;
        } else if (state == LANG_EXTENSION || state == LANG_EXTENSION_EMPTY) {
            state = LANG_EXTENSION;
        } else if (state == LANG_LANGUAGE && size == 3 && alpha) {
            if (++extlangs > 3) {
                return 0;
            }
        } else if ((state == LANG_LANGUAGE || state == LANG_EXTLANG) && size == 4 && alpha) {
            state = LANG_SCRIPT;
        } else if (state <= LANG_SCRIPT && ((size == 2 && alpha) || (size == 3 && digits))) {
            state = LANG_REGION;
        } else if ((size >= 5 && is_alpha(subtag[0])) || (size >= 4 && is_digit(subtag[0]))) {
            state = LANG_REGION; /* a variant; more may follow */
        } else {
            return 0;
        }
    }
    return state != LANG_EXTENSION_EMPTY && state != LANG_PRIVATE_EMPTY;
}

/* The terms of a statement statement() matched: 1 if RDF 1.1 allows them, 0 if not, -1 on
 * an error (memory). */
static int terms_valid(const unsigned char *s, const Terms *terms) {
    for (int index = 0; index < 4; index++) {
        if (terms->start[index] >= 0 && s[terms->start[index]] == '<') {
            int valid = iri_term_valid(s + terms->start[index], terms->stop[index] - terms->start[index],
                                       terms->shape[index], 0);
            if (valid <= 0) {
                return valid;
            }
        }
    }
    if (terms->language >= 0 && !language_valid(s + terms->language, terms->language_stop - terms->language)) {
        return 0;
    }
    if (terms->datatype >= 0) {
        return iri_term_valid(s + terms->datatype, terms->stop[2] - terms->datatype, terms->shape_datatype, 1);
    }
    return 1;
}

/* -- Candidates: might a text hold an identifier? --------------------------------------------- */

typedef struct {
    PyObject *folded; /* tuple of bytes, lower case, matched in ASCII case-insensitively */
    PyObject *exact;  /* tuple of bytes, matched as they are */
    /* Which pairs of bytes may start a needle (a bit each): most positions of a line start
     * none, and are passed over with one look-up. Single bytes let through too many: every
     * "http" has an 'h' and a 'p', and every term a '<', where a needle may begin. */
    unsigned char pairs[256 * 256 / 8];
} Needles;

static void mark_pair(Needles *needles, unsigned char first, unsigned char second) {
    unsigned pair = (unsigned)first << 8 | second;
    needles->pairs[pair >> 3] |= (unsigned char)(1u << (pair & 7));
}

static int may_start(const Needles *needles, unsigned char first, unsigned char second) {
    unsigned pair = (unsigned)first << 8 | second;
    return needles->pairs[pair >> 3] >> (pair & 7) & 1;
}

/* Marks the pairs a needle may start with: both ASCII cases of each byte if folded, and
 * any second byte (one past the end of the text included) for a needle of one byte. */
static void mark_needle(Needles *needles, PyObject *needle, int folded) {
    const unsigned char *text = (const unsigned char *)PyBytes_AS_STRING(needle);
    unsigned char first[2] = {text[0], text[0]};
    if (folded && text[0] >= 'a' && text[0] <= 'z') {
        first[1] = (unsigned char)(text[0] - 32);
    }
    for (int i = 0; i < 2; i++) {
        if (PyBytes_GET_SIZE(needle) == 1) {
            for (int second = 0; second < 256; second++) {
                mark_pair(needles, first[i], (unsigned char)second);
            }
            continue;
        }
        mark_pair(needles, first[i], text[1]);
        if (folded && text[1] >= 'a' && text[1] <= 'z') {
            mark_pair(needles, first[i], (unsigned char)(text[1] - 32));
        }
    }
}

static void needles_init(Needles *needles) {
    memset(needles->pairs, 0, sizeof needles->pairs);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(needles->folded); i++) {
        mark_needle(needles, PyTuple_GET_ITEM(needles->folded, i), 1);
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(needles->exact); i++) {
        mark_needle(needles, PyTuple_GET_ITEM(needles->exact, i), 0);
    }
}

static int is_candidate(const Needles *needles, const unsigned char *s, Py_ssize_t length) {
    Py_ssize_t folded = PyTuple_GET_SIZE(needles->folded), exact = PyTuple_GET_SIZE(needles->exact);
    for (Py_ssize_t i = 0; i < length; i++) {
        if (!may_start(needles, s[i], i + 1 < length ? s[i + 1] : 0)) {
            continue;
        }
        for (Py_ssize_t k = 0; k < folded; k++) {
            PyObject *needle = PyTuple_GET_ITEM(needles->folded, k);
            const unsigned char *text = (const unsigned char *)PyBytes_AS_STRING(needle);
            Py_ssize_t size = PyBytes_GET_SIZE(needle), j = 0;
            if (size > length - i) {
                continue;
            }
            while (j < size && fold(s[i + j]) == text[j]) {
                j++;
            }
            if (j == size) {
                return 1;
            }
        }
        for (Py_ssize_t k = 0; k < exact; k++) {
            PyObject *needle = PyTuple_GET_ITEM(needles->exact, k);
            Py_ssize_t size = PyBytes_GET_SIZE(needle);
            if (size <= length - i && memcmp(s + i, PyBytes_AS_STRING(needle), (size_t)size) == 0) {
                return 1;
            }
        }
    }
    return 0;
}

static int one_of(PyObject *texts, const unsigned char *s, Py_ssize_t length) {
    Py_ssize_t count = PyTuple_GET_SIZE(texts);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *text = PyTuple_GET_ITEM(texts, i);
        if (PyBytes_GET_SIZE(text) == length && memcmp(PyBytes_AS_STRING(text), s, (size_t)length) == 0) {
            return 1;
        }
    }
    return 0;
}

/* -- Decisions shared between processes ------------------------------------------------------ */

/* A decision made by one worker process is found by the others at once in a hash table of
 * anonymous shared memory, made before they fork (Linux, where the workers fork). Entries
 * are only ever added, and never change once published: an entry is written whole, then
 * its offset is published in a slot by compare-and-swap (release); readers load slots with
 * acquire, so they need no lock. A full table takes no more entries (the processes' own
 * memos still do): its size, fixed when it is made, bounds its memory.
 *
 * Layout: the header, `slots` slots of uint64 (0: empty, else the top 24 bits of the key's
 * hash above 1 + the entry's offset in the low 40 bits: a probe passes over other keys'
 * slots without reading their entries, which lie anywhere in the arena), then the entries:
 * uint64 hash, uint32 key length, uint32 value length, the key, the value, padded to 8
 * bytes. A value is 'N' (not an identifier), 'R' then the memo value (a scheme
 * byte and the replacement), or 'C' then a scheme byte (valid, already canonical). Invalid
 * identifiers are not shared: their values carry Python objects. */

/* The counters the processes write have a cache line of their own (the header is padded
 * to two lines): what every lookup reads (the sizes, the first slots) must not share a line
 * with them, or each add by one process stalls the other's lookups. At 10M triples of real
 * cardinality the arena fills early, and an add that went on taking its bytes with an
 * atomic add after that cost the two workers 0.67 CPU s (8% of the run) in the stalls. */
typedef struct {
    uint64_t slots; /* a power of two */
    uint64_t arena; /* bytes for entries */
    unsigned char line[48];
    uint64_t used;  /* bytes of the arena taken (atomic) */
    uint64_t count; /* entries published (atomic) */
    unsigned char rest[48];
} SharedHeader;

typedef struct {
    PyObject_HEAD
    unsigned char *base;
    size_t size;
    PyObject *schemes; /* tuple of scheme names, as the memo values index them */
    /* The table's fixed sizes, kept in each process (copied by the fork), read by every lookup. */
    uint64_t mask;  /* slots - 1 */
    uint64_t arena; /* bytes for entries */
} SharedDecisions;

static PyTypeObject SharedDecisionsType;

/* A 64-bit hash of a key, eight bytes at a time (keys are IRIs and literals of tens of
 * bytes); every process of a run computes the same. */
static uint64_t hash_bytes(const unsigned char *s, Py_ssize_t length) {
    uint64_t hash = 0x9E3779B97F4A7C15ULL ^ (uint64_t)length;
    Py_ssize_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, s + i, 8);
        hash = (hash ^ word) * 0xFF51AFD7ED558CCDULL;
        hash ^= hash >> 32;
    }
    uint64_t tail = 0;
    memcpy(&tail, s + i, (size_t)(length - i));
    hash = (hash ^ tail) * 0xC4CEB9FE1A85EC53ULL;
    hash ^= hash >> 29;
    hash *= 0xFF51AFD7ED558CCDULL;
    hash ^= hash >> 32;
    return hash;
}

#define OFFSET_BITS 40
#define OFFSET_MASK ((UINT64_C(1) << OFFSET_BITS) - 1)

/* The slot of an entry at ``offset`` whose key has ``hash``; never 0. */
static uint64_t slot_of(uint64_t hash, uint64_t offset) { return (hash >> OFFSET_BITS) << OFFSET_BITS | (offset + 1); }

static int slot_may_be(uint64_t slot, uint64_t hash) { return slot >> OFFSET_BITS == hash >> OFFSET_BITS; }

#ifdef SHARED_DECISIONS
static SharedHeader *shared_header(SharedDecisions *table) { return (SharedHeader *)table->base; }
static uint64_t *shared_slots(SharedDecisions *table) { return (uint64_t *)(table->base + sizeof(SharedHeader)); }

/* Is this entry the one for ``key``? */
static int entry_is(const unsigned char *entry, uint64_t hash, const unsigned char *key, Py_ssize_t key_length) {
    uint32_t entry_key;
    memcpy(&entry_key, entry + 8, 4);
    return memcmp(entry, &hash, 8) == 0 && entry_key == (uint64_t)key_length &&
           memcmp(entry + 16, key, (size_t)key_length) == 0;
}

/* The value stored for ``key`` (its length in *length), or NULL. */
static const unsigned char *shared_find(SharedDecisions *table, const unsigned char *key, Py_ssize_t key_length,
                                        uint64_t hash, uint32_t *length) {
    uint64_t *slots = shared_slots(table);
    uint64_t mask = table->mask;
    unsigned char *arena = (unsigned char *)(slots + mask + 1);
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
        uint64_t slot = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
        if (slot == 0) {
            return NULL;
        }
        if (!slot_may_be(slot, hash)) {
            continue;
        }
        const unsigned char *entry = arena + ((slot & OFFSET_MASK) - 1);
        if (entry_is(entry, hash, key, key_length)) {
            memcpy(length, entry + 12, 4);
            return entry + 16 + key_length;
        }
    }
    return NULL;
}

/* Adds key -> tag byte + value; 1 if the table holds it now, 0 if it is full. */
static int shared_add(SharedDecisions *table, const unsigned char *key, Py_ssize_t key_length, uint64_t hash,
                      unsigned char tag, const unsigned char *rest, Py_ssize_t rest_length) {
    Py_ssize_t value_length = 1 + rest_length;
    SharedHeader *header = shared_header(table);
    uint64_t *slots = shared_slots(table);
    uint64_t mask = table->mask;
    unsigned char *arena = (unsigned char *)(slots + mask + 1);
    /* At most 70% of the slots are used: probes stay short. */
    if (__atomic_load_n(&header->count, __ATOMIC_RELAXED) * 10 >= (mask + 1) * 7 || key_length > UINT32_MAX / 2 ||
        value_length > UINT32_MAX / 2) {
        return 0;
    }
    uint64_t size = (16 + (uint64_t)key_length + (uint64_t)value_length + 7) & ~(uint64_t)7;
    /* A full arena is seen by a plain load: no process writes the counter's line again. */
    if (__atomic_load_n(&header->used, __ATOMIC_RELAXED) + size > table->arena) {
        return 0;
    }
    uint64_t offset = __atomic_fetch_add(&header->used, size, __ATOMIC_RELAXED);
    if (offset + size > table->arena) {
        return 0;
    }
    unsigned char *entry = arena + offset;
    uint32_t lengths[2] = {(uint32_t)key_length, (uint32_t)value_length};
    memcpy(entry, &hash, 8);
    memcpy(entry + 8, lengths, 8);
    memcpy(entry + 16, key, (size_t)key_length);
    entry[16 + key_length] = tag;
    memcpy(entry + 16 + key_length + 1, rest, (size_t)rest_length);
    for (uint64_t i = hash & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
        uint64_t expected = 0;
        if (__atomic_compare_exchange_n(&slots[i], &expected, slot_of(hash, offset), 0, __ATOMIC_RELEASE,
                                        __ATOMIC_ACQUIRE)) {
            __atomic_fetch_add(&header->count, 1, __ATOMIC_RELAXED);
            return 1;
        }
        if (slot_may_be(expected, hash) && entry_is(arena + ((expected & OFFSET_MASK) - 1), hash, key, key_length)) {
            return 1; /* another process added it first: the same decision */
        }
    }
    return 0;
}
#endif

/* A memo value as a new Python object, from its shared form. */
static PyObject *value_from_shared(SharedDecisions *table, const unsigned char *value, uint32_t length) {
    if (length == 1 && value[0] == 'N') {
        Py_RETURN_NONE;
    }
    if (length >= 3 && value[0] == 'R') {
        return PyBytes_FromStringAndSize((const char *)value + 1, length - 1);
    }
    if (length == 2 && value[0] == 'C' && value[1] < PyTuple_GET_SIZE(table->schemes)) {
        return Py_BuildValue("(OOO)", Py_None, Py_False, PyTuple_GET_ITEM(table->schemes, value[1]));
    }
    PyErr_SetString(PyExc_RuntimeError, "a shared decision is damaged");
    return NULL;
}

static PyObject *shared_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"schemes", "entries", NULL};
    PyObject *schemes;
    Py_ssize_t entries;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!n", names, &PyTuple_Type, &schemes, &entries)) {
        return NULL;
    }
#ifndef SHARED_DECISIONS
    (void)type;
    PyErr_SetString(PyExc_NotImplementedError, "shared decisions need Linux (the workers fork)");
    return NULL;
#else
    if (entries < 1 || entries > (1 << 26) || PyTuple_GET_SIZE(schemes) > 255) {
        PyErr_SetString(PyExc_ValueError, "entries must be 1 to 2**26, schemes at most 255");
        return NULL;
    }
    uint64_t slots = 16;
    while (slots * 7 < (uint64_t)entries * 10) {
        slots *= 2;
    }
    /* 128 bytes an entry: a key and a value of ~50 bytes each, and the entry's header. */
    uint64_t arena = (uint64_t)entries * 128; /* at most 2**33 bytes: offsets fit OFFSET_BITS */
    size_t size = sizeof(SharedHeader) + slots * sizeof(uint64_t) + arena;
    /* Pages are taken as entries are written: the size is a bound, not a cost up front. */
    unsigned char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    SharedDecisions *self = (SharedDecisions *)type->tp_alloc(type, 0);
    if (self == NULL) {
        munmap(base, size);
        return NULL;
    }
    self->base = base;
    self->size = size;
    Py_INCREF(schemes);
    self->schemes = schemes;
    SharedHeader *header = shared_header(self);
    header->slots = slots;
    header->arena = arena;
    self->mask = slots - 1;
    self->arena = arena;
    return (PyObject *)self;
#endif
}

static void shared_dealloc(SharedDecisions *self) {
#ifdef SHARED_DECISIONS
    if (self->base != NULL) {
        munmap(self->base, self->size);
    }
#endif
    Py_XDECREF(self->schemes);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#ifdef SHARED_DECISIONS
/* Puts key -> a memo value into the table: 1 if the table holds it now, 0 if not (it is
 * full, or the value is not shareable), -1 on error. */
static int shared_put(SharedDecisions *table, const unsigned char *key, Py_ssize_t key_length, uint64_t hash,
                      PyObject *value) {
    if (value == Py_None) {
        return shared_add(table, key, key_length, hash, 'N', NULL, 0);
    }
    if (PyBytes_Check(value) && PyBytes_GET_SIZE(value) >= 2) {
        return shared_add(table, key, key_length, hash, 'R', (const unsigned char *)PyBytes_AS_STRING(value),
                          PyBytes_GET_SIZE(value));
    }
    if (PyTuple_Check(value) && PyTuple_GET_SIZE(value) == 3 && PyTuple_GET_ITEM(value, 1) == Py_False) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(table->schemes); i++) {
            int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(table->schemes, i), PyTuple_GET_ITEM(value, 2), Py_EQ);
            if (same < 0) {
                return -1;
            }
            if (same) {
                unsigned char index = (unsigned char)i;
                return shared_add(table, key, key_length, hash, 'C', &index, 1);
            }
        }
    }
    return 0;
}
#endif

/* add(key, value) -> bool: whether the table holds key now (False: full, or not shareable). */
static PyObject *shared_add_method(SharedDecisions *self, PyObject *args) {
    PyObject *value;
    const char *key;
    Py_ssize_t key_length;
    if (!PyArg_ParseTuple(args, "y#O", &key, &key_length, &value)) {
        return NULL;
    }
#ifdef SHARED_DECISIONS
    int added = shared_put(self, (const unsigned char *)key, key_length, hash_bytes((const unsigned char *)key, key_length),
                           value);
    return added < 0 ? NULL : PyBool_FromLong(added);
#else
    (void)key;
    (void)key_length;
    (void)value;
    Py_RETURN_FALSE;
#endif
}

/* get(key) -> the memo value, or raises KeyError. */
static PyObject *shared_get_method(SharedDecisions *self, PyObject *args) {
    const char *key;
    Py_ssize_t key_length;
    if (!PyArg_ParseTuple(args, "y#", &key, &key_length)) {
        return NULL;
    }
#ifdef SHARED_DECISIONS
    uint32_t length;
    const unsigned char *value =
        shared_find(self, (const unsigned char *)key, key_length, hash_bytes((const unsigned char *)key, key_length), &length);
    if (value != NULL) {
        return value_from_shared(self, value, length);
    }
#endif
    PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(args, 0));
    return NULL;
}

static Py_ssize_t shared_length(SharedDecisions *self) {
#ifdef SHARED_DECISIONS
    return (Py_ssize_t)__atomic_load_n(&shared_header(self)->count, __ATOMIC_RELAXED);
#else
    (void)self;
    return 0;
#endif
}

static PyMethodDef shared_methods[] = {
    {"add", (PyCFunction)shared_add_method, METH_VARARGS,
     "add(key, value) -> whether the table holds key now (False: full, or an invalid identifier)"},
    {"get", (PyCFunction)shared_get_method, METH_VARARGS, "get(key) -> the memo value; KeyError if absent"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods shared_sequence = {.sq_length = (lenfunc)shared_length};

static PyTypeObject SharedDecisionsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ldids.dumps._scan.SharedDecisions",
    .tp_basicsize = sizeof(SharedDecisions),
    .tp_dealloc = (destructor)shared_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SharedDecisions(schemes, entries): decisions shared by forked worker processes",
    .tp_methods = shared_methods,
    .tp_as_sequence = &shared_sequence,
    .tp_new = shared_new,
};

/* -- The memo of one process's decisions ------------------------------------------------------ */

/* Decisions this process made or took from the shared table, keyed by the term's raw bytes
 * (the key scan_block makes, below), in a hash table of its own: a term looked up costs no
 * Python bytes object, no siphash and no dict probe (about a sixth of a run where every
 * record brings identifiers of its own). Bounded as the dict it replaces was: when it holds
 * `size` entries it forgets the older half, in the order they came
 * (ldids.passes.decision.evict_oldest_half), so the identifiers a dump is repeating right now
 * stay known. It remembers only what the decision answered: the values are the memo values
 * (ldids.dumps.worker._Value) the loop and decide() made.
 *
 * Entries are kept in the order they came, their keys one after another in an arena; the
 * index is open addressing over uint64 slots (0: empty, else the top 32 bits of the hash
 * and 1 + the entry's number). Forgetting the older half moves the younger half (entries
 * and keys) to the front and builds the index again: amortized, a constant per entry. */

typedef struct {
    uint64_t hash;
    PyObject *value;
    size_t key; /* offset of the key in the arena */
    size_t key_length;
} MemoEntry;

typedef struct {
    PyObject_HEAD
    Py_ssize_t size;      /* the most entries before the older half is forgotten */
    Py_ssize_t count;     /* entries held */
    MemoEntry *entries;   /* size + 1 of them (a full memo of 1 forgets none), in the order they came */
    uint64_t *slots;      /* a power of two, at least twice the entries */
    uint64_t mask;
    unsigned char *arena; /* the keys, in the order of their entries */
    size_t used, room;
} DecisionMemo;

static PyTypeObject DecisionMemoType;

static void memo_index(DecisionMemo *memo, Py_ssize_t number) {
    uint64_t hash = memo->entries[number].hash;
    uint64_t i = hash & memo->mask;
    while (memo->slots[i] != 0) {
        i = (i + 1) & memo->mask;
    }
    memo->slots[i] = (hash >> 32) << 32 | (uint64_t)(number + 1);
}

/* The value held for key (borrowed), or NULL. */
static PyObject *memo_find(DecisionMemo *memo, const unsigned char *key, size_t length, uint64_t hash) {
    for (uint64_t i = hash & memo->mask;; i = (i + 1) & memo->mask) {
        uint64_t slot = memo->slots[i];
        if (slot == 0) {
            return NULL;
        }
        if (slot >> 32 != hash >> 32) {
            continue;
        }
        const MemoEntry *entry = &memo->entries[(slot & 0xFFFFFFFFu) - 1];
        if (entry->hash == hash && entry->key_length == length &&
            memcmp(memo->arena + entry->key, key, length) == 0) {
            return entry->value;
        }
    }
}

/* Forgets the older half of the entries (the first count / 2 that came). */
static void memo_forget_older_half(DecisionMemo *memo) {
    Py_ssize_t half = memo->count / 2, kept = memo->count - half;
    for (Py_ssize_t i = 0; i < half; i++) {
        Py_DECREF(memo->entries[i].value);
    }
    size_t from = kept > 0 ? memo->entries[half].key : memo->used;
    memmove(memo->entries, memo->entries + half, (size_t)kept * sizeof(MemoEntry));
    memmove(memo->arena, memo->arena + from, memo->used - from);
    memo->used -= from;
    memo->count = kept;
    memset(memo->slots, 0, (size_t)(memo->mask + 1) * sizeof(uint64_t));
    for (Py_ssize_t i = 0; i < kept; i++) {
        memo->entries[i].key -= from;
        memo_index(memo, i);
    }
}

/* Remembers key -> value (a new key; the memo takes a reference). -1 on error. */
static int memo_add(DecisionMemo *memo, const unsigned char *key, size_t length, uint64_t hash, PyObject *value) {
    if (memo->count >= memo->size) {
        memo_forget_older_half(memo);
    }
    if (memo->used + length > memo->room) {
        size_t room = memo->room * 2 > memo->used + length ? memo->room * 2 : memo->used + length;
        unsigned char *arena = PyMem_Realloc(memo->arena, room);
        if (arena == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memo->arena = arena;
        memo->room = room;
    }
    memcpy(memo->arena + memo->used, key, length);
    MemoEntry *entry = &memo->entries[memo->count];
    entry->hash = hash;
    entry->key = memo->used;
    entry->key_length = length;
    Py_INCREF(value);
    entry->value = value;
    memo->used += length;
    memo_index(memo, memo->count++);
    return 0;
}

static PyObject *memo_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"size", NULL};
    Py_ssize_t size;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n", names, &size)) {
        return NULL;
    }
    if (size < 1 || size > (1 << 30)) {
        PyErr_SetString(PyExc_ValueError, "size must be 1 to 2**30");
        return NULL;
    }
    uint64_t slots = 16;
    while (slots < ((uint64_t)size + 1) * 2) {
        slots *= 2;
    }
    DecisionMemo *self = (DecisionMemo *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->size = size;
    self->mask = slots - 1;
    self->room = 4096;
    self->entries = PyMem_Malloc(((size_t)size + 1) * sizeof(MemoEntry));
    self->slots = PyMem_Calloc((size_t)slots, sizeof(uint64_t));
    self->arena = PyMem_Malloc(self->room);
    if (self->entries == NULL || self->slots == NULL || self->arena == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void memo_dealloc(DecisionMemo *self) {
    for (Py_ssize_t i = 0; i < self->count; i++) {
        Py_DECREF(self->entries[i].value);
    }
    PyMem_Free(self->entries);
    PyMem_Free(self->slots);
    PyMem_Free(self->arena);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* get(key) -> the memo value, or raises KeyError. */
static PyObject *memo_get_method(DecisionMemo *self, PyObject *args) {
    const char *key;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "y#", &key, &length)) {
        return NULL;
    }
    PyObject *value =
        memo_find(self, (const unsigned char *)key, (size_t)length, hash_bytes((const unsigned char *)key, length));
    if (value == NULL) {
        PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(args, 0));
        return NULL;
    }
    Py_INCREF(value);
    return value;
}

/* add(key, value): remembers a new key (an older half forgotten first if the memo is full). */
static PyObject *memo_add_method(DecisionMemo *self, PyObject *args) {
    const char *key;
    Py_ssize_t length;
    PyObject *value;
    if (!PyArg_ParseTuple(args, "y#O", &key, &length, &value)) {
        return NULL;
    }
    uint64_t hash = hash_bytes((const unsigned char *)key, length);
    if (memo_find(self, (const unsigned char *)key, (size_t)length, hash) != NULL) {
        PyErr_SetString(PyExc_KeyError, "the memo holds that key already");
        return NULL;
    }
    if (memo_add(self, (const unsigned char *)key, (size_t)length, hash, value) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* items() -> [(key, value)], in the order they came. */
static PyObject *memo_items_method(DecisionMemo *self, PyObject *unused) {
    (void)unused;
    PyObject *items = PyList_New(self->count);
    for (Py_ssize_t i = 0; items != NULL && i < self->count; i++) {
        const MemoEntry *entry = &self->entries[i];
        PyObject *item = Py_BuildValue("(y#O)", self->arena + entry->key, (Py_ssize_t)entry->key_length, entry->value);
        if (item == NULL) {
            Py_CLEAR(items);
            break;
        }
        PyList_SET_ITEM(items, i, item);
    }
    return items;
}

static Py_ssize_t memo_length(DecisionMemo *self) { return self->count; }

static PyMethodDef memo_methods[] = {
    {"get", (PyCFunction)memo_get_method, METH_VARARGS, "get(key) -> the memo value; KeyError if absent"},
    {"add", (PyCFunction)memo_add_method, METH_VARARGS, "add(key, value): remembers a key it does not hold"},
    {"items", (PyCFunction)memo_items_method, METH_NOARGS, "items() -> [(key, value)], oldest first"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef memo_members[] = {
    {"size", T_PYSSIZET, offsetof(DecisionMemo, size), READONLY, "the most entries held"},
    {NULL, 0, 0, 0, NULL},
};

static PySequenceMethods memo_sequence = {.sq_length = (lenfunc)memo_length};

static PyTypeObject DecisionMemoType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ldids.dumps._scan.DecisionMemo",
    .tp_basicsize = sizeof(DecisionMemo),
    .tp_dealloc = (destructor)memo_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "DecisionMemo(size): one process's decisions by raw key, the older half forgotten when full",
    .tp_methods = memo_methods,
    .tp_members = memo_members,
    .tp_as_sequence = &memo_sequence,
    .tp_new = memo_new,
};

/* -- One block ---------------------------------------------------------------------------------- */

/* A memo value (ldids.dumps.worker._Value) is one of:
 *   None                                    not an identifier;
 *   bytes: one byte, then the replacement   a valid identifier rewritten: the byte indexes
 *                                           the scheme names (one object per entry: the
 *                                           commonest entries are the smallest);
 *   (None, False, scheme)                   a valid identifier already in canonical form;
 *   (None, True, scheme, problems, text)    an invalid identifier;
 *   (None, False, None, key)                a term left alone: counted under key, a
 *                                           ("left", reason) tuple. */
typedef struct {
    DecisionMemo *table; /* key -> memo value */
    PyObject *decide;  /* decide(raw, bare predicate or None, linkable, subject or None) -> memo value */
    PyObject *schemes; /* tuple of scheme names, indexed by a rewriting value's first byte */
    PyObject *counts;  /* dict: scheme -> occurrences of identifiers rewritten */
    PyObject *invalid; /* list of (line index, memo value) */
    SharedDecisions *shared; /* decisions of the run's other processes, or NULL */
    /* The compiled decision of IRIs in a prefixed form (compiled_decision), or NULL where
     * it is off: the compiled canonicalizer of each scheme, None for a scheme without one,
     * indexed as schemes; the memo value of an identifier already canonical, per scheme;
     * the list the links of terms decided are appended to (ldids.dumps.worker._Worker.new_links). */
    PyObject *compiled;
    PyObject *unchanged;
    PyObject *links;
    /* Occurrences of identifiers rewritten, per scheme byte: added to counts at the end of
     * the block, not a dict look-up and a new int per occurrence. */
    Py_ssize_t rewritten[256];
} Memo;

static int is_value(Memo *memo, PyObject *value) {
    if (value == Py_None) {
        return 1;
    }
    if (PyBytes_Check(value)) {
        return PyBytes_GET_SIZE(value) >= 2 &&
               (unsigned char)PyBytes_AS_STRING(value)[0] < PyTuple_GET_SIZE(memo->schemes);
    }
    return PyTuple_Check(value) && PyTuple_GET_SIZE(value) >= 3 && PyTuple_GET_ITEM(value, 0) == Py_None;
}

/* Makes room in the memo: forgets the older half (dicts keep insertion order), so the
 * identifiers a dump is repeating right now stay known (ldids.passes.decision.evict_oldest_half). */
static int evict_oldest_half(PyObject *memo) {
    Py_ssize_t half = PyDict_GET_SIZE(memo) / 2, position = 0, taken = 0;
    PyObject *keys = PyList_New(half), *key, *value;
    if (keys == NULL) {
        return -1;
    }
    while (taken < half && PyDict_Next(memo, &position, &key, &value)) {
        Py_INCREF(key);
        PyList_SET_ITEM(keys, taken++, key);
    }
    int failed = 0;
    for (Py_ssize_t i = 0; i < taken && !failed; i++) {
        failed = PyDict_DelItem(memo, PyList_GET_ITEM(keys, i)) < 0;
    }
    Py_DECREF(keys);
    return failed ? -1 : 0;
}

/* A term's memo key: its bytes, where they are, and their hash. */
typedef struct {
    const unsigned char *bytes;
    size_t length;
    uint64_t hash;
} Key;

/* Remembers a decision: in the table the run's processes share if it takes it, else in
 * this process's memo. */
static int remember(Memo *memo, const Key *key, PyObject *value) {
#ifdef SHARED_DECISIONS
    if (memo->shared != NULL) {
        int added = shared_put(memo->shared, key->bytes, (Py_ssize_t)key->length, key->hash, value);
        if (added != 0) {
            return added < 0 ? -1 : 0;
        }
    }
#endif
    return memo_add(memo->table, key->bytes, key->length, key->hash, value);
}

/* A new decision, remembered: the value handed back, or NULL (and the value released) on error. */
static PyObject *remembered(Memo *memo, const Key *key, PyObject *value) {
    if (remember(memo, key, value) < 0) {
        Py_DECREF(value);
        return NULL;
    }
    return value;
}

static const char SAME_AS_LINK[] = " <http://www.w3.org/2002/07/owl#sameAs> ";

/* The compiled canonicalizers for C callers (ldids/schemes/_canonical.c, its capsule `_api`;
 * the struct is repeated from there, its version checked): called here without a Python
 * object made per text. */
#define CANONICAL_API_VERSION 1
#define CANONICAL_ROOM 4096 /* the most a canonicalizer may ask for its output (_canonical.c: ~1.2 KiB) */
typedef struct {
    int version;
    Py_ssize_t capacity;
    int (*canonical)(PyObject *function, const unsigned char *text, Py_ssize_t length, unsigned char *out,
                     Py_ssize_t *out_length);
} CanonicalApi;

/* The capsule's functions, taken on first use; NULL where there is none (every canonicalizer
 * is then called through Python, as one that is not compiled is anyway). */
static const CanonicalApi *canonical_api = NULL;
static int canonical_api_tried = 0;

static const CanonicalApi *canonical_functions(void) {
    if (!canonical_api_tried) {
        canonical_api_tried = 1;
        const CanonicalApi *api = PyCapsule_Import("ldids.schemes._canonical._api", 0);
        if (api == NULL) {
            PyErr_Clear();
        } else if (api->version == CANONICAL_API_VERSION && api->capacity <= CANONICAL_ROOM) {
            canonical_api = api;
        }
    }
    return canonical_api;
}

/* What the canonicalizer `canonicalize` answers for the ASCII text[0..length): 1 and the
 * canonical IRI (*written, *written_length: in `room`, CANONICAL_ROOM bytes, or in *held),
 * 0 for None, 2 for an answer that is not ASCII (Python decides), -1 on error. *held is a
 * str to release once the answer is used, or NULL. */
static int canonical_of(PyObject *canonicalize, const unsigned char *text, Py_ssize_t length, unsigned char *room,
                        const unsigned char **written, Py_ssize_t *written_length, PyObject **held) {
    *held = NULL;
    const CanonicalApi *api = canonical_functions();
    if (api != NULL) {
        int found = api->canonical(canonicalize, text, length, room, written_length);
        if (found >= 0) {
            *written = room;
            return found;
        }
    }
    /* not a compiled canonicalizer (a test's, say): through Python */
    PyObject *string = PyUnicode_New(length, 127);
    if (string == NULL) {
        return -1;
    }
    memcpy(PyUnicode_1BYTE_DATA(string), text, (size_t)length);
    PyObject *canonical = PyObject_CallOneArg(canonicalize, string);
    Py_DECREF(string);
    if (canonical == NULL) {
        return -1;
    }
    if (canonical == Py_None || !PyUnicode_Check(canonical) || !PyUnicode_IS_ASCII(canonical)) {
        int none = canonical == Py_None;
        Py_DECREF(canonical);
        return none ? 0 : 2; /* not what the canonicalizers give: Python decides */
    }
    *held = canonical;
    *written = PyUnicode_1BYTE_DATA(canonical);
    *written_length = PyUnicode_GET_LENGTH(canonical);
    return 1;
}

/* Where a raw IRI term needs no Python to be decided: what ldids.passes.decision.decide
 * answers for an IRI in a prefixed form whose scheme's compiled canonicalizer answers for
 * it (ldids/schemes/_canonical.c, held to the scheme modules by
 * benchmarks/fuzz_canonical.py), made here as ldids.dumps.worker._Worker.decide makes it:
 * a rewrite (scheme byte + canonical IRI) and its owl:sameAs link from the canonical IRI
 * to the form written, or the scheme's "already canonical" value. A real dump's records
 * each bring identifiers of their own, and deciding each in Python cost three quarters
 * of a run. The prefixes of the schemes are disjoint, so the one canonicalizer that
 * answers names the scheme decide() detects; benchmarks/fuzz_decision.py holds the two
 * decisions equal. Returns a new reference; NULL without an error: ask Python (escapes,
 * non-ASCII, forms and invalid texts the compiled code leaves, configurations that link
 * more, see ldids.dumps.worker._compiled_decisions); NULL with an error: an error. */
static PyObject *compiled_decision(Memo *memo, const unsigned char *raw, Py_ssize_t raw_length) {
    Py_ssize_t length = raw_length - 2;
    if (length < 1 || raw[0] != '<' || raw[raw_length - 1] != '>') {
        return NULL;
    }
    const unsigned char *text = raw + 1;
    for (Py_ssize_t i = 0; i < length; i++) {
        if (text[i] >= 0x80 || text[i] == '\\') {
            return NULL; /* UTF-8 or \u escapes: the text is Python's to unescape and decide */
        }
    }
    unsigned char room[CANONICAL_ROOM];
    const unsigned char *written = NULL;
    Py_ssize_t canonical_length = 0;
    PyObject *canonical = NULL; /* a str the answer is in, when it came through Python */
    Py_ssize_t scheme = 0, count = PyTuple_GET_SIZE(memo->compiled);
    int found = 0;
    for (; scheme < count && found == 0; scheme++) {
        PyObject *canonicalize = PyTuple_GET_ITEM(memo->compiled, scheme);
        if (canonicalize != Py_None) {
            found = canonical_of(canonicalize, text, length, room, &written, &canonical_length, &canonical);
        }
    }
    if (found != 1) {
        Py_XDECREF(canonical);
        return NULL; /* an error, or ask Python */
    }
    scheme--; /* the one that answered */
    PyObject *value = NULL;
    if (canonical_length == length && memcmp(written, text, (size_t)length) == 0) {
        value = PyTuple_GET_ITEM(memo->unchanged, scheme);
        Py_INCREF(value);
        goto done;
    }
    for (Py_ssize_t i = 0; i < canonical_length; i++) {
        /* What ldids.ntriples.iri would escape (controls, space, <>"{}|^`\: what IRIREF
         * does not allow, iri_byte): left to Python (no canonical IRI has it). */
        if (!(iri_byte[written[i]] & IRI_PLAIN)) {
            goto done;
        }
    }
    value = PyBytes_FromStringAndSize(NULL, canonical_length + 3);
    PyObject *link = PyUnicode_New(canonical_length + 2 + (Py_ssize_t)strlen(SAME_AS_LINK) + raw_length + 2, 127);
    if (value == NULL || link == NULL) {
        Py_XDECREF(link);
        Py_CLEAR(value);
        goto done;
    }
    char *at = PyBytes_AS_STRING(value);
    at[0] = (char)scheme;
    at[1] = '<';
    memcpy(at + 2, written, (size_t)canonical_length);
    at[canonical_length + 2] = '>';
    Py_UCS1 *line = PyUnicode_1BYTE_DATA(link);
    memcpy(line, at + 1, (size_t)canonical_length + 2);
    line += canonical_length + 2;
    memcpy(line, SAME_AS_LINK, strlen(SAME_AS_LINK));
    line += strlen(SAME_AS_LINK);
    memcpy(line, raw, (size_t)raw_length);
    memcpy(line + raw_length, " .", 2);
    if (PyList_Append(memo->links, link) < 0) {
        Py_CLEAR(value);
    }
    Py_DECREF(link);
done:
    Py_XDECREF(canonical);
    if (value == NULL && !PyErr_Occurred()) {
        return NULL; /* ask Python */
    }
    return value;
}

/* Is the IRI text[0..length) a valid identifier in a prefixed form, written as its canonical
 * IRI? 1 where a compiled canonicalizer answers for it with the text itself; 0 where that
 * is not known here (Python decides); -1 on error. */
static int canonical_identifier(Memo *memo, const unsigned char *text, Py_ssize_t length) {
    for (Py_ssize_t i = 0; i < length; i++) {
        if (text[i] >= 0x80 || text[i] == '\\') {
            return 0;
        }
    }
    unsigned char room[CANONICAL_ROOM];
    const unsigned char *written = NULL;
    Py_ssize_t written_length = 0;
    PyObject *held = NULL;
    int found = 0;
    for (Py_ssize_t scheme = 0; scheme < PyTuple_GET_SIZE(memo->compiled) && found == 0; scheme++) {
        PyObject *canonicalize = PyTuple_GET_ITEM(memo->compiled, scheme);
        if (canonicalize != Py_None) {
            found = canonical_of(canonicalize, text, length, room, &written, &written_length, &held);
        }
    }
    int same = found == 1 && written_length == length && memcmp(written, text, (size_t)length) == 0;
    Py_XDECREF(held);
    return found < 0 ? -1 : same;
}

/* The link a statement of an identity predicate (Fedora's OAI itemID) calls for, from its
 * subject to its object as rewritten (after[0], after[2]), made here where both are IRIs
 * that canonical_identifier knows: what ldids.dumps.worker._Worker.identity_link (so
 * ldids.passes.graph.identity_link) makes of them, without a Python call per statement.
 * The predicate was matched as written, without escapes. 1: decided (the link, if any,
 * added to memo->links); 0: Python decides; -1 on error. */
static int identity_link(Memo *memo, const char *const after[3], const Py_ssize_t after_length[3]) {
    const unsigned char *subject = (const unsigned char *)after[0], *object = (const unsigned char *)after[2];
    Py_ssize_t subject_length = after_length[0], object_length = after_length[2];
    if (memo->compiled == NULL || subject_length < 2 || subject[0] != '<' || object_length < 2 || object[0] != '<') {
        return 0;
    }
    int known = canonical_identifier(memo, subject + 1, subject_length - 2);
    if (known == 1) {
        known = canonical_identifier(memo, object + 1, object_length - 2);
    }
    if (known != 1) {
        return known;
    }
    if (subject_length == object_length && memcmp(subject, object, (size_t)subject_length) == 0) {
        return 1; /* the same identifier: no link */
    }
    Py_ssize_t infix = (Py_ssize_t)strlen(SAME_AS_LINK);
    PyObject *link = PyUnicode_New(subject_length + infix + object_length + 2, 127);
    if (link == NULL) {
        return -1;
    }
    Py_UCS1 *at = PyUnicode_1BYTE_DATA(link);
    memcpy(at, subject, (size_t)subject_length);
    memcpy(at + subject_length, SAME_AS_LINK, (size_t)infix);
    memcpy(at + subject_length + infix, object, (size_t)object_length);
    memcpy(at + subject_length + infix + object_length, " .", 2);
    int failed = PyList_Append(memo->links, link);
    Py_DECREF(link);
    return failed < 0 ? -1 : 1;
}

/* -- Bare PIDs under bare-PID predicates ---------------------------------------------------------
 *
 * A literal under a bare-PID predicate (dc:identifier) that holds a bare PID ("demo:1") is
 * rewritten only if its namespace is the subject's own PID namespace or a configured one
 * (DESIGN.md §2): its decision depends on the statement's subject, so the memo, keyed by
 * predicate, subject and literal, finds it again only where the same statement recurs. In a
 * real dump each record has its own, and deciding each in Python cost half a run.
 *
 * Here, what ldids.passes.decision.decide answers for the commonest of them is made from
 * tables the Python side derives from the scheme modules (ldids.dumps.worker.BarePidTables):
 * a plain literal without escapes whose whole text is namespace ':' object-id in the PID
 * character classes (escapes of octets allowed in the object-id), at most the PID length
 * limit long, and holding no prefixed scheme's prefilter needle (so no prefixed scheme
 * claims it). Its namespace is found in the subject's own decision, which the line has
 * just looked up (the subject comes first): the scheme that canonicalized the subject and
 * its canonical IRI give the subject's PID namespace by that scheme's rule. Everything
 * else (escapes, an escaped separator, invalid PIDs, datatypes, subjects whose namespace
 * needs Python) is Python's, as before. benchmarks/fuzz_decision.py holds the two equal. */

enum { RULE_PYTHON = -1, RULE_NONE = 0, RULE_AFTER_PREFIX = 1, RULE_POI_LOCAL = 2 };
#define MAX_RULES 256

typedef struct {
    PyObject *predicates;     /* tuple of raw bare-PID predicates (bytes) */
    PyObject *datatypes;      /* tuple of raw datatype IRIs of literals that may be identifiers */
    unsigned char chars[256]; /* PID_NAMESPACE | PID_OBJECT_ID bits */
    Py_ssize_t max_length;    /* of a normalized PID */
    PyObject *iri_prefix;     /* bytes: a PID's canonical IRI is this, then the normalized PID */
    PyObject *pid_namespaces; /* tuple of configured namespaces (bytes) */
    PyObject *uri_schemes;    /* frozenset of URI scheme names in lower case (str) */
    unsigned char scheme;     /* the index of fedora-pid among the schemes */
    int to_iri;               /* the rewritten literal becomes an IRI (literals-to-iris) */
    PyObject *left_foreign;   /* memo values of a bare PID left alone: foreign namespace, */
    PyObject *left_uri_scheme; /* ... and a URI scheme's name as namespace */
    int rules[MAX_RULES];     /* per scheme index: how its canonical IRI carries a PID namespace */
    PyObject *rule_prefixes;  /* tuple of bytes per scheme index: the prefix the rule reads after */
    Needles prefixes;         /* the prefixed schemes' prefilter needles (folded) alone */
    unsigned char last[64];   /* the last namespace asked about, as written, and whether it */
    Py_ssize_t last_length;   /* is a URI scheme's name (last_length -1: none yet) */
    int last_is_scheme;
} BarePids;

enum { PID_NAMESPACE = 1, PID_OBJECT_ID = 2 };

/* A whole PID in s[0..n): its namespace's length, or 0 if it is none or not normalized as
 * pid.scan would leave it but for the case of escapes' hex digits (which it upper-cases).
 * `escaped_separator`: whether "%3A" may stand for ':' (it may in an IRI's PID; in a
 * bare literal it is Python's: another scheme's identifier may be percent-encoded). */
static Py_ssize_t pid_shape(const BarePids *bare, const unsigned char *s, Py_ssize_t n, int escaped_separator) {
    Py_ssize_t i = 0;
    while (i < n && bare->chars[s[i]] & PID_NAMESPACE) {
        i++;
    }
    Py_ssize_t namespace = i, separator;
    if (i < n && s[i] == ':') {
        separator = 1;
    } else if (escaped_separator && i + 3 <= n && s[i] == '%' && s[i + 1] == '3' && fold(s[i + 2]) == 'a') {
        separator = 3;
    } else {
        return 0;
    }
    if (namespace == 0 || i + separator == n) {
        return 0;
    }
    for (i += separator; i < n;) {
        if (bare->chars[s[i]] & PID_OBJECT_ID) {
            i++;
        } else if (s[i] == '%' && i + 3 <= n && is_hex(s[i + 1]) && is_hex(s[i + 2])) {
            i += 3;
        } else {
            return 0;
        }
    }
    /* normalized: the separator one character, escapes three */
    return n - (separator - 1) <= bare->max_length ? namespace : 0;
}

/* The PID namespace a subject carries (decision.subject_namespace), from its memo value
 * (borrowed; NULL: the subject holds no prefilter needle, so no prefixed form): 1 and the
 * namespace in *found (NULL for none), or 0: Python must say. */
static int subject_namespace(Memo *memo, const BarePids *bare, const unsigned char *subject, Py_ssize_t length,
                             PyObject *value, const unsigned char **found, Py_ssize_t *found_length) {
    *found = NULL;
    *found_length = 0;
    if (subject[0] != '<' || value == NULL || value == Py_None) {
        return 1; /* a blank node, or no identifier */
    }
    const unsigned char *canonical;
    Py_ssize_t canonical_length, scheme;
    if (PyBytes_Check(value)) {
        /* rewritten: scheme byte, then the canonical IRI as an IRIREF */
        const unsigned char *written = (const unsigned char *)PyBytes_AS_STRING(value);
        Py_ssize_t size = PyBytes_GET_SIZE(value);
        if (size < 3 || written[1] != '<' || written[size - 1] != '>') {
            return 0;
        }
        scheme = written[0];
        canonical = written + 2;
        canonical_length = size - 3;
    } else if (PyTuple_Check(value) && PyTuple_GET_SIZE(value) == 5 && PyTuple_GET_ITEM(value, 1) == Py_True) {
        return 1; /* invalid: no PID namespace */
    } else if (PyTuple_Check(value) && PyTuple_GET_SIZE(value) == 3 && PyTuple_GET_ITEM(value, 1) == Py_False) {
        /* already canonical: the subject's text is its canonical IRI */
        PyObject *name = PyTuple_GET_ITEM(value, 2);
        Py_ssize_t count = PyTuple_GET_SIZE(memo->schemes);
        for (scheme = 0; scheme < count; scheme++) {
            int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(memo->schemes, scheme), name, Py_EQ);
            if (same < 0) {
                PyErr_Clear();
                return 0;
            }
            if (same) {
                break;
            }
        }
        if (scheme == count) {
            return 0;
        }
        canonical = subject + 1;
        canonical_length = length - 2;
    } else {
        return 0;
    }
    if (scheme >= PyTuple_GET_SIZE(memo->schemes) || scheme >= MAX_RULES ||
        memchr(canonical, '\\', (size_t)canonical_length) != NULL) {
        return 0; /* escapes: the text is Python's to unescape */
    }
    int rule = bare->rules[scheme];
    if (rule == RULE_NONE) {
        return 1;
    }
    if (rule != RULE_AFTER_PREFIX && rule != RULE_POI_LOCAL) {
        return 0;
    }
    PyObject *prefix = PyTuple_GET_ITEM(bare->rule_prefixes, scheme);
    Py_ssize_t skip = PyBytes_GET_SIZE(prefix);
    if (canonical_length < skip || memcmp(canonical, PyBytes_AS_STRING(prefix), (size_t)skip) != 0) {
        return 0;
    }
    const unsigned char *rest = canonical + skip;
    Py_ssize_t rest_length = canonical_length - skip;
    if (rule == RULE_AFTER_PREFIX) {
        /* info:fedora: the PID after the prefix; '*' names no object (info_fedora.py) */
        if (rest_length > 0 && rest[0] == '*') {
            return 1;
        }
        const unsigned char *colon = memchr(rest, ':', (size_t)rest_length);
        *found = rest;
        *found_length = colon == NULL ? rest_length : colon - rest;
        return 1;
    }
    /* a POI: its local part, after the namespace's '/', is a PID or carries none */
    const unsigned char *slash = memchr(rest, '/', (size_t)rest_length);
    if (slash == NULL) {
        return 0;
    }
    const unsigned char *local = slash + 1;
    Py_ssize_t namespace = pid_shape(bare, local, rest + rest_length - local, 1);
    if (namespace > 0) {
        *found = local;
        *found_length = namespace;
    }
    return 1;
}

/* The memo value of a literal raw[0..raw_length) under a bare-PID predicate, as
 * ldids.dumps.worker._Worker.decide makes it (a new reference); NULL without an error:
 * ask Python. `subject_value`: the subject's memo value (borrowed), or NULL. */
static PyObject *bare_pid_decision(Memo *memo, BarePids *bare, const unsigned char *raw, Py_ssize_t raw_length,
                                   const unsigned char *subject, Py_ssize_t subject_length, PyObject *subject_value) {
    if (raw_length < 2 || raw[0] != '"' || memchr(raw, '\\', (size_t)raw_length) != NULL) {
        return NULL; /* escapes: the text is Python's to unescape */
    }
    Py_ssize_t close = raw_length - 1;
    while (raw[close] != '"') {
        close--; /* no escapes: the last '"' closes the lexical form */
    }
    const unsigned char *suffix = raw + close + 1;
    Py_ssize_t suffix_length = raw_length - close - 1;
    if (suffix_length > 0 && (suffix[0] == '@' || !one_of(bare->datatypes, suffix + 2, suffix_length - 2))) {
        Py_RETURN_NONE; /* text in a language, or a value of another datatype (is_identifier_literal) */
    }
    const unsigned char *text = raw + 1;
    Py_ssize_t length = close - 1;
    if (is_candidate(&bare->prefixes, text, length)) {
        return NULL; /* perhaps a prefixed form */
    }
    Py_ssize_t run = 0;
    while (run < length && bare->chars[text[run]] & PID_NAMESPACE) {
        run++;
    }
    int colon = run < length && text[run] == ':';
    int escaped = run + 3 <= length && text[run] == '%' && text[run + 1] == '3' && fold(text[run + 2]) == 'a';
    Py_ssize_t after = run + (colon ? 1 : 3);
    if (run == 0 || !(colon || escaped) || (after + 2 <= length && text[after] == '/' && text[after + 1] == '/')) {
        Py_RETURN_NONE; /* no PID claims it (pid.CLAIM), nor does a prefixed scheme */
    }
    Py_ssize_t namespace = pid_shape(bare, text, length, 0);
    if (namespace == 0) {
        return NULL;
    }
    /* Shaped like a bare PID, but a URI scheme's name (registry.foreign): left alone. A
     * dump's bare PIDs mostly share a namespace: the last one's answer is kept. */
    int scheme_name = bare->last_length == namespace && memcmp(bare->last, text, (size_t)namespace) == 0
                          ? bare->last_is_scheme
                          : -1;
    if (scheme_name < 0) {
        PyObject *name = PyUnicode_New(namespace, 127);
        if (name == NULL) {
            return NULL;
        }
        Py_UCS1 *lower = PyUnicode_1BYTE_DATA(name);
        for (Py_ssize_t i = 0; i < namespace; i++) {
            lower[i] = fold(text[i]);
        }
        scheme_name = PySet_Contains(bare->uri_schemes, name);
        Py_DECREF(name);
        if (scheme_name < 0) {
            return NULL;
        }
        if (namespace <= (Py_ssize_t)sizeof bare->last) {
            memcpy(bare->last, text, (size_t)namespace);
            bare->last_length = namespace;
            bare->last_is_scheme = scheme_name;
        }
    }
    if (scheme_name) {
        Py_INCREF(bare->left_uri_scheme);
        return bare->left_uri_scheme;
    }
    int ours = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bare->pid_namespaces) && !ours; i++) {
        PyObject *configured = PyTuple_GET_ITEM(bare->pid_namespaces, i);
        ours = PyBytes_GET_SIZE(configured) == namespace && memcmp(PyBytes_AS_STRING(configured), text,
                                                                   (size_t)namespace) == 0;
    }
    if (!ours) {
        const unsigned char *carried;
        Py_ssize_t carried_length;
        if (!subject_namespace(memo, bare, subject, subject_length, subject_value, &carried, &carried_length)) {
            return NULL;
        }
        ours = carried != NULL && carried_length == namespace && memcmp(carried, text, (size_t)namespace) == 0;
    }
    if (!ours) {
        Py_INCREF(bare->left_foreign);
        return bare->left_foreign;
    }
    /* Rewritten: scheme byte, then the canonical IRI (prefix + the PID normalized: its
     * escapes' hex digits upper case) as an IRI or as a plain literal. */
    Py_ssize_t prefix = PyBytes_GET_SIZE(bare->iri_prefix), kept = bare->to_iri ? 0 : suffix_length;
    PyObject *value = PyBytes_FromStringAndSize(NULL, 1 + 1 + prefix + length + 1 + kept);
    if (value == NULL) {
        return NULL;
    }
    char *at = PyBytes_AS_STRING(value);
    at[0] = (char)bare->scheme;
    at[1] = bare->to_iri ? '<' : '"';
    memcpy(at + 2, PyBytes_AS_STRING(bare->iri_prefix), (size_t)prefix);
    unsigned char *pid = (unsigned char *)at + 2 + prefix;
    memcpy(pid, text, (size_t)length);
    for (Py_ssize_t i = namespace + 1; i < length; i++) {
        if (pid[i] == '%') { /* pid_shape found two hex digits after it */
            for (int j = 1; j <= 2; j++) {
                pid[i + j] = pid[i + j] >= 'a' && pid[i + j] <= 'f' ? (unsigned char)(pid[i + j] - 32) : pid[i + j];
            }
            i += 2;
        }
    }
    pid[length] = bare->to_iri ? '>' : '"';
    memcpy(pid + length + 1, suffix, (size_t)kept); /* the datatype a literal keeps */
    return value;
}

/* The memo value of one term (a new reference), or NULL on error. */
static PyObject *look_up(Memo *memo, const Key *key, const unsigned char *raw, Py_ssize_t raw_length,
                         const unsigned char *bare_predicate, Py_ssize_t bare_predicate_length,
                         const unsigned char *subject, Py_ssize_t subject_length, int linkable, BarePids *bare,
                         PyObject *subject_value) {
    PyObject *value = memo_find(memo->table, key->bytes, key->length, key->hash);
    if (value != NULL) {
        Py_INCREF(value);
        return value;
    }
#ifdef SHARED_DECISIONS
    if (memo->shared != NULL) {
        uint32_t length;
        const unsigned char *shared = shared_find(memo->shared, key->bytes, (Py_ssize_t)key->length, key->hash,
                                                  &length);
        if (shared != NULL) {
            return value_from_shared(memo->shared, shared, length);
        }
    }
#endif
    if (bare != NULL) {
        /* A literal under a bare-PID predicate (the statement's subject its context). */
        value = bare_pid_decision(memo, bare, raw, raw_length, subject, subject_length, subject_value);
        if (value == NULL && PyErr_Occurred()) {
            return NULL;
        }
        if (value != NULL) {
            return remembered(memo, key, value);
        }
    }
    if (memo->compiled != NULL && bare_predicate == NULL) {
        value = compiled_decision(memo, raw, raw_length);
        if (value == NULL && PyErr_Occurred()) {
            return NULL;
        }
        if (value != NULL) {
            return remembered(memo, key, value);
        }
    }
    /* Never decided here: Python decides (the line is valid UTF-8, checked before). */
    PyObject *text = PyUnicode_DecodeUTF8((const char *)raw, raw_length, "strict");
    PyObject *predicate = Py_None, *context = Py_None;
    Py_INCREF(predicate);
    Py_INCREF(context);
    if (bare_predicate != NULL) {
        /* A literal under a bare-form predicate: the predicate and the statement's subject
         * are its context (the subject's PID namespace decides a bare PID, DESIGN.md §2). */
        Py_DECREF(predicate);
        Py_DECREF(context);
        predicate = PyUnicode_DecodeUTF8((const char *)bare_predicate, bare_predicate_length, "strict");
        context = PyUnicode_DecodeUTF8((const char *)subject, subject_length, "strict");
    }
    if (text != NULL && predicate != NULL && context != NULL) {
        value = PyObject_CallFunctionObjArgs(memo->decide, text, predicate, linkable ? Py_True : Py_False, context,
                                             NULL);
    }
    Py_XDECREF(text);
    Py_XDECREF(predicate);
    Py_XDECREF(context);
    if (value == NULL) {
        return NULL;
    }
    if (!is_value(memo, value)) {
        PyErr_SetString(PyExc_TypeError, "decide() must return None, scheme byte + replacement, or a tuple");
        Py_DECREF(value);
        return NULL;
    }
    return remembered(memo, key, value);
}

/* counts[key] += 1 */
static int add_one(PyObject *counts, PyObject *key) {
    PyObject *seen = PyDict_GetItemWithError(counts, key);
    if (seen == NULL && PyErr_Occurred()) {
        return -1;
    }
    PyObject *next = PyLong_FromSsize_t(seen == NULL ? 1 : PyLong_AsSsize_t(seen) + 1);
    if (next == NULL) {
        return -1;
    }
    int failed = PyDict_SetItem(counts, key, next);
    Py_DECREF(next);
    return failed;
}

/* Counts one occurrence of an identifier: rewritten ones per scheme, terms left alone per
 * reason, invalid ones listed. */
static int count(Memo *memo, PyObject *value, Py_ssize_t line) {
    if (PyTuple_Check(value)) {
        if (!PyObject_IsTrue(PyTuple_GET_ITEM(value, 1))) {
            if (PyTuple_GET_SIZE(value) == 4) {
                return add_one(memo->counts, PyTuple_GET_ITEM(value, 3)); /* left alone, for a reason */
            }
            return 0; /* already canonical: nothing rewritten */
        }
        PyObject *entry = Py_BuildValue("(nO)", line, value);
        if (entry == NULL) {
            return -1;
        }
        int failed = PyList_Append(memo->invalid, entry);
        Py_DECREF(entry);
        return failed;
    }
    memo->rewritten[(unsigned char)PyBytes_AS_STRING(value)[0]]++; /* is_value: a scheme's index */
    return 0;
}

/* The occurrences counted in memo->rewritten, added to memo->counts under the scheme names. */
static int add_rewritten(Memo *memo) {
    for (Py_ssize_t scheme = 0; scheme < PyTuple_GET_SIZE(memo->schemes) && scheme < 256; scheme++) {
        if (memo->rewritten[scheme] == 0) {
            continue;
        }
        PyObject *count = PyLong_FromSsize_t(memo->rewritten[scheme]);
        if (count == NULL || PyDict_SetItem(memo->counts, PyTuple_GET_ITEM(memo->schemes, scheme), count) < 0) {
            Py_XDECREF(count);
            return -1;
        }
        Py_DECREF(count);
    }
    return 0;
}

/* One attribute of the tables object, as a borrowed reference: the object (a frozen
 * dataclass, ldids.dumps.stream.ScanTables) holds it for the whole call. NULL on error. */
static PyObject *table(PyObject *tables, const char *name, PyTypeObject *type) {
    PyObject *value = PyObject_GetAttrString(tables, name);
    if (value == NULL) {
        return NULL;
    }
    Py_DECREF(value);
    if (type != NULL && !PyObject_TypeCheck(value, type)) {
        PyErr_Format(PyExc_TypeError, "tables.%s must be a %s", name, type->tp_name);
        return NULL;
    }
    return value;
}

static int table_flag(PyObject *tables, const char *name) {
    PyObject *value = table(tables, name, NULL);
    return value == NULL ? -1 : PyObject_IsTrue(value);
}

/* Reads tables.bare_pids (ldids.dumps.worker.BarePidTables, or None: off) into *bare, its
 * references borrowed from the tables object: 1 if on, 0 if off, -1 on error. */
static int bare_pids_init(PyObject *tables, Memo *memo, BarePids *bare, PyObject *folded, PyObject *none) {
    PyObject *source = table(tables, "bare_pids", NULL);
    if (source == NULL || source == Py_None) {
        return source == NULL ? -1 : 0;
    }
    PyObject *namespace_chars, *object_chars, *max_length, *scheme, *rules;
    if ((bare->predicates = table(source, "predicates", &PyTuple_Type)) == NULL ||
        (bare->datatypes = table(source, "datatypes", &PyTuple_Type)) == NULL ||
        (namespace_chars = table(source, "namespace_chars", &PyBytes_Type)) == NULL ||
        (object_chars = table(source, "object_chars", &PyBytes_Type)) == NULL ||
        (max_length = table(source, "max_length", &PyLong_Type)) == NULL ||
        (bare->iri_prefix = table(source, "iri_prefix", &PyBytes_Type)) == NULL ||
        (bare->pid_namespaces = table(source, "pid_namespaces", &PyTuple_Type)) == NULL ||
        (bare->uri_schemes = table(source, "uri_schemes", &PyFrozenSet_Type)) == NULL ||
        (scheme = table(source, "scheme", &PyLong_Type)) == NULL ||
        (bare->left_foreign = table(source, "left_foreign", &PyTuple_Type)) == NULL ||
        (bare->left_uri_scheme = table(source, "left_uri_scheme", &PyTuple_Type)) == NULL ||
        (rules = table(source, "rules", &PyTuple_Type)) == NULL ||
        (bare->rule_prefixes = table(source, "rule_prefixes", &PyTuple_Type)) == NULL ||
        (bare->to_iri = table_flag(source, "to_iri")) < 0) {
        return -1;
    }
    Py_ssize_t schemes = PyTuple_GET_SIZE(memo->schemes), index = PyLong_AsSsize_t(scheme);
    bare->max_length = PyLong_AsSsize_t(max_length);
    if (PyErr_Occurred()) {
        return -1;
    }
    int ok = index >= 0 && index < schemes && schemes <= MAX_RULES && PyTuple_GET_SIZE(rules) == schemes &&
             PyTuple_GET_SIZE(bare->rule_prefixes) == schemes && is_value(memo, bare->left_foreign) &&
             is_value(memo, bare->left_uri_scheme);
    for (Py_ssize_t i = 0; ok && i < schemes; i++) {
        PyObject *rule = PyTuple_GET_ITEM(rules, i);
        ok = PyLong_Check(rule) && PyBytes_Check(PyTuple_GET_ITEM(bare->rule_prefixes, i));
        bare->rules[i] = ok ? (int)PyLong_AsLong(rule) : RULE_PYTHON;
    }
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(bare->pid_namespaces); i++) {
        ok = PyBytes_Check(PyTuple_GET_ITEM(bare->pid_namespaces, i));
    }
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(bare->predicates); i++) {
        ok = PyBytes_Check(PyTuple_GET_ITEM(bare->predicates, i));
    }
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(bare->datatypes); i++) {
        ok = PyBytes_Check(PyTuple_GET_ITEM(bare->datatypes, i));
    }
    if (!ok || PyErr_Occurred()) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "tables.bare_pids is not indexed as the schemes, or not of its types");
        }
        return -1;
    }
    bare->scheme = (unsigned char)index;
    memset(bare->chars, 0, sizeof bare->chars);
    PyObject *classes[2] = {namespace_chars, object_chars};
    for (int k = 0; k < 2; k++) {
        const unsigned char *chars = (const unsigned char *)PyBytes_AS_STRING(classes[k]);
        for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(classes[k]); i++) {
            /* only ASCII: the UTF-8 bytes of other characters are no PID's */
            bare->chars[chars[i]] |= chars[i] < 0x80 ? (k == 0 ? PID_NAMESPACE : PID_OBJECT_ID) : 0;
        }
    }
    bare->last_length = -1;
    bare->prefixes.folded = folded;
    bare->prefixes.exact = none;
    needles_init(&bare->prefixes);
    return 1;
}

/* The first CR of s[start, end), or NULL. ``*next`` is where the first CR at or after some
 * earlier start is (``size``: there is none; below 0: not looked for yet): a block of LF
 * lines (most) is looked through for a CR once, not once per line. */
static inline const unsigned char *cr_in(const unsigned char *s, Py_ssize_t size, Py_ssize_t start, Py_ssize_t end,
                                         Py_ssize_t *next) {
    if (*next < start) {
        const unsigned char *found = memchr(s + start, '\r', (size_t)(size - start));
        *next = found == NULL ? size : found - s;
    }
    return *next < end ? s + *next : NULL;
}

/* The first LF at or after ``start``, or ``size``: where one was found at or after some
 * earlier start (``*next``), not looked for again. A block whose lines end at CR alone has
 * no LF: looking from each line's start to the block's end was time square in its size. */
static inline const unsigned char *lf_from(const unsigned char *s, Py_ssize_t size, Py_ssize_t start, Py_ssize_t *next) {
    if (*next < start) {
        const unsigned char *found = memchr(s + start, '\n', (size_t)(size - start));
        *next = found == NULL ? size : found - s;
    }
    return *next < size ? s + *next : NULL;
}

static PyObject *scan_block(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer data;
    int quads, stop_on_error, all_slow, rewrite_predicates;
    Memo memo = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {0}};
    PyObject *shared, *compiled;
    Needles needles;
    unsigned char key_room[1024]; /* a memo key made of more than the term (see below) */
    PyObject *tables, *bare_predicates, *slow_predicates, *identity_predicates, *identity, *slow, *bad, *into = Py_None;
    if (!PyArg_ParseTuple(args, "y*OOO|O", &data, &tables, &slow, &bad, &into)) {
        return NULL;
    }
    if ((quads = table_flag(tables, "quads")) < 0 || (stop_on_error = table_flag(tables, "stop_on_error")) < 0 ||
        (all_slow = table_flag(tables, "all_slow")) < 0 ||
        (rewrite_predicates = table_flag(tables, "rewrite_predicates")) < 0 ||
        (memo.table = (DecisionMemo *)table(tables, "memo", &DecisionMemoType)) == NULL ||
        (memo.decide = table(tables, "decide", NULL)) == NULL ||
        (memo.schemes = table(tables, "schemes", &PyTuple_Type)) == NULL ||
        (shared = table(tables, "shared", NULL)) == NULL ||
        (needles.folded = table(tables, "folded", &PyTuple_Type)) == NULL ||
        (needles.exact = table(tables, "exact", &PyTuple_Type)) == NULL ||
        (bare_predicates = table(tables, "bare_predicates", &PyTuple_Type)) == NULL ||
        (slow_predicates = table(tables, "slow_predicates", &PyTuple_Type)) == NULL ||
        (identity_predicates = table(tables, "identity_predicates", &PyTuple_Type)) == NULL ||
        (identity = table(tables, "identity", NULL)) == NULL ||
        (compiled = table(tables, "compiled", &PyTuple_Type)) == NULL ||
        (memo.unchanged = table(tables, "unchanged", &PyTuple_Type)) == NULL ||
        (memo.links = table(tables, "links", &PyList_Type)) == NULL) {
        PyBuffer_Release(&data);
        return NULL;
    }
    if (into != Py_None && !PyByteArray_Check(into) && !PyMemoryView_Check(into)) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_TypeError, "into must be None, a bytearray or a memoryview");
        return NULL;
    }
    if (PyTuple_GET_SIZE(compiled) > 0) {
        /* Indexed as the schemes: a scheme's byte in a memo value is its index. */
        if (PyTuple_GET_SIZE(compiled) != PyTuple_GET_SIZE(memo.schemes) ||
            PyTuple_GET_SIZE(memo.unchanged) != PyTuple_GET_SIZE(memo.schemes)) {
            PyBuffer_Release(&data);
            PyErr_SetString(PyExc_ValueError, "compiled and unchanged must be indexed as schemes");
            return NULL;
        }
        memo.compiled = compiled;
    }
    if (shared != Py_None) {
        if (!PyObject_TypeCheck(shared, &SharedDecisionsType)) {
            PyBuffer_Release(&data);
            PyErr_SetString(PyExc_TypeError, "shared must be None or a SharedDecisions");
            return NULL;
        }
        memo.shared = (SharedDecisions *)shared;
    }
    PyObject *tuples[] = {needles.folded, needles.exact, bare_predicates, slow_predicates, identity_predicates};
    for (int i = 0; i < 5; i++) {
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(tuples[i]); j++) {
            if (!PyBytes_Check(PyTuple_GET_ITEM(tuples[i], j)) || PyBytes_GET_SIZE(PyTuple_GET_ITEM(tuples[i], j)) == 0) {
                PyBuffer_Release(&data);
                PyErr_SetString(PyExc_TypeError, "needles and predicates must be non-empty bytes");
                return NULL;
            }
        }
    }
    needles_init(&needles);
    BarePids bare_pids;
    PyObject *none = PyTuple_New(0);
    int bare_on = none == NULL ? -1 : bare_pids_init(tables, &memo, &bare_pids, needles.folded, none);
    if (bare_on < 0) {
        Py_XDECREF(none);
        PyBuffer_Release(&data);
        return NULL;
    }
    /* As large as the input to start with: most lines are copied. */
    Py_buffer slot = {0};
    int in_slot = PyMemoryView_Check(into);
    if (in_slot && PyObject_GetBuffer(into, &slot, PyBUF_WRITABLE) < 0) { /* read-only, or not contiguous */
        Py_XDECREF(none);
        PyBuffer_Release(&data);
        return NULL;
    }
    Buffer out = {NULL, NULL, 0, 0, into != Py_None && !in_slot, NULL, NULL};
    if (out.reused) {
        Py_INCREF(into);
        out.object = into;
    } else if (in_slot) {
        out.fixed = &slot;
        out.view = into;
        out.text = slot.buf;
        out.capacity = slot.len;
    }
    PyObject *result = NULL;
    memo.counts = PyDict_New();
    memo.invalid = PyList_New(0);
    Py_ssize_t lines = 0, written = 0, statements = 0, rewritten_statements = 0;
    if (memo.counts == NULL || memo.invalid == NULL ||
        (!in_slot && buffer_reserve(&out, data.len + data.len / 16 + 1) < 0)) { /* a view: as large as it is */
        goto done;
    }
    const unsigned char *s = data.buf;
    Py_ssize_t size = data.len, start = 0, next_cr = -1, next_lf = -1;
    while (start < size) {
        /* A line ends at LF, CR LF or CR (N-Triples §7, EOL); `keep` is the line with its
         * break, copied as it is, and a last line without one is written with LF. */
        const unsigned char *newline = lf_from(s, size, start, &next_lf);
        Py_ssize_t line_end = newline == NULL ? size : newline - s;
        Py_ssize_t next = newline == NULL ? size : line_end + 1;
        const unsigned char *cr = cr_in(s, size, start, line_end, &next_cr);
        if (cr != NULL && !(newline != NULL && cr - s == line_end - 1)) {
            line_end = cr - s; /* a CR on its own */
            next = line_end + 1;
        }
        const unsigned char *line = s + start;
        Py_ssize_t keep = next - start;
        int ended = next > line_end;
        Py_ssize_t body = line_end - start - (cr != NULL && cr - s == line_end - 1); /* without a CR LF's CR */
        Py_ssize_t index = lines++;
        Terms terms;
        int ok = statement(line, body, &terms);
        if (ok && !valid_utf8(line, terms.end)) {
            ok = 0; /* not UTF-8 (a comment after it may be anything) */
        }
        if (ok && terms.start[3] >= 0 && !quads) {
            ok = 0;
        }
        if (ok && (ok = terms_valid(line, &terms)) < 0) {
            goto done;
        }
        if (!ok) {
            if (nothing(line, body)) {
                if (add_line(&out, line, keep, ended) < 0) {
                    goto done;
                }
                written++;
                start = next;
                continue;
            }
            PyObject *answer = PyObject_CallFunction(bad, "ny#", index, (const char *)line, body);
            if (answer == NULL) {
                goto done;
            }
            Py_DECREF(answer);
            if (stop_on_error) {
                break;
            }
            start = next;
            continue;
        }
        statements++;
        if (!is_candidate(&needles, line, body)) {
            if (add_line(&out, line, keep, ended) < 0) {
                goto done;
            }
            written++;
            start = next;
            continue;
        }
        const unsigned char *predicate = line + terms.start[1];
        Py_ssize_t predicate_length = terms.stop[1] - terms.start[1];
        if (all_slow || terms.spaced || one_of(slow_predicates, predicate, predicate_length) ||
            memchr(predicate, '\\', (size_t)predicate_length) != NULL) {
            PyObject *answer = PyObject_CallFunction(slow, "ny#", index, (const char *)line, body);
            if (answer == NULL) {
                goto done;
            }
            int failed;
            if (answer == Py_None) {
                failed = add_line(&out, line, keep, ended);
            } else if (PyBytes_Check(answer)) {
                failed = buffer_add(&out, PyBytes_AS_STRING(answer), PyBytes_GET_SIZE(answer)) < 0 ||
                         buffer_add(&out, "\n", 1) < 0;
            } else {
                PyErr_SetString(PyExc_TypeError, "slow() must return None or bytes");
                failed = -1;
            }
            Py_DECREF(answer);
            if (failed) {
                goto done;
            }
            written++;
            start = next;
            continue;
        }
        /* Term by term, from memoized decisions (ldids.dumps.stream._term_by_term). An
         * identity statement (Fedora's OAI itemID) is too, and then its terms as written
         * go to identity() (ldids.dumps.stream._identity_statement), which adds the link
         * it calls for, if any. */
        int identity_statement = one_of(identity_predicates, predicate, predicate_length);
        PyObject *replacement[4] = {NULL, NULL, NULL, NULL};
        PyObject *subject_value = NULL; /* the subject's memo value, if it was looked up */
        int changed = 0, failed = 0;
        int bare = -1;     /* is the predicate one of the bare-form predicates? (asked once) */
        int bare_pid = -1; /* one of those under which the compiled loop decides bare PIDs? */
        static const int positions[] = {0, 2, 3, 1};
        int position_count = rewrite_predicates ? 4 : 3;
        for (int k = 0; k < position_count && !failed; k++) {
            int index_ = positions[k];
            if (terms.start[index_] < 0) {
                continue;
            }
            const unsigned char *raw = line + terms.start[index_];
            Py_ssize_t raw_length = terms.stop[index_] - terms.start[index_];
            int literal_under_bare = 0;
            if (raw[0] == '"') {
                if (bare < 0) {
                    bare = one_of(bare_predicates, predicate, predicate_length);
                }
                literal_under_bare = bare;
            }
            if (!literal_under_bare && !is_candidate(&needles, raw, raw_length)) {
                continue;
            }
            /* The memo key tells apart what decide() tells apart: a literal under a bare-form
             * predicate (predicate + subject + literal: each term is self-delimiting), a graph
             * name or predicate (no links: "\0" + term), and subjects and objects (the term). */
            int linkable = index_ == 0 || index_ == 2;
            const unsigned char *subject = line + terms.start[0];
            Py_ssize_t subject_length = terms.stop[0] - terms.start[0];
            PyObject *value;
            if (literal_under_bare && bare_on && bare_pid < 0) {
                bare_pid = one_of(bare_pids.predicates, predicate, predicate_length);
            }
            /* The term itself where it is the whole key (most are); else made in key_room,
             * or on the heap for a key longer than that. */
            Key key = {raw, (size_t)raw_length, 0};
            unsigned char *made = NULL;
            if (literal_under_bare || !linkable) {
                key.length = literal_under_bare ? (size_t)(predicate_length + subject_length + raw_length)
                                                : (size_t)raw_length + 1;
                made = key.length <= sizeof key_room ? key_room : PyMem_Malloc(key.length);
                if (made == NULL) {
                    PyErr_NoMemory();
                    failed = 1;
                    break;
                }
                if (literal_under_bare) {
                    memcpy(made, predicate, (size_t)predicate_length);
                    memcpy(made + predicate_length, subject, (size_t)subject_length);
                    memcpy(made + predicate_length + subject_length, raw, (size_t)raw_length);
                } else {
                    made[0] = '\0';
                    memcpy(made + 1, raw, (size_t)raw_length);
                }
                key.bytes = made;
            }
            key.hash = hash_bytes(key.bytes, (Py_ssize_t)key.length);
            value = look_up(&memo, &key, raw, raw_length, literal_under_bare ? predicate : NULL, predicate_length,
                            subject, subject_length, linkable,
                            literal_under_bare && bare_on && bare_pid ? &bare_pids : NULL, subject_value);
            if (made != NULL && made != key_room) {
                PyMem_Free(made);
            }
            if (value == NULL) {
                failed = 1;
                break;
            }
            if (index_ == 0) {
                Py_INCREF(value);
                subject_value = value;
            }
            if (value != Py_None) {
                if (count(&memo, value, index) < 0) {
                    failed = 1;
                } else if (PyBytes_Check(value)) {
                    Py_INCREF(value);
                    replacement[index_] = value; /* written from its second byte */
                    changed = 1;
                }
            }
            Py_DECREF(value);
        }
        Py_XDECREF(subject_value);
        if (!failed && identity_statement) {
            const char *after[3];
            Py_ssize_t after_length[3];
            for (int index_ = 0; index_ < 3; index_++) {
                if (replacement[index_] != NULL) {
                    after[index_] = PyBytes_AS_STRING(replacement[index_]) + 1;
                    after_length[index_] = PyBytes_GET_SIZE(replacement[index_]) - 1;
                } else {
                    after[index_] = (const char *)line + terms.start[index_];
                    after_length[index_] = terms.stop[index_] - terms.start[index_];
                }
            }
            int decided = identity_link(&memo, after, after_length);
            if (decided < 0) {
                failed = 1;
            } else if (!decided) {
                PyObject *answer = PyObject_CallFunction(identity, "y#y#y#", after[0], after_length[0], after[1],
                                                         after_length[1], after[2], after_length[2]);
                if (answer == NULL) {
                    failed = 1;
                } else {
                    Py_DECREF(answer);
                }
            }
        }
        if (!failed) {
            if (!changed) {
                failed = add_line(&out, line, keep, ended) < 0;
            } else {
                /* The statement rewritten: its terms joined by single spaces, then " ." and
                 * LF (comments and a CR are not kept, as in the Python loop). */
                rewritten_statements++;
                for (int index_ = 0; index_ < 4 && !failed; index_++) {
                    if (terms.start[index_] < 0) {
                        continue;
                    }
                    if (index_ > 0) {
                        failed = buffer_add(&out, " ", 1) < 0;
                    }
                    if (failed) {
                        break;
                    }
                    if (replacement[index_] != NULL) {
                        failed = buffer_add(&out, PyBytes_AS_STRING(replacement[index_]) + 1,
                                            PyBytes_GET_SIZE(replacement[index_]) - 1) < 0;
                    } else {
                        failed = buffer_add(&out, (const char *)line + terms.start[index_],
                                            terms.stop[index_] - terms.start[index_]) < 0;
                    }
                }
                if (!failed) {
                    failed = buffer_add(&out, " .\n", 3) < 0;
                }
            }
        }
        for (int i = 0; i < 4; i++) {
            Py_XDECREF(replacement[i]);
        }
        if (failed) {
            goto done;
        }
        written++;
        start = next;
    }
    {
        PyObject *output = add_rewritten(&memo) < 0 ? NULL : buffer_finish(&out);
        if (output != NULL) {
            result = Py_BuildValue("(Nnnnn OO)", output, lines, written, statements, rewritten_statements,
                                   memo.counts, memo.invalid);
        }
    }
done:
    Py_XDECREF(none);
    Py_XDECREF(out.object);
    if (in_slot) {
        PyBuffer_Release(&slot);
    }
    Py_XDECREF(memo.counts);
    Py_XDECREF(memo.invalid);
    PyBuffer_Release(&data);
    return result;
}


/* -- Sorted runs of lines (ldids.dumps.sorting) ----------------------------------------------
 *
 * A run's links are sorted, each kept once, and written in UTF-8 as a file (a sorted run);
 * the runs are merged once the dump is read, on one core, while every other process waits:
 * done in Python, the merge of the 0.5M links of 1M triples took about a tenth of a run. */

/* The UTF-8 of a str line (lone surrogates as their three bytes, as "surrogatepass" writes
 * them: their order is the order of the code points): *bytes and *length, pointing into
 * the str, or into *held (a new bytes object to release) where it is not ASCII. */
static int utf8_of(PyObject *line, const char **bytes, Py_ssize_t *length, PyObject **held) {
    *held = NULL;
    if (!PyUnicode_Check(line)) {
        PyErr_SetString(PyExc_TypeError, "lines must be str");
        return -1;
    }
    if (PyUnicode_IS_ASCII(line)) {
        *bytes = (const char *)PyUnicode_1BYTE_DATA(line);
        *length = PyUnicode_GET_LENGTH(line);
        return 0;
    }
    *held = PyUnicode_AsEncodedString(line, "utf-8", "surrogatepass");
    if (*held == NULL) {
        return -1;
    }
    *bytes = PyBytes_AS_STRING(*held);
    *length = PyBytes_GET_SIZE(*held);
    return 0;
}

/* joined_unique(lines, start, stop) -> (data, count): lines[start:stop] of a sorted list of
 * str lines, each kept once (a line equal to the one before start too is left out: the
 * slices of one list join as the whole would), in UTF-8, each ended by LF; count: how many. */
static PyObject *joined_unique(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *lines;
    Py_ssize_t start = 0, stop = PY_SSIZE_T_MAX;
    if (!PyArg_ParseTuple(args, "O!|nn", &PyList_Type, &lines, &start, &stop)) {
        return NULL;
    }
    stop = stop < PyList_GET_SIZE(lines) ? stop : PyList_GET_SIZE(lines);
    start = start < 0 ? 0 : start;
    Buffer out = {NULL, NULL, 0, 0, 0, NULL, NULL};
    PyObject *previous_held = NULL;
    const char *previous = NULL;
    Py_ssize_t previous_length = -1, count = 0;
    if (start > 0 && start < stop) {
        if (utf8_of(PyList_GET_ITEM(lines, start - 1), &previous, &previous_length, &previous_held) < 0) {
            return NULL;
        }
    }
    for (Py_ssize_t i = start; i < stop; i++) {
        const char *bytes;
        Py_ssize_t length;
        PyObject *held;
        if (utf8_of(PyList_GET_ITEM(lines, i), &bytes, &length, &held) < 0) {
            goto failed;
        }
        if (length == previous_length && memcmp(bytes, previous, (size_t)length) == 0) {
            Py_XDECREF(held); /* a copy of the line before */
            continue;
        }
        if (buffer_reserve(&out, length + 1) < 0) {
            Py_XDECREF(held);
            goto failed;
        }
        memcpy(out.text + out.length, bytes, (size_t)length);
        out.text[out.length + length] = '\n';
        out.length += length + 1;
        count++;
        /* The line is kept by the list (ASCII) or by held: compared with the next. */
        Py_XSETREF(previous_held, held);
        previous = bytes;
        previous_length = length;
    }
    Py_XDECREF(previous_held);
    PyObject *data = buffer_finish(&out);
    return data == NULL ? NULL : Py_BuildValue("(Nn)", data, count);
failed:
    Py_XDECREF(previous_held);
    Py_XDECREF(out.object);
    return NULL;
}

#ifdef MERGED_RUNS
/* One sorted run being read: its current line is data[line..end) (without its LF). */
typedef struct {
    int fd;
    off_t offset; /* where the next read starts in the file */
    unsigned char *data;
    size_t size, capacity;
    size_t line, end;
} RunReader;

/* Moves a run to its next line: 1, 0 at the end of the file, -1 on error. A run ends with
 * LF; bytes after the last LF are not a line. */
static int run_advance(RunReader *run, size_t from) {
    for (;;) {
        unsigned char *newline = from < run->size ? memchr(run->data + from, '\n', run->size - from) : NULL;
        if (newline != NULL) {
            run->line = from;
            run->end = (size_t)(newline - run->data);
            return 1;
        }
        /* The line is cut by the buffer's end: keep its start, read more after it. */
        memmove(run->data, run->data + from, run->size - from);
        run->size -= from;
        from = 0;
        if (run->size == run->capacity) {
            unsigned char *data = PyMem_Realloc(run->data, run->capacity * 2);
            if (data == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            run->data = data;
            run->capacity *= 2;
        }
        ssize_t got;
        Py_BEGIN_ALLOW_THREADS
        got = pread(run->fd, run->data + run->size, run->capacity - run->size, run->offset);
        Py_END_ALLOW_THREADS
        if (got < 0) {
            PyErr_SetFromErrno(PyExc_OSError);
            return -1;
        }
        if (got == 0) {
            return 0;
        }
        run->size += (size_t)got;
        run->offset += got;
    }
}

/* Sorted as bytes are (as the runs were): the shorter first where one starts the other. */
static int run_compare(const RunReader *a, const RunReader *b) {
    size_t la = a->end - a->line, lb = b->end - b->line;
    int order = memcmp(a->data + a->line, b->data + b->line, la < lb ? la : lb);
    return order != 0 ? order : (la > lb) - (la < lb);
}

typedef struct {
    PyObject_HEAD
    RunReader *runs;
    Py_ssize_t count;
    Py_ssize_t *heap; /* indexes of the runs not at their end, the smallest line first */
    Py_ssize_t heap_size;
    unsigned char *last; /* the line written last, to leave out its copies */
    size_t last_length, last_capacity;
    int written;
    Py_ssize_t batch; /* about how many bytes each batch holds */
    PyObject *stop;   /* bytes: a run ends at its first line not below it; NULL: at its end */
} MergedRuns;

/* 1 if the run's current line is below the merge's stop (or there is none), else 0. */
static int run_before_stop(const MergedRuns *self, const RunReader *run) {
    if (self->stop == NULL) {
        return 1;
    }
    size_t la = run->end - run->line, lb = (size_t)PyBytes_GET_SIZE(self->stop);
    int order = memcmp(run->data + run->line, PyBytes_AS_STRING(self->stop), la < lb ? la : lb);
    return order < 0 || (order == 0 && la < lb);
}

static PyTypeObject MergedRunsType;

static void heap_down(MergedRuns *self, Py_ssize_t i) {
    Py_ssize_t *heap = self->heap, n = self->heap_size;
    for (;;) {
        Py_ssize_t smallest = i, left = 2 * i + 1, right = left + 1;
        if (left < n && run_compare(&self->runs[heap[left]], &self->runs[heap[smallest]]) < 0) {
            smallest = left;
        }
        if (right < n && run_compare(&self->runs[heap[right]], &self->runs[heap[smallest]]) < 0) {
            smallest = right;
        }
        if (smallest == i) {
            return;
        }
        Py_ssize_t swap = heap[i];
        heap[i] = heap[smallest];
        heap[smallest] = swap;
        i = smallest;
    }
}

static PyObject *merged_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"fds", "batch", "starts", "stop", NULL};
    PyObject *fds, *starts = Py_None, *stop = Py_None;
    Py_ssize_t batch = 1 << 20;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|nOO", names, &PyList_Type, &fds, &batch, &starts, &stop)) {
        return NULL;
    }
    if (starts != Py_None && (!PyList_Check(starts) || PyList_GET_SIZE(starts) != PyList_GET_SIZE(fds))) {
        PyErr_SetString(PyExc_ValueError, "starts: a list of offsets, one for each file");
        return NULL;
    }
    if (stop != Py_None && !PyBytes_Check(stop)) {
        PyErr_SetString(PyExc_TypeError, "stop: bytes or None");
        return NULL;
    }
    MergedRuns *self = (MergedRuns *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(fds);
    self->batch = batch < 1 ? 1 : batch;
    if (stop != Py_None) {
        Py_INCREF(stop);
        self->stop = stop;
    }
    self->runs = PyMem_Calloc((size_t)count + 1, sizeof(RunReader));
    self->heap = PyMem_Calloc((size_t)count + 1, sizeof(Py_ssize_t));
    if (self->runs == NULL || self->heap == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        RunReader *run = &self->runs[i];
        run->fd = PyObject_AsFileDescriptor(PyList_GET_ITEM(fds, i));
        if (run->fd < 0) {
            Py_DECREF(self);
            return NULL;
        }
        if (starts != Py_None) {
            /* Where the run's part starts: the start of a line (or the file's end). */
            long long start = PyLong_AsLongLong(PyList_GET_ITEM(starts, i));
            if (start == -1 && PyErr_Occurred()) {
                Py_DECREF(self);
                return NULL;
            }
            if (start < 0) {
                Py_DECREF(self);
                PyErr_SetString(PyExc_ValueError, "starts: offsets are not negative");
                return NULL;
            }
            run->offset = (off_t)start;
        }
        run->capacity = 1 << 16;
        run->data = PyMem_Malloc(run->capacity);
        self->count = i + 1;
        if (run->data == NULL) {
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        int found = run_advance(run, 0);
        if (found < 0) {
            Py_DECREF(self);
            return NULL;
        }
        if (found && run_before_stop(self, run)) {
            self->heap[self->heap_size++] = i;
        }
    }
    for (Py_ssize_t i = self->heap_size / 2; i >= 0 && self->heap_size > 0; i--) {
        heap_down(self, i);
    }
    return (PyObject *)self;
}

static void merged_dealloc(MergedRuns *self) {
    for (Py_ssize_t i = 0; i < self->count; i++) {
        PyMem_Free(self->runs[i].data);
    }
    PyMem_Free(self->runs);
    PyMem_Free(self->heap);
    PyMem_Free(self->last);
    Py_XDECREF(self->stop);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The next batch: (data, count), the lines in order, each once, each ended by LF. */
static PyObject *merged_next(MergedRuns *self) {
    Buffer out = {NULL, NULL, 0, 0, 0, NULL, NULL};
    Py_ssize_t count = 0;
    while (self->heap_size > 0 && out.length < self->batch) {
        RunReader *run = &self->runs[self->heap[0]];
        size_t length = run->end - run->line;
        const unsigned char *line = run->data + run->line;
        if (!(self->written && length == self->last_length && memcmp(line, self->last, length) == 0)) {
            if (buffer_reserve(&out, (Py_ssize_t)length + 1) < 0) {
                Py_XDECREF(out.object);
                return NULL;
            }
            memcpy(out.text + out.length, line, length);
            out.text[out.length + (Py_ssize_t)length] = '\n';
            out.length += (Py_ssize_t)length + 1;
            count++;
            if (length > self->last_capacity) {
                unsigned char *last = PyMem_Realloc(self->last, length);
                if (last == NULL) {
                    Py_XDECREF(out.object);
                    return PyErr_NoMemory();
                }
                self->last = last;
                self->last_capacity = length;
            }
            memcpy(self->last, line, length);
            self->last_length = length;
            self->written = 1;
        }
        int found = run_advance(run, run->end + 1);
        if (found < 0) {
            Py_XDECREF(out.object);
            return NULL;
        }
        if (!found || !run_before_stop(self, run)) {
            self->heap[0] = self->heap[--self->heap_size];
        }
        heap_down(self, 0);
    }
    if (count == 0) {
        Py_XDECREF(out.object);
        return NULL; /* StopIteration */
    }
    PyObject *data = buffer_finish(&out);
    return data == NULL ? NULL : Py_BuildValue("(Nn)", data, count);
}

static PyTypeObject MergedRunsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ldids.dumps._scan.MergedRuns",
    .tp_basicsize = sizeof(MergedRuns),
    .tp_dealloc = (destructor)merged_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "MergedRuns(fds, batch=1 MiB, starts=None, stop=None): the lines of files of sorted lines (each\n"
              "ended by LF), merged, each once, as (data, count) batches; the files are read (pread) from their\n"
              "start, or from starts[i] (the start of a line), up to their end, or to their first line not below\n"
              "the bytes stop",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)merged_next,
    .tp_new = merged_new,
};
#endif

/* -- Lines for the streamed checks of shapes -------------------------------------------------
 *
 * ldids.shacl.prefilter derives from the shapes, per group of rules of the streamed checks
 * (ldids.shacl.streamed), what a statement must hold for the group to select anything from
 * it: its constant predicate, and substrings (needles) the term its regular expression tests
 * must contain. select_lines checks each line's grammar, as scan_block does, and picks the
 * lines the checks must see: malformed ones (the Python parser reports them), those with an
 * escape that may spell a needle's character, and those that give some group a key
 * (the terms its rules depend on) it has not seen in this process. A key already seen gave
 * its results on an earlier line of this process, and SHACL reports a result once. */

typedef struct {
    PyObject *predicate; /* bytes (the IRI as written, with its <>) or None: any */
    const unsigned char *positions;
    Py_ssize_t position_count;
    int with_predicate; /* the key holds the predicate too (rules that test it apart) */
    int gate;           /* the position whose term must hold a needle, or -1 */
    Needles needles;
    /* None, or probe(text) -> match or None: given the text of a new term at the gate (one
     * with no escape), a match when the group's rules give nothing for it, so the line need
     * not be parsed for this group (ldids.shacl.streamed, _Group.nothing). */
    PyObject *probe;
    /* Or the group's rules as automata (ldids.shacl.dfa; ldids.shacl.streamed, _Group.packed):
     * per rule (index of its test of the predicate or -1, gate position or -1, gate automaton
     * or None, focus position, ways: tuples of (least length, greatest length, automata...)),
     * an automaton (257 next states per state, a flag byte per state). Asked before the key. */
    int automata;
    /* The one position the automata read, or -1; and the last term there, with the class of
     * the predicate then, for which they said the group gives nothing (terms repeat on the
     * lines of one entity). */
    int reads;
    const unsigned char *clean_term;
    Py_ssize_t clean_length;
    PyObject *clean_class;
    /* The last term at the gate that holds no needle, or (where the automata read it alone)
     * for which they said the group gives nothing: the subject of many lines in a row. */
    const unsigned char *passed_term;
    Py_ssize_t passed_length;
    /* Or what the group gives by the kinds of the subject and object and which terms are
     * equal: 72 bytes, 1 where it gives nothing (ldids.shacl.streamed, _signature). */
    int signature;
    /* The automata read out of their tuples once per call (packed_init), or NULL. */
    struct Packed *packed;
    /* Or NULL: the group's results made here (group_rows), where its rules select the term at
     * one position as it is, by its kind, and report the checks of their shapes that fail on
     * it (ldids.shacl.streamed, _Group.rows): a rule per check of a rule's shape, as automata,
     * and per such rule whether its kind tests pass for an IRI, a string literal (xsd:string)
     * and an xsd:anyURI literal, a byte each. */
    struct Packed *rows;
    const unsigned char *kinds;
    int rows_focus;
    /* Per rule, what its rows report: (shape, component, message, severity, the shape and the
     * component in N-Triples), a tuple (borrowed: the rows table holds it). */
    PyObject *reported;
} Group;

/* What group_rows makes rows with: the line numbers' start, where the rows and (if asked)
 * their digests go, and the text of a path a rule's rows have none of ("-"). */
typedef struct {
    Py_ssize_t first_line;
    PyObject *rows, *digests, *no_path;
} RowsOut;

static int append_term(PyObject **key, Py_ssize_t *length, const unsigned char *line, const Terms *terms, int index) {
    Py_ssize_t size = terms->stop[index] - terms->start[index];
    if (_PyBytes_Resize(key, *length + size + 1) < 0) {
        return -1;
    }
    char *at = PyBytes_AS_STRING(*key) + *length;
    memcpy(at, line + terms->start[index], (size_t)size);
    at[size] = ' '; /* terms are self-delimiting; the space only makes keys easier to read */
    *length += size + 1;
    return 0;
}

/* The class of the line's predicate (what the tests of the predicate say of it; borrowed), or
 * NULL if it has none yet: ``learn`` (or None) is asked of a predicate the dict does not hold
 * while it holds fewer than ``limit``, else the Python side adds it once it has parsed a line
 * with it (a block whose lines bring a new predicate, the links of a dump at its end, would
 * reach Python whole otherwise). A few predicates make most lines: the last ones found are
 * compared first (the dict only grows during a call, so what it holds stays alive). */
typedef struct {
    const unsigned char *text;
    Py_ssize_t length;
    PyObject *class;
} ClassCache;

#define CLASS_CACHE 16

static int predicate_class(PyObject *classes, PyObject *learn, Py_ssize_t limit, ClassCache *cache,
                           const unsigned char *line, const Terms *terms, PyObject **class_of) {
    const unsigned char *text = line + terms->start[1];
    Py_ssize_t length = terms->stop[1] - terms->start[1];
    ClassCache *slot = &cache[((size_t)length * 31 + text[length - 2] * 7 + text[length / 2]) % CLASS_CACHE];
    if (slot->text != NULL && slot->length == length && memcmp(slot->text, text, (size_t)length) == 0) {
        *class_of = slot->class;
        return 0;
    }
    PyObject *predicate = PyBytes_FromStringAndSize((const char *)text, length);
    if (predicate == NULL) {
        return -1;
    }
    PyObject *class = PyDict_GetItemWithError(classes, predicate);
    if (class == NULL && !PyErr_Occurred() && learn != Py_None && PyDict_GET_SIZE(classes) < limit) {
        PyObject *learnt = PyObject_CallOneArg(learn, predicate);
        if (learnt != NULL && PyBytes_Check(learnt) && PyDict_SetItem(classes, predicate, learnt) == 0) {
            class = learnt; /* the dict holds it */
        }
        Py_XDECREF(learnt);
    }
    Py_DECREF(predicate);
    if (class == NULL || !PyBytes_Check(class)) {
        *class_of = NULL;
        return PyErr_Occurred() ? -1 : 0;
    }
    slot->text = text;
    slot->length = length;
    slot->class = class;
    *class_of = class;
    return 0;
}

/* Has the group seen this statement's key? 1 if so, 0 if not (it is remembered now), -1 on
 * error. The key holds the class of the predicate if the group's rules test it apart. */
static int group_seen(const Group *group, Py_ssize_t number, PyObject *memo, Py_ssize_t memo_size, PyObject *class,
                      const unsigned char *line, const Terms *terms) {
    Py_ssize_t length = 1 + (class == NULL ? 0 : PyBytes_GET_SIZE(class));
    PyObject *key = PyBytes_FromStringAndSize(NULL, length);
    if (key == NULL) {
        return -1;
    }
    PyBytes_AS_STRING(key)[0] = (char)number;
    if (class != NULL) {
        memcpy(PyBytes_AS_STRING(key) + 1, PyBytes_AS_STRING(class), (size_t)(length - 1));
    }
    for (Py_ssize_t i = 0; i < group->position_count; i++) {
        if (append_term(&key, &length, line, terms, group->positions[i]) < 0) {
            return -1;
        }
    }
    if (terms->start[3] >= 0 && append_term(&key, &length, line, terms, 3) < 0) {
        return -1; /* a result names its graph */
    }
    int found = PyDict_Contains(memo, key);
    if (found == 0) {
        if (PyDict_GET_SIZE(memo) >= memo_size && evict_oldest_half(memo) < 0) {
            found = -1;
        } else if (PyDict_SetItem(memo, key, Py_None) < 0) {
            found = -1;
        }
    }
    Py_DECREF(key);
    return found;
}

/* Might an escape in the line spell a needle's character? Any escape if a needle holds a
 * character an ECHAR spells (any_escape), else a UCHAR (N-Triples [10], [153s]): a "\\u"
 * that is an escaped backslash and a 'u' counts too, which only costs a look. */
static int escaped(const unsigned char *s, Py_ssize_t length, int any_escape, Terms *terms) {
    const unsigned char *at = memchr(s, '\\', (size_t)length);
    terms->unescaped = at == NULL;
    if (at != NULL && any_escape) {
        return 1;
    }
    while (at != NULL) {
        Py_ssize_t i = at - s;
        if (i + 1 < length && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
            return 1;
        }
        at = i + 2 < length ? memchr(s + i + 2, '\\', (size_t)(length - i - 2)) : NULL;
    }
    return 0;
}

/* Is the automaton whole: (the class of each of the 257 symbols, 16-bit; the rows of its
 * states, 32-bit: per class the offset of the next state's row, then the state's flags),
 * each class, offset and flag in range? */
static int automaton_valid(PyObject *automaton) {
    if (!PyTuple_Check(automaton) || PyTuple_GET_SIZE(automaton) != 2) {
        return 0;
    }
    PyObject *classes = PyTuple_GET_ITEM(automaton, 0), *table = PyTuple_GET_ITEM(automaton, 1);
    if (!PyBytes_Check(classes) || !PyBytes_Check(table) || PyBytes_GET_SIZE(classes) != 257 * (Py_ssize_t)sizeof(uint16_t)) {
        return 0;
    }
    const uint16_t *class_of = (const uint16_t *)PyBytes_AS_STRING(classes);
    Py_ssize_t width = class_of[256] + 2, size = PyBytes_GET_SIZE(table) / (Py_ssize_t)sizeof(uint32_t);
    for (int symbol = 0; symbol < 256; symbol++) {
        if (class_of[symbol] >= class_of[256]) {
            return 0; /* the end marker's class is the last */
        }
    }
    if (size < width || size % width != 0 || PyBytes_GET_SIZE(table) % (Py_ssize_t)sizeof(uint32_t) != 0 ||
        size > (Py_ssize_t)UINT32_MAX) {
        return 0;
    }
    const uint32_t *rows = (const uint32_t *)PyBytes_AS_STRING(table);
    for (Py_ssize_t i = 0; i < size; i++) {
        if (i % width == width - 1 ? rows[i] > 3 : (rows[i] % width != 0 || rows[i] >= size)) {
            return 0;
        }
    }
    return 1;
}

/* Are a group's rules as automata well made (Group.automata)? The one position they read
 * (gates and focus nodes), or -1 if several; -2 if they are not well made. The tables are
 * looked through only if ``tables`` (once per probes: select_lines keeps the last ones). */
static int automata_init(PyObject *rules, int tables) {
    int reads = -3;
    for (Py_ssize_t r = 0; r < PyTuple_GET_SIZE(rules); r++) {
        PyObject *rule = PyTuple_GET_ITEM(rules, r);
        if (!PyTuple_Check(rule) || PyTuple_GET_SIZE(rule) != 5 || !PyLong_Check(PyTuple_GET_ITEM(rule, 0)) ||
            !PyLong_Check(PyTuple_GET_ITEM(rule, 1)) || !PyLong_Check(PyTuple_GET_ITEM(rule, 3)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(rule, 4))) {
            goto bad;
        }
        long gate = PyLong_AsLong(PyTuple_GET_ITEM(rule, 1)), focus = PyLong_AsLong(PyTuple_GET_ITEM(rule, 3));
        PyObject *gate_automaton = PyTuple_GET_ITEM(rule, 2);
        if (gate < -1 || gate > 2 || focus < 0 || focus > 2 || (gate < 0) != (gate_automaton == Py_None) ||
            (gate_automaton != Py_None && tables && !automaton_valid(gate_automaton))) {
            goto bad;
        }
        long positions[2] = {gate, focus};
        for (int k = 0; k < 2; k++) {
            if (positions[k] >= 0) {
                reads = reads == -3 || reads == positions[k] ? (int)positions[k] : -1;
            }
        }
        PyObject *ways = PyTuple_GET_ITEM(rule, 4);
        for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(ways); w++) {
            PyObject *way = PyTuple_GET_ITEM(ways, w);
            if (!PyTuple_Check(way) || PyTuple_GET_SIZE(way) < 2 || !PyLong_Check(PyTuple_GET_ITEM(way, 0)) ||
                !PyLong_Check(PyTuple_GET_ITEM(way, 1))) {
                goto bad;
            }
            for (Py_ssize_t k = 2; k < PyTuple_GET_SIZE(way) && tables; k++) {
                if (!automaton_valid(PyTuple_GET_ITEM(way, k))) {
                    goto bad;
                }
            }
        }
    }
    if (PyErr_Occurred()) {
        return -2;
    }
    return reads < 0 ? -1 : reads;
bad:
    if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "automata are rules of (test, gate position, gate automaton or None, focus "
                                          "position, ways of (least, greatest, automata...)), an automaton (classes, "
                                          "table, flags)");
    }
    return -2;
}

/* The text of a term of the line: an IRI's, or a literal's lexical form, which a term with no
 * escape holds as they are (N-Triples [8], [9]). 0 for a blank node or a term with an escape. */
static int term_text(const unsigned char *line, const Terms *terms, int index, const unsigned char **text,
                     Py_ssize_t *length) {
    const unsigned char *term = line + terms->start[index];
    Py_ssize_t size = terms->stop[index] - terms->start[index], stop = size - 1; /* an IRI: <...> */
    if (size < 2 || (!terms->unescaped && memchr(term, '\\', (size_t)size) != NULL)) {
        return 0;
    }
    if (term[0] == '"' && index == 2 && terms->closing > terms->start[2]) {
        stop = terms->closing - terms->start[2]; /* the literal's lexical form ends there */
    } else if (term[0] == '"') {
        while (stop > 0 && term[stop] != '"') {
            stop--;
        }
    } else if (term[0] != '<') {
        return 0;
    }
    if (stop < 1) {
        return 0;
    }
    *text = term + 1;
    *length = stop - 1;
    return 1;
}

/* Characters of UTF-8 text (valid: the line was checked), as sh:minLength and sh:maxLength
 * count them (SHACL §4.4.1: STRLEN, in characters). */
static Py_ssize_t characters(const unsigned char *text, Py_ssize_t length) {
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        count += (text[i] & 0xC0) != 0x80;
    }
    return count;
}

/* A group's rules as automata (Group.automata), read out of their tuples once per call of
 * select_lines: the tuples are asked nothing per line, and the automata that read one term
 * run over its text together (run_together). */
typedef struct {
    const uint16_t *class_of; /* the class of each of the 257 symbols */
    const uint32_t *rows;
    uint32_t flags;   /* where a row's flags are: after the end marker's class, the last */
    uint32_t stop_at; /* the rows from here on are those of states with flag 4 (stopping_last) */
    int position;     /* the term whose text it reads */
    PyObject *automaton; /* (classes, table), borrowed: the rules' tuple holds it */
} Dfa;

typedef struct {
    Py_ssize_t test; /* the index of its test of the predicate in a predicate's class, or -1 */
    int gate;        /* its gate's Dfa, or -1 */
    int focus;       /* the position of the focus node */
    int first_way, way_count;
} PackedRule;

typedef struct {
    Py_ssize_t least, most; /* sh:minLength, sh:maxLength */
    int first, count;       /* its Dfas, each of which must accept */
} PackedWay;

typedef struct Packed {
    Dfa *dfas;
    PackedRule *rules;
    PackedWay *ways;
    int dfa_count, rule_count;
    /* Per Dfa, for one line: asked (1; where not by_first), and whether it accepts the text. */
    unsigned char *asked, *accepts;
    /* With at most TOGETHER Dfas (by_first), one bit each: those asked (as asked says), those
     * that read each position; per first byte, those still running after it, and of the
     * others, those whose answer is yes. */
    int by_first;
    uint64_t asked_bits, reads[3], running[256], answer[256];
    /* Per position, the product of the Dfas that read it (product_of), or NULL; and those
     * Dfas, in the order of the bits of a product state's answers. */
    const struct Product *product[3];
    int product_dfas[3][64], product_count[3];
    /* What automata_clean asks (by_first) for the class of the predicate it was last given,
     * or for none (plain_class NULL): which rules the class turns away, the same on every line
     * with it, so worked out once a class. A strong reference, so that no other class comes
     * to be at its address while it is held (packed_free). */
    int plain_known, plain_on, plain_positions;
    uint64_t plain_asked;
    PyObject *plain_class;
} Packed;

/* Per table of rows, a copy in which a state that every byte leads back to has flag 4, and
 * flag 8 if the end marker then leads to a state that accepts: once there, the rest of the
 * text changes nothing, and the answer is known. Flag 2 (every symbol, the end marker too)
 * marks only the states past a match of a search; one past a failed match of an anchored
 * expression goes on with every byte, and only the end marker leaves it. Made once per
 * table (the tables live as long as the plan: a dict holds both). */
static PyObject *stopping_tables = NULL;

/* The states renumbered: the start first, then the states without flag 4, then those with it,
 * so that a run tells a state it may stop at by its row's offset alone (Dfa.stop_at), with no
 * look-up of its flags on the path from one state to the next. */
static int stopping_last(uint32_t *rows, size_t size, size_t width) {
    size_t states = size / width, count = 0;
    uint32_t *order = PyMem_Malloc(states * sizeof(uint32_t)), *where = PyMem_Malloc(states * sizeof(uint32_t)),
             *copy = PyMem_Malloc(size * sizeof(uint32_t));
    if (order == NULL || where == NULL || copy == NULL) {
        PyMem_Free(order);
        PyMem_Free(where);
        PyMem_Free(copy);
        PyErr_NoMemory();
        return -1;
    }
    order[count++] = 0;
    for (int stopping = 0; stopping < 2; stopping++) {
        for (size_t state = 1; state < states; state++) {
            if (((rows[state * width + width - 1] & 4) != 0) == stopping) {
                order[count++] = (uint32_t)state;
            }
        }
    }
    for (size_t state = 0; state < states; state++) {
        where[order[state]] = (uint32_t)(state * width);
    }
    for (size_t state = 0; state < states; state++) {
        const uint32_t *old = rows + order[state] * width;
        for (size_t c = 0; c + 1 < width; c++) {
            copy[state * width + c] = where[old[c] / width]; /* the classes' next rows, the end marker's too */
        }
        copy[state * width + width - 1] = old[width - 1]; /* the flags */
    }
    memcpy(rows, copy, size * sizeof(uint32_t));
    PyMem_Free(order);
    PyMem_Free(where);
    PyMem_Free(copy);
    return 0;
}

static const uint32_t *stopping_rows(PyObject *automaton) {
    PyObject *classes = PyTuple_GET_ITEM(automaton, 0), *table = PyTuple_GET_ITEM(automaton, 1);
    if (stopping_tables == NULL && (stopping_tables = PyDict_New()) == NULL) {
        return NULL;
    }
    PyObject *found = PyDict_GetItemWithError(stopping_tables, table);
    if (found == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        found = PyBytes_FromStringAndSize(PyBytes_AS_STRING(table), PyBytes_GET_SIZE(table));
        if (found == NULL || PyDict_SetItem(stopping_tables, table, found) < 0) {
            Py_XDECREF(found);
            return NULL;
        }
        Py_DECREF(found); /* the dict holds it */
        const uint16_t *class_of = (const uint16_t *)PyBytes_AS_STRING(classes);
        uint32_t *rows = (uint32_t *)PyBytes_AS_STRING(found);
        size_t end = class_of[256], width = end + 2, size = (size_t)PyBytes_GET_SIZE(found) / sizeof(uint32_t);
        for (size_t row = 0; row < size; row += width) {
            size_t c = 0;
            while (c < end && rows[row + c] == row) {
                c++; /* the classes before the end marker's are those of the bytes */
            }
            if (c == end) {
                rows[row + end + 1] |= 4 | (rows[rows[row + end] + end + 1] & 1) << 3;
            }
        }
        if (stopping_last(rows, size, width) < 0) {
            PyDict_DelItem(stopping_tables, table);
            return NULL;
        }
    }
    return (const uint32_t *)PyBytes_AS_STRING(found);
}

static int dfa_of(Dfa *dfa, PyObject *automaton, int position) {
    dfa->class_of = (const uint16_t *)PyBytes_AS_STRING(PyTuple_GET_ITEM(automaton, 0));
    dfa->rows = stopping_rows(automaton);
    dfa->flags = (uint32_t)dfa->class_of[256] + 1;
    dfa->position = position;
    dfa->automaton = automaton;
    if (dfa->rows == NULL) {
        return -1;
    }
    /* The first row past the start's with flag 4 (stopping_last put them last), or none. */
    PyObject *table = PyTuple_GET_ITEM(automaton, 1);
    uint32_t width = dfa->flags + 1, size = (uint32_t)(PyBytes_GET_SIZE(table) / sizeof(uint32_t));
    dfa->stop_at = UINT32_MAX;
    for (uint32_t row = width; row < size; row += width) {
        if (dfa->rows[row + dfa->flags] & 4) {
            dfa->stop_at = row;
            break;
        }
    }
    return 0;
}


/* The automata that read one term, as one: the product of their Dfas, each state a tuple of
 * theirs, built from the start over the classes of bytes none of them tells apart, so that a
 * term's text costs one look-up per byte whatever the number of automata, not one per
 * automaton still running (run_lanes: the states of several chains in flight, each waiting on
 * its table). A Dfa in a stopping state (flag 4) is one state of the tuple whatever its row:
 * its answer. The product's states are numbered as stopping_last numbers a Dfa's (those in
 * which every Dfa has stopped last), and each row ends with the answers at the end of the text,
 * a bit per Dfa, over two words. At most PRODUCT_LIMIT states: past it (automata that keep
 * many states apart at once), the Dfas run in lanes as before. Made once per tuple of
 * automata and kept (product_tables), as the stopping tables are. */
#define PRODUCT_LIMIT 4096
#define STOPPED 0xFFFFFFFEu /* a Dfa stopped, its answer no; STOPPED + 1: yes */

typedef struct Product {
    uint32_t width;   /* a row: the classes' next states (offsets of rows), then 2 words of answers */
    uint32_t start;   /* the start's row */
    uint32_t stop_at; /* rows from here on: every Dfa has stopped */
    uint32_t padding;
    uint16_t class_of[256];
    uint32_t rows[];
} Product;

static PyObject *product_tables = NULL;
/* 0: the Dfas always run in lanes (set_products; the tests hold both ways equal). */
static int product_enabled = 1;

/* The state of each Dfa of ``dfas`` after ``row``, with a stopped one as its answer. */
static inline uint32_t product_part(const Dfa *dfa, uint32_t row) {
    if (row >= STOPPED) {
        return row;
    }
    uint32_t flags = dfa->rows[row + dfa->flags];
    return flags & 4 ? STOPPED + (flags >> 3 & 1) : row;
}

static inline size_t product_hash(const uint32_t *state, int count) {
    uint64_t hash = 0x9E3779B97F4A7C15ull;
    for (int j = 0; j < count; j++) {
        hash = (hash ^ state[j]) * 0xFF51AFD7ED558CCDull;
    }
    return (size_t)(hash ^ hash >> 29);
}

/* The product of ``count`` Dfas as a bytes object, None if it would pass PRODUCT_LIMIT
 * states, or NULL (an error set). */
static PyObject *product_build(const Dfa *const *dfas, int count) {
    /* The classes: bytes alike for every Dfa are one. */
    uint16_t class_of[256], classes = 0;
    int first_byte[256];
    for (int b = 0; b < 256; b++) {
        int c = 0;
        for (; c < classes; c++) {
            int same = 1;
            for (int j = 0; j < count && same; j++) {
                same = dfas[j]->class_of[b] == dfas[j]->class_of[first_byte[c]];
            }
            if (same) {
                break;
            }
        }
        if (c == classes) {
            first_byte[classes++] = b;
        }
        class_of[b] = (uint16_t)c;
    }
    size_t slots = 2 * PRODUCT_LIMIT, states = 0;
    uint32_t *tuples = PyMem_Malloc((size_t)PRODUCT_LIMIT * (size_t)count * sizeof(uint32_t));
    uint32_t *next = PyMem_Malloc((size_t)PRODUCT_LIMIT * classes * sizeof(uint32_t));
    int32_t *table = PyMem_Malloc(slots * sizeof(int32_t));
    uint32_t *order = PyMem_Malloc(PRODUCT_LIMIT * sizeof(uint32_t));
    uint32_t tuple[64];
    PyObject *result = NULL;
    if (tuples == NULL || next == NULL || table == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(table, -1, slots * sizeof(int32_t));
    for (int j = 0; j < count; j++) {
        tuples[j] = product_part(dfas[j], 0);
    }
    table[product_hash(tuples, count) & (slots - 1)] = 0;
    states = 1;
    /* Breadth first from the start: each state's next ones, by class, added as found. */
    for (size_t at = 0; at < states; at++) {
        const uint32_t *from = tuples + at * (size_t)count;
        for (uint16_t c = 0; c < classes; c++) {
            for (int j = 0; j < count; j++) {
                const Dfa *dfa = dfas[j];
                tuple[j] = from[j] >= STOPPED ? from[j] : product_part(dfa, dfa->rows[from[j] + dfa->class_of[first_byte[c]]]);
            }
            size_t slot = product_hash(tuple, count) & (slots - 1);
            while (table[slot] >= 0 &&
                   memcmp(tuples + (size_t)table[slot] * (size_t)count, tuple, (size_t)count * sizeof(uint32_t)) != 0) {
                slot = (slot + 1) & (slots - 1);
            }
            if (table[slot] < 0) {
                if (states == PRODUCT_LIMIT) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
                memcpy(tuples + states * (size_t)count, tuple, (size_t)count * sizeof(uint32_t));
                table[slot] = (int32_t)states++;
            }
            next[at * classes + c] = (uint32_t)table[slot];
        }
    }
    /* Numbered anew: the start first, then the states in which some Dfa runs, then those in
     * which none does (from stop_at on). */
    uint32_t *where = (uint32_t *)table; /* the hash table is done with */
    uint32_t width = (uint32_t)classes + 2, stop_at = UINT32_MAX;
    size_t placed = 0;
    order[placed++] = 0;
    for (int stopped = 0; stopped < 2; stopped++) {
        for (size_t state = 1; state < states; state++) {
            int all = 1;
            for (int j = 0; j < count && all; j++) {
                all = tuples[state * (size_t)count + j] >= STOPPED;
            }
            if (all == stopped) {
                if (stopped && stop_at == UINT32_MAX) {
                    stop_at = (uint32_t)(placed * width);
                }
                order[placed++] = (uint32_t)state;
            }
        }
    }
    for (size_t k = 0; k < states; k++) {
        where[order[k]] = (uint32_t)k;
    }
    size_t size = sizeof(Product) + states * width * sizeof(uint32_t);
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (result == NULL) {
        goto done;
    }
    Product *product = (Product *)PyBytes_AS_STRING(result);
    product->width = width;
    product->start = 0;
    product->stop_at = stop_at;
    product->padding = 0;
    memcpy(product->class_of, class_of, sizeof class_of);
    for (size_t k = 0; k < states; k++) {
        size_t state = order[k];
        uint32_t *row = product->rows + k * width;
        for (uint16_t c = 0; c < classes; c++) {
            row[c] = where[next[state * classes + c]] * width;
        }
        uint64_t answers = 0;
        for (int j = 0; j < count; j++) {
            const Dfa *dfa = dfas[j];
            uint32_t part = tuples[state * (size_t)count + j];
            uint32_t yes = part >= STOPPED ? part - STOPPED : dfa->rows[dfa->rows[part + dfa->class_of[256]] + dfa->flags] & 1;
            answers |= (uint64_t)yes << j;
        }
        row[classes] = (uint32_t)answers;
        row[classes + 1] = (uint32_t)(answers >> 32);
    }
done:
    PyMem_Free(tuples);
    PyMem_Free(next);
    PyMem_Free(table);
    PyMem_Free(order);
    return result;
}

/* The product of the Dfas of ``packed`` that read ``position`` (Packed.product), made or
 * found; 0, or -1 on error. None where there are none or more than 64, or too many states. */
static int product_of(Packed *packed, int position) {
    const Dfa *dfas[64];
    int count = 0;
    packed->product[position] = NULL;
    for (int d = 0; d < packed->dfa_count; d++) {
        if (packed->dfas[d].position == position) {
            if (count == 64) {
                return 0;
            }
            packed->product_dfas[position][count] = d;
            dfas[count++] = &packed->dfas[d];
        }
    }
    packed->product_count[position] = count;
    if (count == 0 || !product_enabled) {
        return 0;
    }
    if (product_tables == NULL && (product_tables = PyDict_New()) == NULL) {
        return -1;
    }
    PyObject *key = PyTuple_New(count);
    if (key == NULL) {
        return -1;
    }
    for (int j = 0; j < count; j++) {
        PyTuple_SET_ITEM(key, j, Py_NewRef(dfas[j]->automaton));
    }
    PyObject *found = PyDict_GetItemWithError(product_tables, key);
    if (found == NULL && !PyErr_Occurred()) {
        found = product_build(dfas, count);
        if (found != NULL && PyDict_SetItem(product_tables, key, found) < 0) {
            Py_CLEAR(found);
        }
        Py_XDECREF(found); /* the dict holds it */
    }
    Py_DECREF(key);
    if (found == NULL) {
        return -1;
    }
    if (found != Py_None) {
        packed->product[position] = (const Product *)PyBytes_AS_STRING(found);
    }
    return 0;
}

/* The last text each product ran over, by its product and first bytes, with the row after
 * each of its first bytes (rows[k]: the row after k bytes; rows[0] the start). A dump names
 * things alike one after another (a subject's IRI, then the next one's; a sorted run of
 * links), and a text read again from the start waits on a load per byte: one that begins as
 * the text held does is read on from the row where the two part. What a row is after a
 * prefix depends on the prefix alone, so the answers are those of a run from the start. The
 * run holds the GIL (select_lines), so one table serves the process. */
#define RECENT_BITS 6
#define RECENT_BYTES 124
typedef struct {
    const Product *product;
    uint32_t length; /* the bytes of text held, and of rows past the start known */
    unsigned char text[RECENT_BYTES];
    uint32_t rows[RECENT_BYTES + 1];
} Recent;

static Recent recent_texts[1 << RECENT_BITS];

/* How many first bytes a and b share, of at most limit. */
static inline Py_ssize_t common_prefix(const unsigned char *a, const unsigned char *b, Py_ssize_t limit) {
    Py_ssize_t i = 0;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 8 <= limit; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
            return i + (__builtin_ctzll(x ^ y) >> 3);
        }
    }
#endif
    while (i < limit && a[i] == b[i]) {
        i++;
    }
    return i;
}

/* Runs the product of the Dfas that read ``position`` over the text, and says whether each
 * accepts it. */
static void run_product(Packed *packed, int position, const unsigned char *text, Py_ssize_t length) {
    const Product *product = packed->product[position];
    const uint32_t *rows = product->rows;
    const uint16_t *class_of = product->class_of;
    uint32_t stop_at = product->stop_at, row = product->start;
    /* A text whose first byte stops every automaton (most texts no gate takes) has its answers
     * then: the memory of texts is not looked at. */
    if (length == 0 || (row = rows[row + class_of[text[0]]]) >= stop_at) {
        goto answered;
    }
    uint64_t head = 0;
    memcpy(&head, text, length < 8 ? (size_t)length : 8);
    Recent *recent =
        &recent_texts[((head ^ (uint64_t)(uintptr_t)product) * 0x9E3779B97F4A7C15ull) >> (64 - RECENT_BITS)];
    Py_ssize_t i = 0;
    if (recent->product == product) {
        i = common_prefix(text, recent->text, length < recent->length ? length : recent->length);
    } else {
        recent->product = product;
        recent->length = 0;
        recent->rows[0] = product->start;
    }
    Py_ssize_t from = i, held = length < RECENT_BYTES ? length : RECENT_BYTES;
    row = recent->rows[i];
    for (; i < held && row < stop_at; i++) {
        row = rows[row + class_of[text[i]]];
        recent->text[i] = text[i];
        recent->rows[i + 1] = row;
    }
    if (i > from) {
        recent->length = (uint32_t)i; /* past it, the rows held are another text's */
    }
    for (; i < length && row < stop_at; i++) {
        row = rows[row + class_of[text[i]]];
    }
answered:;
    uint32_t classes = product->width - 2;
    uint64_t answers = rows[row + classes] | (uint64_t)rows[row + classes + 1] << 32;
    for (int j = 0; j < packed->product_count[position]; j++) {
        packed->accepts[packed->product_dfas[position][j]] = answers >> j & 1;
    }
}

#define TOGETHER 32

/* What the first byte of a text tells of each Dfa (Packed.running, Packed.answer): most of
 * those asked of a term are a scheme's prefix or its pattern, and the first byte stops them
 * (a handle's text for the info:fedora automata). A Dfa whose start every byte leads back to
 * (flag 4) has its answer before any. */
static void first_bytes(Packed *packed) {
    packed->by_first = packed->dfa_count <= TOGETHER;
    for (int d = 0; d < packed->dfa_count && packed->by_first; d++) {
        const Dfa *dfa = &packed->dfas[d];
        uint64_t bit = (uint64_t)1 << d;
        if (dfa->position < 0 || dfa->position > 2) { /* a term automata_clean reads: 0 to 2 */
            packed->by_first = 0;
            break;
        }
        packed->reads[dfa->position] |= bit;
        uint32_t start = dfa->rows[dfa->flags];
        for (int c = 0; c < 256; c++) {
            uint32_t row = dfa->rows[dfa->class_of[c]];
            if (start & 4 || row >= dfa->stop_at) {
                uint32_t flags = start & 4 ? start : dfa->rows[row + dfa->flags];
                packed->answer[c] |= (flags >> 3 & 1) ? bit : 0;
            } else {
                packed->running[c] |= bit;
            }
        }
    }
}

/* The bits first to end - 1 (0 <= first <= end <= 64) set. */
static inline uint64_t bit_range(int first, int end) {
    return end > first ? (~(uint64_t)0 >> (64 - (end - first))) << first : 0;
}

static inline int lowest_bit(uint64_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(bits);
#else
    int n = 0;
    while (!(bits & 1)) {
        bits >>= 1;
        n++;
    }
    return n;
#endif
}

/* The rules (checked by automata_init) read out, or NULL (an error set). */
static Packed *packed_init(PyObject *rules) {
    Py_ssize_t rule_count = PyTuple_GET_SIZE(rules), way_count = 0, dfa_count = 0;
    for (Py_ssize_t r = 0; r < rule_count; r++) {
        PyObject *rule = PyTuple_GET_ITEM(rules, r), *ways = PyTuple_GET_ITEM(rule, 4);
        dfa_count += PyTuple_GET_ITEM(rule, 2) != Py_None;
        way_count += PyTuple_GET_SIZE(ways);
        for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(ways); w++) {
            dfa_count += PyTuple_GET_SIZE(PyTuple_GET_ITEM(ways, w)) - 2;
        }
    }
    if (dfa_count > INT_MAX / 2 || rule_count > INT_MAX / 2 || way_count > INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many automata");
        return NULL;
    }
    size_t size = sizeof(Packed) + (size_t)dfa_count * (sizeof(Dfa) + 2) + (size_t)rule_count * sizeof(PackedRule) +
                  (size_t)way_count * sizeof(PackedWay);
    Packed *packed = PyMem_Calloc(1, size + 16);
    if (packed == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    /* One allocation: the arrays follow the header, the widest first. */
    packed->dfas = (Dfa *)(packed + 1);
    packed->rules = (PackedRule *)(packed->dfas + dfa_count);
    packed->ways = (PackedWay *)(packed->rules + rule_count);
    packed->asked = (unsigned char *)(packed->ways + way_count);
    packed->accepts = packed->asked + dfa_count;
    packed->rule_count = (int)rule_count;
    int dfa = 0, way_at = 0;
    for (Py_ssize_t r = 0; r < rule_count; r++) {
        PyObject *rule = PyTuple_GET_ITEM(rules, r), *ways = PyTuple_GET_ITEM(rule, 4);
        PackedRule *packed_rule = &packed->rules[r];
        packed_rule->test = PyLong_AsSsize_t(PyTuple_GET_ITEM(rule, 0));
        packed_rule->focus = (int)PyLong_AsLong(PyTuple_GET_ITEM(rule, 3));
        packed_rule->gate = -1;
        if (PyTuple_GET_ITEM(rule, 2) != Py_None) {
            packed_rule->gate = dfa;
            if (dfa_of(&packed->dfas[dfa++], PyTuple_GET_ITEM(rule, 2), (int)PyLong_AsLong(PyTuple_GET_ITEM(rule, 1))) < 0) {
                break;
            }
        }
        packed_rule->first_way = way_at;
        packed_rule->way_count = (int)PyTuple_GET_SIZE(ways);
        for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(ways); w++) {
            PyObject *way = PyTuple_GET_ITEM(ways, w);
            PackedWay *packed_way = &packed->ways[way_at++];
            packed_way->least = PyLong_AsSsize_t(PyTuple_GET_ITEM(way, 0));
            packed_way->most = PyLong_AsSsize_t(PyTuple_GET_ITEM(way, 1));
            packed_way->first = dfa;
            packed_way->count = (int)PyTuple_GET_SIZE(way) - 2;
            for (Py_ssize_t k = 2; k < PyTuple_GET_SIZE(way) && !PyErr_Occurred(); k++) {
                dfa_of(&packed->dfas[dfa++], PyTuple_GET_ITEM(way, k), packed_rule->focus);
            }
        }
    }
    packed->dfa_count = dfa;
    if (PyErr_Occurred()) {
        PyMem_Free(packed);
        return NULL;
    }
    first_bytes(packed);
    for (int position = 0; position < 3; position++) {
        if (product_of(packed, position) < 0) {
            PyMem_Free(packed);
            return NULL;
        }
    }
    return packed;
}

static void packed_free(Packed *packed) {
    if (packed != NULL) {
        Py_XDECREF(packed->plain_class);
        PyMem_Free(packed);
    }
}

/* The live automata of run_together, in locals: nothing written during the run may change
 * them, and the compiler knows it (a write through packed->accepts could, it must assume,
 * change what a Dfa holds). An array a field: a step reads the same field of each in turn. */
typedef struct {
    const uint16_t *class_of[TOGETHER];
    const uint32_t *rows[TOGETHER];
    uint32_t flags[TOGETHER], row[TOGETHER], stop_at[TOGETHER];
    int live[TOGETHER], count;
} Lanes;

/* The automaton of lane k is in a stopping state: its answer is known (flag 8), and the last
 * lane takes its place. */
static inline void lane_stopped(Packed *packed, Lanes *lanes, int k) {
    packed->accepts[lanes->live[k]] = lanes->rows[k][lanes->row[k] + lanes->flags[k]] >> 3 & 1;
    int last = --lanes->count;
    lanes->class_of[k] = lanes->class_of[last];
    lanes->rows[k] = lanes->rows[last];
    lanes->flags[k] = lanes->flags[last];
    lanes->stop_at[k] = lanes->stop_at[last];
    lanes->live[k] = lanes->live[last];
    lanes->row[k] = lanes->row[last];
}

/* Those of the lanes in a stopping state leave, the last first (lane_stopped). */
static inline void lanes_stopped(Packed *packed, Lanes *lanes) {
    for (int k = lanes->count - 1; k >= 0; k--) {
        if (lanes->row[k] >= lanes->stop_at[k]) {
            lane_stopped(packed, lanes, k);
        }
    }
}

/* Adds the Dfa ``d`` to the lanes, in the state ``row``. */
static inline void lane_add(const Packed *packed, Lanes *lanes, int d, uint32_t row) {
    const Dfa *dfa = &packed->dfas[d];
    int k = lanes->count++;
    lanes->class_of[k] = dfa->class_of;
    lanes->rows[k] = dfa->rows;
    lanes->flags[k] = dfa->flags;
    lanes->stop_at[k] = dfa->stop_at;
    lanes->live[k] = d;
    lanes->row[k] = row;
}

/* Runs the lanes over the text from byte ``i`` on, and says whether each accepts it (flag 1
 * of the state the end marker leads to). Most die within a few bytes (a scheme's prefix that
 * does not match), and one or two read the rest of the text: those run with their states in
 * registers, not in the lanes (each step would wait on a store to them and a load back). A
 * state that every byte leads back to is told by its row's offset (stopping_last): its flags
 * are looked up only then, not at every step. */
static void run_lanes(Packed *packed, Lanes *lanes, const unsigned char *text, Py_ssize_t i, Py_ssize_t length) {
    while (i < length && lanes->count > 0) {
        if (lanes->count > 2 && lanes->count <= 4) {
            /* Three or four, in registers too (three: the third twice); those the first byte
             * leaves of a term are about so many (a scheme's prefix and pattern, and the
             * canonical forms' prefix and pattern), for the prefix's bytes. */
            int third = 2, fourth = lanes->count - 1;
            const uint16_t *c0 = lanes->class_of[0], *c1 = lanes->class_of[1], *c2 = lanes->class_of[third],
                           *c3 = lanes->class_of[fourth];
            const uint32_t *r0 = lanes->rows[0], *r1 = lanes->rows[1], *r2 = lanes->rows[third], *r3 = lanes->rows[fourth];
            uint32_t s0 = lanes->row[0], s1 = lanes->row[1], s2 = lanes->row[third], s3 = lanes->row[fourth];
            uint32_t t0 = lanes->stop_at[0], t1 = lanes->stop_at[1], t2 = lanes->stop_at[third], t3 = lanes->stop_at[fourth];
            while (i < length) {
                unsigned char symbol = text[i++];
                s0 = r0[s0 + c0[symbol]];
                s1 = r1[s1 + c1[symbol]];
                s2 = r2[s2 + c2[symbol]];
                s3 = r3[s3 + c3[symbol]];
                if ((s0 >= t0) | (s1 >= t1) | (s2 >= t2) | (s3 >= t3)) {
                    break;
                }
            }
            lanes->row[0] = s0;
            lanes->row[1] = s1;
            lanes->row[third] = s2;
            lanes->row[fourth] = s3;
            lanes_stopped(packed, lanes);
            continue;
        }
        if (lanes->count > 2) {
            unsigned char symbol = text[i++];
            for (int k = 0; k < lanes->count;) {
                lanes->row[k] = lanes->rows[k][lanes->row[k] + lanes->class_of[k][symbol]];
                if (lanes->row[k] >= lanes->stop_at[k]) {
                    lane_stopped(packed, lanes, k);
                } else {
                    k++;
                }
            }
            continue;
        }
        int last = lanes->count - 1;
        const uint16_t *classes0 = lanes->class_of[0], *classes1 = lanes->class_of[last];
        const uint32_t *rows0 = lanes->rows[0], *rows1 = lanes->rows[last];
        uint32_t row0 = lanes->row[0], row1 = lanes->row[last], stop0 = lanes->stop_at[0], stop1 = lanes->stop_at[last];
        if (lanes->count == 2) {
            while (i < length) {
                unsigned char symbol = text[i++];
                row0 = rows0[row0 + classes0[symbol]];
                row1 = rows1[row1 + classes1[symbol]];
                if (row0 >= stop0 || row1 >= stop1) {
                    break;
                }
            }
            lanes->row[1] = row1;
        } else {
            while (i < length) {
                row0 = rows0[row0 + classes0[text[i++]]];
                if (row0 >= stop0) {
                    break;
                }
            }
        }
        lanes->row[0] = row0;
        lanes_stopped(packed, lanes);
    }
    for (int k = 0; k < lanes->count; k++) {
        uint32_t end = lanes->rows[k][lanes->row[k] + lanes->class_of[k][256]]; /* the end marker's state */
        packed->accepts[lanes->live[k]] = lanes->rows[k][end + lanes->flags[k]] & 1;
    }
    lanes->count = 0;
}

/* Runs the asked Dfas that read ``position`` over the text, together, and says whether each
 * accepts it: a state's next one hangs on the state before, so one automaton waits for each
 * look-up in its table; several, run byte by byte side by side, wait for theirs at once. One
 * that reaches a state every byte leads back to (flag 4, stopping_rows) has its answer, and
 * stops. Those the first byte stops are answered by two look-ups (first_bytes), and never
 * run: most of them, and each would cost a lane and a branch that goes the other way. */
static void run_together(Packed *packed, int position, const unsigned char *text, Py_ssize_t length) {
    if (packed->product[position] != NULL) {
        run_product(packed, position, text, length);
        return;
    }
    Lanes lanes;
    lanes.count = 0;
    if (packed->by_first && length > 0) {
        unsigned char first = text[0];
        uint64_t mine = packed->asked_bits & packed->reads[position];
        for (uint64_t known = mine & ~packed->running[first]; known != 0; known &= known - 1) {
            int d = lowest_bit(known);
            packed->accepts[d] = packed->answer[first] >> d & 1;
        }
        for (uint64_t live = mine & packed->running[first]; live != 0; live &= live - 1) {
            int d = lowest_bit(live);
            lane_add(packed, &lanes, d, packed->dfas[d].rows[packed->dfas[d].class_of[first]]);
        }
        run_lanes(packed, &lanes, text, 1, length);
        return;
    }
    for (int d = 0; d < packed->dfa_count; d++) {
        if (!(packed->asked[d] && packed->dfas[d].position == position)) {
            continue;
        }
        uint32_t first = packed->dfas[d].rows[packed->dfas[d].flags];
        if (first & 4) {
            packed->accepts[d] = first >> 3 & 1;
            continue;
        }
        lane_add(packed, &lanes, d, 0);
        if (lanes.count == TOGETHER) {
            run_lanes(packed, &lanes, text, 0, length);
        }
    }
    run_lanes(packed, &lanes, text, 0, length);
}

/* Does one of the rule's ways hold on the focus node's text (its automata run already)? */
static int way_holds(const Packed *packed, const PackedRule *rule, const unsigned char *text, Py_ssize_t length) {
    Py_ssize_t count = -1;
    for (int w = rule->first_way; w < rule->first_way + rule->way_count; w++) {
        const PackedWay *way = &packed->ways[w];
        if (way->least > 0 || way->most < length) {
            /* A character is 1 to 4 bytes: the count is needed only between the two. */
            count = count >= 0 ? count : characters(text, length);
            if (count < way->least || count > way->most) {
                continue;
            }
        }
        int holds = 1;
        for (int k = way->first; k < way->first + way->count && holds; k++) {
            holds = packed->accepts[k];
        }
        if (holds) {
            return 1;
        }
    }
    return 0;
}

/* Do the group's rules give nothing for the statement (Group.automata)? For each rule: its
 * test of the predicate fails, or its gate does not accept the text of the term there, or one
 * of the ways its shape's checks hold on the focus node's text does. Where a text cannot be
 * read here (a blank node, an escape), the answer is the safe one: the rule may give. */
static int automata_clean(Packed *packed, const unsigned char *line, const Terms *terms, PyObject *class) {
    /* The rules a failed test of the predicate turns away, and the automata of the others. */
    int on = 0, positions = 0;
    if (packed->by_first && packed->plain_known && class == packed->plain_class) {
        packed->asked_bits = packed->plain_asked;
        on = packed->plain_on;
        positions = packed->plain_positions;
        goto asked;
    }
    if (!packed->by_first) {
        memset(packed->asked, 0, (size_t)packed->dfa_count);
    }
    packed->asked_bits = 0;
    for (int r = 0; r < packed->rule_count; r++) {
        const PackedRule *rule = &packed->rules[r];
        if (rule->test >= 0 && class != NULL && rule->test < PyBytes_GET_SIZE(class) &&
            PyBytes_AS_STRING(class)[rule->test] == 0) {
            continue;
        }
        on = 1;
        /* Asked: a bit each where the first byte answers (by_first), else a byte each. */
        if (rule->gate >= 0) {
            if (packed->by_first) {
                packed->asked_bits |= (uint64_t)1 << rule->gate;
            } else {
                packed->asked[rule->gate] = 1;
            }
            positions |= 1 << packed->dfas[rule->gate].position;
        }
        if (rule->way_count > 0) {
            int first = packed->ways[rule->first_way].first;
            const PackedWay *last = &packed->ways[rule->first_way + rule->way_count - 1];
            int end = last->first + last->count;
            if (packed->by_first) {
                packed->asked_bits |= bit_range(first, end);
            } else {
                memset(packed->asked + first, 1, (size_t)(end - first));
            }
            positions |= 1 << rule->focus;
        }
    }
    if (packed->by_first) {
        Py_XSETREF(packed->plain_class, Py_XNewRef(class));
        packed->plain_asked = packed->asked_bits;
        packed->plain_on = on;
        packed->plain_positions = positions;
        packed->plain_known = 1;
    }
asked:
    if (!on) {
        return 1;
    }
    const unsigned char *texts[3];
    Py_ssize_t lengths[3];
    int readable = 0;
    for (int position = 0; position < 3; position++) {
        if (positions >> position & 1 && term_text(line, terms, position, &texts[position], &lengths[position])) {
            readable |= 1 << position;
            run_together(packed, position, texts[position], lengths[position]);
        }
    }
    for (int r = 0; r < packed->rule_count; r++) {
        const PackedRule *rule = &packed->rules[r];
        if (rule->test >= 0 && class != NULL && rule->test < PyBytes_GET_SIZE(class) &&
            PyBytes_AS_STRING(class)[rule->test] == 0) {
            continue;
        }
        if (rule->gate >= 0 && readable >> packed->dfas[rule->gate].position & 1 && !packed->accepts[rule->gate]) {
            continue;
        }
        if (!(readable >> rule->focus & 1) || !way_holds(packed, rule, texts[rule->focus], lengths[rule->focus])) {
            return 0;
        }
    }
    return 1;
}

static int term_kind(const unsigned char *line, const Terms *terms, int index) {
    unsigned char first = line[terms->start[index]];
    return first == '<' ? 0 : first == '_' ? 1 : 2;
}

static int same_term(const unsigned char *line, const Terms *terms, int a, int b) {
    Py_ssize_t length = terms->stop[a] - terms->start[a];
    return length == terms->stop[b] - terms->start[b] &&
           memcmp(line + terms->start[a], line + terms->start[b], (size_t)length) == 0;
}

/* Does the group give nothing, by its signature table? Terms written alike are equal; an IRI
 * or blank node is written one way without escapes (a line with a \\u is looked at whole),
 * and a literal is never equal to the subject or predicate, nor written like them. */
static int signature_clean(PyObject *table, const unsigned char *line, const Terms *terms) {
    int index = term_kind(line, terms, 0) + 3 * term_kind(line, terms, 2) + 9 * same_term(line, terms, 0, 2) +
                18 * same_term(line, terms, 0, 1) + 36 * same_term(line, terms, 1, 2);
    return PyBytes_AS_STRING(table)[index] == 1;
}

/* Does the group's probe, a callable, say the term at its gate gives nothing? It is given the
 * term's text and answers with a match, or None. 1 if it matches; 0 if not, or if the text
 * cannot be read here (term_text); -1 on error. */
static int probe_clean(const Group *group, const unsigned char *line, const Terms *terms) {
    const unsigned char *text;
    Py_ssize_t length;
    if (!term_text(line, terms, group->gate, &text, &length)) {
        return 0;
    }
    PyObject *string = PyUnicode_DecodeUTF8((const char *)text, length, "strict");
    if (string == NULL) {
        return -1;
    }
    PyObject *answer = PyObject_CallOneArg(group->probe, string);
    Py_DECREF(string);
    if (answer == NULL) {
        return -1;
    }
    int clean = answer != Py_None;
    Py_DECREF(answer);
    return clean;
}

/* automata_clean, through the group's memory of the last term it said it of. */
static int group_clean(Group *group, const unsigned char *line, const Terms *terms, PyObject *class) {
    if (group->reads >= 0) {
        const unsigned char *term = line + terms->start[group->reads];
        Py_ssize_t length = terms->stop[group->reads] - terms->start[group->reads];
        if (group->clean_term != NULL && group->clean_class == class && group->clean_length == length &&
            memcmp(group->clean_term, term, (size_t)length) == 0) {
            return 1;
        }
        if (!automata_clean(group->packed, line, terms, class)) {
            return 0;
        }
        group->clean_term = term;
        group->clean_length = length;
        group->clean_class = class;
        return 1;
    }
    return automata_clean(group->packed, line, terms, class);
}

#define XSD "<http://www.w3.org/2001/XMLSchema#"
static const char STRING_TYPE[] = "^^" XSD "string>", ANY_URI_TYPE[] = "^^" XSD "anyURI>";

/* The group's results for the statement, made here (Group.rows): for each rule (a check of a
 * rule's shape) whose test of the predicate passes, whose kind tests pass for the term at the
 * focus, whose gate accepts its text and none of whose ways (those of the check holding)
 * holds, its row, as ldids.dumps.validation makes one: (line, focus, None, focus, shape,
 * component, message, severity, graph), the focus and graph as pyoxigraph writes them (str;
 * the graph None in the default graph); and with out->digests, its digest as _digests makes
 * it, hash((focus, "-", focus, shape, component, graph)) with the shape and component in
 * N-Triples, or None where the focus is an xsd:anyURI literal (rdflib's form of it is
 * Python's to make). 1 if it was done, 0 if the statement must be parsed for it (a blank node
 * or an escape at the focus, a literal of another datatype or with a language tag, a
 * character pyoxigraph writes as an escape, a predicate not classed yet), -1 on error. */
static int group_rows(Group *group, const unsigned char *line, const Terms *terms, PyObject *class, Py_ssize_t index,
                      RowsOut *out) {
    Packed *packed = group->rows;
    int focus = group->rows_focus;
    const unsigned char *text, *term = line + terms->start[focus];
    Py_ssize_t length, size = terms->stop[focus] - terms->start[focus], shown = size;
    if (!term_text(line, terms, focus, &text, &length)) {
        return 0;
    }
    int kind = 0;
    if (term[0] == '"') {
        const unsigned char *type = text + length + 1;
        Py_ssize_t rest = term + size - type;
        if (rest == 0) {
            kind = 1;
        } else if (rest == (Py_ssize_t)sizeof STRING_TYPE - 1 && memcmp(type, STRING_TYPE, (size_t)rest) == 0) {
            kind = 1;
            shown = size - rest; /* a string literal is written without its datatype */
        } else if (rest == (Py_ssize_t)sizeof ANY_URI_TYPE - 1 && memcmp(type, ANY_URI_TYPE, (size_t)rest) == 0) {
            kind = 2;
        } else {
            return 0;
        }
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        if (text[i] < 0x20 || text[i] == 0x7F) {
            return 0; /* pyoxigraph writes these as \t, \u0001 ... */
        }
    }
    for (int r = 0; r < packed->rule_count; r++) {
        if (packed->rules[r].test >= 0 && class == NULL) {
            return 0;
        }
    }
    if (packed->by_first) {
        packed->asked_bits = bit_range(0, packed->dfa_count);
    } else {
        memset(packed->asked, 1, (size_t)packed->dfa_count);
    }
    run_together(packed, focus, text, length);
    PyObject *shown_focus = NULL, *graph = NULL, *number = NULL;
    int result = 1;
    for (int r = 0; r < packed->rule_count && result > 0; r++) {
        const PackedRule *rule = &packed->rules[r];
        if ((rule->test >= 0 && (rule->test >= PyBytes_GET_SIZE(class) || PyBytes_AS_STRING(class)[rule->test] == 0)) ||
            !group->kinds[3 * r + kind] || (rule->gate >= 0 && !packed->accepts[rule->gate]) ||
            way_holds(packed, rule, text, length)) {
            continue;
        }
        if (shown_focus == NULL) {
            shown_focus = PyUnicode_DecodeUTF8((const char *)term, shown, NULL);
            if (terms->start[3] >= 0) {
                graph = PyUnicode_DecodeUTF8((const char *)line + terms->start[3], terms->stop[3] - terms->start[3], NULL);
            } else {
                graph = Py_NewRef(Py_None);
            }
            number = PyLong_FromSsize_t(out->first_line + index);
            if (shown_focus == NULL || graph == NULL || number == NULL) {
                result = -1;
                break;
            }
        }
        PyObject *reported = PyTuple_GET_ITEM(group->reported, r);
        PyObject *row = PyTuple_Pack(9, number, shown_focus, Py_None, shown_focus, PyTuple_GET_ITEM(reported, 0),
                                     PyTuple_GET_ITEM(reported, 1), PyTuple_GET_ITEM(reported, 2),
                                     PyTuple_GET_ITEM(reported, 3), graph);
        if (row == NULL || PyList_Append(out->rows, row) < 0) {
            result = -1;
        }
        Py_XDECREF(row);
        if (result > 0 && out->digests != NULL) {
            PyObject *digest = Py_NewRef(Py_None);
            if (kind != 2) {
                PyObject *key = PyTuple_Pack(6, shown_focus, out->no_path, shown_focus, PyTuple_GET_ITEM(reported, 4),
                                             PyTuple_GET_ITEM(reported, 5), graph);
                Py_hash_t hash = key == NULL ? -1 : PyObject_Hash(key);
                Py_XDECREF(key);
                Py_SETREF(digest, hash == -1 ? NULL : PyLong_FromSsize_t(hash));
            }
            if (digest == NULL || PyList_Append(out->digests, digest) < 0) {
                result = -1;
            }
            Py_XDECREF(digest);
        }
    }
    Py_XDECREF(shown_focus);
    Py_XDECREF(graph);
    Py_XDECREF(number);
    return result;
}

/* The probes and rows whose automata were last looked through (strong references): a run
 * passes the same ones with each block. */
static PyObject *checked_probes = NULL, *checked_rows = NULL;

/* A group's rows table (Group.rows): (automata as automata_init takes them, each reading the
 * one position of the focus node; kinds, 3 bytes per rule). 0, or -1 with an error set. */
static int rows_init(Group *group, PyObject *made, int tables) {
    PyObject *rules, *kinds, *reported;
    if (!PyTuple_Check(made) ||
        !PyArg_ParseTuple(made, "O!O!O!", &PyTuple_Type, &rules, &PyBytes_Type, &kinds, &PyTuple_Type, &reported)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "a rows table is (automata, kinds, reported)");
        }
        return -1;
    }
    int well_made = PyTuple_GET_SIZE(reported) == PyTuple_GET_SIZE(rules);
    for (Py_ssize_t r = 0; well_made && r < PyTuple_GET_SIZE(reported); r++) {
        PyObject *what = PyTuple_GET_ITEM(reported, r);
        well_made = PyTuple_Check(what) && PyTuple_GET_SIZE(what) == 6 && PyUnicode_Check(PyTuple_GET_ITEM(what, 4)) &&
                    PyUnicode_Check(PyTuple_GET_ITEM(what, 5));
    }
    if (!well_made) {
        PyErr_SetString(PyExc_ValueError, "a rows table reports (shape, component, message, severity, shape "
                                          "and component in N-Triples) for each rule");
        return -1;
    }
    group->reported = reported;
    int reads = automata_init(rules, tables);
    if (reads < -1) {
        return -1;
    }
    if (reads < 0 || PyTuple_GET_SIZE(rules) == 0 || PyBytes_GET_SIZE(kinds) != 3 * PyTuple_GET_SIZE(rules)) {
        PyErr_SetString(PyExc_ValueError, "a rows table's automata read one position, and it has 3 kinds a rule");
        return -1;
    }
    for (Py_ssize_t r = 0; r < PyTuple_GET_SIZE(rules); r++) {
        if (PyLong_AsLong(PyTuple_GET_ITEM(PyTuple_GET_ITEM(rules, r), 1)) < 0) {
            PyErr_SetString(PyExc_ValueError, "a rows table's rules have gates");
            return -1;
        }
    }
    if ((group->rows = packed_init(rules)) == NULL) {
        return -1;
    }
    group->kinds = (const unsigned char *)PyBytes_AS_STRING(kinds);
    group->rows_focus = reads;
    return 0;
}

static int groups_init(PyObject *descriptions, PyObject *probes, PyObject *rows, Group *groups) {
    int tables = probes != checked_probes || rows != checked_rows;
    if (probes != Py_None && (!PyTuple_Check(probes) || PyTuple_GET_SIZE(probes) != PyTuple_GET_SIZE(descriptions))) {
        PyErr_SetString(PyExc_ValueError, "probes is None or a tuple of one callable or None per group");
        return -1;
    }
    if (rows != Py_None && (!PyTuple_Check(rows) || PyTuple_GET_SIZE(rows) != PyTuple_GET_SIZE(descriptions))) {
        PyErr_SetString(PyExc_ValueError, "rows is None or a tuple of one (automata, kinds) or None per group");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(descriptions); i++) {
        Group *group = &groups[i];
        PyObject *made = rows == Py_None ? Py_None : PyTuple_GET_ITEM(rows, i);
        if (made != Py_None && rows_init(group, made, tables) < 0) {
            return -1;
        }
        group->probe = probes == Py_None ? Py_None : PyTuple_GET_ITEM(probes, i);
        group->signature = PyBytes_Check(group->probe);
        if (group->signature && PyBytes_GET_SIZE(group->probe) != 72) {
            PyErr_SetString(PyExc_ValueError, "a signature table is 72 bytes");
            return -1;
        }
        group->automata = PyTuple_Check(group->probe);
        group->reads = -1;
        group->clean_term = NULL;
        if (group->automata) {
            group->reads = automata_init(group->probe, tables);
            if (group->reads < -1 || (group->packed = packed_init(group->probe)) == NULL) {
                return -1;
            }
        } else if (group->probe != Py_None && !group->signature && !PyCallable_Check(group->probe)) {
            PyErr_SetString(PyExc_TypeError, "a probe is a callable, automata, a signature table or None");
            return -1;
        }
        PyObject *positions;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(descriptions, i), "OO!piO!O!", &group->predicate, &PyBytes_Type,
                              &positions, &group->with_predicate, &group->gate, &PyTuple_Type,
                              &group->needles.folded, &PyTuple_Type, &group->needles.exact)) {
            return -1;
        }
        group->positions = (const unsigned char *)PyBytes_AS_STRING(positions);
        group->position_count = PyBytes_GET_SIZE(positions);
        int ok = (group->predicate == Py_None || PyBytes_Check(group->predicate)) && group->gate >= -1 &&
                 group->gate <= 2;
        for (Py_ssize_t j = 0; ok && j < group->position_count; j++) {
            ok = group->positions[j] <= 2;
        }
        PyObject *tuples[] = {group->needles.folded, group->needles.exact};
        for (int k = 0; ok && k < 2; k++) {
            for (Py_ssize_t j = 0; ok && j < PyTuple_GET_SIZE(tuples[k]); j++) {
                ok = PyBytes_Check(PyTuple_GET_ITEM(tuples[k], j)) && PyBytes_GET_SIZE(PyTuple_GET_ITEM(tuples[k], j)) > 0;
            }
        }
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "a group is (predicate, positions 0..2, with_predicate, gate, folded, exact)");
            return -1;
        }
        needles_init(&group->needles);
    }
    if (tables) {
        Py_INCREF(probes);
        Py_XSETREF(checked_probes, probes);
        Py_INCREF(rows);
        Py_XSETREF(checked_rows, rows);
    }
    return 0;
}

/* The tables made for automata, forgotten when many (a process that plans shapes after
 * shapes): only between calls of select_lines, whose Packed point into them. */
static void tables_trim(void) {
    if (stopping_tables != NULL && PyDict_GET_SIZE(stopping_tables) >= 1024) {
        PyDict_Clear(stopping_tables);
    }
    if (product_tables != NULL && PyDict_GET_SIZE(product_tables) >= 1024) {
        PyDict_Clear(product_tables);
        memset(recent_texts, 0, sizeof recent_texts); /* their products may be gone */
    }
}

static PyObject *select_lines(PyObject *module, PyObject *args) {
    (void)module;
    tables_trim();
    Py_buffer data;
    PyObject *descriptions, *memo, *classes, *probes = Py_None, *learn = Py_None, *rows_tables = Py_None;
    int any_escape, trusted = 0, hashed = 0, triples = 0;
    Py_ssize_t memo_size, first_line = 1;
    if (!PyArg_ParseTuple(args, "y*O!pO!nO!|OOpOnpp", &data, &PyTuple_Type, &descriptions, &any_escape, &PyDict_Type,
                          &memo, &memo_size, &PyDict_Type, &classes, &probes, &learn, &trusted, &rows_tables,
                          &first_line, &hashed, &triples)) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(descriptions);
    Group *groups = count > 0 && count < 256 ? PyMem_Calloc((size_t)count, sizeof(Group)) : NULL;
    PyObject *indexes = PyList_New(0), *masks = PyList_New(0), *rows = PyList_New(0), *result = NULL;
    PyObject *digests = PyList_New(0), *no_path = PyUnicode_FromString("-");
    RowsOut made = {first_line, rows, hashed ? digests : NULL, no_path};
    Buffer out = {NULL, NULL, 0, 0, 0, NULL, NULL};
    if (count == 0 || count >= 256 || memo_size < 1) {
        PyErr_SetString(PyExc_ValueError, "1 to 255 groups and a memo of at least 1 entry");
        goto done;
    }
    if (groups == NULL || indexes == NULL || masks == NULL || rows == NULL || digests == NULL || no_path == NULL ||
        groups_init(descriptions, probes, rows_tables, groups) < 0 || buffer_reserve(&out, 1 << 12) < 0) {
        if (groups == NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    ClassCache class_cache[CLASS_CACHE];
    memset(class_cache, 0, sizeof class_cache);
    const unsigned char *s = data.buf;
    Py_ssize_t size = data.len, start = 0, number = 0, statements = 0, next_cr = -1, next_lf = -1;
    while (start < size) {
        /* Lines end as scan_block ends them (LF, CR LF, CR alone) and are numbered so, as
         * blocks.py numbers them (line_breaks). */
        const unsigned char *newline = lf_from(s, size, start, &next_lf);
        Py_ssize_t line_end = newline == NULL ? size : newline - s;
        Py_ssize_t next = newline == NULL ? size : line_end + 1;
        const unsigned char *cr = cr_in(s, size, start, line_end, &next_cr);
        if (cr != NULL && !(newline != NULL && cr - s == line_end - 1)) {
            line_end = cr - s;
            next = line_end + 1;
        }
        const unsigned char *line = s + start;
        Py_ssize_t body = line_end - start - (cr != NULL && cr - s == line_end - 1), index = number;
        number += line_end < size; /* a line break ends it */
        start = next;
        Terms terms;
        int ok = trusted && split_statement(line, body, &terms, 1);
        if (!ok) {
            ok = statement(line, body, &terms) && valid_utf8(line, terms.end);
            if (ok && (ok = terms_valid(line, &terms)) < 0) {
                goto done;
            }
        }
        /* N-Triples has no graph term: such a line of an N-Triples input is handed to the
         * parser, which says it is no statement (N-Triples §7, [2]) */
        ok = ok && !(triples && terms.start[3] >= 0);
        int selected = 0;
        /* The groups that have a new key in the line (bit g for group g); all, for a line the
         * groups are not asked of (malformed, or with an escape). */
        unsigned long long mask = ~0ULL;
        if (!ok) {
            if (nothing(line, body)) {
                continue;
            }
            selected = 1;
        } else {
            statements++;
            selected = escaped(line, body, any_escape, &terms);
            /* No look for the line's needles here: each group looks for its own in the term at
             * its gate, or compares its predicate, and a line that holds none of them gives no
             * group a key; the line's look would only go over the terms once more. */
            if (!selected) {
                mask = 0;
            }
            /* Every group is asked: those whose key is new are the ones to check the line. */
            for (Py_ssize_t g = 0; g < count && mask != ~0ULL; g++) {
                Group *group = &groups[g];
                if (group->predicate != Py_None &&
                    !(PyBytes_GET_SIZE(group->predicate) == terms.stop[1] - terms.start[1] &&
                      memcmp(PyBytes_AS_STRING(group->predicate), line + terms.start[1],
                             (size_t)(terms.stop[1] - terms.start[1])) == 0)) {
                    continue;
                }
                if (group->gate >= 0) {
                    const unsigned char *term = line + terms.start[group->gate];
                    Py_ssize_t length = terms.stop[group->gate] - terms.start[group->gate];
                    /* A blank node has no text for a regular expression (SPARQL STR). */
                    if (term[0] == '_' || (length == group->passed_length && group->passed_term != NULL &&
                                           memcmp(term, group->passed_term, (size_t)length) == 0)) {
                        continue;
                    }
                    /* The needles are a look over the whole term, for the line to be passed
                     * over before its automata run; where they run as one product, most texts
                     * no gate takes stop it at their first byte, which costs less (a long
                     * literal: much less), and the answer is the same. */
                    int product = group->automata && group->gate < 3 && group->packed->product[group->gate] != NULL;
                    if (!product && !is_candidate(&group->needles, term, length)) {
                        group->passed_term = term;
                        group->passed_length = length;
                        continue;
                    }
                }
                PyObject *class = NULL;
                if (group->with_predicate && predicate_class(classes, learn, memo_size, class_cache, line, &terms, &class) < 0) {
                    goto done;
                }
                if (group->automata && group_clean(group, line, &terms, class)) {
                    if (group->gate >= 0 && group->reads == group->gate && !group->with_predicate) {
                        /* Its automata read the term at the gate alone, so a line with this
                         * term there gives nothing either: asked no more (is_candidate). */
                        group->passed_term = line + terms.start[group->gate];
                        group->passed_length = terms.stop[group->gate] - terms.start[group->gate];
                    }
                    continue;
                }
                /* Before the key: a line the table says gives nothing costs no key (a group
                 * whose results hang on its key alone gives the same for a line of a key seen). */
                if (group->signature && signature_clean(group->probe, line, &terms)) {
                    continue;
                }
                int seen;
                if (group->with_predicate && class == NULL) {
                    seen = 0; /* the line is parsed: the Python side learns its predicate */
                } else if ((seen = group_seen(group, g, memo, memo_size, class, line, &terms)) < 0) {
                    goto done;
                } else if (!seen && !group->automata && !group->signature && group->probe != Py_None && group->gate >= 0) {
                    seen = probe_clean(group, line, &terms);
                    if (seen < 0) {
                        goto done;
                    }
                }
                if (!seen && group->rows != NULL) {
                    /* Its results made here, or the line parsed for them. */
                    if ((seen = group_rows(group, line, &terms, class, index, &made)) < 0) {
                        goto done;
                    }
                }
                if (!seen) {
                    selected = 1;
                    mask |= g < 64 ? 1ULL << g : ~0ULL;
                }
            }
        }
        if (!selected) {
            continue;
        }
        PyObject *bits = PyLong_FromUnsignedLongLong(mask);
        if (bits == NULL || PyList_Append(masks, bits) < 0) {
            Py_XDECREF(bits);
            goto done;
        }
        Py_DECREF(bits);
        PyObject *at = PyLong_FromSsize_t(index);
        if (at == NULL || PyList_Append(indexes, at) < 0) {
            Py_XDECREF(at);
            goto done;
        }
        Py_DECREF(at);
        if (buffer_add(&out, (const char *)line, body) < 0 || buffer_add(&out, "\n", 1) < 0) {
            goto done;
        }
        if (!ok) {
            break; /* the Python parser stops at it */
        }
    }
    {
        PyObject *output = buffer_finish(&out);
        if (output != NULL) {
            result = Py_BuildValue("(nNOOOO)", statements, output, indexes, masks, rows, digests);
        }
    }
done:
    Py_XDECREF(out.object);
    Py_XDECREF(indexes);
    Py_XDECREF(masks);
    Py_XDECREF(rows);
    Py_XDECREF(digests);
    Py_XDECREF(no_path);
    for (Py_ssize_t g = 0; groups != NULL && g < count; g++) {
        packed_free(groups[g].packed);
        packed_free(groups[g].rows);
    }
    PyMem_Free(groups);
    PyBuffer_Release(&data);
    return result;
}

/* -- The results a streamed validation has met (ldids/dumps/results.py, Seen) ---------------- */

/* Where value is in an open-addressed table of 64-bit slots (a power of two of them, 0 an
 * empty slot), or the empty slot where it would go: Seen's _slot. */
static Py_ssize_t seen_slot(const uint64_t *table, Py_ssize_t size, uint64_t value) {
    Py_ssize_t mask = size - 1, index = (Py_ssize_t)(value & (uint64_t)mask);
    while (table[index] != 0 && table[index] != value) {
        index = (index + 1) & mask;
    }
    return index;
}

/* seen_insert(young, old, digests, start, room, flags) -> (next, added): Seen.insert, whose
 * Python form is the reference. */
static PyObject *seen_insert(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer young, old = {0}, flags;
    PyObject *old_object, *digests;
    Py_ssize_t start, room;
    if (!PyArg_ParseTuple(args, "w*OO!nnw*", &young, &old_object, &PyList_Type, &digests, &start, &room, &flags)) {
        return NULL;
    }
    PyObject *result = NULL;
    if (old_object != Py_None && PyObject_GetBuffer(old_object, &old, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    Py_ssize_t young_size = young.len / 8, old_size = old.obj == NULL ? 0 : old.len / 8;
    if (young.len % 8 || young_size == 0 || (young_size & (young_size - 1)) || old.len % 8 ||
        (old.obj != NULL && (old_size == 0 || (old_size & (old_size - 1)))) || start < 0 ||
        flags.len < PyList_GET_SIZE(digests)) {
        PyErr_SetString(PyExc_ValueError, "tables of 2**k 64-bit slots, and a flag for each digest");
        goto done;
    }
    uint64_t *slots = young.buf;
    const uint64_t *older = old.buf;
    unsigned char *flag = flags.buf;
    Py_ssize_t added = 0, i = start;
    for (; i < PyList_GET_SIZE(digests) && added < room; i++) {
        /* Its low 64 bits, as Python's hash() of a negative number has them (two's complement). */
        uint64_t value = (uint64_t)PyLong_AsUnsignedLongLongMask(PyList_GET_ITEM(digests, i));
        if (value == (uint64_t)-1 && PyErr_Occurred()) {
            goto done;
        }
        value = value == 0 ? 1 : value;
        if (older != NULL && older[seen_slot(older, old_size, value)] == value) {
            flag[i] = 0;
            continue;
        }
        Py_ssize_t index = seen_slot(slots, young_size, value);
        if (slots[index] == value) {
            flag[i] = 0;
            continue;
        }
        slots[index] = value;
        flag[i] = 1;
        added++;
    }
    result = Py_BuildValue("(nn)", i, added);
done:
    PyBuffer_Release(&young);
    if (old.obj != NULL) {
        PyBuffer_Release(&old);
    }
    PyBuffer_Release(&flags);
    return result;
}

/* -- Where an RDF/XML document can be cut (ldids/rdf/xmlcut.py, the reference) ----------- */

/* Where a needle of a few bytes is in data[from:n] (bytes.find): -1 if absent. memchr for its
 * first byte (memmem is not everywhere). */
static Py_ssize_t find_from(const unsigned char *data, Py_ssize_t n, Py_ssize_t from, const char *needle,
                            Py_ssize_t length) {
    while (from <= n - length) {
        const unsigned char *first = memchr(data + from, needle[0], (size_t)(n - length + 1 - from));
        if (first == NULL) {
            return -1;
        }
        if (memcmp(first, needle, (size_t)length) == 0) {
            return first - data;
        }
        from = first - data + 1;
    }
    return -1;
}

static int is_xml_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* _tag_end: the position after the '>' of the tag at `at` (quoted values skipped), or -1;
 * *named_id set where an attribute is named ID (any prefix). */
static Py_ssize_t xml_tag_end(const unsigned char *data, Py_ssize_t n, Py_ssize_t at, int *named_id) {
    Py_ssize_t i = at + 1;
    while (i < n) {
        unsigned char c = data[i];
        if (c == '>') {
            return i + 1;
        }
        if (c == '"' || c == '\'') {
            const unsigned char *close = memchr(data + i + 1, c, (size_t)(n - i - 1));
            if (close == NULL) {
                return -1;
            }
            i = close - data + 1;
            continue;
        }
        if (c == '=') {
            Py_ssize_t j = i;
            while (j > at && is_xml_space(data[j - 1])) {
                j--;
            }
            if (j - 2 > at && data[j - 2] == 'I' && data[j - 1] == 'D' &&
                (is_xml_space(data[j - 3]) || data[j - 3] == ':')) {
                *named_id = 1;
            }
        }
        i++;
    }
    return -1;
}

static PyObject *xml_cuts(PyObject *module, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, step;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &step)) {
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t n = view.len;
    PyObject *found = PyList_New(0);
    if (found == NULL || start < 0 || step < 1) {
        PyBuffer_Release(&view);
        if (found != NULL && !PyErr_Occurred()) {
            Py_DECREF(found);
            PyErr_SetString(PyExc_ValueError, "xml_cuts: start >= 0 and step >= 1");
            return NULL;
        }
        return found;
    }
    Py_ssize_t target = start + step, i = start, depth = 1;
    int ok = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (;;) {
        if (i >= n) {
            break;
        }
        const unsigned char *lt = memchr(data + i, '<', (size_t)(n - i));
        if (lt == NULL) {
            break;
        }
        i = lt - data;
        Py_ssize_t rest = n - i, end;
        if (rest >= 4 && memcmp(data + i, "<!--", 4) == 0) {
            if ((end = find_from(data, n, i + 4, "-->", 3)) < 0) {
                break;
            }
            i = end + 3;
            continue;
        }
        if (rest >= 9 && memcmp(data + i, "<![CDATA[", 9) == 0) {
            if ((end = find_from(data, n, i + 9, "]]>", 3)) < 0) {
                break;
            }
            i = end + 3;
            continue;
        }
        if (rest >= 2 && data[i + 1] == '?') {
            if ((end = find_from(data, n, i + 2, "?>", 2)) < 0) {
                break;
            }
            i = end + 2;
            continue;
        }
        if (rest >= 2 && data[i + 1] == '!') {
            break;
        }
        if (rest >= 2 && data[i + 1] == '/') {
            const unsigned char *gt = memchr(data + i + 2, '>', (size_t)(n - i - 2));
            if (gt == NULL) {
                break;
            }
            i = gt - data + 1;
            if (--depth == 0) {
                ok = 1;
                break;
            }
        } else {
            int named_id = 0;
            i = xml_tag_end(data, n, i, &named_id);
            if (i < 0 || named_id) {
                break;
            }
            if (data[i - 2] != '/') {
                depth++;
                continue;
            }
        }
        if (depth == 1 && i >= target) {
            /* a cut: appended below, with the GIL (one in about `step` bytes) */
            Py_BLOCK_THREADS;
            PyObject *position = PyLong_FromSsize_t(i);
            int failed = position == NULL || PyList_Append(found, position) < 0;
            Py_XDECREF(position);
            Py_UNBLOCK_THREADS;
            if (failed) {
                break;
            }
            target = i + step;
        }
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&view);
    if (PyErr_Occurred()) {
        Py_DECREF(found);
        return NULL;
    }
    if (!ok) {
        Py_DECREF(found);
        Py_RETURN_NONE;
    }
    return found;
}

/* -- Where a Turtle document can be cut (ldids/rdf/turtlecut.py, the reference) ---------- */

/* The bytes that end a word (turtlecut.py: _DELIMITERS), and those that end an IRI's scan
 * ('>', white space, '<'), as tables: the scan spends its time in words and IRIs. */
static unsigned char turtle_ends_word[256], turtle_ends_iri[256];

static void turtle_tables(void) {
    const char *word = " \t\r\n<>\"'{}[](),;#@", *iri = ">< \t\r\n";
    for (const char *c = word; *c; c++) {
        turtle_ends_word[(unsigned char)*c] = 1;
    }
    for (const char *c = iri; *c; c++) {
        turtle_ends_iri[(unsigned char)*c] = 1;
    }
}

static int turtle_delimiter(unsigned char c) { return turtle_ends_word[c]; }

/* _string_end: the position after the string at i (a quote), or -1. */
static Py_ssize_t turtle_string_end(const unsigned char *data, Py_ssize_t n, Py_ssize_t i) {
    unsigned char quote = data[i];
    int is_long = i + 2 < n && data[i + 1] == quote && data[i + 2] == quote;
    Py_ssize_t j = is_long ? i + 3 : i + 1;
    while (j < n) {
        unsigned char c = data[j];
        if (c == '\\') {
            j += 2;
            continue;
        }
        if (c == quote) {
            if (!is_long) {
                return j + 1;
            }
            if (j + 2 < n && data[j + 1] == quote && data[j + 2] == quote) {
                return j + 3;
            }
        } else if (!is_long && (c == '\n' || c == '\r')) {
            return -1;
        }
        j++;
    }
    return -1;
}

static int turtle_directive(const unsigned char *word, Py_ssize_t length) {
    static const char *const names[] = {"prefix", "base", "version"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if ((size_t)length == strlen(names[k])) {
            Py_ssize_t m = 0;
            while (m < length && (word[m] | 0x20) == (unsigned char)names[k][m]) {
                m++;
            }
            if (m == length) {
                return 1;
            }
        }
    }
    return 0;
}

/* The kinds of the last top-level tokens (turtlecut.py: _START, _END, _NAME, _GRAPH, _OTHER). */
enum { T_START, T_END, T_NAME, T_GRAPH, T_OTHER };

typedef struct {
    Py_ssize_t depth, block_start, block_end;
    int kinds[2];
    Py_ssize_t begins[2], ends[2];
} TurtleScan;

static void turtle_seen(TurtleScan *scan, int kind, Py_ssize_t begin, Py_ssize_t end) {
    if (scan->depth == 0 && scan->block_start < 0) {
        scan->kinds[0] = scan->kinds[1];
        scan->begins[0] = scan->begins[1];
        scan->ends[0] = scan->ends[1];
        scan->kinds[1] = kind;
        scan->begins[1] = begin;
        scan->ends[1] = end;
    }
}

static PyObject *turtle_cuts(PyObject *module, PyObject *args) {
    Py_buffer view;
    Py_ssize_t step;
    int trig = 0;
    if (!PyArg_ParseTuple(args, "y*n|p", &view, &step, &trig)) {
        return NULL;
    }
    if (step < 1) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "turtle_cuts: step >= 1");
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t n = view.len, target = step, i = 0, count = 0;
    TurtleScan scan = {0, -1, -1, {T_START, T_START}, {0, 0}, {0, 0}};
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int refused = 0, failed = 0;
    while (i < n && !refused && !failed) {
        unsigned char c = data[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            i++;
        } else if (c == '#') {
            const unsigned char *end = memchr(data + i, '\n', (size_t)(n - i));
            i = end == NULL ? n : end - data;
        } else if (c == '<') {
            Py_ssize_t j = i + 1;
            while (j < n && !turtle_ends_iri[data[j]]) {
                j++;
            }
            if (j >= n || data[j] != '>') {
                refused = 1;
                break;
            }
            turtle_seen(&scan, T_NAME, i, j + 1);
            i = j + 1;
        } else if (c == '"' || c == '\'') {
            Py_ssize_t begin = i;
            i = turtle_string_end(data, n, i);
            if (i < 0) {
                refused = 1;
                break;
            }
            if (i < n && data[i] == '@') {
                i++;
                while (i < n && (data[i] == '-' || (data[i] >= 'a' && data[i] <= 'z') ||
                                 (data[i] >= 'A' && data[i] <= 'Z') || (data[i] >= '0' && data[i] <= '9'))) {
                    i++;
                }
            }
            turtle_seen(&scan, T_OTHER, begin, i);
        } else if (c == '@') {
            failed = PyList_SetSlice(found, 0, count, NULL) < 0;
            count = 0;
            turtle_seen(&scan, T_OTHER, i, i + 1);
            i++;
            target = i + step;
        } else if (c == '{' && trig && scan.depth == 0 && scan.block_start < 0) {
            if (scan.kinds[1] == T_START || scan.kinds[1] == T_END) {
                scan.block_start = scan.block_end = i;
            } else if (scan.kinds[1] == T_NAME &&
                       (scan.kinds[0] == T_START || scan.kinds[0] == T_END || scan.kinds[0] == T_GRAPH)) {
                scan.block_start = scan.begins[1];
                scan.block_end = scan.ends[1];
            } else {
                refused = 1;
                break;
            }
            i++;
        } else if (c == '}' && scan.depth == 0 && scan.block_start >= 0) {
            scan.block_start = scan.block_end = -1;
            turtle_seen(&scan, T_END, i, i + 1);
            i++;
        } else if (c == '[' || c == '(' || c == '{') {
            turtle_seen(&scan, T_OTHER, i, i + 1);
            scan.depth++;
            i++;
        } else if (c == ']' || c == ')' || c == '}') {
            if (--scan.depth < 0) {
                refused = 1;
                break;
            }
            turtle_seen(&scan, T_OTHER, i, i + 1);
            i++;
        } else if (c == ',' || c == ';' || c == '>') {
            turtle_seen(&scan, T_OTHER, i, i + 1);
            i++;
        } else {
            Py_ssize_t begin = i;
            while (i < n && !turtle_delimiter(data[i])) {
                i++;
            }
            if (turtle_directive(data + begin, i - begin)) {
                failed = PyList_SetSlice(found, 0, count, NULL) < 0;
                count = 0;
                turtle_seen(&scan, T_OTHER, begin, i);
                target = i + step;
                continue;
            }
            if (data[i - 1] != '.') {
                int graph = i - begin == 5 && (data[begin] | 0x20) == 'g' && (data[begin + 1] | 0x20) == 'r' &&
                            (data[begin + 2] | 0x20) == 'a' && (data[begin + 3] | 0x20) == 'p' &&
                            (data[begin + 4] | 0x20) == 'h';
                turtle_seen(&scan, graph ? T_GRAPH : T_NAME, begin, i);
                continue;
            }
            turtle_seen(&scan, T_END, begin, i);
            if (scan.depth == 0) {
                Py_ssize_t end = (i + 1 < n && data[i] == '\r' && data[i + 1] == '\n') ? i + 1 : i;
                if (end < n && data[end] == '\n' && end + 1 >= target && end + 1 < n) {
                    PyObject *cut = Py_BuildValue("(nnn)", end + 1, scan.block_start, scan.block_end);
                    failed = cut == NULL || PyList_Append(found, cut) < 0;
                    Py_XDECREF(cut);
                    count++;
                    target = end + 1 + step;
                }
            }
        }
    }
    PyBuffer_Release(&view);
    if (failed) {
        Py_DECREF(found);
        return NULL;
    }
    if (refused || scan.depth != 0 || scan.block_start >= 0) {
        Py_DECREF(found);
        Py_RETURN_NONE;
    }
    return found;
}

/* -- Blank node labels drawn by pyoxigraph, made a piece's own (ldids/dumps/pieces.py) ------ */

static int drawn_label(const unsigned char *label, Py_ssize_t length) {
    if (length < 17 || length > 32) {
        return 0;
    }
    for (Py_ssize_t k = 0; k < length; k++) {
        unsigned char c = label[k];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

static PyObject *relabel_drawn(PyObject *module, PyObject *args) {
    Py_buffer view, suffix;
    PyObject *written;
    if (!PyArg_ParseTuple(args, "y*y*O!", &view, &suffix, &PySet_Type, &written)) {
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t n = view.len, added = suffix.len, copied = 0, o = 0;
    /* A drawn label is at least 20 bytes with its "_:" and space: a bound on what is added. */
    PyObject *out = PyBytes_FromStringAndSize(NULL, n + (n / 20 + 1) * added);
    if (out == NULL) {
        goto failed;
    }
    char *text = PyBytes_AS_STRING(out);
    Py_ssize_t p = 0;
    while (p < n) {
        unsigned char c = data[p];
        if (c == '<') { /* an IRI: to its '>' */
            const unsigned char *end = memchr(data + p, '>', (size_t)(n - p));
            p = end == NULL ? n : end - data + 1;
        } else if (c == '"') { /* a literal: to its closing quote, escapes skipped */
            Py_ssize_t q = p + 1;
            while (q < n && data[q] != '"' && data[q] != '\n') {
                q += data[q] == '\\' ? 2 : 1;
            }
            p = q + 1;
        } else if (c == '_' && p + 1 < n && data[p + 1] == ':') { /* a blank node: to the space after it */
            Py_ssize_t q = p + 2;
            while (q < n && data[q] != ' ' && data[q] != '\n') {
                q++;
            }
            if (q < n && data[q] == ' ' && drawn_label(data + p + 2, q - p - 2)) {
                int kept = 0;
                if (PySet_GET_SIZE(written) > 0) {
                    PyObject *label = PyBytes_FromStringAndSize((const char *)data + p + 2, q - p - 2);
                    kept = label == NULL ? -1 : PySet_Contains(written, label);
                    Py_XDECREF(label);
                    if (kept < 0) {
                        goto failed;
                    }
                }
                if (!kept) {
                    memcpy(text + o, data + copied, (size_t)(q - copied));
                    o += q - copied;
                    memcpy(text + o, suffix.buf, (size_t)added);
                    o += added;
                    copied = q;
                }
            }
            p = q;
        } else {
            p++;
        }
    }
    memcpy(text + o, data + copied, (size_t)(n - copied));
    o += n - copied;
    PyBuffer_Release(&view);
    PyBuffer_Release(&suffix);
    if (_PyBytes_Resize(&out, o) < 0) {
        return NULL;
    }
    return out;
failed:
    Py_XDECREF(out);
    PyBuffer_Release(&view);
    PyBuffer_Release(&suffix);
    return NULL;
}

/* set_products(on) -> the setting before: whether select_lines runs the automata that read a
 * term as their product (product_of) or each in a lane; the tests hold both ways equal. */
static PyObject *set_products(PyObject *module, PyObject *arg) {
    (void)module;
    int on = PyObject_IsTrue(arg);
    if (on < 0) {
        return NULL;
    }
    int before = product_enabled;
    product_enabled = on;
    return PyBool_FromLong(before);
}

/* product_sizes() -> [states or None]: the products made in this process (None: past
 * PRODUCT_LIMIT states, so their Dfas run in lanes), for the tests. */
static PyObject *product_sizes(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    PyObject *sizes = PyList_New(0), *key, *value;
    Py_ssize_t at = 0;
    while (sizes != NULL && product_tables != NULL && PyDict_Next(product_tables, &at, &key, &value)) {
        PyObject *size = value == Py_None ? Py_NewRef(Py_None)
                                          : PyLong_FromSsize_t((Py_ssize_t)((PyBytes_GET_SIZE(value) - sizeof(Product)) /
                                                                            (((const Product *)PyBytes_AS_STRING(value))->width *
                                                                             sizeof(uint32_t))));
        if (size == NULL || PyList_Append(sizes, size) < 0) {
            Py_CLEAR(sizes);
        }
        Py_XDECREF(size);
    }
    return sizes;
}

static PyMethodDef methods[] = {
    {"product_sizes", product_sizes, METH_NOARGS,
     "product_sizes() -> [states or None]: the products of automata made in this process (None: too many states)."},
    {"set_products", set_products, METH_O,
     "set_products(on) -> bool: whether select_lines runs the automata that read one term as their product,\n"
     "or each in a lane (the reference); returns the setting before."},
    {"scan_block", scan_block, METH_VARARGS,
     "scan_block(data, tables, slow, bad, into=None)\n"
     "-> (output, lines, written, statements, rewritten_statements, counts, invalid)\n\n"
     "output is a new bytes object, or into (a bytearray, its contents replaced), or, into being a writable\n"
     "memoryview, a view of its start where the output fits (a new bytes object where it does not).\n"
     "The per-line loop of ldids.dumps.stream.process_block; see ldids/dumps/stream.py."},
    {"joined_unique", joined_unique, METH_VARARGS,
     "joined_unique(lines, start=0, stop=len(lines)) -> (data, count): lines[start:stop] of sorted str lines, each\n"
     "once (not the line before start either), in UTF-8 (surrogatepass), each ended by LF"},
    {"select_lines", select_lines, METH_VARARGS,
     "select_lines(data, groups, any_escape, memo, memo_size, classes, probes=None, learn=None, trusted=False,\n"
     "rows=None, first_line=1, hashed=False) -> (statements, selected, indexes, masks, made, digests)\n\n"
     "The lines of a block the streamed checks of shapes must see, joined (each ends with LF), and\n"
     "their indexes in the block (counted in LFs), and for each the groups (bit g for group g) whose\n"
     "key in it is new; see ldids/shacl/prefilter.py. trusted: the lines are ldids normalize's\n"
     "output, whose statements are valid; their terms are only told apart. rows: per group None or\n"
     "its rules as automata that make its results here (made: rows as ldids.dumps.validation makes them,\n"
     "their lines from first_line; hashed: with their digests, or None for some)."},
    {"seen_insert", seen_insert, METH_VARARGS,
     "seen_insert(young, old, digests, start, room, flags) -> (next, added)\n\n"
     "From digests[start] on, each digest (its low 64 bits, 0 as 1) put in the table young (64-bit\n"
     "slots, open-addressed) unless young or old (or None) holds it; flags[i] 1 where it was new, 0\n"
     "if not; stops once room digests were added. See ldids/dumps/results.py, Seen.insert."},
    {"xml_cuts", xml_cuts, METH_VARARGS,
     "xml_cuts(data, start, step) -> [positions] or None: where the root's content of an RDF/XML document is cut\n"
     "into pieces of about step bytes; see ldids/rdf/xmlcut.py (cuts), the reference."},
    {"turtle_cuts", turtle_cuts, METH_VARARGS,
     "turtle_cuts(data, step, trig=False) -> [(position, label start, label end)] or None: where a Turtle\n"
     "(TriG) document is cut into pieces of about step bytes; see ldids/rdf/turtlecut.py (cuts), the reference."},
    {"relabel_drawn", relabel_drawn, METH_VARARGS,
     "relabel_drawn(lines, suffix, written) -> lines: each blank node term of N-Quads lines whose label is 17 to 32\n"
     "lowercase hex digits and not in the set written gets suffix after it; see ldids/dumps/pieces.py (_relabelled)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "ldids.dumps._scan", "The per-line loop of ldids.dumps.stream, compiled.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scan(void) {
    init_tables();
    turtle_tables();
    if (PyType_Ready(&SharedDecisionsType) < 0 || PyType_Ready(&DecisionMemoType) < 0) {
        return NULL;
    }
#ifdef MERGED_RUNS
    if (PyType_Ready(&MergedRunsType) < 0) {
        return NULL;
    }
#endif
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&SharedDecisionsType);
    if (PyModule_AddObject(module, "SharedDecisions", (PyObject *)&SharedDecisionsType) < 0) {
        Py_DECREF(&SharedDecisionsType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&DecisionMemoType);
    if (PyModule_AddObject(module, "DecisionMemo", (PyObject *)&DecisionMemoType) < 0) {
        Py_DECREF(&DecisionMemoType);
        Py_DECREF(module);
        return NULL;
    }
#ifdef MERGED_RUNS
    Py_INCREF(&MergedRunsType);
    if (PyModule_AddObject(module, "MergedRuns", (PyObject *)&MergedRunsType) < 0) {
        Py_DECREF(&MergedRunsType);
        Py_DECREF(module);
        return NULL;
    }
#endif
    return module;
}
