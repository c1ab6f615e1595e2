/*
 * repl_edit.c - prop repl's line editor (libedit): the prompt, the
 * history in ~/.prop_history, Tab completion (what it offers is
 * lua/prop/repl.lua's) and the reading of lines, from the editor on a
 * terminal or plain from standard input otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <lauxlib.h>

#include "repl.h"

#define PROMPT "prop> "
#define PROMPT_MORE ">> "
#define MAX_LISTED 200 /* completion candidates listed at most */
#define HISTORY_SIZE 1000
#define HISTORY_FILE ".prop_history"

static repl *
el_repl(EditLine *el)
{
    void *data = NULL;

    if (el_get(el, EL_CLIENTDATA, &data) != 0)
        return NULL;
    return data;
}

static char *
prompt(EditLine *el)
{
    repl *r = el_repl(el);
    static char main_prompt[] = PROMPT, more_prompt[] = PROMPT_MORE;

    return r && r->more ? more_prompt : main_prompt;
}

static int
terminal_width(void)
{
    struct winsize ws;

    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* List the candidates at index idx (a table) in columns, without strip bytes. */
static void
list_candidates(lua_State *L, int idx, lua_Integer n, size_t strip)
{
    size_t w = 1, len;
    lua_Integer i, shown = n > MAX_LISTED ? MAX_LISTED : n;
    int cols, col = 0;

    for (i = 1; i <= shown; i++) {
        lua_rawgeti(L, idx, i);
        len = lua_rawlen(L, -1);
        lua_pop(L, 1);
        if (len > strip && len - strip > w)
            w = len - strip;
    }
    cols = terminal_width() / (int)(w + 2);
    if (cols < 1)
        cols = 1;
    fputc('\n', stdout);
    for (i = 1; i <= shown; i++) {
        const char *s;
        lua_rawgeti(L, idx, i);
        s = lua_tolstring(L, -1, &len);
        s = len > strip ? s + strip : s;
        if (++col == cols || i == shown) {
            printf("%s\n", s);
            col = 0;
        } else {
            printf("%-*s", (int)(w + 2), s);
        }
        lua_pop(L, 1);
    }
    if (n > shown)
        printf("... and %lld more\n", (long long)(n - shown));
    fflush(stdout);
}

/*
 * Protected: complete the word before the cursor.  repl.complete gives the
 * word and its candidates; the longest prefix they share is inserted, and
 * when that adds nothing and there are several, they are listed.
 */
static int
p_complete(lua_State *L)
{
    repl *r = lua_touserdata(L, 1);
    const LineInfo *li = el_line(r->el);
    size_t wlen, clen, common = 0, strip;
    lua_Integer n, i;
    const char *word, *first, *c;
    int tbl;

    repl_push_module(L, r, "complete");
    repl_push_env(L, r);
    lua_pushlstring(L, li->buffer, (size_t)(li->cursor - li->buffer));
    lua_pushboolean(L, r->chunk.len == 0);
    lua_call(L, 3, 3);
    word = lua_tolstring(L, -3, &wlen);
    strip = (size_t)lua_tointeger(L, -2);
    tbl = lua_gettop(L);
    n = lua_istable(L, tbl) ? (lua_Integer)lua_rawlen(L, tbl) : 0;
    r->complete_rc = CC_ERROR;
    if (word == NULL || n == 0)
        return 0;
    lua_rawgeti(L, tbl, 1);
    first = lua_tolstring(L, -1, &common);
    for (i = 2; i <= n && first; i++) {
        size_t k = 0;
        lua_rawgeti(L, tbl, i);
        c = lua_tolstring(L, -1, &clen);
        while (c && k < common && k < clen && c[k] == first[k])
            k++;
        common = k;
        lua_pop(L, 1);
    }
    if (first && common > wlen) {
        lua_pushlstring(L, first + wlen, common - wlen);
        r->complete_rc = el_insertstr(r->el, lua_tostring(L, -1)) == 0 ? CC_REFRESH : CC_ERROR;
    } else if (n > 1) {
        list_candidates(L, tbl, n, strip);
        r->complete_rc = CC_REDISPLAY;
    } else {
        r->complete_rc = CC_REFRESH;
    }
    return 0;
}

static unsigned char
complete(EditLine *el, int ch)
{
    repl *r = el_repl(el);
    int failed;

    (void)ch;
    if (r == NULL || r->ctx == NULL)
        return CC_ERROR;
    repl_arm(r);
    failed = r->failed; /* a failed completion is not a failed input */
    if (repl_protect(r, p_complete, NULL, NULL) != LUA_OK) {
        r->failed = failed;
        return CC_REDISPLAY;
    }
    return (unsigned char)r->complete_rc;
}

/* ~/.prop_history, or NULL when there is no home directory. */
static char *
history_path(void)
{
    const char *home = getenv("HOME");
    struct passwd *pw;
    char *path;
    size_t n;

    if (home == NULL || *home == '\0') {
        pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    if (home == NULL || *home == '\0')
        return NULL;
    n = strlen(home) + sizeof HISTORY_FILE + 1;
    path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s", home, HISTORY_FILE);
    return path;
}

int
repl_editor_open(repl *r)
{
    HistEvent ev;

    r->hist = history_init();
    r->el = el_init("prop", stdin, stdout, stderr);
    if (r->hist == NULL || r->el == NULL)
        return -1;
    history(r->hist, &ev, H_SETSIZE, HISTORY_SIZE);
    history(r->hist, &ev, H_SETUNIQUE, 1);
    r->hist_path = history_path();
    if (r->hist_path)
        history(r->hist, &ev, H_LOAD, r->hist_path); /* none yet is fine */
    /* EL_ADDFN goes through el_wset with static names: el_set would copy
     * them into memory that el_end never frees. */
    if (el_set(r->el, EL_CLIENTDATA, (void *)r) != 0 || el_set(r->el, EL_EDITOR, "emacs") != 0 ||
        el_set(r->el, EL_SIGNAL, 1) != 0 || el_set(r->el, EL_PROMPT, prompt) != 0 ||
        el_set(r->el, EL_HIST, history, r->hist) != 0 ||
        el_wset(r->el, EL_ADDFN, L"prop-complete", L"complete a name", complete) != 0 ||
        el_set(r->el, EL_BIND, "^I", "prop-complete", NULL) != 0)
        return -1;
    el_source(r->el, NULL); /* the user's ~/.editrc, if any */
    return 0;
}

/* Remember an input, and write the history file (0600) at once. */
void
repl_history_add(repl *r, const char *text)
{
    HistEvent ev;
    int fd;

    if (r->hist == NULL || *text == '\0')
        return;
    history(r->hist, &ev, H_ENTER, text);
    if (r->hist_path == NULL)
        return;
    fd = open(r->hist_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0)
        close(fd);
    if ((fd < 0 || history(r->hist, &ev, H_SAVE, r->hist_path) < 0) && !r->hist_warned) {
        fprintf(stderr, "prop repl: cannot write %s: history is not kept\n", r->hist_path);
        r->hist_warned = 1;
    }
}

/*
 * The next line, without its newline: 1 read, 0 end of input, -1 Ctrl-C
 * (the pending input is dropped).  The line is valid until the next call.
 */
int
repl_read_line(repl *r, const char **line, size_t *len)
{
    ssize_t n;
    int count = 0;
    const char *s;

    if (r->tty) {
        s = el_gets(r->el, &count);
        if (s == NULL || count <= 0) {
            if (repl_interrupted || (count < 0 && errno == EINTR)) {
                repl_interrupted = 0;
                return -1;
            }
            return 0;
        }
        n = count;
    } else {
        errno = 0;
        n = getline(&r->line, &r->linecap, stdin);
        if (n < 0)
            return 0;
        s = r->line;
    }
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    *line = s;
    *len = (size_t)n;
    return 1;
}

void
repl_editor_close(repl *r)
{
    if (r->el)
        el_end(r->el);
    if (r->hist)
        history_end(r->hist);
    r->el = NULL;
    r->hist = NULL;
}
