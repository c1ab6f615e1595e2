/*
 * secrets_read.c - reading a secret store: the whole of its file, its
 * lines parsed (every error with its file and line, base64 and OpenPGP
 * framing checked), the index of its secrets and recipients, and the
 * first lines of a new store.  The format is described in secrets_file.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "array.h"
#include "base64.h"
#include "fileio.h"
#include "openpgp.h"
#include "secrets_impl.h"

#define NEW_STORE_COMMENT                                                                          \
    "# Secret values of a prop site, each encrypted with OpenPGP to every recipient "              \
    "below. See prop-secret(1)."
/* Parse errors reported before the rest are only counted. */
#define MAX_PARSE_ERRORS 10

/*
 * Why p[0..n) is not a whole encrypted OpenPGP message, or NULL when it
 * is: packet headers (RFC 4880 4.2) whose lengths add up to exactly n,
 * at least one public-key session key packet, and an encrypted data
 * packet last.  Only the framing (openpgp.c walks it): a cut or damaged
 * store is caught when it is read, not when gpg is handed half a message.
 */
static const char *
pgp_framing(const unsigned char *p, size_t n)
{
    size_t pos = 0;
    int pkesk = 0, last_data = 0;

    if (n == 0)
        return "it is empty";
    while (pos < n) {
        prop_pgp_packet pkt;
        prop_pgp_bad bad = PROP_PGP_NOT_PACKET;
        int r = prop_pgp_next(p, n, &pos, PROP_PGP_ALLOW_PARTIAL | PROP_PGP_ALLOW_INDETERMINATE,
                              &pkt, &bad);

        if (r < 0 && bad == PROP_PGP_NOT_PACKET)
            return "it is not an OpenPGP message";
        if (last_data)
            return "it has data after its encrypted part";
        if (r < 0)
            return "it is cut short";
        if (pkt.tag == 1)
            pkesk++;
        else if (pkt.tag == 9 || pkt.tag == 18 || pkt.tag == 20)
            last_data = 1;
        else if (pkt.tag != 3)
            return "it holds a packet that is not part of an encrypted message";
    }
    if (!last_data)
        return "it is cut short (no encrypted data)";
    if (!pkesk)
        return "it is not encrypted to a public key";
    return NULL;
}

/* What a file that is not a regular one is, for messages. */
static const char *
file_kind(mode_t m)
{
    return S_ISFIFO(m)   ? "a named pipe"
           : S_ISDIR(m)  ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/*
 * The whole of a regular file; PROP_ENOTFOUND when there is none.
 * Anything else at path is refused before it is read: opened without
 * waiting (a named pipe with no writer would block the open, and its
 * reads would never end), then looked at.
 */
int
store_read(prop_secrets *s, const char *path, char **data, size_t *len)
{
    struct stat st;
    prop_buf b = PROP_BUF_INIT;
    int fd, e;

    *data = NULL;
    *len = 0;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        if (errno == ENOENT)
            return PROP_ENOTFOUND;
        return secrets_fail(s, PROP_ERROR, "cannot read %s: %s", path, strerror(errno));
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        (void)close(fd);
        return secrets_fail(s, PROP_ERROR, "cannot read %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        (void)close(fd);
        return secrets_fail(s, PROP_ERROR,
                            "cannot read %s: it is %s, not a regular file (a secret store is a "
                            "file that prop secret writes)",
                            path, file_kind(st.st_mode));
    }
    /* The size it has now, and room to see its end. */
    e = (uintmax_t)st.st_size > SIZE_MAX / 2 || prop_buf_reserve(&b, (size_t)st.st_size + 4096) != 0
            ? ENOMEM
            : prop_read_all(fd, &b, 0);
    (void)close(fd);
    if (e == ENOMEM || (e == 0 && (*data = prop_buf_take(&b, len)) == NULL)) {
        prop_buf_free(&b);
        return secrets_fail(s, PROP_ENOMEM, "out of memory reading %s", path);
    }
    if (e != 0) {
        prop_buf_free(&b);
        return secrets_fail(s, PROP_ERROR, "cannot read %s: %s", path, strerror(e));
    }
    return PROP_OK;
}

/* Parse errors, gathered: the first MAX_PARSE_ERRORS in full, the rest counted. */
typedef struct parse_state {
    prop_secrets *s;
    prop_buf msg; /* the errors' text */
    int nerr;
    int oom;
} parse_state;

/* Append "PATH:LINE: message" (no LINE when 0) to the gathered errors. */
static void PROP_PRINTF(3, 0) add_error(parse_state *ps, size_t line, const char *fmt, va_list ap)
{
    char buf[1024];
    size_t n;
    int k;

    if (line)
        k = snprintf(buf, sizeof buf, "%s%s:%zu: ", ps->msg.len ? "\n" : "", ps->s->path, line);
    else
        k = snprintf(buf, sizeof buf, "%s%s: ", ps->msg.len ? "\n" : "", ps->s->path);
    if (k < 0 || (size_t)k >= sizeof buf)
        k = 0;
    (void)vsnprintf(buf + k, sizeof buf - (size_t)k, fmt, ap);
    n = strlen(buf);
    if (prop_buf_add(&ps->msg, buf, n) != 0)
        ps->oom = 1;
}

/* A parse error: counted, and kept when it is among the first MAX_PARSE_ERRORS. */
static void PROP_PRINTF(3, 4) perr(parse_state *ps, size_t line, const char *fmt, ...)
{
    va_list ap;

    if (++ps->nerr > MAX_PARSE_ERRORS)
        return;
    va_start(ap, fmt);
    add_error(ps, line, fmt, ap);
    va_end(ap);
}

/* A line of its own, past the count of kept errors. */
static void PROP_PRINTF(2, 3) perr_tail(parse_state *ps, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    add_error(ps, 0, fmt, ap);
    va_end(ap);
}

/* The count of the errors left out. */
static void
perr_more(parse_state *ps, int more)
{
    perr_tail(ps, "%d more errors", more);
}

/* Split at runs of spaces into at most max fields; max + 1 when there are more. */
static size_t
split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;

    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (n == max)
            return max + 1;
        f[n++] = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static int
add_line(prop_secrets *s, size_t *cap, const sline *l)
{
    if (prop_array_reserve(s->lines, *cap, s->nlines, 1, 16) != 0)
        return -1;
    s->lines[s->nlines++] = *l;
    return 0;
}

static int
is_hex_fpr(const char *f)
{
    size_t n = strlen(f), i;

    if (n != 40 && n != 64)
        return 0;
    for (i = 0; i < n; i++)
        if (!((f[i] >= '0' && f[i] <= '9') || (f[i] >= 'A' && f[i] <= 'F') ||
              (f[i] >= 'a' && f[i] <= 'f')))
            return 0;
    return 1;
}

void
secrets_upcase(char *p)
{
    for (; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
}

int
store_index(prop_secrets *s)
{
    draft d = {s->lines, s->nlines, NULL, 0, NULL, 0};

    if (draft_index(&d) != 0) {
        free(d.secrets);
        free(d.recipients);
        return -1;
    }
    free(s->secrets);
    free(s->recipients);
    s->secrets = d.secrets;
    s->nsecrets = d.nsecrets;
    s->recipients = d.recipients;
    s->nrecipients = d.nrecipients;
    return 0;
}

/* A line after the header that is not a comment: a recipient or a
 * secret.  Its errors are gathered in ps; 0, or -1 out of memory. */
static int
parse_line(parse_state *ps, size_t lineno, char *line, size_t *cap)
{
    prop_secrets *s = ps->s;
    char *f[5] = {NULL, NULL, NULL, NULL, NULL}, *rest = NULL;
    size_t nf, i;
    sline l;

    while (*line == ' ')
        line++;
    memset(&l, 0, sizeof l);
    l.lineno = lineno;
    if (strncmp(line, "recipient ", 10) == 0) {
        /* The user id is the rest of the line, spaces and all. */
        char *p = line + 10, *e;
        while (*p == ' ')
            p++;
        e = p;
        while (*e && *e != ' ')
            e++;
        if (*e) {
            *e++ = '\0';
            while (*e == ' ')
                e++;
            rest = *e ? e : NULL;
            if (rest)
                for (i = strlen(rest); i > 0 && rest[i - 1] == ' '; i--)
                    rest[i - 1] = '\0';
        }
        f[0] = line;
        f[1] = p;
        nf = *p ? 2 : 1;
        line[9] = '\0';
    } else {
        nf = split(line, f, 4);
    }
    if (nf == 0) /* blank lines are not given to parse_line */
        return 0;
    if (strcmp(f[0], HEADER_WORD) == 0) {
        perr(ps, lineno, "a second \"" HEADER_WORD "\" line");
        return 0;
    }
    if (strcmp(f[0], "recipient") == 0) {
        if (nf != 2 || !is_hex_fpr(f[1])) {
            perr(ps, lineno,
                 "a recipient line is \"recipient FINGERPRINT [USER-ID]\", with the key's "
                 "full fingerprint (40 or 64 hex digits)");
            return 0;
        }
        secrets_upcase(f[1]);
        for (i = 0; i < s->nlines; i++)
            if (s->lines[i].kind == SL_RECIPIENT && strcmp(s->lines[i].fpr, f[1]) == 0) {
                perr(ps, lineno, "recipient %s is listed twice (first on line %zu)", f[1],
                     s->lines[i].lineno);
                return 0;
            }
        l.kind = SL_RECIPIENT;
        if (secrets_strdup(&l.fpr, f[1]) || secrets_strdup(&l.uid, rest) || add_line(s, cap, &l)) {
            sline_clear(&l);
            return -1;
        }
        return 0;
    }
    if (strcmp(f[0], "secret") == 0) {
        const char *name, *host = NULL, *b64, *why;
        unsigned char *bin = NULL;
        size_t binlen = 0;
        int rc;

        if (nf != 3 && nf != 4) {
            perr(ps, lineno, "a secret line is \"secret NAME [HOST] BASE64\"");
            return 0;
        }
        name = f[1];
        host = nf == 4 ? f[2] : NULL;
        b64 = f[nf - 1];
        if (!prop_secrets_name_valid(name)) {
            perr(ps, lineno,
                 "\"%s\" is not a secret name (letters, digits, _ . -, not first a "
                 "digit, . or -)",
                 name);
            return 0;
        }
        if (host && !prop_secrets_host_valid(host)) {
            perr(ps, lineno, "\"%s\" is not a host name", host);
            return 0;
        }
        rc = prop_base64_decode(b64, &bin, &binlen);
        if (rc == ENOMEM)
            return -1;
        why = rc == 0 ? pgp_framing(bin, binlen) : "it is not valid base64";
        free(bin);
        if (why) {
            perr(ps, lineno, "the value of %s%s%s is damaged: %s (a cut or edited file?)", name,
                 host ? " for " : "", host ? host : "", why);
            return 0;
        }
        for (i = 0; i < s->nlines; i++)
            if (s->lines[i].kind == SL_SECRET && strcmp(s->lines[i].name, name) == 0 &&
                secrets_same_host(s->lines[i].host, host)) {
                perr(ps, lineno, "%s%s%s is set twice (first on line %zu)", name,
                     host ? " for " : "", host ? host : "", s->lines[i].lineno);
                return 0;
            }
        l.kind = SL_SECRET;
        if (secrets_strdup(&l.name, name) || secrets_strdup(&l.host, host) ||
            secrets_strdup(&l.b64, b64) || add_line(s, cap, &l)) {
            sline_clear(&l);
            return -1;
        }
        return 0;
    }
    perr(ps, lineno, "unknown line \"%.40s\" (expected recipient or secret)", f[0]);
    return 0;
}

int
store_init_new(prop_secrets *s)
{
    sline c = {SL_OTHER, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    sline h = {SL_HEADER, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    size_t cap = 0;

    if ((c.text = prop_strdup(NEW_STORE_COMMENT)) == NULL || add_line(s, &cap, &c) != 0) {
        free(c.text);
        return -1;
    }
    if (add_line(s, &cap, &h) != 0 || store_index(s) != 0)
        return -1;
    return 0;
}

/* Parse text (len bytes) into s->lines; PROP_OK or PROP_ERROR with every error. */
int
store_parse(prop_secrets *s, char *text, size_t len)
{
    parse_state ps = {s, PROP_BUF_INIT, 0, 0};
    size_t cap = 0, lineno = 0, pos = 0;
    int seen_header = 0, rc = PROP_OK;

    if (len == 0)
        return secrets_fail(s, PROP_ERROR,
                            "%s: the file is empty: not a prop secret store (cut short?)", s->path);
    while (pos < len) {
        char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t ll;
        sline l;

        lineno++;
        if (nl == NULL) {
            perr(&ps, lineno, "the last line has no newline: the file was cut short");
            break;
        }
        ll = (size_t)(nl - line);
        *nl = '\0';
        pos += ll + 1;
        if (ll && line[ll - 1] == '\r') /* a checkout with CRLF line ends */
            line[--ll] = '\0';
        if (memchr(line, '\0', ll) || !prop_text_clean(line, ll)) {
            perr(&ps, lineno, "the line holds a control character or bytes that are not UTF-8");
            continue;
        }
        memset(&l, 0, sizeof l);
        l.lineno = lineno;
        if (line[strspn(line, " ")] == '\0' || line[strspn(line, " ")] == '#') {
            l.kind = SL_OTHER;
            if (secrets_strdup(&l.text, line) || add_line(s, &cap, &l)) {
                sline_clear(&l);
                goto oom;
            }
            continue;
        }
        if (!seen_header) {
            char *f[3];
            size_t nf = split(line, f, 2);
            char *end;
            long v;

            if (nf != 2 || strcmp(f[0], HEADER_WORD) != 0) {
                perr(&ps, lineno,
                     "not a prop secret store: its first line should be \"" HEADER_WORD " %d\"",
                     PROP_SECRETS_FORMAT);
                break;
            }
            errno = 0;
            v = strtol(f[1], &end, 10);
            if (errno || *end || end == f[1] || v != PROP_SECRETS_FORMAT) {
                perr(&ps, lineno,
                     "format version %.20s is not one this prop reads (it reads version %d; a "
                     "newer prop wrote it?)",
                     f[1], PROP_SECRETS_FORMAT);
                break;
            }
            seen_header = 1;
            l.kind = SL_HEADER;
            if (add_line(s, &cap, &l))
                goto oom;
            continue;
        }
        if (parse_line(&ps, lineno, line, &cap) != 0)
            goto oom;
    }
    if (ps.nerr == 0 && !seen_header)
        perr(&ps, 0, "not a prop secret store: no \"" HEADER_WORD " %d\" line",
             PROP_SECRETS_FORMAT);
    if (store_index(s) != 0)
        goto oom;
    if (ps.nerr == 0 && s->nsecrets > 0 && s->nrecipients == 0)
        perr(&ps, 0,
             "it holds %zu value%s but lists no recipient: nobody prop knows can decrypt them",
             s->nsecrets, s->nsecrets == 1 ? "" : "s");
    if (ps.nerr > MAX_PARSE_ERRORS)
        perr_more(&ps, ps.nerr - MAX_PARSE_ERRORS);
    if (ps.oom)
        goto oom;
    if (ps.nerr)
        rc = secrets_fail(s, PROP_ERROR, "%s", ps.msg.p ? ps.msg.p : "");
    prop_buf_free(&ps.msg);
    return rc;

oom:
    prop_buf_free(&ps.msg);
    return secrets_fail(s, PROP_ENOMEM, "out of memory reading %s", s->path);
}
