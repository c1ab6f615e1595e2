/*
 * lprop_property.h - the Property and Host userdata and the prop.core
 * module that makes them.
 */
#ifndef LPROP_PROPERTY_H
#define LPROP_PROPERTY_H

#include <stddef.h>

#include <lua.h>

#include "lprop_state.h"

#include "prop/prop.h"

#define LPROP_PROPERTY "prop.Property"
#define LPROP_HOST "prop.Host"

/* The registry tables core.leaf keeps each leaf's impl and args in, by behaviour number. */
#define LPROP_BEHAVIOURS "prop.behaviours"
#define LPROP_BEHAVIOUR_ARGS "prop.behaviour_args"
/* Tags (p:tag): registry table, light userdata of a node -> list of its
 * own tags; and the set of every tag the site used. */
#define LPROP_TAGS "prop.tags"
#define LPROP_ALL_TAGS "prop.all_tags"
/* Install the "prop.core" module into package.preload equivalent. */
int luaopen_prop_core(lua_State *L);

/* Push a new Property userdata for n / Host userdata for h. */
void lprop_push_node(lua_State *L, prop_node *n);
void lprop_push_host(lua_State *L, prop_host *h);
/* The node of the Property at idx, or NULL when it is not one. */
prop_node *lprop_tonode(lua_State *L, int idx);
prop_host *lprop_tohost(lua_State *L, int idx);

/*
 * Shared by the files of prop.core (lprop_property.c, lprop_entry.c,
 * lprop_host.c).
 */
/* A growable list of nodes in a Lua-owned buffer userdata at bufidx, and
 * beside each, the list of the site it was written in (lists[i] for v[i]:
 * the address of that Lua table, a token for prop_host_add_in). */
typedef struct {
    prop_node **v;
    const void **lists;
    size_t n, cap;
} lprop_nodebuf;
/* Append the properties of the list at idx to b (flattening nested plain
 * lists); `what` names the list in errors.  A hole or a non-property
 * raises. */
void lprop_collect_list(lua_State *L, int idx, lprop_nodebuf *b, int bufidx, const char *what,
                        int depth);
/* Plain tables (no metatable) are lists; anything else is not. */
int lprop_is_plain_list(lua_State *L, int idx);
/* Push "file:line" of o's innermost frame, or "?". */
void lprop_push_origin(lua_State *L, const prop_origin *o);
/* Add leaf, entry, invalid, ... (lprop_entry.c) to the core table on top. */
void lprop_entry_register(lua_State *L);
/* Make the Host metatable and add host, hosts, find_host and container
 * (lprop_host.c) to the core table on top. */
void lprop_host_register(lua_State *L);
/* The registry's list of the functions core.at_site_end was given
 * (lprop_host.c), which lprop_eval.c calls once the site file is
 * evaluated, before the pre-pass. */
#define LPROP_SITE_END_KEY "prop.site_end"

#endif /* LPROP_PROPERTY_H */
