/*
 * lprop_pattern.c - string.find, string.match, string.gmatch and
 * string.gsub, with the matching itself counted.
 *
 * Lua's own versions match in C, where the count hook never fires, and a
 * pattern such as ".-.-.-.-x" backtracks through n^4 ways of splitting a
 * string of n characters: an instruction budget that does not see the
 * matching does not stop it.  These versions behave as the manual
 * describes Lua 5.4's (the same results, the same errors for malformed
 * patterns), but every step of the matcher is counted, and every
 * PATTERN_TICK steps the count goes to the meter, which may stop the call
 * with an error.  A plain find uses memmem: linear, where a naive search
 * is not; it is charged LPROP_BYTES_AN_INSTRUCTION bytes a step.
 *
 * Nothing here allocates while matching: a meter error or a malformed
 * pattern leaves through lua_error with nothing to free.
 */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop.h"

#define PATTERN_MAXCAPTURES 32 /* as Lua's LUA_MAXCAPTURES */
#define PATTERN_MAXDEPTH 200   /* nested matches before "pattern too complex" */
#define PATTERN_TICK 4096      /* steps between two calls of the meter */
/* A set is tested a byte at a time with a branch or two: its bytes cost
 * this many times the bytes of a plain scan. */
#define SET_COST 4
#define PATTERN_ESC '%'
#define PATTERN_SPECIALS "^$*+?.([%-"

#define CAP_UNFINISHED (-1)
#define CAP_POSITION (-2)

typedef struct pattern_state {
    lua_State *L;
    const lprop_meter *meter; /* NULL: nothing counted */
    const char *src, *src_end;
    const char *pat_end;
    long long steps; /* not yet given to the meter */
    int depth;       /* nested matches still allowed */
    int level;       /* captures open or closed */
    struct {
        const char *start;
        ptrdiff_t len; /* or CAP_UNFINISHED, CAP_POSITION */
    } cap[PATTERN_MAXCAPTURES];
} pattern_state;

static void
give_steps(pattern_state *ms)
{
    long long n = ms->steps;

    ms->steps = 0;
    if (ms->meter != NULL && n > 0)
        ms->meter->charge(ms->L, n);
}

static void
step(pattern_state *ms)
{
    if (++ms->steps >= PATTERN_TICK)
        give_steps(ms);
}

/* A scan of n bytes (of a set, a replacement, a back-reference). */
static void
scan_steps(pattern_state *ms, size_t n)
{
    ms->steps += 1 + (long long)(n / LPROP_BYTES_AN_INSTRUCTION);
    if (ms->steps >= PATTERN_TICK)
        give_steps(ms);
}

/* luaL_error, after the steps so far are given to the meter: a site that
 * catches malformed patterns with pcall pays for the matching it caused. */
static int
pattern_error(pattern_state *ms, const char *fmt, ...)
{
    va_list ap;

    give_steps(ms);
    luaL_where(ms->L, 1);
    va_start(ap, fmt);
    lua_pushvfstring(ms->L, fmt, ap);
    va_end(ap);
    lua_concat(ms->L, 2);
    return lua_error(ms->L);
}

static void
state_init(pattern_state *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp)
{
    ms->L = L;
    ms->meter = lua_touserdata(L, lua_upvalueindex(1));
    ms->src = s;
    ms->src_end = s + ls;
    ms->pat_end = p + lp;
    ms->steps = 0;
    ms->depth = PATTERN_MAXDEPTH;
    ms->level = 0;
}

/* Before each attempt at a new place of the subject. */
static void
state_reset(pattern_state *ms)
{
    ms->level = 0;
    ms->depth = PATTERN_MAXDEPTH;
}

/* The end of the single-character class that starts at p. */
static const char *
class_end(pattern_state *ms, const char *p)
{
    const char *start = p;

    switch (*p++) {
    case PATTERN_ESC:
        if (p == ms->pat_end)
            pattern_error(ms, "malformed pattern (ends with '%%')");
        return p + 1;
    case '[':
        if (*p == '^')
            p++;
        /* The first character of a set is itself even when it is ']'. */
        do {
            if (p == ms->pat_end)
                pattern_error(ms, "malformed pattern (missing ']')");
            if (*p++ == PATTERN_ESC && p < ms->pat_end)
                p++;
        } while (*p != ']');
        scan_steps(ms, SET_COST * (size_t)(p - start));
        return p + 1;
    default:
        return p;
    }
}

/* Whether c is in the class %cl. */
static int
class_has(int c, int cl)
{
    int in;

    switch (tolower(cl)) {
    case 'a':
        in = isalpha(c);
        break;
    case 'c':
        in = iscntrl(c);
        break;
    case 'd':
        in = isdigit(c);
        break;
    case 'g':
        in = isgraph(c);
        break;
    case 'l':
        in = islower(c);
        break;
    case 'p':
        in = ispunct(c);
        break;
    case 's':
        in = isspace(c);
        break;
    case 'u':
        in = isupper(c);
        break;
    case 'w':
        in = isalnum(c);
        break;
    case 'x':
        in = isxdigit(c);
        break;
    case 'z': /* deprecated, but Lua 5.4 still has it */
        in = c == 0;
        break;
    default:
        return cl == c; /* an escaped character stands for itself */
    }
    in = in != 0;
    return isupper(cl) ? !in : in;
}

/* Whether c is in the set [...] from p (at '[') to close (at its ']'). */
static int
set_has(int c, const char *p, const char *close)
{
    int yes = 1;

    p++;
    if (*p == '^') {
        yes = 0;
        p++;
    }
    while (p < close) {
        if (*p == PATTERN_ESC) {
            if (class_has(c, (unsigned char)p[1]))
                return yes;
            p += 2;
        } else if (p[1] == '-' && p + 2 < close) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
                return yes;
            p += 3;
        } else {
            if ((unsigned char)*p == c)
                return yes;
            p++;
        }
    }
    return !yes;
}

/* Whether the character at s matches the class from p to ep. */
static int
single_match(pattern_state *ms, const char *s, const char *p, const char *ep)
{
    int c;

    step(ms);
    if (s >= ms->src_end)
        return 0;
    c = (unsigned char)*s;
    switch (*p) {
    case '.':
        return 1;
    case PATTERN_ESC:
        return class_has(c, (unsigned char)p[1]);
    case '[':
        scan_steps(ms, SET_COST * (size_t)(ep - p));
        return set_has(c, p, ep - 1);
    default:
        return (unsigned char)*p == c;
    }
}

static const char *match(pattern_state *ms, const char *s, const char *p);

/* The longest run of the class, then shorter and shorter ones. */
static const char *
max_expand(pattern_state *ms, const char *s, const char *p, const char *ep)
{
    ptrdiff_t i = 0;
    const char *r;

    while (single_match(ms, s + i, p, ep))
        i++;
    for (; i >= 0; i--) {
        r = match(ms, s + i, ep + 1);
        if (r != NULL)
            return r;
    }
    return NULL;
}

/* The shortest run of the class, then longer and longer ones. */
static const char *
min_expand(pattern_state *ms, const char *s, const char *p, const char *ep)
{
    const char *r;

    for (;;) {
        r = match(ms, s, ep + 1);
        if (r != NULL)
            return r;
        if (!single_match(ms, s, p, ep))
            return NULL;
        s++;
    }
}

static const char *
start_capture(pattern_state *ms, const char *s, const char *p, ptrdiff_t what)
{
    const char *r;

    if (ms->level >= PATTERN_MAXCAPTURES)
        pattern_error(ms, "too many captures");
    ms->cap[ms->level].start = s;
    ms->cap[ms->level].len = what;
    ms->level++;
    r = match(ms, s, p);
    if (r == NULL)
        ms->level--;
    return r;
}

static const char *
end_capture(pattern_state *ms, const char *s, const char *p)
{
    int l;
    const char *r;

    for (l = ms->level - 1; l >= 0; l--)
        if (ms->cap[l].len == CAP_UNFINISHED)
            break;
    if (l < 0)
        pattern_error(ms, "invalid pattern capture");
    ms->cap[l].len = s - ms->cap[l].start;
    r = match(ms, s, p);
    if (r == NULL)
        ms->cap[l].len = CAP_UNFINISHED;
    return r;
}

/* %bxy at p (pointing at x): a run from x to its balancing y. */
static const char *
match_balance(pattern_state *ms, const char *s, const char *p)
{
    int open, close, depth = 1;

    if (p + 1 >= ms->pat_end)
        pattern_error(ms, "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->src_end || *s != *p)
        return NULL;
    open = *p;
    close = p[1];
    while (++s < ms->src_end) {
        step(ms);
        if (*s == close) {
            if (--depth == 0)
                return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

/* %1 to %9 at s: the text an earlier capture matched, again. */
static const char *
match_backref(pattern_state *ms, const char *s, int digit)
{
    int l = digit - '1';
    ptrdiff_t len;

    if (l < 0 || l >= ms->level || ms->cap[l].len == CAP_UNFINISHED)
        pattern_error(ms, "invalid capture index %%%d", l + 1);
    len = ms->cap[l].len;
    if (len < 0 || ms->src_end - s < len)
        return NULL;
    scan_steps(ms, (size_t)len);
    if (memcmp(ms->cap[l].start, s, (size_t)len) != 0)
        return NULL;
    return s + len;
}

/*
 * Match the pattern from p against the subject from s: the end of the
 * match, or NULL.  Items that need no backtracking loop here; the others
 * recurse, at most PATTERN_MAXDEPTH deep.
 */
static const char *
match(pattern_state *ms, const char *s, const char *p)
{
    const char *ep;

    if (ms->depth-- == 0)
        pattern_error(ms, "pattern too complex");
    step(ms);
    while (s != NULL && p != ms->pat_end) {
        switch (*p) {
        case '(':
            if (p + 1 < ms->pat_end && p[1] == ')')
                s = start_capture(ms, s, p + 2, CAP_POSITION);
            else
                s = start_capture(ms, s, p + 1, CAP_UNFINISHED);
            goto done;
        case ')':
            s = end_capture(ms, s, p + 1);
            goto done;
        case '$':
            if (p + 1 == ms->pat_end) {
                if (s != ms->src_end)
                    s = NULL;
                goto done;
            }
            break; /* a '$' elsewhere is itself */
        case PATTERN_ESC:
            if (p + 1 < ms->pat_end && p[1] == 'b') {
                s = match_balance(ms, s, p + 2);
                p += 4;
                continue;
            }
            if (p + 1 < ms->pat_end && p[1] == 'f') {
                int before, here;

                p += 2;
                if (*p != '[')
                    pattern_error(ms, "missing '[' after '%%f' in pattern");
                ep = class_end(ms, p);
                before = s == ms->src ? 0 : (unsigned char)s[-1];
                here = s < ms->src_end ? (unsigned char)*s : 0;
                scan_steps(ms, 2 * SET_COST * (size_t)(ep - p));
                if (set_has(before, p, ep - 1) || !set_has(here, p, ep - 1))
                    s = NULL;
                p = ep;
                continue;
            }
            if (p + 1 < ms->pat_end && isdigit((unsigned char)p[1])) {
                s = match_backref(ms, s, (unsigned char)p[1]);
                p += 2;
                continue;
            }
            break;
        default:
            break;
        }
        /* A single-character class, maybe with a quantifier. */
        ep = class_end(ms, p);
        if (!single_match(ms, s, p, ep)) {
            if (*ep == '*' || *ep == '?' || *ep == '-') {
                p = ep + 1; /* zero of them will do */
                continue;
            }
            s = NULL;
            break;
        }
        switch (*ep) {
        case '?': {
            const char *r = match(ms, s + 1, ep + 1);

            if (r != NULL) {
                s = r;
                goto done;
            }
            p = ep + 1;
            continue;
        }
        case '+':
            s = max_expand(ms, s + 1, p, ep);
            goto done;
        case '*':
            s = max_expand(ms, s, p, ep);
            goto done;
        case '-':
            s = min_expand(ms, s, p, ep);
            goto done;
        default:
            s++;
            p = ep;
            continue;
        }
    }
done:
    ms->depth++;
    return s;
}

/*
 * Push capture i of the match from s to e (the whole match when the
 * pattern has no captures and i is 0).  Returns its length, or
 * CAP_POSITION when it pushed a position; *start is its text.
 */
static ptrdiff_t
get_capture(pattern_state *ms, int i, const char *s, const char *e, const char **start)
{
    if (i >= ms->level) {
        if (i != 0)
            pattern_error(ms, "invalid capture index %%%d", i + 1);
        *start = s;
        return e - s;
    }
    *start = ms->cap[i].start;
    if (ms->cap[i].len == CAP_UNFINISHED)
        pattern_error(ms, "unfinished capture");
    if (ms->cap[i].len == CAP_POSITION)
        lua_pushinteger(ms->L, ms->cap[i].start - ms->src + 1);
    return ms->cap[i].len;
}

static void
push_capture(pattern_state *ms, int i, const char *s, const char *e)
{
    const char *start;
    ptrdiff_t len = get_capture(ms, i, s, e, &start);

    if (len != CAP_POSITION)
        lua_pushlstring(ms->L, start, (size_t)len);
}

/* Push every capture (or the whole match when there are none and s is
 * not NULL); returns how many. */
static int
push_captures(pattern_state *ms, const char *s, const char *e)
{
    int i, n = ms->level == 0 && s != NULL ? 1 : ms->level;

    luaL_checkstack(ms->L, n, "too many captures");
    for (i = 0; i < n; i++)
        push_capture(ms, i, s, e);
    return n;
}

/* A string position from Lua's 1-based, maybe negative, init. */
static size_t
start_index(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

static int
no_specials(const char *p, size_t lp)
{
    size_t i;

    for (i = 0; i < lp; i++)
        if (p[i] != '\0' && strchr(PATTERN_SPECIALS, p[i]) != NULL)
            return 0;
    return 1;
}

static int
find_or_match(lua_State *L, int find)
{
    size_t ls, lp, init;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *at, *e;
    pattern_state ms;
    int anchor, n;

    init = start_index(luaL_optinteger(L, 3, 1), ls);
    if (init > ls + 1) {
        luaL_pushfail(L);
        return 1;
    }
    state_init(&ms, L, s, ls, p, lp);
    if (find && (lua_toboolean(L, 4) || no_specials(p, lp))) {
        /* memmem of an empty needle is the haystack's start, as Lua's. */
        at = memmem(s + init - 1, ls - (init - 1), p, lp);
        ms.steps = (long long)((ls - (init - 1) + lp) / LPROP_BYTES_AN_INSTRUCTION);
        give_steps(&ms);
        if (at == NULL) {
            luaL_pushfail(L);
            return 1;
        }
        lua_pushinteger(L, at - s + 1);
        lua_pushinteger(L, (lua_Integer)(at - s + lp));
        return 2;
    }
    anchor = *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    ms.pat_end = p + lp;
    /* Each place from init to the end (the empty rest included), or init
     * alone when anchored. */
    for (at = s + init - 1;; at++) {
        state_reset(&ms);
        e = match(&ms, at, p);
        if (e != NULL) {
            give_steps(&ms);
            if (!find)
                return push_captures(&ms, at, e);
            lua_pushinteger(L, at - s + 1);
            lua_pushinteger(L, e - s);
            n = push_captures(&ms, NULL, NULL);
            return n + 2;
        }
        if (anchor || at == ms.src_end)
            break;
    }
    give_steps(&ms);
    luaL_pushfail(L);
    return 1;
}

static int
l_find(lua_State *L)
{
    return find_or_match(L, 1);
}

static int
l_match(lua_State *L)
{
    return find_or_match(L, 0);
}

/* The state of one gmatch loop: a userdata kept by its iterator. */
typedef struct gmatch_state {
    const char *at;        /* where the next attempt starts */
    const char *lastmatch; /* end of the last match: no empty match there */
    const char *pat;
    int over; /* past the end: nothing more to match */
    pattern_state ms;
} gmatch_state;

static int
gmatch_next(lua_State *L)
{
    gmatch_state *gm = lua_touserdata(L, lua_upvalueindex(4));
    const char *e;

    gm->ms.L = L;
    if (gm->over)
        return 0;
    for (;;) {
        state_reset(&gm->ms);
        e = match(&gm->ms, gm->at, gm->pat);
        if (e != NULL && e != gm->lastmatch) {
            const char *start = gm->at;

            gm->at = gm->lastmatch = e;
            give_steps(&gm->ms);
            return push_captures(&gm->ms, start, e);
        }
        if (gm->at == gm->ms.src_end)
            break;
        gm->at++;
    }
    gm->over = 1;
    give_steps(&gm->ms);
    return 0;
}

static int
l_gmatch(lua_State *L)
{
    size_t ls, lp, init;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    const lprop_meter *meter = lua_touserdata(L, lua_upvalueindex(1));
    gmatch_state *gm;

    init = start_index(luaL_optinteger(L, 3, 1), ls);
    lua_settop(L, 2);
    gm = lua_newuserdatauv(L, sizeof *gm, 0);
    gm->over = init > ls + 1;
    if (gm->over)
        init = ls + 1;
    state_init(&gm->ms, L, s, ls, p, lp);
    gm->ms.meter = meter;
    gm->at = s + init - 1;
    gm->lastmatch = NULL;
    gm->pat = p;
    /* The strings stay alive, and in place, as upvalues of the iterator:
     * the meter, the subject, the pattern and this state. */
    lua_pushlightuserdata(L, (void *)meter);
    lua_insert(L, 1);
    lua_pushcclosure(L, gmatch_next, 4);
    return 1;
}

/* Append the replacement string (argument 3) for the match s..e. */
static void
add_template(pattern_state *ms, luaL_Buffer *b, const char *s, const char *e)
{
    lua_State *L = ms->L;
    size_t len;
    const char *t = lua_tolstring(L, 3, &len), *esc, *start;
    ptrdiff_t clen;

    scan_steps(ms, len);
    while ((esc = memchr(t, PATTERN_ESC, len)) != NULL) {
        luaL_addlstring(b, t, (size_t)(esc - t));
        step(ms);
        esc++;
        if (*esc == PATTERN_ESC) {
            luaL_addchar(b, PATTERN_ESC);
        } else if (*esc == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)*esc)) {
            clen = get_capture(ms, *esc - '1', s, e, &start);
            if (clen == CAP_POSITION)
                luaL_addvalue(b);
            else
                luaL_addlstring(b, start, (size_t)clen);
        } else {
            pattern_error(ms, "invalid use of '%c' in replacement string", PATTERN_ESC);
        }
        len -= (size_t)(esc + 1 - t);
        t = esc + 1;
    }
    luaL_addlstring(b, t, len);
}

/* Append the replacement for the match s..e; 1 when it changed the text. */
static int
add_replacement(pattern_state *ms, luaL_Buffer *b, const char *s, const char *e, int type)
{
    lua_State *L = ms->L;

    if (type == LUA_TFUNCTION) {
        int n;

        lua_pushvalue(L, 3);
        n = push_captures(ms, s, e);
        lua_call(L, n, 1);
    } else if (type == LUA_TTABLE) {
        push_capture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(ms, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) { /* false or nil: the match stays */
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int
l_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *at = s, *lastmatch = NULL, *e;
    int type = lua_type(L, 3), anchor, changed = 0;
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1), n = 0;
    pattern_state ms;
    luaL_Buffer b;

    luaL_argexpected(L,
                     type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION ||
                         type == LUA_TTABLE,
                     3, "string/function/table");
    luaL_buffinit(L, &b);
    anchor = *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    state_init(&ms, L, s, ls, p, lp);
    while (n < max) {
        state_reset(&ms);
        e = match(&ms, at, p);
        if (e != NULL && e != lastmatch) {
            n++;
            give_steps(&ms); /* before the site's function runs */
            changed |= add_replacement(&ms, &b, at, e, type);
            at = lastmatch = e;
        } else if (at < ms.src_end) {
            luaL_addchar(&b, *at++);
        } else {
            break;
        }
        if (anchor)
            break;
    }
    give_steps(&ms);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, at, (size_t)(ms.src_end - at));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

void
lprop_pattern_register(lua_State *L, const lprop_meter *meter)
{
    static const luaL_Reg fns[] = {
        {"find", l_find}, {"match", l_match}, {"gmatch", l_gmatch}, {"gsub", l_gsub}, {NULL, NULL}};

    lua_pushlightuserdata(L, (void *)meter);
    luaL_setfuncs(L, fns, 1);
}
