/* The Lua modules compiled into the prop executable (see tools/embed_lua.c). */
#ifndef LPROP_EMBEDDED_H
#define LPROP_EMBEDDED_H
#include <stddef.h>

struct lprop_embedded {
    const char *module;    /* "prop.apt" */
    const char *chunkname; /* "=prop/apt.lua" */
    const char *text;      /* Lua bytecode, with debug information */
    size_t len;
    int recipe; /* from recipes/: a site may require it; the others are prop's own */
};

/* Terminated by an entry whose module is NULL. */
extern const struct lprop_embedded lprop_embedded_modules[];
#endif
