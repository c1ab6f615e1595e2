/*
 * transport.c - the public transport functions: argument checks, then
 * the implementation's operation (see transport_impl.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "transport_impl.h"

/* Where the kept head of a message too long for t->err ends. */
#define ERR_HEAD 600

/*
 * The message goes in t->err.  One longer than that (a deep path in it)
 * keeps its head and its tail around " ... ", cut between characters:
 * the reason, which ends the message, is never lost to the path before
 * it.
 */
int
prop_transport_fail(prop_transport *t, const char *fmt, ...)
{
    va_list ap, again;
    char *full;
    size_t head = ERR_HEAD, tail;
    int n;

    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(t->err, sizeof t->err, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof t->err && (full = prop_malloc((size_t)n + 1)) != NULL) {
        vsnprintf(full, (size_t)n + 1, fmt, again);
        tail = sizeof t->err - ERR_HEAD - sizeof " ... ";
        while (head > 0 && ((unsigned char)full[head] & 0xC0) == 0x80)
            head--;
        while (tail > 0 && ((unsigned char)full[(size_t)n - tail] & 0xC0) == 0x80)
            tail--;
        snprintf(t->err, sizeof t->err, "%.*s ... %s", (int)head, full, full + (size_t)n - tail);
        free(full);
    }
    va_end(again);
    return PROP_ERROR;
}

void
prop_cmd_result_clear(prop_cmd_result *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
    r->out_len = r->err_len = 0;
    r->code = -1;
}

void
prop_transport_close(prop_transport *t)
{
    if (t)
        t->ops->close(t);
}

void
prop_transport_set_interrupt(prop_transport *t, const volatile sig_atomic_t *flag,
                             const volatile sig_atomic_t *signo)
{
    if (t) {
        t->intr = flag;
        t->intr_sig = signo;
    }
}

void
prop_transport_set_limits(prop_transport *t, size_t max_output, int timeout_s)
{
    if (t) {
        t->max_output = max_output;
        t->timeout_s = timeout_s > 0 ? timeout_s : 0;
    }
}

size_t
prop_transport_max_output(const prop_transport *t)
{
    return t && t->max_output ? t->max_output : PROP_DEFAULT_MAX_OUTPUT;
}

const char *
prop_transport_size_text(size_t n, char buf[32])
{
    if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
        snprintf(buf, 32, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, 32, "%zu KiB", n >> 10);
    else
        snprintf(buf, 32, "%zu bytes", n);
    return buf;
}

int
prop_transport_stops(const prop_transport *t)
{
    return t && t->intr ? (int)*t->intr : 0;
}

int
prop_transport_stop_signal(const prop_transport *t)
{
    int sig = t && t->intr_sig ? (int)*t->intr_sig : 0;

    return sig > 0 && sig < 65 ? sig : SIGTERM;
}

const char *
prop_transport_error(const prop_transport *t)
{
    return t ? t->err : "no transport";
}

const char *
prop_transport_name(const prop_transport *t)
{
    return t ? t->name : "none";
}

static int
run_cmd(prop_transport *t, const char *const *argv, const char *stdin_data, size_t stdin_len,
        prop_cmd_result *r, int changes)
{
    if (!t || !argv || !argv[0] || !r)
        return PROP_EINVAL;
    r->code = -1;
    r->out = r->err = NULL;
    r->out_len = r->err_len = 0;
    t->changes += (unsigned long)changes;
    return t->ops->run(t, argv, stdin_data, stdin_len, r);
}

int
prop_transport_run(prop_transport *t, const char *const *argv, const char *stdin_data,
                   size_t stdin_len, prop_cmd_result *r)
{
    return run_cmd(t, argv, stdin_data, stdin_len, r, 1);
}

int
prop_transport_query(prop_transport *t, const char *const *argv, const char *stdin_data,
                     size_t stdin_len, prop_cmd_result *r)
{
    return run_cmd(t, argv, stdin_data, stdin_len, r, 0);
}

int
prop_transport_prefetch(prop_transport *t, const char *const *paths, size_t npaths)
{
    size_t i;

    if (!t || (!paths && npaths))
        return PROP_EINVAL;
    for (i = 0; i < npaths; i++)
        if (!paths[i])
            return PROP_EINVAL;
    return t->ops->prefetch && npaths ? t->ops->prefetch(t, paths, npaths) : 0;
}

int
prop_transport_read(prop_transport *t, const char *path, char **data, size_t *len)
{
    if (!t || !path || !data || !len)
        return PROP_EINVAL;
    *data = NULL;
    *len = 0;
    return t->ops->read(t, path, data, len);
}

int
prop_transport_write(prop_transport *t, const char *path, const char *data, size_t len,
                     const prop_file_attrs *attrs)
{
    if (!t || !path || (!data && len))
        return PROP_EINVAL;
    return t->ops->write(t, path, data ? data : "", len, attrs);
}

int
prop_transport_stat(prop_transport *t, const char *path, prop_file_stat *st)
{
    if (!t || !path || !st)
        return PROP_EINVAL;
    return t->ops->stat(t, path, st);
}

int
prop_transport_remove(prop_transport *t, const char *path)
{
    if (!t || !path)
        return PROP_EINVAL;
    return t->ops->remove(t, path);
}

int
prop_transport_mkdir(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    if (!t || !path)
        return PROP_EINVAL;
    return t->ops->mkdir(t, path, attrs);
}

int
prop_transport_symlink(prop_transport *t, const char *target, const char *link)
{
    if (!t || !target || !link)
        return PROP_EINVAL;
    return t->ops->symlink(t, target, link);
}

int
prop_transport_chattr(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    if (!t || !path || !attrs)
        return PROP_EINVAL;
    return t->ops->chattr(t, path, attrs);
}

/* Set while prop_transport_chattr_hardlinks() runs, for the transports it goes through. */
static _Thread_local int chattr_hardlinks;

int
prop_transport_hardlinks_allowed(void)
{
    return chattr_hardlinks > 0;
}

int
prop_transport_chattr_hardlinks(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    int rc;

    if (!t || !path || !attrs)
        return PROP_EINVAL;
    chattr_hardlinks++;
    rc = t->ops->chattr(t, path, attrs);
    chattr_hardlinks--;
    return rc;
}

int
prop_transport_sync(prop_transport *t)
{
    if (!t)
        return PROP_EINVAL;
    return t->ops->sync ? t->ops->sync(t) : PROP_OK;
}

int
prop_transport_defer(prop_transport *t, int on)
{
    if (!t)
        return PROP_EINVAL;
    return t->ops->defer ? t->ops->defer(t, on != 0) : 0;
}

void
prop_transport_batch(prop_transport *t, unsigned long batch)
{
    if (t && t->ops->batch)
        t->ops->batch(t, batch);
}

int
prop_transport_settle(prop_transport *t)
{
    if (!t)
        return PROP_EINVAL;
    return t->ops->settle ? t->ops->settle(t) : PROP_OK;
}

size_t
prop_transport_outstanding(const prop_transport *t)
{
    return t && t->ops->outstanding ? t->ops->outstanding(t) : 0;
}

char *
prop_transport_batch_failure(prop_transport *t, unsigned long batch)
{
    return t && t->ops->batch_failure ? t->ops->batch_failure(t, batch) : NULL;
}

int
prop_transport_run_deferred(prop_transport *t, const char *const *argv, const char *stdin_data,
                            size_t stdin_len, const char *what)
{
    int rc;

    if (!t || !argv || !argv[0] || !what)
        return PROP_EINVAL;
    if (!t->ops->run_deferred)
        return 1;
    rc = t->ops->run_deferred(t, argv, stdin_data, stdin_len, what);
    if (rc == 0)
        t->changes++; /* a command: anything fetched may be stale */
    return rc;
}

int
prop_transport_lock(prop_transport *t)
{
    if (!t)
        return PROP_EINVAL;
    return t->ops->lock(t);
}

int
prop_transport_tcp(prop_transport *t, const prop_tcp_req *req, char **out, size_t *out_len)
{
    prop_tcp_req rq;

    if (!t || !req || !out || !out_len || req->port < 1 || req->port > 65535 ||
        (req->send_len && !req->send) || req->framing < PROP_TCP_CLOSE ||
        req->framing > PROP_TCP_CONNECT || req->timeout_ms < 0 || (req->host && !req->host[0]))
        return PROP_EINVAL;
    *out = NULL;
    *out_len = 0;
    rq = *req;
    if (!rq.host)
        rq.host = "127.0.0.1";
    if (rq.timeout_ms == 0)
        rq.timeout_ms = PROP_TCP_DEFAULT_TIMEOUT_MS;
    if (rq.max == 0)
        rq.max = PROP_TCP_DEFAULT_MAX;
    if (rq.framing == PROP_TCP_CONNECT)
        rq.send_len = 0;
    if (prop_transport_stops(t))
        return prop_transport_fail(t, "connect to %s:%d: interrupted", rq.host, rq.port);
    if (!t->ops->tcp)
        return prop_transport_fail(t, "connect to %s:%d: %s has no network of its own to reach",
                                   rq.host, rq.port, t->name);
    return t->ops->tcp(t, &rq, out, out_len);
}
