/*
 * ldids.schemes._canonical: Scheme.canonical of the four prefixed default schemes, compiled,
 * for the forms that real data is full of.
 *
 * The scheme modules (ldids/schemes/info_fedora.py, oai.py, poi.py, handle.py) are the
 * reference and say what every rule means; a canonicalizer here answers the same question
 * for a conservative subset of texts and says "ask Python" (None) for everything else:
 * a text that is not an exact str, holds a non-ASCII character or is longer than MAX_TEXT,
 * an escape that decodes to a non-ASCII octet where Python decodes UTF-8 (NCNames, handle
 * components), a bare handle, a resolver of another authority, and every text the
 * reference rejects. It never answers for a text the reference rejects or maps otherwise;
 * tests/test_canonical_compiled.py and benchmarks/fuzz_canonical.py hold the two equal on
 * generated texts of every kind.
 *
 * Character classes, prefixes, default ports and the PID length limit are not written
 * here: canonicalizer() is given them by the scheme module, from its own declarations
 * (DESIGN.md §6 and §8), and returns a function of one argument bound to them.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Longer texts are left to Python: identifiers are short, and a bound keeps the output on
 * the stack. An output is at most the input plus the longest declared prefix. */
#define MAX_TEXT 1024
#define MAX_DECLARED 64
#define OUT_CAPACITY (MAX_TEXT + 2 * MAX_DECLARED)
/* More parameters than this in an info:fedora method URI: left to Python. */
#define MAX_PARAMETERS 32

/* -- Declarations ---------------------------------------------------------------------------- */

enum { CLASS, TEXT, NUMBER };
enum { TEXT_PREFIX, TEXT_POI_PREFIX, TEXT_SCHEME, TEXT_RESOLVER, TEXT_HTTP_PORT, TEXT_HTTPS_PORT, TEXTS };

/* Class bits, one set per scheme: a character's byte in Tables.classes says which of its
 * scheme's classes it is in. */
enum { /* info-fedora */
       F_NAMESPACE = 1, F_OBJECT_ID = 2, F_NAME_START = 4, F_NAME = 8, F_UNRESERVED = 16, F_PARAMETER = 32,
       F_FRAGMENT = 64 };
enum { /* oai, poi */
       D_LABEL_START = 1, D_LABEL = 2, U_RESERVED = 4, U_UNRESERVED = 8 };
enum { /* handle */
       H_REG_NAME = 1, H_SEGMENT = 2, H_LOCAL = 4, H_TAIL = 8 };

typedef struct {
    const char *name;
    int type;
    int slot; /* a class bit, a TEXT_ index, or unused for the one NUMBER */
} Declaration;

typedef struct {
    PyObject_HEAD
    unsigned char classes[128];
    char text[TEXTS][MAX_DECLARED + 1];
    Py_ssize_t text_length[TEXTS];
    Py_ssize_t number;
} Tables;

static PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ldids.schemes._canonical.Tables",
    .tp_basicsize = sizeof(Tables),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The declarations one compiled canonicalizer is bound to.",
};

/* -- Characters ------------------------------------------------------------------------------ */

static int is_hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_upper_hex(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

static int hex_value(unsigned char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

static unsigned char upper(unsigned char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static const char HEX_UPPER[] = "0123456789ABCDEF";

/* s[0..length) equals the declared text in any ASCII case (RFC 3986 §3.1, §3.2.2). */
static int caseless(const unsigned char *s, Py_ssize_t available, const Tables *t, int slot) {
    Py_ssize_t length = t->text_length[slot];
    if (available < length) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        if (lower(s[i]) != lower((unsigned char)t->text[slot][i])) {
            return 0;
        }
    }
    return 1;
}

/* A '%' HEXDIG HEXDIG escape at s[i], within s[0..end). */
static int escape_at(const unsigned char *s, Py_ssize_t i, Py_ssize_t end) {
    return i + 3 <= end && s[i] == '%' && is_hex(s[i + 1]) && is_hex(s[i + 2]);
}

/* A PID's separator at s[i]: ':' or its escape "%3A"/"%3a" (Fedora Identifiers, PIDs,
 * "Normalization"). Its length, or 0. */
static int separator_at(const unsigned char *s, Py_ssize_t i, Py_ssize_t end) {
    if (i < end && s[i] == ':') {
        return 1;
    }
    return i + 3 <= end && s[i] == '%' && s[i + 1] == '3' && lower(s[i + 2]) == 'a' ? 3 : 0;
}

/* -- Output ---------------------------------------------------------------------------------- */

typedef struct {
    unsigned char text[OUT_CAPACITY];
    Py_ssize_t length;
} Out;

/* Every write is bounded: a full buffer makes the text Python's (-1). */
#define PUT(out, c)                                        \
    do {                                                   \
        if ((out)->length >= OUT_CAPACITY) {               \
            return -1;                                     \
        }                                                  \
        (out)->text[(out)->length++] = (unsigned char)(c); \
    } while (0)

static int put_text(Out *out, const void *text, Py_ssize_t length) {
    if (length < 0 || out->length + length > OUT_CAPACITY) {
        return -1;
    }
    memcpy(out->text + out->length, text, (size_t)length);
    out->length += length;
    return 0;
}

/* An octet written as ldids writes escapes: upper-case hex (RFC 3986 §2.1). */
static int put_escape(Out *out, unsigned char octet) {
    unsigned char escape[3] = {'%', (unsigned char)HEX_UPPER[octet >> 4], (unsigned char)HEX_UPPER[octet & 15]};
    return put_text(out, escape, 3);
}

/* Whether character c is in one of the classes `bits` (only ASCII characters are in any). */
#define IN(t, c, bits) ((c) < 128 && ((t)->classes[(c)] & (bits)))

/* -- info:fedora/ (Fedora Identifiers, "Digital Object & Dissemination URIs") --------------- */

/* A PID in s[start..end): namespace-id ":" object-id, written normalized (the separator
 * unescaped, hex digits upper case; Fedora Identifiers, PIDs) and at most the declared
 * length once normalized (DESIGN.md §1). */
static int fedora_pid(const Tables *t, const unsigned char *s, Py_ssize_t start, Py_ssize_t end, Out *out) {
    Py_ssize_t i = start;
    while (i < end && IN(t, s[i], F_NAMESPACE)) {
        i++;
    }
    Py_ssize_t namespace_length = i - start;
    int separator = separator_at(s, i, end);
    if (namespace_length == 0 || separator == 0 || put_text(out, s + start, namespace_length) < 0) {
        return -1;
    }
    PUT(out, ':');
    i += separator;
    if (i == end) {
        return -1; /* an empty object-id */
    }
    Py_ssize_t object_start = i;
    while (i < end) {
        if (IN(t, s[i], F_OBJECT_ID)) {
            PUT(out, s[i]);
            i++;
        } else if (escape_at(s, i, end)) {
            /* escaped-octet: kept escaped (an escaped ':' too), hex digits upper case */
            PUT(out, '%');
            PUT(out, upper(s[i + 1]));
            PUT(out, upper(s[i + 2]));
            i += 3;
        } else {
            return -1;
        }
    }
    /* Escapes keep their three characters: the normalized object-id is as long as written. */
    return namespace_length + 1 + (end - object_start) <= t->number ? 0 : -1;
}

/* A datastream id or method name in s[start..end): an XML NCName, its escapes of NCName
 * characters decoded (RFC 3986 §6.2.2.2). Only escapes of ASCII octets are taken here
 * (others are UTF-8, decoded by Python); an escape of an ASCII character that is no NCName
 * character makes the name invalid whatever it is written as. */
static int fedora_name(const Tables *t, const unsigned char *s, Py_ssize_t start, Py_ssize_t end, Out *out) {
    for (Py_ssize_t i = start; i < end;) {
        int first = i == start;
        unsigned char c = s[i];
        if (c == '%') {
            if (!escape_at(s, i, end)) {
                return -1;
            }
            int octet = hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]);
            if (octet >= 0x80) {
                return -1;
            }
            c = (unsigned char)octet;
            i += 3;
        } else {
            i++;
        }
        if (!IN(t, c, first ? F_NAME_START : F_NAME)) {
            return -1;
        }
        PUT(out, c);
    }
    return start < end ? 0 : -1; /* an empty name is none */
}

typedef struct {
    Py_ssize_t name, name_length, value, value_length; /* into the normalized text */
    Py_ssize_t key, key_length, value_key, value_key_length; /* into the decoded text */
    int has_value;
} Parameter;

/* One parameter name or value, s[start..end): written normalized into `normal` (escapes of
 * RFC 3986 unreserved characters decoded, the others upper case) and decoded into `key`
 * (its octets, as the spec's "order of occurrence in UTF-8" compares them). */
static int fedora_parameter_part(const Tables *t, const unsigned char *s, Py_ssize_t start, Py_ssize_t end,
                                 unsigned char *normal, Py_ssize_t *normal_length, unsigned char *key,
                                 Py_ssize_t *key_length) {
    for (Py_ssize_t i = start; i < end;) {
        if (s[i] == '%') {
            if (!escape_at(s, i, end)) {
                return -1;
            }
            int octet = hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]);
            if (octet < 0x80 && IN(t, octet, F_UNRESERVED)) {
                normal[(*normal_length)++] = (unsigned char)octet;
            } else {
                normal[(*normal_length)++] = '%';
                normal[(*normal_length)++] = upper(s[i + 1]);
                normal[(*normal_length)++] = upper(s[i + 2]);
            }
            key[(*key_length)++] = (unsigned char)octet;
            i += 3;
        } else if (IN(t, s[i], F_PARAMETER)) {
            normal[(*normal_length)++] = s[i];
            key[(*key_length)++] = s[i];
            i++;
        } else {
            return -1;
        }
    }
    return 0;
}

static int compare_octets(const unsigned char *a, Py_ssize_t a_length, const unsigned char *b, Py_ssize_t b_length) {
    Py_ssize_t shorter = a_length < b_length ? a_length : b_length;
    int order = shorter ? memcmp(a, b, (size_t)shorter) : 0;
    if (order != 0) {
        return order;
    }
    return (a_length > b_length) - (a_length < b_length);
}

/* By name, then value, in octet (UTF-8) order; a name without '=' before the same name
 * with an empty value (Fedora Identifiers, dissemination URIs, "Normalization"). */
static int parameter_order(const unsigned char *key, const Parameter *a, const Parameter *b) {
    int order = compare_octets(key + a->key, a->key_length, key + b->key, b->key_length);
    if (order == 0) {
        order = compare_octets(key + a->value_key, a->value_key_length, key + b->value_key, b->value_key_length);
    }
    return order != 0 ? order : a->has_value - b->has_value;
}

/* The method parameters s[start..end) ("?" already written), normalized and sorted. */
static int fedora_parameters(const Tables *t, const unsigned char *s, Py_ssize_t start, Py_ssize_t end, Out *out) {
    /* Normalizing and decoding never lengthen a part: each buffer holds the query. */
    unsigned char normal[MAX_TEXT], key[MAX_TEXT];
    Py_ssize_t normal_length = 0, key_length = 0;
    Parameter parameters[MAX_PARAMETERS];
    int count = 0;
    Py_ssize_t chunk = start;
    for (;;) {
        const unsigned char *amp = memchr(s + chunk, '&', (size_t)(end - chunk));
        Py_ssize_t chunk_end = amp == NULL ? end : amp - s;
        const unsigned char *equals = memchr(s + chunk, '=', (size_t)(chunk_end - chunk));
        Py_ssize_t name_end = equals == NULL ? chunk_end : equals - s;
        if (name_end == chunk || count == MAX_PARAMETERS) {
            return -1; /* a parameter needs a name */
        }
        Parameter *p = &parameters[count++];
        p->name = normal_length;
        p->key = key_length;
        if (fedora_parameter_part(t, s, chunk, name_end, normal, &normal_length, key, &key_length) < 0) {
            return -1;
        }
        p->name_length = normal_length - p->name;
        p->key_length = key_length - p->key;
        p->has_value = equals != NULL;
        p->value = normal_length;
        p->value_key = key_length;
        if (p->has_value &&
            fedora_parameter_part(t, s, name_end + 1, chunk_end, normal, &normal_length, key, &key_length) < 0) {
            return -1;
        }
        p->value_length = normal_length - p->value;
        p->value_key_length = key_length - p->value_key;
        if (amp == NULL) {
            break;
        }
        chunk = chunk_end + 1;
    }
    /* Insertion sort: stable, as Python's sorted() (equal keys keep their order). */
    for (int i = 1; i < count; i++) {
        Parameter moving = parameters[i];
        int j = i;
        while (j > 0 && parameter_order(key, &parameters[j - 1], &moving) > 0) {
            parameters[j] = parameters[j - 1];
            j--;
        }
        parameters[j] = moving;
    }
    for (int i = 0; i < count; i++) {
        if (i > 0) {
            PUT(out, '&');
        }
        if (put_text(out, normal + parameters[i].name, parameters[i].name_length) < 0) {
            return -1;
        }
        if (parameters[i].has_value) {
            PUT(out, '=');
            if (put_text(out, normal + parameters[i].value, parameters[i].value_length) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Characters of an RFC 3987 §2.2 iquery or ifragment (their ASCII ones), or well-formed
 * escapes in either hex case: kept as written, so they must already be that. */
static int uri_tail(const Tables *t, int bits, const unsigned char *s, Py_ssize_t start, Py_ssize_t end) {
    for (Py_ssize_t i = start; i < end;) {
        if (s[i] == '%') {
            if (!escape_at(s, i, end)) {
                return -1;
            }
            i += 3;
        } else if (IN(t, s[i], bits)) {
            i++;
        } else {
            return -1;
        }
    }
    return 0;
}

static Py_ssize_t find(const unsigned char *s, Py_ssize_t start, Py_ssize_t end, unsigned char c) {
    const unsigned char *found = start < end ? memchr(s + start, c, (size_t)(end - start)) : NULL;
    return found == NULL ? -1 : found - s;
}

/* "info:fedora/" (object-pid / "*") [ "/" datastream-id / "/" bdef-pid "/" method
 * [ "?" parameters ] ] [ "#" fragment ]: the prefix in any case (RFC 4452), PIDs and names
 * normalized, parameters sorted, the fragment verbatim (DESIGN.md §1). */
static int info_fedora(const Tables *t, const unsigned char *s, Py_ssize_t n, Out *out) {
    Py_ssize_t prefix = t->text_length[TEXT_PREFIX];
    if (!caseless(s, n, t, TEXT_PREFIX) || put_text(out, t->text[TEXT_PREFIX], prefix) < 0) {
        return -1;
    }
    Py_ssize_t hash = find(s, prefix, n, '#');
    Py_ssize_t body_end = hash < 0 ? n : hash;
    if (hash >= 0 && uri_tail(t, F_FRAGMENT, s, hash + 1, n) < 0) {
        return -1;
    }
    Py_ssize_t query = find(s, prefix, body_end, '?');
    Py_ssize_t path_end = query < 0 ? body_end : query;
    /* At most three segments: pid, then a datastream id or a bdef PID and a method. */
    Py_ssize_t bounds[4] = {prefix, -1, -1, -1};
    int segments = 1;
    for (Py_ssize_t slash = find(s, prefix, path_end, '/'); slash >= 0; slash = find(s, slash + 1, path_end, '/')) {
        if (segments == 3) {
            return -1;
        }
        bounds[segments++] = slash + 1;
    }
    bounds[segments] = path_end + 1; /* one past each segment's end is the next one's start */

    if (bounds[1] - 1 - bounds[0] == 1 && s[bounds[0]] == '*') {
        if (segments == 1) {
            return -1; /* '*' alone names nothing (info_fedora.py) */
        }
        PUT(out, '*');
    } else if (fedora_pid(t, s, bounds[0], bounds[1] - 1, out) < 0) {
        return -1;
    }
    int method = 0;
    if (segments >= 2) {
        Py_ssize_t start = bounds[1], end = bounds[2] - 1, i = start;
        PUT(out, '/');
        while (i < end && IN(t, s[i], F_NAMESPACE)) {
            i++;
        }
        if (separator_at(s, i, end)) {
            /* A second segment with a PID's separator is a bdef PID, and needs a method. */
            if (segments == 2 || fedora_pid(t, s, start, end, out) < 0) {
                return -1;
            }
            PUT(out, '/');
            if (fedora_name(t, s, bounds[2], bounds[3] - 1, out) < 0) {
                return -1;
            }
            method = 1;
        } else if (segments == 3 || fedora_name(t, s, start, end, out) < 0) {
            return -1; /* a datastream id ends the URI */
        }
    }
    if (query >= 0) {
        /* Parameters are defined for method disseminations only. */
        PUT(out, '?');
        if (!method || fedora_parameters(t, s, query + 1, body_end, out) < 0) {
            return -1;
        }
    }
    return hash < 0 ? 0 : put_text(out, s + hash, n - hash);
}

/* -- oai-identifier (OAI identifier format §2) and POI (POI §2) -------------------------------- */

/* namespace-identifier = domainname-word "." domainname; domainname-word = alpha
 * *( alphanum | "-" ): s[start..] up to the first character no label holds. Its end, if it
 * is one and `separator` follows it; else -1. */
static Py_ssize_t domain(const Tables *t, const unsigned char *s, Py_ssize_t start, Py_ssize_t n,
                         unsigned char separator) {
    Py_ssize_t i = start;
    int labels = 0;
    for (;;) {
        if (i >= n || !IN(t, s[i], D_LABEL_START)) {
            return -1;
        }
        i++;
        while (i < n && IN(t, s[i], D_LABEL)) {
            i++;
        }
        labels++;
        if (i < n && s[i] == '.') {
            i++;
            continue;
        }
        return labels >= 2 && i < n && s[i] == separator ? i : -1;
    }
}

/* local-identifier = 1*uric: reserved and unreserved characters as they are, every other
 * octet escaped in upper-case hex, and no escape of a reserved or unreserved character
 * (OAI identifier format §2). Never rewritten: checked only. */
static int uric_run(const Tables *t, const unsigned char *s, Py_ssize_t start, Py_ssize_t n) {
    if (start >= n) {
        return -1;
    }
    for (Py_ssize_t i = start; i < n;) {
        unsigned char c = s[i];
        if (c == '%') {
            if (i + 3 > n || !is_upper_hex(s[i + 1]) || !is_upper_hex(s[i + 2])) {
                return -1;
            }
            int octet = hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]);
            if (octet < 0x80 && IN(t, octet, U_RESERVED | U_UNRESERVED)) {
                return -1;
            }
            i += 3;
        } else if (IN(t, c, U_RESERVED | U_UNRESERVED)) {
            i++;
        } else {
            return -1;
        }
    }
    return 0;
}

/* The POI of "oai:" namespace ":" local: the colon becomes '/', the PURL template is
 * prepended (POI §4). The scheme is "oai" in lower case: oai-identifiers are case-sensitive. */
static int oai(const Tables *t, const unsigned char *s, Py_ssize_t n, Out *out) {
    Py_ssize_t start = t->text_length[TEXT_SCHEME] + 1;
    if (n < start || memcmp(s, t->text[TEXT_SCHEME], (size_t)start - 1) != 0 || s[start - 1] != ':') {
        return -1;
    }
    Py_ssize_t cut = domain(t, s, start, n, ':');
    if (cut < 0 || uric_run(t, s, cut + 1, n) < 0) {
        return -1;
    }
    if (put_text(out, t->text[TEXT_POI_PREFIX], t->text_length[TEXT_POI_PREFIX]) < 0 ||
        put_text(out, s + start, cut - start) < 0) {
        return -1;
    }
    PUT(out, '/');
    return put_text(out, s + cut + 1, n - cut - 1);
}

/* A port s[start..end) of ASCII digits is the scheme's default one, leading zeros aside; an
 * empty port is the default (RFC 3986 §6.2.3). */
static int default_port(const Tables *t, int slot, const unsigned char *s, Py_ssize_t start, Py_ssize_t end) {
    if (start == end) {
        return 1;
    }
    while (start < end && s[start] == '0') {
        start++;
    }
    return end - start == t->text_length[slot] && memcmp(s + start, t->text[slot], (size_t)(end - start)) == 0;
}

/* http(s)://purl.org[:port]/poi/ namespace "/" local: scheme and host in any case, the
 * default port or none, the path as written (POI §2, DESIGN.md §1). The declared template
 * "http://" host path is where scheme, host and path come from. */
static int poi(const Tables *t, const unsigned char *s, Py_ssize_t n, Out *out) {
    const char *template = t->text[TEXT_POI_PREFIX];
    Py_ssize_t template_length = t->text_length[TEXT_POI_PREFIX];
    const char *host = template + 7; /* after "http://", checked when declared */
    const char *path = strchr(host, '/');
    Py_ssize_t host_length = path - host, path_length = template_length - (path - template);
    Py_ssize_t i = 4;
    if (n < 4 || lower(s[0]) != 'h' || lower(s[1]) != 't' || lower(s[2]) != 't' || lower(s[3]) != 'p') {
        return -1;
    }
    int secure = i < n && lower(s[i]) == 's';
    i += secure;
    if (n - i < 3 + host_length || memcmp(s + i, "://", 3) != 0) {
        return -1;
    }
    i += 3;
    for (Py_ssize_t k = 0; k < host_length; k++) {
        if (lower(s[i + k]) != lower((unsigned char)host[k])) {
            return -1;
        }
    }
    i += host_length;
    if (i < n && s[i] == ':') {
        Py_ssize_t port = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
        if (!default_port(t, secure ? TEXT_HTTPS_PORT : TEXT_HTTP_PORT, s, port, i)) {
            return -1;
        }
    }
    if (n - i < path_length || memcmp(s + i, path, (size_t)path_length) != 0) {
        return -1;
    }
    i += path_length;
    Py_ssize_t cut = domain(t, s, i, n, '/');
    if (cut < 0 || uric_run(t, s, cut + 1, n) < 0) {
        return -1;
    }
    return put_text(out, template, template_length) < 0 || put_text(out, s + i, n - i) < 0 ? -1 : 0;
}

/* -- Handles ("Encoding CORDRA Identifiers in URI Syntax") ------------------------------------ */

/* A handle component s[start..end) percent-decoded into `decoded` (raw characters must be
 * in `raw`); escapes of non-ASCII octets are UTF-8, and of control characters (a handle is
 * printable text), left to Python. Its length, or -1. */
static Py_ssize_t handle_decode(const Tables *t, int raw, const unsigned char *s, Py_ssize_t start, Py_ssize_t end,
                                unsigned char *decoded) {
    Py_ssize_t length = 0;
    for (Py_ssize_t i = start; i < end;) {
        if (s[i] == '%') {
            if (!escape_at(s, i, end)) {
                return -1;
            }
            int octet = hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]);
            if (octet >= 0x7F || octet < 0x20) {
                return -1;
            }
            decoded[length++] = (unsigned char)octet;
            i += 3;
        } else if (IN(t, s[i], raw)) {
            decoded[length++] = s[i++];
        } else {
            return -1;
        }
    }
    return length;
}

/* A decoded component written into the canonical IRI: characters outside `safe` escaped. */
static int handle_encode(const Tables *t, int safe, const unsigned char *decoded, Py_ssize_t length, Out *out) {
    for (Py_ssize_t i = 0; i < length; i++) {
        if (IN(t, decoded[i], safe)) {
            PUT(out, decoded[i]);
        } else if (put_escape(out, decoded[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The authority s[start..end) of an http(s) URL is the declared resolver's: compared in
 * lower case, an empty or default port dropped (RFC 3986 §6.2.3), as handle.py does. */
static int known_resolver(const Tables *t, int secure, const unsigned char *s, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t host_end = end;
    for (Py_ssize_t i = end - 1; i >= start; i--) {
        if (s[i] == ':') {
            if (default_port(t, secure ? TEXT_HTTPS_PORT : TEXT_HTTP_PORT, s, i + 1, end)) {
                host_end = i;
            }
            break;
        }
    }
    return host_end - start == t->text_length[TEXT_RESOLVER] && caseless(s + start, host_end - start, t, TEXT_RESOLVER);
}

/* "hdl:" NA "/" local, "hdl://" NA "/" local, or the declared resolver's http(s) URL, with
 * an optional query and fragment; canonical IRI: the path encoding "hdl:" NA "/" local
 * (DESIGN.md §1). The scheme is case-insensitive; a CORDRA local name (32 hex digits under
 * a naming authority of digit segments) is upper-cased ("CORDRA Identifiers as Handles");
 * query and fragment are kept as written. */
static int handle(const Tables *t, const unsigned char *s, Py_ssize_t n, Out *out) {
    Py_ssize_t scheme = t->text_length[TEXT_SCHEME], start;
    int naming_authority_raw;
    if (caseless(s, n, t, TEXT_SCHEME) && n >= scheme + 3 && memcmp(s + scheme, "://", 3) == 0) {
        start = scheme + 3; /* host encoding: the NA is a reg-name */
        naming_authority_raw = H_REG_NAME;
    } else if (caseless(s, n, t, TEXT_SCHEME) && n > scheme && s[scheme] == ':') {
        start = scheme + 1; /* path encoding: the NA is a segment */
        naming_authority_raw = H_SEGMENT;
    } else {
        if (n < 7 || lower(s[0]) != 'h' || lower(s[1]) != 't' || lower(s[2]) != 't' || lower(s[3]) != 'p') {
            return -1;
        }
        int secure = lower(s[4]) == 's';
        Py_ssize_t authority = 4 + secure + 3;
        if (n < authority || memcmp(s + 4 + secure, "://", 3) != 0) {
            return -1;
        }
        Py_ssize_t i = authority;
        while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#') {
            i++;
        }
        if (i == n || s[i] != '/' || !known_resolver(t, secure, s, authority, i)) {
            return -1;
        }
        start = i + 1; /* the resolver declared has no leading segment */
        naming_authority_raw = H_SEGMENT;
    }
    Py_ssize_t query = find(s, start, n, '?');
    Py_ssize_t hash = find(s, start, n, '#');
    if (hash >= 0 && query > hash) {
        query = -1; /* a '?' in the fragment */
    }
    Py_ssize_t path_end = query >= 0 ? query : hash >= 0 ? hash : n;
    Py_ssize_t slash = find(s, start, path_end, '/');
    if (slash < 0) {
        return -1;
    }
    unsigned char naming_authority[MAX_TEXT], local[MAX_TEXT];
    Py_ssize_t naming_authority_length = handle_decode(t, naming_authority_raw, s, start, slash, naming_authority);
    Py_ssize_t local_length = handle_decode(t, H_LOCAL, s, slash + 1, path_end, local);
    if (naming_authority_length <= 0 || local_length <= 0 ||
        memchr(naming_authority, '/', (size_t)naming_authority_length) != NULL) {
        return -1; /* empty, or an escaped '/' in the naming authority */
    }
    if (query >= 0 && uri_tail(t, H_TAIL, s, query + 1, hash >= 0 ? hash : n) < 0) {
        return -1;
    }
    if (hash >= 0 && uri_tail(t, H_TAIL, s, hash + 1, n) < 0) {
        return -1;
    }
    int cordra = local_length == 32;
    for (Py_ssize_t i = 0; cordra && i < 32; i++) {
        cordra = is_hex(local[i]);
    }
    for (Py_ssize_t i = 0; cordra && i < naming_authority_length; i++) {
        /* digit segments joined by '.': no '.' first, last or twice */
        unsigned char c = naming_authority[i];
        cordra = (c >= '0' && c <= '9') ||
                 (c == '.' && i > 0 && i + 1 < naming_authority_length && naming_authority[i - 1] != '.');
    }
    if (cordra) {
        /* "The path component SHALL be normalized to all uppercase hexadecimal digits." */
        for (Py_ssize_t i = 0; i < 32; i++) {
            local[i] = upper(local[i]);
        }
    }
    if (put_text(out, t->text[TEXT_SCHEME], scheme) < 0) {
        return -1;
    }
    PUT(out, ':');
    if (handle_encode(t, H_SEGMENT, naming_authority, naming_authority_length, out) < 0) {
        return -1;
    }
    PUT(out, '/');
    if (handle_encode(t, H_LOCAL, local, local_length, out) < 0) {
        return -1;
    }
    return query >= 0 ? put_text(out, s + query, n - query) : hash >= 0 ? put_text(out, s + hash, n - hash) : 0;
}

/* -- The functions ----------------------------------------------------------------------------- */

typedef int (*Rewrite)(const Tables *, const unsigned char *, Py_ssize_t, Out *);

/* The canonical IRI of `text` by `rewrite`, `text` itself where that is it, or None. */
static PyObject *run(PyObject *self, PyObject *text, Rewrite rewrite) {
    if (!PyUnicode_CheckExact(text)) {
        Py_RETURN_NONE; /* a str subclass (an rdflib term): Python's reference decides */
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (!PyUnicode_IS_ASCII(text) || n > MAX_TEXT) {
        Py_RETURN_NONE;
    }
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Out out;
    out.length = 0;
    if (rewrite((const Tables *)self, s, n, &out) < 0) {
        Py_RETURN_NONE;
    }
    if (out.length == n && memcmp(out.text, s, (size_t)n) == 0) {
        Py_INCREF(text); /* already canonical: the text itself, as Python returns it */
        return text;
    }
    PyObject *result = PyUnicode_New(out.length, 127);
    if (result == NULL) {
        return NULL;
    }
    memcpy(PyUnicode_1BYTE_DATA(result), out.text, (size_t)out.length);
    return result;
}

static PyObject *call_info_fedora(PyObject *self, PyObject *text) { return run(self, text, info_fedora); }
static PyObject *call_oai(PyObject *self, PyObject *text) { return run(self, text, oai); }
static PyObject *call_poi(PyObject *self, PyObject *text) { return run(self, text, poi); }
static PyObject *call_handle(PyObject *self, PyObject *text) { return run(self, text, handle); }

#define CALL_DOC "(text, /)\n--\n\nThe canonical IRI of text, or None: not handled here, ask the Python scheme."

static PyMethodDef call_info_fedora_definition = {"info_fedora", call_info_fedora, METH_O, "info_fedora" CALL_DOC};
static PyMethodDef call_oai_definition = {"oai", call_oai, METH_O, "oai" CALL_DOC};
static PyMethodDef call_poi_definition = {"poi", call_poi, METH_O, "poi" CALL_DOC};
static PyMethodDef call_handle_definition = {"handle", call_handle, METH_O, "handle" CALL_DOC};

static const Declaration INFO_FEDORA[] = {
    {"prefix", TEXT, TEXT_PREFIX},        {"pid_max_length", NUMBER, 0},  {"namespace", CLASS, F_NAMESPACE},
    {"object_id", CLASS, F_OBJECT_ID},    {"name_start", CLASS, F_NAME_START}, {"name", CLASS, F_NAME},
    {"unreserved", CLASS, F_UNRESERVED},  {"parameter", CLASS, F_PARAMETER}, {"fragment", CLASS, F_FRAGMENT},
    {NULL, 0, 0},
};
static const Declaration OAI[] = {
    {"scheme", TEXT, TEXT_SCHEME},           {"poi_prefix", TEXT, TEXT_POI_PREFIX},
    {"label_start", CLASS, D_LABEL_START},   {"label", CLASS, D_LABEL},
    {"reserved", CLASS, U_RESERVED},         {"unreserved", CLASS, U_UNRESERVED},
    {NULL, 0, 0},
};
static const Declaration POI[] = {
    {"poi_prefix", TEXT, TEXT_POI_PREFIX},   {"http_port", TEXT, TEXT_HTTP_PORT},
    {"https_port", TEXT, TEXT_HTTPS_PORT},   {"label_start", CLASS, D_LABEL_START},
    {"label", CLASS, D_LABEL},               {"reserved", CLASS, U_RESERVED},
    {"unreserved", CLASS, U_UNRESERVED},     {NULL, 0, 0},
};
static const Declaration HANDLE[] = {
    {"scheme", TEXT, TEXT_SCHEME},         {"resolver", TEXT, TEXT_RESOLVER},
    {"http_port", TEXT, TEXT_HTTP_PORT},   {"https_port", TEXT, TEXT_HTTPS_PORT},
    {"reg_name", CLASS, H_REG_NAME},       {"segment", CLASS, H_SEGMENT},
    {"local", CLASS, H_LOCAL},             {"tail", CLASS, H_TAIL},
    {NULL, 0, 0},
};

static const struct {
    const char *scheme;
    const Declaration *declarations;
    PyMethodDef *definition;
    Rewrite rewrite;
} KINDS[] = {
    {"info-fedora", INFO_FEDORA, &call_info_fedora_definition, info_fedora},
    {"oai", OAI, &call_oai_definition, oai},
    {"poi", POI, &call_poi_definition, poi},
    {"handle", HANDLE, &call_handle_definition, handle},
};

/* -- The same functions for C callers (ldids/dumps/_scan.c) ---------------------------------
 *
 * The compiled loop decides the identifiers of a dump at real cardinality one new text after
 * another: called through Python, each took a str built, a call and a str returned, about a
 * fifth of a run. The capsule `_api` gives it this function instead; the functions above stay
 * what Python (and the differential tests) call. The struct is repeated in _scan.c: a change
 * here is a new `version`, which _scan.c checks before it takes the capsule. */

#define API_VERSION 1

typedef struct {
    int version;
    Py_ssize_t capacity; /* the least room the caller's output has */
    int (*canonical)(PyObject *function, const unsigned char *text, Py_ssize_t length, unsigned char *out,
                     Py_ssize_t *out_length);
} CanonicalApi;

/* What `function` (one of canonicalizer()'s) answers for the ASCII text s[0..n), written
 * into out (at least OUT_CAPACITY bytes): 1 and the canonical IRI (s itself where it is
 * already canonical), 0 for None (ask Python), -1 where `function` is no compiled
 * canonicalizer (the caller calls it through Python). Sets no Python error. */
static int canonical_api(PyObject *function, const unsigned char *s, Py_ssize_t n, unsigned char *out,
                         Py_ssize_t *out_length) {
    PyObject *self = PyCFunction_Check(function) ? PyCFunction_GET_SELF(function) : NULL;
    if (self == NULL || !Py_IS_TYPE(self, &TablesType)) {
        return -1;
    }
    PyCFunction called = PyCFunction_GET_FUNCTION(function);
    Rewrite rewrite = NULL;
    for (size_t kind = 0; kind < sizeof KINDS / sizeof KINDS[0]; kind++) {
        if (KINDS[kind].definition->ml_meth == called) {
            rewrite = KINDS[kind].rewrite;
        }
    }
    if (rewrite == NULL) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] >= 0x80) {
            return 0; /* as run(): only ASCII texts */
        }
    }
    if (n > MAX_TEXT) {
        return 0;
    }
    Out result;
    result.length = 0;
    if (rewrite((const Tables *)self, s, n, &result) < 0) {
        return 0;
    }
    memcpy(out, result.text, (size_t)result.length);
    *out_length = result.length;
    return 1;
}

static const CanonicalApi API = {API_VERSION, OUT_CAPACITY, canonical_api};

static int declare(Tables *tables, const Declaration *declaration, PyObject *value) {
    if (declaration->type == NUMBER) {
        tables->number = PyLong_AsSsize_t(value);
        return tables->number == -1 && PyErr_Occurred() ? -1 : 0;
    }
    if (!PyUnicode_Check(value) || !PyUnicode_IS_ASCII(value)) {
        PyErr_Format(PyExc_TypeError, "declaration %s must be an ASCII str", declaration->name);
        return -1;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(value);
    const unsigned char *text = PyUnicode_1BYTE_DATA(value);
    if (declaration->type == TEXT) {
        if (length > MAX_DECLARED) {
            PyErr_Format(PyExc_ValueError, "declaration %s is too long", declaration->name);
            return -1;
        }
        memcpy(tables->text[declaration->slot], text, (size_t)length);
        tables->text[declaration->slot][length] = '\0';
        tables->text_length[declaration->slot] = length;
        return 0;
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        tables->classes[text[i]] |= (unsigned char)declaration->slot;
    }
    return 0;
}

static PyObject *canonicalizer(PyObject *module, PyObject *args) {
    (void)module;
    const char *scheme;
    PyObject *declarations;
    if (!PyArg_ParseTuple(args, "sO!:canonicalizer", &scheme, &PyDict_Type, &declarations)) {
        return NULL;
    }
    size_t kind = 0;
    while (kind < sizeof KINDS / sizeof KINDS[0] && strcmp(KINDS[kind].scheme, scheme) != 0) {
        kind++;
    }
    if (kind == sizeof KINDS / sizeof KINDS[0]) {
        return PyErr_Format(PyExc_ValueError, "no compiled canonicalizer for scheme %R", PyTuple_GET_ITEM(args, 0));
    }
    Tables *tables = PyObject_New(Tables, &TablesType);
    if (tables == NULL) {
        return NULL;
    }
    memset(tables->classes, 0, sizeof tables->classes);
    memset(tables->text, 0, sizeof tables->text);
    memset(tables->text_length, 0, sizeof tables->text_length);
    tables->number = 0;
    Py_ssize_t expected = 0;
    for (const Declaration *d = KINDS[kind].declarations; d->name != NULL; d++, expected++) {
        PyObject *value = PyDict_GetItemString(declarations, d->name); /* borrowed */
        if (value == NULL) {
            Py_DECREF(tables);
            return PyErr_Format(PyExc_TypeError, "scheme %s: missing declaration %s", scheme, d->name);
        }
        if (declare(tables, d, value) < 0) {
            Py_DECREF(tables);
            return NULL;
        }
    }
    if (PyDict_Size(declarations) != expected) {
        Py_DECREF(tables);
        return PyErr_Format(PyExc_TypeError, "scheme %s: unknown declarations among %R", scheme, declarations);
    }
    if (tables->text_length[TEXT_POI_PREFIX] > 0) {
        /* The POI template is "http://" host path, the path ending in '/' (POI §2). */
        const char *template = tables->text[TEXT_POI_PREFIX];
        const char *path = strchr(template + (strncmp(template, "http://", 7) == 0 ? 7 : 0), '/');
        if (strncmp(template, "http://", 7) != 0 || path == NULL || path == template + 7 ||
            template[tables->text_length[TEXT_POI_PREFIX] - 1] != '/') {
            Py_DECREF(tables);
            return PyErr_Format(PyExc_ValueError, "poi_prefix must be http://host/path/");
        }
    }
    PyObject *function = PyCFunction_NewEx(KINDS[kind].definition, (PyObject *)tables, NULL);
    Py_DECREF(tables); /* the function holds it */
    return function;
}

static PyMethodDef methods[] = {
    {"canonicalizer", canonicalizer, METH_VARARGS,
     "canonicalizer(scheme, declarations, /)\n--\n\n"
     "The compiled canonicalizer of a default scheme, bound to the scheme's declarations:\n"
     "a function of one str that returns its canonical IRI, or None (ask the Python scheme)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "ldids.schemes._canonical", "Scheme.canonical of the prefixed default schemes, compiled.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__canonical(void) {
    if (PyType_Ready(&TablesType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_definition);
    PyObject *capsule = module == NULL ? NULL : PyCapsule_New((void *)&API, "ldids.schemes._canonical._api", NULL);
    if (capsule == NULL || PyModule_AddObject(module, "_api", capsule) < 0) {
        Py_XDECREF(capsule);
        Py_XDECREF(module);
        return NULL;
    }
    return module;
}
