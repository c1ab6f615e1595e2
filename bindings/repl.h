/*
 * repl.h - what prop repl's files share: the REPL's state (cmd_repl.c
 * reads inputs and runs them; repl_edit.c edits lines and completes).
 *
 * Ownership: the repl struct owns the state (ctx, replaced by :reload),
 * the editor and history, the pending input and the line buffer; all are
 * released by cmd_repl.c's repl_free().
 */
#ifndef REPL_H
#define REPL_H

#include <signal.h>
#include <stddef.h>

#include <histedit.h>
#include <lua.h>

#include "buf.h"
#include "cli.h"

typedef struct repl {
    const char *site; /* the site file, or NULL */
    cli_site_opts opts;
    lprop_ctx *ctx;
    int mod_ref;  /* the prop.repl module, in ctx's registry */
    int rejected; /* the site, as last loaded, has errors */
    int failed;   /* an input raised an error (the exit status when piped) */
    int tty;      /* reading from a terminal, with the editor */
    int more;     /* the pending input is an unfinished statement */
    int final;    /* end of input: an unfinished statement is an error */
    int complete_rc;
    EditLine *el;
    History *hist;
    char *hist_path;
    int hist_warned;
    prop_buf chunk; /* the pending input, lines joined with \n */
    char *line;     /* getline's buffer when not on a terminal */
    size_t linecap;
} repl;

/* Set by SIGINT (on a terminal only): stop the running input. */
extern volatile sig_atomic_t repl_interrupted;

/* cmd_repl.c */
/* Push field of the prop.repl module / the site's config environment. */
void repl_push_module(lua_State *L, repl *r, const char *field);
void repl_push_env(lua_State *L, repl *r);
/*
 * Run fn(r, a, b) as a protected call: r, a and b (C strings or NULL) are
 * light userdata, so that nothing is allocated before the call.  On error
 * the message is printed on standard error and r->failed is set.  Returns
 * the status of lua_pcall.
 */
int repl_protect(repl *r, lua_CFunction fn, const char *a, const char *b);
/* Before each input: a fresh budget (instructions and CPU time). */
void repl_arm(repl *r);

/* repl_edit.c */
/* Set up libedit and the history on the terminal: 0, or -1. */
int repl_editor_open(repl *r);
/* Release the editor and the history.  Accepts an editor not opened. */
void repl_editor_close(repl *r);
/* Remember an input, and write the history file (0600) at once. */
void repl_history_add(repl *r, const char *text);
/*
 * The next line, without its newline: 1 read, 0 end of input, -1 Ctrl-C
 * (the pending input is dropped).  The line is valid until the next call.
 */
int repl_read_line(repl *r, const char **line, size_t *len);

#endif /* REPL_H */
