/*
 * os.c - names of OS families, of sets of them, and of claim kinds; the
 * family of a system from its os-release.
 *
 * Everything here is a static table: nothing is allocated.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The families, in the order names list them. */
static const struct {
    const char *name;
    prop_os_set bit;
} families[] = {
    {"debian", PROP_OS_DEBIAN}, {"buntish", PROP_OS_BUNTISH}, {"rhel", PROP_OS_RHEL},
    {"fedora", PROP_OS_FEDORA}, {"arch", PROP_OS_ARCH},       {"freebsd", PROP_OS_FREEBSD},
};

/*
 * Groups that name a set exactly.  Those marked part also name the part of
 * a larger set they cover ("RedHatLike | freebsd"); FreeBSD and ArchLinux
 * are one family each, named by the family's own name inside a larger set.
 */
static const struct {
    const char *name;
    prop_os_set set;
    int part;
} groups[] = {
    {"UnixLike", PROP_OS_UNIXLIKE, 0},     {"Linux", PROP_OS_LINUX, 0},
    {"DebianLike", PROP_OS_DEBIANLIKE, 1}, {"RedHatLike", PROP_OS_REDHATLIKE, 1},
    {"FreeBSD", PROP_OS_FREEBSD, 0},       {"ArchLinux", PROP_OS_ARCH, 0},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const claim_names[PROP_CLAIM__COUNT] = {
    "file.content",
    "file.generated",
    "file.absent",
    "file.directory",
    "file.symlink",
    "file.mode",
    "file.owner",
    "file.line",
    "file.noline",
    "package.installed",
    "package.removed",
    "service.running",
    "service.stopped",
    "service.restarted",
    "user",
    "user.absent",
    "group",
    "hostname",
    "file.owned",
    "file.setting",
    "user.setting",
    "file.purged",
    "file.fragment",
    "file.fragments",
    "web.name",
    "web.default",
};

const char *
prop_os_family_name(prop_os_set family)
{
    for (size_t i = 0; i < NELEM(families); i++)
        if (families[i].bit == family)
            return families[i].name;
    return NULL;
}

static void
append(char *buf, size_t n, size_t *used, const char *s)
{
    int w;

    if (*used >= n)
        return;
    w = snprintf(buf + *used, n - *used, "%s%s", *used ? " | " : "", s);
    if (w > 0)
        *used += (size_t)w;
}

/*
 * Known sets have static names; others are written into buf: the groups
 * they hold whole, then the other families, then bits outside every
 * family (which the constructors never let through) in hex.
 */
const char *
prop_os_set_name(prop_os_set set, char *buf, size_t n)
{
    prop_os_set rest = set & PROP_OS_UNIXLIKE;
    size_t used = 0;
    char hex[16];

    if (set == PROP_OS_NONE)
        return "no OS";
    for (size_t i = 0; i < NELEM(groups); i++)
        if (groups[i].set == set)
            return groups[i].name;
    for (size_t i = 0; i < NELEM(families); i++)
        if (families[i].bit == set)
            return families[i].name;
    if (!buf || n == 0)
        return "unknown OS";
    buf[0] = '\0';
    for (size_t i = 0; i < NELEM(groups); i++) {
        if (groups[i].part && (rest & groups[i].set) == groups[i].set) {
            append(buf, n, &used, groups[i].name);
            rest &= ~groups[i].set;
        }
    }
    for (size_t i = 0; i < NELEM(families); i++)
        if (rest & families[i].bit)
            append(buf, n, &used, families[i].name);
    if (set & ~PROP_OS_UNIXLIKE) {
        snprintf(hex, sizeof hex, "0x%x", set & ~PROP_OS_UNIXLIKE);
        append(buf, n, &used, hex);
    }
    return buf;
}

int
prop_os_set_parse(const char *name, prop_os_set *out)
{
    if (out)
        *out = PROP_OS_NONE;
    if (!name || !out)
        return PROP_EINVAL;
    for (size_t i = 0; i < NELEM(families); i++) {
        if (strcmp(families[i].name, name) == 0) {
            *out = families[i].bit;
            return PROP_OK;
        }
    }
    for (size_t i = 0; i < NELEM(groups); i++) {
        if (strcmp(groups[i].name, name) == 0) {
            *out = groups[i].set;
            return PROP_OK;
        }
    }
    return PROP_EINVAL;
}

/* os-release IDs and ID_LIKE words, and the family each names. */
static const struct {
    const char *id;
    prop_os_set family;
} os_ids[] = {
    {"debian", PROP_OS_DEBIAN},  {"ubuntu", PROP_OS_BUNTISH}, {"freebsd", PROP_OS_FREEBSD},
    {"rhel", PROP_OS_RHEL},      {"centos", PROP_OS_RHEL},    {"rocky", PROP_OS_RHEL},
    {"almalinux", PROP_OS_RHEL}, {"ol", PROP_OS_RHEL},        {"fedora", PROP_OS_FEDORA},
    {"arch", PROP_OS_ARCH},
};

static prop_os_set
os_id_family(const char *w, size_t len)
{
    for (size_t i = 0; i < NELEM(os_ids); i++)
        if (strlen(os_ids[i].id) == len && memcmp(os_ids[i].id, w, len) == 0)
            return os_ids[i].family;
    return PROP_OS_NONE;
}

/*
 * The value of KEY= in os-release text, unquoted: *v and *vlen, or 0 when
 * the key is missing.  Values are one line; quotes are " or '.
 */
static int
os_release_value(const char *text, size_t len, const char *key, const char **v, size_t *vlen)
{
    size_t klen = strlen(key), i = 0;

    while (i < len) {
        size_t eol = i;

        while (eol < len && text[eol] != '\n')
            eol++;
        if (eol - i > klen && memcmp(text + i, key, klen) == 0 && text[i + klen] == '=') {
            size_t a = i + klen + 1, b = eol;

            while (b > a && (text[b - 1] == '\r' || text[b - 1] == ' '))
                b--;
            if (b - a >= 2 && (text[a] == '"' || text[a] == '\'') && text[b - 1] == text[a]) {
                a++;
                b--;
            }
            *v = text + a;
            *vlen = b - a;
            return 1;
        }
        i = eol + 1;
    }
    return 0;
}

prop_os_set
prop_os_from_os_release(const char *text, size_t len)
{
    const char *v;
    size_t vlen, i = 0;
    prop_os_set found = PROP_OS_NONE, f;

    if (!text)
        return PROP_OS_NONE;
    if (os_release_value(text, len, "ID", &v, &vlen) && (f = os_id_family(v, vlen)) != PROP_OS_NONE)
        return f;
    if (!os_release_value(text, len, "ID_LIKE", &v, &vlen))
        return PROP_OS_NONE;
    while (i < vlen) {
        size_t j = i;

        while (j < vlen && v[j] != ' ' && v[j] != '\t')
            j++;
        f = os_id_family(v + i, j - i);
        if (f == PROP_OS_BUNTISH)
            return f; /* like ubuntu and debian: Ubuntu's packages */
        if (found == PROP_OS_NONE)
            found = f;
        i = j + 1;
    }
    return found;
}

const char *
prop_claim_kind_name(prop_claim_kind k)
{
    if ((unsigned)k >= PROP_CLAIM__COUNT)
        return NULL;
    return claim_names[k];
}

int
prop_claim_kind_parse(const char *name, prop_claim_kind *out)
{
    if (out)
        *out = PROP_CLAIM__COUNT;
    if (!name || !out)
        return PROP_EINVAL;
    for (unsigned i = 0; i < PROP_CLAIM__COUNT; i++) {
        if (strcmp(claim_names[i], name) == 0) {
            *out = (prop_claim_kind)i;
            return PROP_OK;
        }
    }
    return PROP_EINVAL;
}
