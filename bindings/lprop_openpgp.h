/*
 * lprop_openpgp.h - the engine's OpenPGP walker and base64 codec, as
 * functions of prop.core (lprop_openpgp.c), for the recipes that check
 * OpenPGP data when a site is read (apt.key).
 */
#ifndef LPROP_OPENPGP_H
#define LPROP_OPENPGP_H

#include <lua.h>

#include "lprop_state.h"

/*
 * Set on the table at the stack top (prop.core):
 *   base64_decode(text)   -> the bytes, or nil when text is not base64
 *                            (strict: padded groups of four, no blanks)
 *   crc24(bytes)          -> the armor's checksum of bytes (an integer)
 *   openpgp_packets(bytes) -> the packets' tags in order, or nil and why
 *                            they are not whole packets of a key (no
 *                            partial or indeterminate lengths)
 */
void lprop_openpgp_register(lua_State *L);

#endif /* LPROP_OPENPGP_H */
