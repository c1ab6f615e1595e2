/*
 * os.c - names of OS families, of sets of them, and of claim kinds.
 *
 * Everything here is a static table: nothing is allocated.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Every subset of the three families, by its bit mask. */
static const char *const set_names[8] = {
    "no OS",             /* 0 */
    "debian",            /* debian */
    "buntish",           /* buntish */
    "DebianLike",        /* debian | buntish */
    "FreeBSD",           /* freebsd */
    "debian | freebsd",  /* debian | freebsd */
    "buntish | freebsd", /* buntish | freebsd */
    "UnixLike",          /* all */
};

static const struct {
    const char *name;
    prop_os_set set;
} set_parse[] = {
    {"debian", PROP_OS_DEBIAN},   {"buntish", PROP_OS_BUNTISH},
    {"freebsd", PROP_OS_FREEBSD}, {"DebianLike", PROP_OS_DEBIANLIKE},
    {"FreeBSD", PROP_OS_FREEBSD}, {"UnixLike", PROP_OS_UNIXLIKE},
};

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
};

const char *
prop_os_family_name(prop_os_set family)
{
    switch (family) {
    case PROP_OS_DEBIAN:
        return "debian";
    case PROP_OS_BUNTISH:
        return "buntish";
    case PROP_OS_FREEBSD:
        return "freebsd";
    default:
        return NULL;
    }
}

/*
 * Known sets have static names; bits outside the three families (which the
 * constructors never let through) are shown in hex after the known part,
 * written into buf.
 */
const char *
prop_os_set_name(prop_os_set set, char *buf, size_t n)
{
    prop_os_set known = set & PROP_OS_UNIXLIKE;

    if (set == known)
        return set_names[known];
    if (!buf || n == 0)
        return "unknown OS";
    if (known)
        snprintf(buf, n, "%s | 0x%x", set_names[known], set & ~PROP_OS_UNIXLIKE);
    else
        snprintf(buf, n, "0x%x", set);
    return buf;
}

int
prop_os_set_parse(const char *name, prop_os_set *out)
{
    if (out)
        *out = PROP_OS_NONE;
    if (!name || !out)
        return PROP_EINVAL;
    for (size_t i = 0; i < sizeof set_parse / sizeof set_parse[0]; i++) {
        if (strcmp(set_parse[i].name, name) == 0) {
            *out = set_parse[i].set;
            return PROP_OK;
        }
    }
    return PROP_EINVAL;
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
