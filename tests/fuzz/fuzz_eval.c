/*
 * fuzz_eval.c - a libFuzzer target for the evaluation of a site and the
 * pre-pass.  Each input is a site file: it is written to ./fuzz-site.lua
 * (the fuzzer runs in a scratch directory, see run.sh), evaluated in the
 * sandbox under small limits exactly as prop lint does it (or, for inputs
 * of odd length, as prop run does, keeping each leaf's run-time data), and
 * checked by the pre-pass; the diagnostics, in text and JSON, and what
 * the site prints go to /dev/null.
 *
 * Built by -DPROP_FUZZ=ON with clang; tests/fuzz/run.sh builds and runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cli.h"

#define SITE "fuzz-site.lua"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* print(...) for fuzzed sites: each value is made a string, then dropped. */
static int
quiet_print(lua_State *L)
{
    int i, n = lua_gettop(L);

    for (i = 1; i <= n; i++) {
        luaL_tolstring(L, i, NULL);
        lua_pop(L, 1);
    }
    return 0;
}

/* Protected: print in the site's environment is quiet_print. */
static int
set_print(lua_State *L)
{
    lprop_ctx *ctx = lua_touserdata(L, 1);

    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
    lua_pushcfunction(L, quiet_print);
    lua_setfield(L, -2, "print");
    return 0;
}

static int
write_site(const uint8_t *data, size_t size)
{
    int fd = open(SITE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ssize_t n;

    if (fd < 0)
        return -1;
    while (size > 0) {
        n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cli_site_opts o;
    cli_load_times t;
    lprop_ctx *ctx;

    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        abort();
    if (write_site(data, size) != 0)
        abort();
    cli_site_opts_init(&o);
    o.color_out = o.color_err = 0;
    o.limits.max_instructions = 5000000;
    o.limits.max_memory = (size_t)64 << 20;
    o.limits.max_cpu = 1;
    o.limits.check_only = size % 2 == 0;
    o.limits.recipe_memo = 1;
    /* cli_load_site, with print made quiet before the evaluation. */
    ctx = lprop_open(&o.limits);
    if (ctx == NULL)
        return 0;
    lua_pushcfunction(ctx->L, set_print);
    lua_pushlightuserdata(ctx->L, ctx);
    if (lua_pcall(ctx->L, 1, 0, 0) != LUA_OK) {
        lprop_close(ctx);
        return 0;
    }
    (void)cli_eval_site(ctx, SITE, &t);
    prop_diags_print_text(ctx->site, devnull, 0, 0);
    prop_diags_print_json(ctx->site, devnull, 0);
    cli_print_summary(ctx, SITE, devnull, 0);
    lprop_close(ctx);
    return 0;
}
