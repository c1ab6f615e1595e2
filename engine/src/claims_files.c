/*
 * claims_files.c - P007: the claims of a host's leaves on one path (its
 * content, a line, a setting, its mode or owner, a file owned whole, an
 * absent file) compared pair by pair, and the claims on a path below an
 * absent file or below a directory a property owns whole.  The tables that
 * group the claims and the reporting of a pair are claims.c's.
 *
 * Ownership: messages and diagnostics go to the site's arena.
 */
#include <stdio.h>
#include <string.h>

#include "claims_impl.h"

/*
 * A setting claim's value "NAME=VALUE" split at the first '=' (a value
 * without one is a name with an empty value).
 */
static void
setting_parts(const prop_claim *c, const char **name, size_t *nl, const char **val, size_t *vl)
{
    const char *v, *eq;
    size_t len;

    cval(c, &v, &len);
    eq = memchr(v, '=', len);
    *name = v;
    *nl = eq ? (size_t)(eq - v) : len;
    *val = eq ? eq + 1 : v + len;
    *vl = eq ? len - *nl - 1 : 0;
}

static int
same_name_nocase(const char *a, size_t al, const char *b, size_t bl)
{
    size_t i;

    if (al != bl)
        return 0;
    for (i = 0; i < al; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return 1;
}

static int
is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/*
 * How a line of a config file that takes "Name value" lines (sshd_config
 * and its kind: the name is case-insensitive, "Name=value" is allowed)
 * relates to a setting: -1 when it sets another name (or is no setting),
 * 0 when it sets the same name to another value, 1 when to the same one.
 */
static int
text_vs_setting(const char *l, size_t ll, const prop_claim *setting)
{
    const char *name, *val, *w;
    size_t nl, vl, i = 0, ws, we;

    setting_parts(setting, &name, &nl, &val, &vl);
    while (i < ll && is_blank(l[i]))
        i++;
    ws = i;
    while (i < ll && !is_blank(l[i]) && l[i] != '=')
        i++;
    if (i == ws || !same_name_nocase(l + ws, i - ws, name, nl))
        return -1;
    while (i < ll && is_blank(l[i]))
        i++;
    if (i < ll && l[i] == '=')
        i++;
    while (i < ll && is_blank(l[i]))
        i++;
    we = ll;
    while (we > i && is_blank(l[we - 1]))
        we--;
    w = l + i;
    return we - i == vl && memcmp(w, val, vl) == 0;
}

static int
line_vs_setting(const prop_claim *line, const prop_claim *setting)
{
    const char *l;
    size_t ll;

    cval(line, &l, &ll);
    return text_vs_setting(l, ll, setting);
}

/*
 * A setting named "lines ..." is file.line's: the name holds a pattern
 * ("lines matching ^Port%s") or a string ("lines containing Port"), in
 * which case matters.  No config file's setting name starts so.
 */
static int
is_line_match(const char *name, size_t len)
{
    return len >= 6 && memcmp(name, "lines ", 6) == 0;
}

/*
 * Two setting claims: -1 when they name different settings, else whether
 * they give it the same value (names compare case-insensitively, but for
 * file.line's matches, which compare exactly).
 */
int
settings_agree(const prop_claim *a, const prop_claim *b)
{
    const char *na, *va, *nb, *vb;
    size_t nal, val, nbl, vbl;

    setting_parts(a, &na, &nal, &va, &val);
    setting_parts(b, &nb, &nbl, &vb, &vbl);
    if (is_line_match(na, nal) || is_line_match(nb, nbl)) {
        if (nal != nbl || memcmp(na, nb, nal) != 0)
            return -1;
    } else if (!same_name_nocase(na, nal, nb, nbl))
        return -1;
    return val == vbl && memcmp(va, vb, val) == 0;
}

/* "NAME must be "Y" here but "X" at AT" for two values of one setting. */
const char *
setting_clash(checker *k, const prop_claim *x, const prop_claim *y, const char *at)
{
    const char *n, *vx, *vy;
    size_t nl, vxl, vyl;

    setting_parts(x, &n, &nl, &vx, &vxl);
    setting_parts(y, &n, &nl, &vy, &vyl);
    return arena_printf(&k->s->mem, "%.*s must be \"%.*s\" here but \"%.*s\" at %s",
                        (int)(nl > QUOTE_MAX ? QUOTE_MAX : nl), n,
                        (int)(vyl > QUOTE_MAX ? QUOTE_MAX : vyl), vy,
                        (int)(vxl > QUOTE_MAX ? QUOTE_MAX : vxl), vx, at);
}

/*
 * A fragment claim's value "NAME\nORDER\nTEXT" split into its parts (a
 * value lacking a part reads as an empty one, order 50).
 */
static void
fragment_parts(const prop_claim *c, const char **name, size_t *nl, long *order, const char **text,
               size_t *tl)
{
    const char *v, *e1, *e2, *p;
    size_t len;
    long o = 0;
    int neg = 0, digits = 0;

    cval(c, &v, &len);
    e1 = memchr(v, '\n', len);
    *name = v;
    *nl = e1 ? (size_t)(e1 - v) : len;
    *text = v + len;
    *tl = 0;
    *order = 50;
    if (e1 == NULL)
        return;
    e2 = memchr(e1 + 1, '\n', len - *nl - 1);
    if (e2 == NULL)
        return;
    for (p = e1 + 1; p < e2; p++) {
        if (p == e1 + 1 && *p == '-') {
            neg = 1;
        } else if (*p >= '0' && *p <= '9' && o < 100000000L) {
            o = o * 10 + (*p - '0');
            digits = 1;
        }
    }
    if (digits)
        *order = neg ? -o : o;
    *text = e2 + 1;
    *tl = len - (size_t)(*text - v);
}

/* Is k a claim on a file assembled from fragments (a part or the whole)? */
static int
is_fragment_kind(prop_claim_kind k)
{
    return k == PROP_CLAIM_FILE_FRAGMENT || k == PROP_CLAIM_FILE_FRAGMENTS;
}

/* Is k a claim on the whole of a file's bytes? */
static int
is_whole_kind(prop_claim_kind k)
{
    return k == PROP_CLAIM_FILE_CONTENT || k == PROP_CLAIM_FILE_GENERATED ||
           k == PROP_CLAIM_FILE_OWNED || is_fragment_kind(k);
}

/* The firewall's ruleset, which firewall.allow adds to. */
static int
is_firewall_file(const char *path)
{
    return strcmp(path, "/etc/nftables.conf") == 0;
}

/*
 * What a site does to let several properties build one file (x and y
 * the two claims that clash over it).
 */
static const char *
share_hint(checker *k, const char *path, const prop_claim *x, const prop_claim *y)
{
    if (is_firewall_file(path))
        return FMT("a host has one firewall.nftables or firewall.open_declared; each role adds "
                   "its ports to it with firewall.allow { port = N }");
    if ((is_fragment_kind(x->kind) || is_fragment_kind(y->kind)) &&
        x->kind != PROP_CLAIM_FILE_OWNED && y->kind != PROP_CLAIM_FILE_OWNED && x->kind != y->kind)
        return FMT("\"%s\" is assembled from fragments: give that content as a "
                   "file.fragment(\"%s\", name, text) instead",
                   path, path);
    return FMT("to build \"%s\" from parts that several properties give, give the host one "
               "file.fragments(\"%s\") and let each property add its part with "
               "file.fragment(\"%s\", name, text)",
               path, path, path);
}

/* What a file claim makes the path, as it reads after "must be". */
static const char *
file_state(const prop_claim *c, char *buf, size_t n)
{
    char q[QUOTE_MAX + 8];

    switch (c->kind) {
    case PROP_CLAIM_FILE_CONTENT:
        return "a file with fixed content";
    case PROP_CLAIM_FILE_GENERATED:
        snprintf(buf, n, "a file generated by %s", c->value ? quoted(c, q, sizeof q) : "prop");
        return buf;
    case PROP_CLAIM_FILE_ABSENT:
        return "absent";
    case PROP_CLAIM_FILE_DIRECTORY:
        return "a directory";
    case PROP_CLAIM_FILE_SYMLINK:
        snprintf(buf, n, "a symlink to %s", quoted(c, q, sizeof q));
        return buf;
    case PROP_CLAIM_FILE_MODE:
        snprintf(buf, n, "mode %s", quoted(c, q, sizeof q));
        return buf;
    case PROP_CLAIM_FILE_OWNER:
        snprintf(buf, n, "owned by %s", quoted(c, q, sizeof q));
        return buf;
    case PROP_CLAIM_FILE_LINE:
        snprintf(buf, n, "a file containing the line %s", quoted(c, q, sizeof q));
        return buf;
    case PROP_CLAIM_FILE_NO_LINE:
        snprintf(buf, n, "a file lacking the line %s", quoted(c, q, sizeof q));
        return buf;
    case PROP_CLAIM_FILE_OWNED:
        return "a file owned whole";
    case PROP_CLAIM_FILE_PURGED:
        return "a directory holding only what the site declares";
    case PROP_CLAIM_FILE_FRAGMENTS:
        return "a file assembled from fragments";
    case PROP_CLAIM_FILE_FRAGMENT: {
        const char *name, *text;
        size_t nl, tl;
        long order;

        fragment_parts(c, &name, &nl, &order, &text, &tl);
        snprintf(buf, n, "a file assembled from fragments (this one \"%.*s\")",
                 (int)(nl > 60 ? 60 : nl), name);
        return buf;
    }
    case PROP_CLAIM_FILE_SETTING: {
        const char *name, *val;
        size_t nl, vl;

        setting_parts(c, &name, &nl, &val, &vl);
        snprintf(buf, n, "a file setting \"%.*s\" to \"%.*s\"", (int)(nl > 60 ? 60 : nl), name,
                 (int)(vl > 60 ? 60 : vl), val);
        return buf;
    }
    default:
        return "something else";
    }
}

/*
 * Does fixed content (a claim's value) already give the setting its value:
 * a line of it is the setting's own, and none sets the name to another
 * value?  Then writing both is no conflict (file.line's "lines ..."
 * settings are not read so).
 */
static int
content_sets(const prop_claim *content, const prop_claim *setting)
{
    const char *c, *name, *val;
    size_t clen, nl, vl, start = 0, i;
    int found = 0, r;

    setting_parts(setting, &name, &nl, &val, &vl);
    if (is_line_match(name, nl))
        return 0;
    cval(content, &c, &clen);
    for (i = 0; i <= clen; i++) {
        if (i == clen || c[i] == '\n') {
            if (i > start) {
                r = text_vs_setting(c + start, i - start, setting);
                if (r == 0)
                    return 0;
                if (r == 1)
                    found = 1;
            }
            start = i + 1;
        }
    }
    return found;
}

/* Does content (a claim's value) have line as one of its lines? */
static int
content_has_line(const prop_claim *content, const prop_claim *line)
{
    const char *c, *l;
    size_t clen, llen, start = 0, i;

    cval(content, &c, &clen);
    cval(line, &l, &llen);
    for (i = 0; i <= clen; i++) {
        if (i == clen || c[i] == '\n') {
            if (i == clen && start == clen && clen > 0)
                break; /* the newline ending the last line starts no new one */
            if (i - start == llen && memcmp(c + start, l, llen) == 0)
                return 1;
            start = i + 1;
        }
    }
    return 0;
}

/* Split "user:group" into its two parts (either may be empty). */
static void
owner_parts(const prop_claim *c, const char **u, size_t *ul, const char **g, size_t *gl)
{
    const char *v, *colon;
    size_t len;

    cval(c, &v, &len);
    colon = memchr(v, ':', len);
    *u = v;
    *ul = colon ? (size_t)(colon - v) : len;
    *g = colon ? colon + 1 : v + len;
    *gl = colon ? len - *ul - 1 : 0;
}

static int
owners_differ(const prop_claim *a, const prop_claim *b)
{
    const char *ua, *ga, *ub, *gb;
    size_t ual, gal, ubl, gbl;

    owner_parts(a, &ua, &ual, &ga, &gal);
    owner_parts(b, &ub, &ubl, &gb, &gbl);
    if (ual && ubl && (ual != ubl || memcmp(ua, ub, ual) != 0))
        return 1;
    return gal && gbl && (gal != gbl || memcmp(ga, gb, gal) != 0);
}

enum file_clash {
    FC_NONE,
    FC_STATES,         /* "must be X here but Y at" */
    FC_CONTENTS,       /* two different contents */
    FC_LINE_NOLINE,    /* one line both present and absent */
    FC_CONTENT_LINE,   /* fixed content lacking a required line */
    FC_CONTENT_NOLINE, /* fixed content holding a removed line */
    FC_OWNED,          /* a file owned whole, and anything else done to it */
    FC_SETTINGS,       /* one setting given two values */
    FC_SETTING_LINE,   /* a required line setting it to another value */
    FC_SETTING_NOLINE, /* a removed line that is the setting's own */
    FC_FRAGMENT,       /* one fragment given two texts or orders */
    FC_ASSEMBLERS      /* a file assembled from fragments two ways */
};

/* Two fragments of one file: the same name with other text or order? */
static int
fragments_clash(const prop_claim *x, const prop_claim *y)
{
    const char *nx, *tx, *ny, *ty;
    size_t nxl, txl, nyl, tyl;
    long ox, oy;

    fragment_parts(x, &nx, &nxl, &ox, &tx, &txl);
    fragment_parts(y, &ny, &nyl, &oy, &ty, &tyl);
    if (nxl != nyl || memcmp(nx, ny, nxl) != 0)
        return 0;
    return !same_value(x, y);
}

static enum file_clash
file_clash(const prop_claim *x, const prop_claim *y)
{
    prop_claim_kind a = x->kind, b = y->kind, o;

    /* A file a property owns whole (a hand-written property's claims.files)
     * is nobody else's to write, edit or remove; its mode and owner may
     * still be said elsewhere. */
    if (a == PROP_CLAIM_FILE_OWNED || b == PROP_CLAIM_FILE_OWNED) {
        o = a == PROP_CLAIM_FILE_OWNED ? b : a;
        return o == PROP_CLAIM_FILE_MODE || o == PROP_CLAIM_FILE_OWNER ? FC_NONE : FC_OWNED;
    }
    /* A purged directory is a directory: its mode, owner and another
     * purge of it agree; anything that makes the path a file does not. */
    if (a == PROP_CLAIM_FILE_PURGED || b == PROP_CLAIM_FILE_PURGED) {
        o = a == PROP_CLAIM_FILE_PURGED ? b : a;
        return o == PROP_CLAIM_FILE_DIRECTORY || o == PROP_CLAIM_FILE_MODE ||
                       o == PROP_CLAIM_FILE_OWNER || o == PROP_CLAIM_FILE_PURGED
                   ? FC_NONE
                   : FC_STATES;
    }
    /* A file assembled from fragments: its assembler (file.fragments) and
     * its fragments agree, so do its mode and owner; anything else that
     * writes or edits the file fights the assembler. */
    if (is_fragment_kind(a) || is_fragment_kind(b)) {
        if (a == PROP_CLAIM_FILE_FRAGMENT && b == PROP_CLAIM_FILE_FRAGMENT)
            return fragments_clash(x, y) ? FC_FRAGMENT : FC_NONE;
        if (a == PROP_CLAIM_FILE_FRAGMENTS && b == PROP_CLAIM_FILE_FRAGMENTS)
            return same_value(x, y) ? FC_NONE : FC_ASSEMBLERS;
        o = is_fragment_kind(a) ? b : a;
        if (is_fragment_kind(o) || o == PROP_CLAIM_FILE_MODE || o == PROP_CLAIM_FILE_OWNER)
            return FC_NONE;
        return FC_STATES;
    }
    if (a == b) {
        switch (a) {
        case PROP_CLAIM_FILE_CONTENT:
            return same_value(x, y) ? FC_NONE : FC_CONTENTS;
        case PROP_CLAIM_FILE_GENERATED:
        case PROP_CLAIM_FILE_SYMLINK:
        case PROP_CLAIM_FILE_MODE:
            return same_value(x, y) ? FC_NONE : FC_STATES;
        case PROP_CLAIM_FILE_OWNER:
            return owners_differ(x, y) ? FC_STATES : FC_NONE;
        case PROP_CLAIM_FILE_SETTING:
            return settings_agree(x, y) == 0 ? FC_SETTINGS : FC_NONE;
        default:
            return FC_NONE;
        }
    }
    if (a == PROP_CLAIM_FILE_ABSENT || b == PROP_CLAIM_FILE_ABSENT) {
        o = a == PROP_CLAIM_FILE_ABSENT ? b : a;
        return o == PROP_CLAIM_FILE_NO_LINE ? FC_NONE : FC_STATES;
    }
    if (KINDS(a, b, PROP_CLAIM_FILE_CONTENT, PROP_CLAIM_FILE_GENERATED))
        return FC_STATES;
    if (a == PROP_CLAIM_FILE_DIRECTORY || b == PROP_CLAIM_FILE_DIRECTORY) {
        o = a == PROP_CLAIM_FILE_DIRECTORY ? b : a;
        return o == PROP_CLAIM_FILE_MODE || o == PROP_CLAIM_FILE_OWNER ? FC_NONE : FC_STATES;
    }
    if (a == PROP_CLAIM_FILE_SYMLINK || b == PROP_CLAIM_FILE_SYMLINK) {
        o = a == PROP_CLAIM_FILE_SYMLINK ? b : a;
        return o == PROP_CLAIM_FILE_CONTENT || o == PROP_CLAIM_FILE_GENERATED ||
                       o == PROP_CLAIM_FILE_LINE || o == PROP_CLAIM_FILE_SETTING
                   ? FC_STATES
                   : FC_NONE;
    }
    if (KINDS(a, b, PROP_CLAIM_FILE_LINE, PROP_CLAIM_FILE_NO_LINE))
        return same_value(x, y) ? FC_LINE_NOLINE : FC_NONE;
    /* A setting is the property's own edit of the file: a whole content
     * (or a generated file) would undo it; a line setting the same name
     * to another value, or the removal of the line it writes, fights it. */
    if (a == PROP_CLAIM_FILE_SETTING || b == PROP_CLAIM_FILE_SETTING) {
        const prop_claim *st = a == PROP_CLAIM_FILE_SETTING ? x : y, *ot = st == x ? y : x;

        switch (ot->kind) {
        case PROP_CLAIM_FILE_CONTENT:
            return content_sets(ot, st) ? FC_NONE : FC_STATES;
        case PROP_CLAIM_FILE_GENERATED:
            return FC_STATES;
        case PROP_CLAIM_FILE_LINE:
            return line_vs_setting(ot, st) == 0 ? FC_SETTING_LINE : FC_NONE;
        case PROP_CLAIM_FILE_NO_LINE:
            return line_vs_setting(ot, st) == 1 ? FC_SETTING_NOLINE : FC_NONE;
        default:
            return FC_NONE;
        }
    }
    if (KINDS(a, b, PROP_CLAIM_FILE_CONTENT, PROP_CLAIM_FILE_LINE)) {
        const prop_claim *c = a == PROP_CLAIM_FILE_CONTENT ? x : y;
        return content_has_line(c, c == x ? y : x) ? FC_NONE : FC_CONTENT_LINE;
    }
    if (KINDS(a, b, PROP_CLAIM_FILE_CONTENT, PROP_CLAIM_FILE_NO_LINE)) {
        const prop_claim *c = a == PROP_CLAIM_FILE_CONTENT ? x : y;
        return content_has_line(c, c == x ? y : x) ? FC_CONTENT_NOLINE : FC_NONE;
    }
    return FC_NONE;
}

/* Compare two claims on one path; see report_pair() for the result. */
int
file_pair(checker *k, const ref *ri, const ref *rj)
{
    const prop_claim *x = ri->c, *y = rj->c;
    const char *path = y->key, *msg = NULL;
    char sx[QUOTE_MAX * 2], sy[QUOTE_MAX * 2], q[QUOTE_MAX + 8], at[512];
    enum file_clash clash = file_clash(x, y);
    const char *stx;

    if (clash == FC_NONE)
        return 0;
    stx = file_state(x, sx, sizeof sx);
    pp_place(ri->node->origin, at, sizeof at);
    switch (clash) {
    case FC_NONE:
        return 0;
    case FC_STATES:
        msg =
            FMT("\"%s\" must be %s here but %s at %s", path, file_state(y, sy, sizeof sy), stx, at);
        break;
    case FC_CONTENTS:
        msg = FMT("\"%s\" is given two different contents", path);
        break;
    case FC_LINE_NOLINE:
        if (y->kind == PROP_CLAIM_FILE_LINE)
            msg = FMT("\"%s\" must contain the line %s here but lack it at %s", path,
                      quoted(y, q, sizeof q), at);
        else
            msg = FMT("\"%s\" must lack the line %s here but contain it at %s", path,
                      quoted(y, q, sizeof q), at);
        break;
    case FC_CONTENT_LINE:
        if (y->kind == PROP_CLAIM_FILE_LINE)
            msg = FMT("\"%s\" must contain the line %s here but its fixed content from \"%s\" "
                      "at %s lacks it",
                      path, quoted(y, q, sizeof q), ri->node->desc, at);
        else
            msg = FMT("\"%s\" is given fixed content here that lacks the line %s required at %s",
                      path, quoted(x, q, sizeof q), at);
        break;
    case FC_OWNED:
        if (x->kind == PROP_CLAIM_FILE_OWNED && y->kind == PROP_CLAIM_FILE_OWNED)
            msg = FMT("\"%s\" is owned whole by \"%s\" here and by \"%s\" at %s: one file "
                      "cannot have two owners",
                      path, rj->node->desc, ri->node->desc, at);
        else if (y->kind == PROP_CLAIM_FILE_OWNED)
            msg = FMT("\"%s\" is owned whole by \"%s\" here, but \"%s\" makes it %s at %s", path,
                      rj->node->desc, ri->node->desc, stx, at);
        else
            msg = FMT("\"%s\" must be %s here, but \"%s\" owns the whole file at %s", path,
                      file_state(y, sy, sizeof sy), ri->node->desc, at);
        break;
    case FC_SETTINGS:
        msg = FMT("\"%s\": %s", path, setting_clash(k, x, y, at));
        break;
    case FC_SETTING_LINE:
    case FC_SETTING_NOLINE:
        msg =
            FMT("\"%s\" must be %s here but %s at %s", path, file_state(y, sy, sizeof sy), stx, at);
        break;
    case FC_FRAGMENT: {
        const char *nx, *tx, *ny, *ty;
        size_t nxl, txl, nyl, tyl;
        long ox, oy;

        fragment_parts(x, &nx, &nxl, &ox, &tx, &txl);
        fragment_parts(y, &ny, &nyl, &oy, &ty, &tyl);
        if (ox != oy && txl == tyl && memcmp(tx, ty, txl) == 0)
            msg = FMT("\"%s\": the fragment \"%.*s\" has order %ld here but %ld at %s: one "
                      "name is one fragment",
                      path, (int)(nyl > QUOTE_MAX ? QUOTE_MAX : nyl), ny, oy, ox, at);
        else
            msg = FMT("\"%s\": the fragment \"%.*s\" is given other text here than at %s: one "
                      "name is one fragment (give each part a name of its own)",
                      path, (int)(nyl > QUOTE_MAX ? QUOTE_MAX : nyl), ny, at);
        return report_pair(k, "P007", ri, rj, msg,
                           FMT("\"%s\" gives the fragment \"%.*s\" here", ri->node->desc,
                               (int)(nxl > QUOTE_MAX ? QUOTE_MAX : nxl), nx));
    }
    case FC_ASSEMBLERS:
        if (is_firewall_file(path))
            return report_pair(k, "P007", ri, rj,
                               FMT("\"%s\" is written by \"%s\" here and by \"%s\" at %s: a "
                                   "host has one firewall; each role adds its ports to it with "
                                   "firewall.allow { port = N }",
                                   path, rj->node->desc, ri->node->desc, at),
                               FMT("\"%s\" writes it here", ri->node->desc));
        msg = FMT("\"%s\" is assembled by \"%s\" here and by \"%s\" at %s: a file has one "
                  "assembler",
                  path, rj->node->desc, ri->node->desc, at);
        break;
    case FC_CONTENT_NOLINE:
        if (y->kind == PROP_CLAIM_FILE_NO_LINE)
            msg = FMT("\"%s\" must lack the line %s here but its fixed content from \"%s\" at "
                      "%s contains it",
                      path, quoted(y, q, sizeof q), ri->node->desc, at);
        else
            msg = FMT("\"%s\" is given fixed content here that contains the line %s removed "
                      "at %s",
                      path, quoted(x, q, sizeof q), at);
        break;
    }
    return report_pair_hint(
        k, "P007", ri, rj, msg, FMT("\"%s\" makes it %s here", ri->node->desc, stx),
        is_whole_kind(x->kind) && is_whole_kind(y->kind) ? share_hint(k, path, x, y) : NULL);
}

/*
 * A claim on a path below an absent one.  For each proper prefix of the
 * group's path that has a group with a file.absent member, every member
 * of this group (other than absent and line removals, which agree) clashes
 * with each absent claim; the later of the two carries the error.
 */
int
file_below_absent(checker *k, const group *g)
{
    size_t pos;

    for (pos = g->len; pos-- > 1;) {
        const group *pg;
        int i;

        if (g->key[pos] != '/')
            continue;
        pg = pp_table_find(&k->host, CLS_FILE, g->key, pos, 0);
        if (pg == NULL || !pg->absent)
            continue;
        for (i = g->first; i >= 0; i = k->host.refs[i].next) {
            const ref *r = &k->host.refs[i];
            int a;

            if (r->c->kind == PROP_CLAIM_FILE_ABSENT || r->c->kind == PROP_CLAIM_FILE_NO_LINE)
                continue;
            for (a = pg->first; a >= 0; a = k->host.refs[a].next) {
                const ref *ra = &k->host.refs[a];
                char st[QUOTE_MAX * 2], at[512];
                const char *state;
                int rc;

                if (ra->c->kind != PROP_CLAIM_FILE_ABSENT || ra->node == r->node)
                    continue;
                state = file_state(r->c, st, sizeof st);
                if (ra->ent < r->ent)
                    rc = report_pair(
                        k, "P007", ra, r,
                        FMT("\"%s\" must be %s here but \"%s\" is absent at %s", r->c->key, state,
                            ra->c->key, pp_place(ra->node->origin, at, sizeof at)),
                        FMT("\"%s\" makes \"%s\" absent here", ra->node->desc, ra->c->key));
                else
                    rc = report_pair(
                        k, "P007", r, ra,
                        FMT("\"%s\" must be absent here but \"%s\", below it, is %s "
                            "at %s",
                            ra->c->key, r->c->key, state, pp_place(r->node->origin, at, sizeof at)),
                        FMT("\"%s\" makes \"%s\" %s here", r->node->desc, r->c->key, state));
                if (rc < 0)
                    return rc;
            }
        }
    }
    return PROP_OK;
}

/*
 * A claim on a path below one a property owns whole (claims.files naming
 * a directory covers what is in it): every member of this group made by
 * another property clashes with the owner, except modes and owners.
 */
int
file_below_owned(checker *k, const group *g)
{
    size_t pos;

    for (pos = g->len; pos-- > 1;) {
        const group *pg;
        int i;

        if (g->key[pos] != '/')
            continue;
        pg = pp_table_find(&k->host, CLS_FILE, g->key, pos, 0);
        if (pg == NULL || !pg->owned)
            continue;
        for (i = g->first; i >= 0; i = k->host.refs[i].next) {
            const ref *r = &k->host.refs[i];
            int a;

            if (r->c->kind == PROP_CLAIM_FILE_MODE || r->c->kind == PROP_CLAIM_FILE_OWNER)
                continue;
            for (a = pg->first; a >= 0; a = k->host.refs[a].next) {
                const ref *ro = &k->host.refs[a];
                char st[QUOTE_MAX * 2], at[512];
                const char *state;
                int rc;

                if (ro->c->kind != PROP_CLAIM_FILE_OWNED || ro->node == r->node ||
                    pp_same_leaf(ro->node, r->node))
                    continue;
                state = file_state(r->c, st, sizeof st);
                if (ro->ent < r->ent)
                    rc = report_pair(
                        k, "P007", ro, r,
                        FMT("\"%s\" must be %s here, but \"%s\" owns \"%s\", and what is in "
                            "it, at %s",
                            r->c->key, state, ro->node->desc, ro->c->key,
                            pp_place(ro->node->origin, at, sizeof at)),
                        FMT("\"%s\" owns \"%s\" here", ro->node->desc, ro->c->key));
                else
                    rc = report_pair(
                        k, "P007", r, ro,
                        FMT("\"%s\" owns \"%s\", and what is in it, here, but \"%s\", "
                            "below it, is %s at %s",
                            ro->node->desc, ro->c->key, r->c->key, state,
                            pp_place(r->node->origin, at, sizeof at)),
                        FMT("\"%s\" makes \"%s\" %s here", r->node->desc, r->c->key, state));
                if (rc < 0)
                    return rc;
            }
        }
    }
    return PROP_OK;
}

/*
 * P012: a fragment (file.fragment, firewall.allow) of a path that no
 * property of the host assembles (no file.fragments, firewall.nftables
 * or firewall.open_declared): nothing would ever write it.  Each such
 * leaf is reported once, at its own line.
 */
int
file_fragment_owner(checker *k, const group *g)
{
    const prop_node *last = NULL;
    int i;

    for (i = g->first; i >= 0; i = k->host.refs[i].next)
        if (k->host.refs[i].c->kind == PROP_CLAIM_FILE_FRAGMENTS)
            return PROP_OK;
    for (i = g->first; i >= 0; i = k->host.refs[i].next) {
        const ref *r = &k->host.refs[i];
        diag_builder b;
        int rc;

        if (r->c->kind != PROP_CLAIM_FILE_FRAGMENT || r->node == last)
            continue;
        last = r->node;
        if (is_firewall_file(r->c->key))
            rc = diag_begin(&b, k->s, "P012", PROP_SEV_ERROR, r->node->origin,
                            "\"%s\" adds to the firewall's ruleset \"%s\", but host \"%s\" "
                            "has no firewall to add it to: add firewall.nftables { ... } or "
                            "firewall.open_declared() to the host",
                            r->node->desc, r->c->key, prop_host_fullname(k->h));
        else
            rc = diag_begin(&b, k->s, "P012", PROP_SEV_ERROR, r->node->origin,
                            "\"%s\" adds a fragment to \"%s\", but nothing on host \"%s\" "
                            "assembles that file: add file.fragments(\"%s\") to the host",
                            r->node->desc, r->c->key, prop_host_fullname(k->h), r->c->key);
        if (rc == PROP_OK)
            rc = diag_end(&b);
        if (rc != PROP_OK)
            return rc;
    }
    return PROP_OK;
}
