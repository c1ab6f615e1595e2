/*
 * lprop.h - the Lua bindings: the glue between the engine (engine/, which
 * knows no Lua) and the sites, recipes and commands written in Lua.  This
 * header includes every lprop_*.h, for the commands and the run_*.c
 * files.  The lprop_*.c files themselves include only the headers of
 * what they call, and those form a ladder, each rung using only those
 * below it (tests/cli/test_include_cycles.sh keeps it so):
 *
 *   lprop_state.h    the ctx (a part of it for each file below) and the
 *                    helpers that raise errors and make Lua values
 *   lprop_budget.h   lprop_memo.h     (state)
 *   lprop_alloc.h    (state, budget)
 *   lprop_require.h  lprop_secret.h  lprop_openpgp.h   (state)
 *   lprop_property.h (state, budget, memo, require, secret, openpgp)
 *   lprop_eval.h     (all of them: it makes and closes the state)
 *
 * Where things are in bindings/:
 *   the state a site runs in
 *     lprop_state.c     the ctx of a state; the place of user code, errors
 *                       raised with it, Lua values made safely
 *     lprop_alloc.c     the allocator: slab pools, the memory limit
 *     lprop_budget.c    the instruction budget, the CPU clock, Ctrl-C,
 *                       the sandbox's pcall/xpcall
 *     lprop_require.c   require confined to the site's directory and
 *                       prop's embedded modules; site.file
 *     lprop_eval.c      making and closing the state, the sandbox's
 *                       libraries, evaluating the site, error messages
 *     lprop_memo.c      the memo of equal recipe calls (check only)
 *   the prop.core module
 *     lprop_property.c  the Property userdata, combinators, the module
 *     lprop_entry.c     core.leaf and core.entry: what recipes build on
 *     lprop_host.c      the Host userdata, host and container declaration
 *     lprop_secret.c    `secret "name"` values
 *     lprop_openpgp.c   core.base64_decode, crc24, openpgp_packets: the
 *                       engine's codec and OpenPGP walker for apt.key
 *     lprop_regex.c     core.regex_compile: POSIX extended regular
 *                       expressions (regcomp) for regex = options
 *     secret_uses.c     which host uses which secret (P015)
 *   at run time
 *     lsys.c            the `sys` handle a property's check/apply gets
 *     lsys_file.c       its file methods (lsys_methods.h: what they share)
 *     lsys_cmd.c        its command methods: sys:run, sys:query
 *     lsys_net.c        its network methods, for probes: sys:tcp, sys:http
 *   the prop command
 *     main.c            the table of subcommands
 *     cli.c             options, usage, loading a site
 *     cmd_<name>.c      one subcommand each (prop <name>)
 *     run_object.c      the run object (run_new, run_hosts, run_stop): its
 *                       stop flags and SIGINT and SIGTERM, its observer,
 *                       loading the site for it, the batches of --serial
 *                       and --max-fail, --twice (run.h: the run object,
 *                       and what the run_*.c files share; cmd_run.c, prop
 *                       pull, prop status, prop verify and the REPL's :plan
 *                       use it)
 *     run_jobs.c        prop run -j: hosts at once in forked children
 *     run_tags.c        prop run --tags and --skip-tags: which properties run
 *     run_host.c        one host: reaching it, its lock and OS, its properties
 *     run_prefetch.c    the files a host's properties will look at, told
 *                       to the transport before they run
 *     run_pending.c     owed triggers, kept on the target for the next run
 *     run_exec.c        the executor's callbacks: a leaf's check/apply in
 *                       Lua, only_if tests, each property's result
 *     run_defer.c       results that wait for answers (SSH writes sent
 *                       without waiting), and each property's notes meanwhile
 *     run_containers.c  a host's containers, run after it
 *     run_report.c      prop run's text and JSON output, the run's id and
 *                       commit, a host's summary line, --report
 *     run_metrics.c     a run's results as node_exporter textfile metrics
 *                       (prop verify --prometheus, prop pull --prometheus)
 *     pull_verify.c     prop pull's trusted keys, a commit's signature
 *                       (pull.h: what the pull_*.c files share with cmd_pull.c)
 *     pull_record.c     prop pull's run of the site (a run object) and what
 *                       it keeps of it, from the run's observer: last-run.json
 *     repl_edit.c       prop repl's line editor, history, completion
 *                       (repl.h: what it shares with cmd_repl.c)
 *     tools/embed_lua.c compiles lua/ and recipes/ into the executable
 * The bindings use the engine's private utility layer too (engine/src:
 * buf.h, array.h, base64.h, fileio.h, spawn.h; internal.h lists it): git and gpg
 * for prop pull and prop run's commit are run through spawn.h, reports and
 * metrics written and read through fileio.h.
 * How a host is reached and its OS detected is the engine's
 * (engine/src/host_connect.c, prop/transport.h).
 *
 * Ownership: one lprop_ctx per lua_State (lprop_state.h), made by
 * lprop_open() and freed by lprop_close() after lua_close().  The ctx owns the prop_site; every
 * userdata is a thin handle on a node or host of that site, and the site
 * outlives them all because it is freed only after the state is closed.
 *
 * The rule for C code here: no malloc'd pointer is live across a call
 * that can raise a Lua error.  Nearly every Lua API call that makes a
 * value can raise (a memory error at the limit, or the stop of the CPU
 * clock in a hook), and a raise is a longjmp past every free().  So
 * memory from malloc (a transport's result, a walk's stack) is turned into
 * Lua values inside a protected call (lprop_cpcall, lprop_push_and_free)
 * and freed before the error, if any, goes on; a walk of the graph that
 * pushes values collects its leaves first (lprop_each_leaf).  Outside any
 * protected call (the commands' own code) a raise ends in Lua's panic:
 * push there only inside lua_pcall.
 */
#ifndef LPROP_H
#define LPROP_H

#include "lprop_alloc.h"
#include "lprop_budget.h"
#include "lprop_eval.h"
#include "lprop_memo.h"
#include "lprop_property.h"
#include "lprop_require.h"
#include "lprop_secret.h"
#include "lprop_state.h"

#endif /* LPROP_H */
