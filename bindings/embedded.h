/* The Lua modules compiled into the prop executable (see embed.cmake). */
#ifndef LPROP_EMBEDDED_H
#define LPROP_EMBEDDED_H
#include <stddef.h>

struct lprop_embedded {
    const char *module;    /* "prop.apt" */
    const char *chunkname; /* "=prop/apt.lua" */
    const char *text;
    size_t len;
};

/* Terminated by an entry whose module is NULL. */
extern const struct lprop_embedded lprop_embedded_modules[];
#endif
