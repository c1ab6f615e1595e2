/*
 * transport_ssh_known_hosts.c - the SSH transport's host keys: the
 * known_hosts file read, its lines matched against the host (plain,
 * [host]:port, hashed, patterns) and an unknown key recorded (see
 * transport_ssh.c for the rules: one known_hosts file, no key recorded
 * while any line names the host).
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base64.h"
#include "transport_ssh.h"

/* ---------------------------------------------------------------------
 * Host keys.
 */

/*
 * Which lines of the known_hosts file name the host.  libssh answers
 * whether the offered key is known, but not where the old key is, and it
 * gives up on a host whose line it cannot read (a line cut short by an
 * interrupted append, say): it then says "unknown" where the key changed.
 * So prop reads the file itself, and never records a key while any line
 * names the host: plain or hashed ("|1|salt|hash", HMAC-SHA1 through
 * libcrypto), in a comma list, as a pattern ('*', '?', "!" to exclude), with
 * a marker (@revoked, @cert-authority), with its key readable or not.
 */

/* Decode base64 text [b64, b64+n) into out (max bytes): its length, or -1
 * (with the engine's one codec, base64.c). */
static long
base64_decode(const char *b64, size_t n, unsigned char *out, size_t max)
{
    char text[4 * 96 / 3 + 4];
    unsigned char *bytes = NULL;
    size_t len = 0;
    long rc = -1;

    if (n == 0 || n >= sizeof text || n > 4 * max / 3 + 3)
        return -1;
    memcpy(text, b64, n);
    text[n] = '\0';
    if (prop_base64_decode(text, &bytes, &len) == 0 && len <= max) {
        memcpy(out, bytes, len);
        rc = (long)len;
    }
    free(bytes);
    return rc;
}

/* Does a "|1|salt|hash" field name one of names? */
static int
hashed_match(const char *field, size_t n, const char *const *names)
{
    unsigned char salt[96], hash[96], mac[EVP_MAX_MD_SIZE];
    unsigned int maclen = 0;
    const char *bar;
    long sl, hl;
    size_t i;

    if (n < 4 || memcmp(field, "|1|", 3) != 0)
        return 0;
    field += 3;
    n -= 3;
    bar = memchr(field, '|', n);
    if (!bar)
        return 0;
    sl = base64_decode(field, (size_t)(bar - field), salt, sizeof salt);
    hl = base64_decode(bar + 1, n - (size_t)(bar + 1 - field), hash, sizeof hash);
    if (sl <= 0 || hl != 20)
        return 0;
    for (i = 0; names[i]; i++)
        if (HMAC(EVP_sha1(), salt, (int)sl, (const unsigned char *)names[i], strlen(names[i]), mac,
                 &maclen) &&
            maclen == 20 && memcmp(mac, hash, 20) == 0)
            return 1;
    return 0;
}

/* OpenSSH patterns: '*' and '?', case-insensitive. */
static int
glob_match(const char *p, size_t pn, const char *str)
{
    while (pn) {
        if (*p == '*') {
            for (;;) {
                if (glob_match(p + 1, pn - 1, str))
                    return 1;
                if (!*str)
                    return 0;
                str++;
            }
        }
        if (!*str || (*p != '?' && tolower((unsigned char)*p) != tolower((unsigned char)*str)))
            return 0;
        p++;
        pn--;
        str++;
    }
    return !*str;
}

/* Does the host field of a known_hosts line name one of names? */
static int
hosts_match(const char *field, size_t n, const char *const *names)
{
    int matched = 0;
    size_t i;

    if (n >= 3 && memcmp(field, "|1|", 3) == 0)
        return hashed_match(field, n, names);
    while (n) {
        const char *comma = memchr(field, ',', n);
        size_t len = comma ? (size_t)(comma - field) : n;
        int neg = len && field[0] == '!';

        for (i = 0; names[i]; i++) {
            if (!glob_match(field + neg, len - (size_t)neg, names[i]))
                continue;
            if (neg)
                return 0;
            matched = 1;
        }
        if (!comma)
            break;
        n -= len + 1;
        field = comma + 1;
    }
    return matched;
}

typedef struct kh_lines {
    int any;      /* the first line naming the host, 0: none */
    int same;     /* the first naming it with a key of the offered type */
    int unusable; /* the first naming it whose key cannot be read */
    int err;      /* errno when the file exists but cannot be read */
} kh_lines;

/*
 * The lines of file that name the host, known as names (NULL-terminated),
 * offering a key of type ktype.
 */
static void
find_host_lines(const char *file, const char *const *names, const char *ktype, kh_lines *h)
{
    FILE *f = fopen(file, "r");
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;

    memset(h, 0, sizeof *h);
    if (!f) {
        h->err = errno == ENOENT ? 0 : errno;
        return;
    }
    while (getline(&line, &cap, f) >= 0) {
        char *p = line, *hosts, *type, *b64;
        size_t hn, tn, bn;
        ssh_key k = NULL;
        int readable;

        lineno++;
        p += strspn(p, " \t");
        if (!*p || *p == '#' || *p == '\n' || *p == '\r')
            continue;
        if (*p == '@') { /* a marker, then the line as usual */
            p += strcspn(p, " \t\r\n");
            p += strspn(p, " \t");
        }
        hosts = p;
        hn = strcspn(p, " \t\r\n");
        if (!hn || !hosts_match(hosts, hn, names))
            continue;
        p += hn;
        p += strspn(p, " \t");
        type = p;
        tn = strcspn(p, " \t\r\n");
        p += tn;
        p += strspn(p, " \t");
        b64 = p;
        bn = strcspn(p, " \t\r\n");
        b64[bn] = '\0';
        type[tn] = '\0';
        readable = tn && bn && ssh_key_type_from_name(type) != SSH_KEYTYPE_UNKNOWN &&
                   ssh_pki_import_pubkey_base64(b64, ssh_key_type_from_name(type), &k) == SSH_OK;
        ssh_key_free(k);
        if (!h->any)
            h->any = lineno;
        if (!readable && !h->unusable)
            h->unusable = lineno;
        if (!h->same && strcmp(type, ktype) == 0)
            h->same = lineno;
    }
    if (ferror(f))
        h->err = errno ? errno : EIO;
    free(line);
    fclose(f);
}

/* mkdir -p for the directories above file, new ones 0700. */
static int
make_parents(const char *file)
{
    char dir[4096];
    char *p;

    if (snprintf(dir, sizeof dir, "%s", file) >= (int)sizeof dir)
        return -1;
    p = strrchr(dir, '/');
    if (!p || p == dir)
        return 0;
    *p = '\0';
    for (p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Append the server's key to the known_hosts file (made 0600 if new). */
static int
record_host_key(ssh_tr *s)
{
    char *entry = NULL;
    struct stat sb;
    size_t len;
    int fd, ok = 0;
    char last = '\n';

    if (ssh_session_export_known_hosts_entry(s->session, &entry) != SSH_OK || !entry)
        return prop_transport_fail(&s->base, "host key for %s: cannot make its entry: %s",
                                   s->hostport, ssh_get_error(s->session));
    if (make_parents(s->known_hosts) < 0) {
        prop_transport_fail(&s->base, "cannot record the host key of %s: %s: %s", s->hostport,
                            s->known_hosts, strerror(errno));
        ssh_string_free_char(entry);
        return PROP_ERROR;
    }
    fd = open(s->known_hosts, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0 && fstat(fd, &sb) == 0) {
        len = strlen(entry);
        ok = 1;
        if (sb.st_size > 0 && (pread(fd, &last, 1, sb.st_size - 1) != 1 || last != '\n'))
            ok = write(fd, "\n", 1) == 1;
        if (ok)
            ok = write(fd, entry, len) == (ssize_t)len;
        if (ok && len && entry[len - 1] != '\n')
            ok = write(fd, "\n", 1) == 1;
        if (ok)
            ok = fsync(fd) == 0;
    }
    if (!ok)
        prop_transport_fail(&s->base, "cannot record the host key of %s in %s: %s", s->hostport,
                            s->known_hosts, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        prop_transport_fail(&s->base, "cannot record the host key of %s in %s: %s", s->hostport,
                            s->known_hosts, strerror(errno));
    }
    ssh_string_free_char(entry);
    return ok ? 0 : PROP_ERROR;
}

int
prop_ssh_check_host_key(ssh_tr *s, int accept_new)
{
    ssh_key key = NULL;
    unsigned char *hash = NULL;
    size_t hlen = 0;
    char *fp = NULL, plain[300], bracket[300], lower[2][300], where[4200];
    const char *ktype = "?", *names[5];
    enum ssh_known_hosts_e state;
    kh_lines h;
    size_t i, n = 0;
    int rc = PROP_EUNREACHABLE;

    if (ssh_get_server_publickey(s->session, &key) != SSH_OK) {
        prop_transport_fail(&s->base, "cannot get the host key of %s: %s", s->hostport,
                            ssh_get_error(s->session));
        return PROP_EUNREACHABLE;
    }
    ktype = ssh_key_type_to_char(ssh_key_type(key));
    if (!ktype)
        ktype = "?";
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0)
        fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
    /* The names a line may give the host: "addr" (port 22) and "[addr]:port". */
    snprintf(plain, sizeof plain, "%s", s->address);
    snprintf(bracket, sizeof bracket, "[%s]:%d", s->address, s->port);
    if (s->port == SSH_DEFAULT_PORT)
        names[n++] = plain;
    names[n++] = bracket;
    for (i = 0; i < sizeof lower[1] - 1 && bracket[i]; i++)
        lower[1][i] = (char)tolower((unsigned char)bracket[i]);
    lower[1][i] = '\0';
    for (i = 0; i < sizeof lower[0] - 1 && plain[i]; i++)
        lower[0][i] = (char)tolower((unsigned char)plain[i]);
    lower[0][i] = '\0';
    if (strcmp(lower[1], bracket) != 0) { /* hashed names are of the lower-case name */
        if (s->port == SSH_DEFAULT_PORT)
            names[n++] = lower[0];
        names[n++] = lower[1];
    }
    names[n] = NULL;
    /*
     * A line of the host that cannot be read is refused first: libssh
     * would answer "unknown" (and leaks what it parsed of the line).
     */
    find_host_lines(s->known_hosts, names, ktype, &h);
    if (h.err || h.unusable)
        state = SSH_KNOWN_HOSTS_UNKNOWN;
    else
        state = ssh_session_is_known_server(s->session);
    switch (state) {
    case SSH_KNOWN_HOSTS_OK:
        rc = 0;
        break;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        if (h.err) {
            prop_transport_fail(&s->base, "cannot check the host key of %s: cannot read %s: %s",
                                s->hostport, s->known_hosts, strerror(h.err));
        } else if (h.any) {
            /* No key libssh could check, but a line is there. */
            prop_transport_fail(&s->base,
                                "host key for %s refused: the server offers %s %s, and %s:%d "
                                "names this host but %s; no new key is recorded while it is "
                                "there (possible man-in-the-middle): repair or remove that line",
                                s->hostport, ktype, fp ? fp : "?", s->known_hosts,
                                h.unusable ? h.unusable : h.any,
                                h.unusable ? "its key cannot be read (a line cut short?)"
                                           : "its key could not be checked");
        } else if (!accept_new) {
            prop_transport_fail(&s->base,
                                "host key for %s is not known (%s %s); run with "
                                "--accept-new-host-keys to record it in %s",
                                s->hostport, ktype, fp ? fp : "?", s->known_hosts);
        } else {
            rc = record_host_key(s) == 0 ? 0 : PROP_EUNREACHABLE;
        }
        break;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
        if (h.same || h.any)
            snprintf(where, sizeof where, "the old key at %s:%d", s->known_hosts,
                     h.same ? h.same : h.any);
        else
            snprintf(where, sizeof where, "the old key of %s from %s", bracket, s->known_hosts);
        prop_transport_fail(&s->base,
                            "host key for %s CHANGED: the server offers %s %s, %s "
                            "(possible man-in-the-middle); if the change is expected, "
                            "remove %s",
                            s->hostport, ktype, fp ? fp : "?",
                            state == SSH_KNOWN_HOSTS_CHANGED
                                ? "not the key recorded for it"
                                : "but a key of another type is recorded for it",
                            where);
        break;
    case SSH_KNOWN_HOSTS_ERROR:
    default:
        prop_transport_fail(&s->base, "cannot check the host key of %s against %s: %s", s->hostport,
                            s->known_hosts, ssh_get_error(s->session));
        break;
    }
    if (fp)
        ssh_string_free_char(fp);
    if (hash)
        ssh_clean_pubkey_hash(&hash);
    ssh_key_free(key);
    return rc;
}
