/*
 * lprop_openpgp.c - prop.core's base64_decode, crc24 and
 * openpgp_packets: the engine's codec and walker (engine/src/base64.c,
 * openpgp.c) for recipes, so that apt.key and the secret store read
 * OpenPGP the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "base64.h"
#include "lprop_openpgp.h"
#include "openpgp.h"

static int
l_base64_decode(lua_State *L)
{
    size_t len, n = 0;
    const char *s = luaL_checklstring(L, 1, &len);
    unsigned char *out = NULL;
    int rc;

    if (memchr(s, '\0', len) != NULL) { /* the codec reads a C string */
        lua_pushnil(L);
        return 1;
    }
    rc = prop_base64_decode(s, &out, &n);
    if (rc == ENOMEM)
        return luaL_error(L, "out of memory decoding base64");
    if (rc != 0) {
        lua_pushnil(L);
        return 1;
    }
    return lprop_push_and_free(L, (char *)out, n);
}

static int
l_crc24(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);

    lua_pushinteger(L, (lua_Integer)prop_pgp_crc24((const unsigned char *)s, len));
    return 1;
}

static int
l_openpgp_packets(lua_State *L)
{
    size_t len, pos = 0;
    const unsigned char *p = (const unsigned char *)luaL_checklstring(L, 1, &len);
    prop_pgp_packet pkt;
    prop_pgp_bad bad = PROP_PGP_NOT_PACKET;
    lua_Integer k = 0;
    int r;

    lua_newtable(L);
    while ((r = prop_pgp_next(p, len, &pos, 0, &pkt, &bad)) == 1) {
        lua_pushinteger(L, pkt.tag);
        lua_rawseti(L, -2, ++k);
    }
    if (r == 0)
        return 1;
    lua_pushnil(L);
    switch (bad) {
    case PROP_PGP_NOT_PACKET:
        lua_pushfstring(L, "byte %I does not start a packet", (lua_Integer)(pos + 1));
        break;
    case PROP_PGP_CUT_HEADER:
        lua_pushliteral(L, "it ends inside a packet header (cut short?)");
        break;
    case PROP_PGP_CUT_BODY:
        lua_pushliteral(L, "it ends inside a packet (cut short?)");
        break;
    case PROP_PGP_PARTIAL:
        lua_pushliteral(L, "a packet of partial lengths, which keys do not have");
        break;
    case PROP_PGP_INDETERMINATE:
    default:
        lua_pushliteral(L, "a packet of indeterminate length");
        break;
    }
    return 2;
}

static const luaL_Reg openpgp_funcs[] = {{"base64_decode", l_base64_decode},
                                         {"crc24", l_crc24},
                                         {"openpgp_packets", l_openpgp_packets},
                                         {NULL, NULL}};

void
lprop_openpgp_register(lua_State *L)
{
    luaL_setfuncs(L, openpgp_funcs, 0);
}
