/*
 * secrets.h - the encrypted secret store of a site.
 *
 * A site file (site.lua) keeps its secret values beside it in a store
 * (site.secrets) that can be committed to git.  Each value is encrypted
 * on its own with OpenPGP (through GPGME and the user's gpg keyring and
 * gpg-agent) to every recipient the store lists; the names, the hosts
 * each value is for and the recipients' fingerprints are plain text, so
 * a machine without any key can still list them and check a site.  The
 * file format is described in prop-secret(1).
 *
 * Ownership: a prop_secrets owns everything it hands out (strings and
 * decrypted values); all of it stays valid until prop_secrets_free(),
 * which wipes every decrypted value.  Decrypted values live in memory
 * that is locked (mlock) when the system allows it and excluded from core
 * dumps; the first decryption also makes the process non-dumpable.
 *
 * Error contract: PROP_OK, a named negative PROP_E* code, or PROP_ERROR;
 * the message is then available from prop_secrets_error().  A call that
 * changes the store writes the whole file atomically (temporary file,
 * fsync, rename, fsync of the directory), and leaves both the file and
 * the object as they were when it fails.  One prop_secrets is used by one
 * thread at a time.
 */
#ifndef PROP_SECRETS_H
#define PROP_SECRETS_H

#include <stddef.h>

#include "prop/prop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format version this prop reads and writes ("prop-secrets 1"). */
#define PROP_SECRETS_FORMAT 1
/* The longest name or host name, in bytes. */
#define PROP_SECRETS_NAME_MAX 255
/* The largest value, in bytes. */
#define PROP_SECRETS_VALUE_MAX (16u << 20)

typedef struct prop_secrets prop_secrets;

/*
 * Open the store at path; a store that does not exist is empty (no
 * recipients).  Parses names, hosts and recipients; decrypts nothing.
 * PROP_OK, PROP_ENOMEM, or PROP_ERROR with the reason from
 * prop_secrets_error (parse errors name file:line).  *out is set even on
 * failure (free it); what could be parsed is then readable, and every
 * change is refused.
 */
PROP_API int prop_secrets_open(prop_secrets **out, const char *path);
PROP_API void prop_secrets_free(prop_secrets *s); /* wipes every decrypted value; accepts NULL */
/* The message of the last failed call ("" if none). */
PROP_API const char *prop_secrets_error(const prop_secrets *s);
PROP_API const char *prop_secrets_path(const prop_secrets *s);

/* The entries, in file order: name, and host or NULL for a site-wide
 * value.  prop_secrets_entry gives PROP_EINVAL for i past the end. */
PROP_API size_t prop_secrets_count(const prop_secrets *s);
PROP_API int prop_secrets_entry(const prop_secrets *s, size_t i, const char **name,
                                const char **host);
/*
 * 1 when a value exists for name on host (a host-specific one, else a
 * site-wide one), else 0.  host may be NULL (site-wide only).
 */
PROP_API int prop_secrets_has(const prop_secrets *s, const char *name, const char *host);

/* The recipients' primary key fingerprints (upper-case hex), in file order. */
PROP_API size_t prop_secrets_nrecipients(const prop_secrets *s);
PROP_API const char *prop_secrets_recipient(const prop_secrets *s, size_t i);
/* The user id recorded beside recipient i when it was added, or NULL. */
PROP_API const char *prop_secrets_recipient_uid(const prop_secrets *s, size_t i);

/*
 * Decrypt the value for name on host (a host-specific one wins) once,
 * keep it in memory owned by s, and point *data and *len at it until
 * prop_secrets_free.  PROP_ENOTFOUND when there is no value; PROP_ERROR
 * with the reason (no secret key, wrong passphrase, a value that was
 * moved from another name, ...).
 */
PROP_API int prop_secrets_reveal(prop_secrets *s, const char *name, const char *host,
                                 const unsigned char **data, size_t *len);

/*
 * Changing the store; each writes the file atomically and leaves it (and
 * s) unchanged on any failure, including when the file was changed by
 * someone else since it was opened.  value is kept byte for byte.
 */
PROP_API int prop_secrets_set(prop_secrets *s, const char *name, const char *host,
                              const unsigned char *value, size_t len);
/* The same with the value read from fd up to its end (into locked memory only). */
PROP_API int prop_secrets_set_fd(prop_secrets *s, const char *name, const char *host, int fd);
PROP_API int prop_secrets_remove(prop_secrets *s, const char *name,
                                 const char *host); /* PROP_ENOTFOUND */

/*
 * Add or remove a recipient (a key id, fingerprint or user id that gpg
 * resolves to exactly one public key that can encrypt), then re-encrypt
 * every value to the new set (which needs to decrypt them all).  Adding a
 * recipient that is already listed changes nothing.  Removing the last
 * recipient is refused; removing one that is not listed is
 * PROP_ENOTFOUND.  A recipient to remove may also be named by the
 * fingerprint or key id written in the store when its key is no longer in
 * the keyring.
 */
PROP_API int prop_secrets_recipient_add(prop_secrets *s, const char *keyid);
PROP_API int prop_secrets_recipient_remove(prop_secrets *s, const char *keyid);

/*
 * Where to get a passphrase.  By default gpg-agent asks the user through
 * its pinentry.  With a callback, prop asks gpg-agent for loopback
 * pinentry and calls fn instead: attempt is 1 for the first try and
 * counts up after a wrong passphrase; fn writes a NUL-terminated
 * passphrase into buf (size bytes) and returns 0, or returns -1 to give
 * up.  uid_hint describes the key (may be NULL).  fn NULL: back to the
 * agent's pinentry.
 */
typedef int (*prop_secrets_passphrase_fn)(void *ud, const char *uid_hint, int attempt, char *buf,
                                          size_t size);
PROP_API void prop_secrets_set_passphrase_cb(prop_secrets *s, prop_secrets_passphrase_fn fn,
                                             void *ud);

/*
 * The path of the store of the site file at site: the file name with its
 * extension replaced by ".secrets" (site.lua -> site.secrets, site ->
 * site.secrets, conf.d/site -> conf.d/site.secrets).  *out is allocated
 * with malloc (free it).  PROP_EINVAL for an empty path, a directory path
 * or a path that is already a store's; PROP_ENOMEM.
 */
PROP_API int prop_secrets_store_path(char **out, const char *site);

/* Overwrite n bytes at p with zeros in a way the compiler cannot drop. */
PROP_API void prop_secrets_wipe(void *p, size_t n);

/* 1 when name is a valid secret name: [A-Za-z_][A-Za-z0-9_.-]*, at most PROP_SECRETS_NAME_MAX. */
PROP_API int prop_secrets_name_valid(const char *name);
/* 1 when host can name a host in a store: valid UTF-8, no blank or
 * control character, not "*", at most PROP_SECRETS_NAME_MAX bytes. */
PROP_API int prop_secrets_host_valid(const char *host);

#ifdef __cplusplus
}
#endif
#endif /* PROP_SECRETS_H */
