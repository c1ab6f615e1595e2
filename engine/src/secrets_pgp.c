/*
 * secrets_pgp.c - OpenPGP for the secret store, through GPGME.
 *
 * GPGME drives the user's gpg: its keyring (GNUPGHOME or ~/.gnupg) and
 * its gpg-agent, which asks for passphrases through its pinentry unless
 * the caller gave a passphrase callback (then loopback pinentry).  The
 * store's file names each recipient by the fingerprint of its primary
 * key; encryption goes to those keys as they are, without gpg's web of
 * trust (listing a fingerprint in the store is the decision to trust
 * it) and without the encrypt-to keys of gpg.conf (the store must list
 * everyone who can read it).
 *
 * Plaintext never goes through a file or an argv: GPGME gives it to gpg
 * through a pipe, and decrypted bytes come back through a callback
 * straight into locked memory (secmem.c).  GPGME's own small transfer
 * buffers are beyond prop's reach.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "alloc.h"
#include "secrets_impl.h"

struct pgp_ctx {
    gpgme_ctx_t ctx;
    int loopback; /* the passphrase callback is installed */
    int attempts; /* passphrases asked for during the current operation */
    int bad;      /* gpg said one of them was wrong */
};

struct pgp_keys {
    gpgme_key_t *keys; /* NULL-terminated */
    size_t n;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static const char *init_error; /* NULL when GPGME and gpg are usable */
static char init_detail[256];

static void
init_gpgme(void)
{
    gpgme_error_t err;

    if (gpgme_check_version("1.13.0") == NULL) {
        init_error = "the GPGME library is older than 1.13";
        return;
    }
    err = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP);
    if (err) {
        snprintf(init_detail, sizeof init_detail,
                 "gpg (GnuPG) cannot be used: %s (is the gnupg package installed?)",
                 gpgme_strerror(err));
        init_error = init_detail;
    }
}

void
pgp_free(pgp_ctx *c)
{
    if (c == NULL)
        return;
    if (c->ctx)
        gpgme_release(c->ctx);
    free(c);
}

static int
gpg_fail(prop_secrets *s, gpgme_error_t err, const char *what)
{
    return secrets_fail(s, PROP_ERROR, "%s: %s", what, gpgme_strerror(err));
}

/* GPGME asks for a passphrase: ask the caller's function. */
static gpgme_error_t
passphrase_cb(void *hook, const char *uid_hint, const char *info, int prev_was_bad, int fd)
{
    prop_secrets *s = hook;
    pgp_ctx *c = s->pgp;
    char buf[1024];
    size_t n;
    int rc;

    (void)info;
    if (prev_was_bad)
        c->bad = 1;
    c->attempts++;
    if (s->pass_fn == NULL)
        return gpg_error(GPG_ERR_CANCELED);
    memset(buf, 0, sizeof buf);
    rc = s->pass_fn(s->pass_ud, uid_hint, c->attempts, buf, sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    if (rc != 0) {
        secmem_wipe(buf, sizeof buf);
        return gpg_error(GPG_ERR_CANCELED);
    }
    n = strlen(buf);
    buf[n++] = '\n'; /* room kept above */
    rc = gpgme_io_writen(fd, buf, n);
    secmem_wipe(buf, sizeof buf);
    return rc == 0 ? 0 : gpgme_error_from_errno(errno);
}

/* The GPGME context of s, made on first use. */
static int
ctx_of(prop_secrets *s, pgp_ctx **out)
{
    pgp_ctx *c = s->pgp;
    gpgme_error_t err;

    *out = NULL;
    (void)pthread_once(&init_once, init_gpgme);
    if (init_error)
        return secrets_fail(s, PROP_ERROR, "%s", init_error);
    if (c == NULL) {
        c = prop_calloc(1, sizeof *c);
        if (c == NULL)
            return secrets_fail(s, PROP_ENOMEM, "out of memory");
        err = gpgme_new(&c->ctx);
        if (!err)
            err = gpgme_set_protocol(c->ctx, GPGME_PROTOCOL_OpenPGP);
        if (err) {
            pgp_free(c);
            return gpg_fail(s, err, "cannot start GPGME");
        }
        gpgme_set_armor(c->ctx, 0);
        /* Never look keys up on the network. */
        gpgme_set_offline(c->ctx, 1);
        s->pgp = c;
    }
    if (s->pass_fn && !c->loopback) {
        err = gpgme_set_pinentry_mode(c->ctx, GPGME_PINENTRY_MODE_LOOPBACK);
        if (err)
            return gpg_fail(s, err, "cannot ask gpg for loopback pinentry");
        gpgme_set_passphrase_cb(c->ctx, passphrase_cb, s);
        c->loopback = 1;
    } else if (!s->pass_fn && c->loopback) {
        err = gpgme_set_pinentry_mode(c->ctx, GPGME_PINENTRY_MODE_DEFAULT);
        if (err)
            return gpg_fail(s, err, "cannot reset gpg's pinentry mode");
        gpgme_set_passphrase_cb(c->ctx, NULL, NULL);
        c->loopback = 0;
    }
    c->attempts = c->bad = 0;
    *out = c;
    return PROP_OK;
}

/* Why key cannot be used to encrypt, or NULL when it can. */
static const char *
unusable(gpgme_key_t key)
{
    if (key->revoked)
        return "it is revoked";
    if (key->expired)
        return "it has expired";
    if (key->disabled)
        return "it is disabled";
    if (key->invalid)
        return "gpg says it is invalid";
    if (!key->can_encrypt)
        return "it has no subkey that can encrypt (add one: gpg --quick-add-key FPR cv25519 "
               "encr)";
    return NULL;
}

void
pgp_keys_free(pgp_keys *k)
{
    size_t i;

    if (k == NULL)
        return;
    for (i = 0; i < k->n; i++)
        gpgme_key_unref(k->keys[i]);
    free(k->keys);
    free(k);
}

int
pgp_keys_get(prop_secrets *s, char *const *fprs, size_t n, pgp_keys **out)
{
    pgp_ctx *c;
    pgp_keys *k;
    gpgme_error_t err;
    const char *why;
    size_t i;
    int rc;

    *out = NULL;
    if ((rc = ctx_of(s, &c)) != PROP_OK)
        return rc;
    k = prop_calloc(1, sizeof *k);
    if (k == NULL || (k->keys = prop_calloc(n + 1, sizeof *k->keys)) == NULL) {
        free(k);
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    }
    for (i = 0; i < n; i++) {
        err = gpgme_get_key(c->ctx, fprs[i], &k->keys[i], 0);
        if (gpg_err_code(err) == GPG_ERR_EOF || (!err && k->keys[i] == NULL)) {
            rc = secrets_fail(s, PROP_ERROR,
                              "no public key for recipient %s in the keyring (import it with "
                              "gpg --import)",
                              fprs[i]);
            goto fail;
        }
        if (err) {
            rc = secrets_fail(s, PROP_ERROR, "cannot look up the key of recipient %s: %s", fprs[i],
                              gpgme_strerror(err));
            goto fail;
        }
        k->n = i + 1;
        if ((why = unusable(k->keys[i])) != NULL) {
            rc = secrets_fail(s, PROP_ERROR, "cannot encrypt to recipient %s: %s", fprs[i], why);
            goto fail;
        }
    }
    *out = k;
    return PROP_OK;

fail:
    pgp_keys_free(k);
    return rc;
}

int
pgp_encrypt(prop_secrets *s, pgp_keys *k, const unsigned char *plain, size_t len,
            unsigned char **out, size_t *outlen)
{
    pgp_ctx *c;
    gpgme_data_t in = NULL, cipher = NULL;
    gpgme_encrypt_result_t res;
    gpgme_error_t err;
    char *mem = NULL;
    size_t n = 0;
    int rc;

    *out = NULL;
    *outlen = 0;
    if ((rc = ctx_of(s, &c)) != PROP_OK)
        return rc;
    /* No copy: the plaintext stays in the caller's locked buffer. */
    err = gpgme_data_new_from_mem(&in, (const char *)plain, len, 0);
    if (!err)
        err = gpgme_data_new(&cipher);
    if (err) {
        rc = gpg_fail(s, err, "cannot encrypt");
        goto done;
    }
    err = gpgme_op_encrypt(c->ctx, k->keys,
                           GPGME_ENCRYPT_ALWAYS_TRUST | GPGME_ENCRYPT_NO_ENCRYPT_TO |
                               GPGME_ENCRYPT_NO_COMPRESS,
                           in, cipher);
    if (err) {
        res = gpgme_op_encrypt_result(c->ctx);
        if (res && res->invalid_recipients)
            rc = secrets_fail(s, PROP_ERROR, "cannot encrypt to recipient %s: %s",
                              res->invalid_recipients->fpr ? res->invalid_recipients->fpr : "?",
                              gpgme_strerror(res->invalid_recipients->reason));
        else
            rc = gpg_fail(s, err, "cannot encrypt");
        goto done;
    }
    mem = gpgme_data_release_and_get_mem(cipher, &n);
    cipher = NULL;
    if (mem == NULL || n == 0) {
        rc = secrets_fail(s, PROP_ERROR, "cannot encrypt: gpg gave no output");
        goto done;
    }
    *out = prop_malloc(n);
    if (*out == NULL) {
        rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(*out, mem, n);
    *outlen = n;
    rc = PROP_OK;

done:
    if (mem)
        gpgme_free(mem);
    gpgme_data_release(cipher);
    gpgme_data_release(in);
    return rc;
}

/* Decrypted bytes go straight into the locked buffer. */
static ssize_t
secbuf_write_cb(void *handle, const void *buf, size_t size)
{
    secbuf *b = handle;

    if (b->len + size > (size_t)PROP_SECRETS_VALUE_MAX + 2 * PROP_SECRETS_NAME_MAX + 32 ||
        secbuf_append(b, buf, size) != 0) {
        errno = ENOMEM;
        return -1;
    }
    return (ssize_t)size;
}

int
pgp_decrypt(prop_secrets *s, const unsigned char *msg, size_t len, secbuf *out, const char *what)
{
    static struct gpgme_data_cbs cbs = {NULL, secbuf_write_cb, NULL, NULL};
    pgp_ctx *c;
    gpgme_data_t in = NULL, plain = NULL;
    gpgme_decrypt_result_t res;
    gpgme_error_t err;
    int rc;

    if ((rc = ctx_of(s, &c)) != PROP_OK)
        return rc;
    secmem_harden();
    err = gpgme_data_new_from_mem(&in, (const char *)msg, len, 0);
    if (!err)
        err = gpgme_data_new_from_cbs(&plain, &cbs, out);
    if (err) {
        rc = gpg_fail(s, err, "cannot decrypt");
        goto done;
    }
    err = gpgme_op_decrypt(c->ctx, in, plain);
    res = gpgme_op_decrypt_result(c->ctx);
    switch (gpg_err_code(err)) {
    case GPG_ERR_NO_ERROR:
        if (res && res->legacy_cipher_nomdc) {
            rc = secrets_fail(s, PROP_ERROR,
                              "%s: the value is not integrity-protected (a legacy cipher "
                              "without MDC); set it again",
                              what);
            goto done;
        }
        rc = PROP_OK;
        goto done;
    case GPG_ERR_NO_SECKEY:
        rc = secrets_fail(s, PROP_ERROR,
                          "%s: no secret key in this keyring can decrypt it (the store is "
                          "encrypted to its recipients; see prop secret recipients)",
                          what);
        goto done;
    case GPG_ERR_BAD_PASSPHRASE:
        rc = secrets_fail(s, PROP_ERROR, "%s: wrong passphrase", what);
        goto done;
    case GPG_ERR_CANCELED:
    case GPG_ERR_FULLY_CANCELED:
        if (c->bad)
            rc = secrets_fail(s, PROP_ERROR, "%s: wrong passphrase", what);
        else
            rc = secrets_fail(s, PROP_ERROR, "%s: no passphrase was given (cancelled)", what);
        goto done;
    case GPG_ERR_NO_PIN_ENTRY:
    case GPG_ERR_NO_PASSPHRASE:
        rc = secrets_fail(s, PROP_ERROR,
                          "%s: gpg-agent could not ask for the passphrase (%s); unlock the "
                          "key first, for instance with gpg --decrypt on a terminal",
                          what, gpgme_strerror(err));
        goto done;
    case GPG_ERR_NO_DATA:
    case GPG_ERR_BAD_DATA:
    case GPG_ERR_DECRYPT_FAILED:
    case GPG_ERR_INV_PACKET:
        rc = secrets_fail(s, PROP_ERROR, "%s: cannot be decrypted: %s (the store is damaged?)",
                          what, gpgme_strerror(err));
        goto done;
    default:
        rc = secrets_fail(s, PROP_ERROR, "%s: cannot be decrypted: %s", what, gpgme_strerror(err));
        goto done;
    }

done:
    gpgme_data_release(plain);
    gpgme_data_release(in);
    if (rc != PROP_OK)
        secbuf_release(out);
    return rc;
}

/* A user id fit for a line of the store, or NULL. */
static const char *
clean_uid(gpgme_key_t key)
{
    gpgme_user_id_t u;

    for (u = key->uids; u; u = u->next)
        if (u->uid && !u->revoked && !u->invalid && u->uid[0] &&
            prop_text_clean(u->uid, strlen(u->uid)) && strlen(u->uid) <= 1024)
            return u->uid;
    return NULL;
}

/* Every key keyid names, in *keys (gpgme references) and *n. */
static int
list_keys(prop_secrets *s, const char *keyid, gpgme_key_t **keys, size_t *n)
{
    pgp_ctx *c;
    gpgme_key_t key, *v = NULL, *nv;
    gpgme_error_t err;
    size_t cnt = 0, i;
    int rc;

    *keys = NULL;
    *n = 0;
    if ((rc = ctx_of(s, &c)) != PROP_OK)
        return rc;
    err = gpgme_op_keylist_start(c->ctx, keyid, 0);
    while (!err) {
        err = gpgme_op_keylist_next(c->ctx, &key);
        if (err)
            break;
        nv = prop_realloc(v, (cnt + 1) * sizeof *v);
        if (nv == NULL) {
            gpgme_key_unref(key);
            (void)gpgme_op_keylist_end(c->ctx);
            rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
            goto fail;
        }
        v = nv;
        v[cnt++] = key;
    }
    if (gpg_err_code(err) != GPG_ERR_EOF) {
        (void)gpgme_op_keylist_end(c->ctx);
        rc = secrets_fail(s, PROP_ERROR, "cannot look up %s in the keyring: %s", keyid,
                          gpgme_strerror(err));
        goto fail;
    }
    *keys = v;
    *n = cnt;
    return PROP_OK;

fail:
    for (i = 0; i < cnt; i++)
        gpgme_key_unref(v[i]);
    free(v);
    return rc;
}

int
pgp_resolve(prop_secrets *s, const char *keyid, char **fpr, char **uid)
{
    gpgme_key_t *keys = NULL, one = NULL;
    const char *why = NULL, *u;
    size_t n = 0, i, usable = 0;
    int rc;

    *fpr = *uid = NULL;
    if ((rc = list_keys(s, keyid, &keys, &n)) != PROP_OK)
        return rc;
    for (i = 0; i < n; i++) {
        const char *w = unusable(keys[i]);
        if (w == NULL) {
            usable++;
            one = keys[i];
        } else if (why == NULL) {
            why = w;
        }
    }
    if (n == 0) {
        rc = secrets_fail(s, PROP_ERROR,
                          "no public key in the keyring matches \"%s\" (import it with gpg "
                          "--import)",
                          keyid);
    } else if (usable == 0) {
        rc = secrets_fail(s, PROP_ERROR, "the key \"%s\" names (%s) cannot encrypt: %s", keyid,
                          keys[0]->fpr ? keys[0]->fpr : "?", why);
    } else if (usable > 1) {
        rc = secrets_fail(s, PROP_ERROR,
                          "\"%s\" matches %zu keys that can encrypt; give the fingerprint of "
                          "one (gpg --list-keys \"%s\")",
                          keyid, usable, keyid);
    } else if (one->fpr == NULL) {
        rc = secrets_fail(s, PROP_ERROR, "gpg gave no fingerprint for \"%s\"", keyid);
    } else {
        *fpr = prop_strdup(one->fpr);
        u = clean_uid(one);
        if (u)
            *uid = prop_strdup(u);
        if (*fpr == NULL || (u && *uid == NULL)) {
            free(*fpr);
            free(*uid);
            *fpr = *uid = NULL;
            rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
        } else {
            rc = PROP_OK;
        }
    }
    for (i = 0; i < n; i++)
        gpgme_key_unref(keys[i]);
    free(keys);
    return rc;
}

int
pgp_fingerprints(prop_secrets *s, const char *keyid, char ***fprs, size_t *nfprs)
{
    gpgme_key_t *keys = NULL;
    char **v = NULL;
    size_t n = 0, i, k = 0;
    int rc;

    *fprs = NULL;
    *nfprs = 0;
    if ((rc = list_keys(s, keyid, &keys, &n)) != PROP_OK)
        return rc;
    if (n && (v = prop_calloc(n, sizeof *v)) == NULL)
        rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        if (v && keys[i]->fpr) {
            if ((v[k] = prop_strdup(keys[i]->fpr)) == NULL)
                rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
            else
                k++;
        }
        gpgme_key_unref(keys[i]);
    }
    free(keys);
    if (rc != PROP_OK) {
        for (i = 0; i < k; i++)
            free(v[i]);
        free(v);
        return rc;
    }
    *fprs = v;
    *nfprs = k;
    return PROP_OK;
}
