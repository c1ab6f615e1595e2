/*
 * lprop_archive.h - the engine's archive reader (engine/src/archive.c) as
 * functions of prop.core (lprop_archive.c), for archive.extracted and
 * file.downloaded, with a download and a checksum on this machine.
 */
#ifndef LPROP_ARCHIVE_H
#define LPROP_ARCHIVE_H

#include <lua.h>

/*
 * Set on the table at the stack top (prop.core):
 *   archive_entries(bytes, name [, { strip=, exclude= }])
 *     -> the archive's entries in order, each { path=, type= ("file",
 *        "directory", "symlink" or "hardlink"), mode=, uid=, gid=,
 *        uname=, gname=, size=, target= (a link's), content= (a file's) },
 *        or nil and why (naming the archive as name, and the entry):
 *        not an archive, corrupt, cut short, or an unsafe entry.
 *   fetch_url(url)  -> the bytes at url (http, https, ftp), fetched on
 *                      this machine with curl, or nil and why
 *   sha256(bytes)   -> their SHA-256 as 64 lowercase hex digits
 */
void lprop_archive_register(lua_State *L);

#endif /* LPROP_ARCHIVE_H */
