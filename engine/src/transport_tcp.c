/*
 * transport_tcp.c - prop_transport_tcp() from this process: connect to a
 * port, send the request, read the answer until its framing says it is
 * whole, all within one deadline; and the same from the network
 * namespace of another process (a container's), entered by a child
 * process that hands the answer back on a pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "transport_impl.h"

static long long
tcp_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Whether the answer in b is whole: 1 (b cut to the answer), 0 not yet.
 * PROP_TCP_CLOSE is whole only when the peer closes.
 */
int
prop_tcp_whole(int framing, char *p, size_t *len)
{
    const char *nl;
    size_t need;

    switch (framing) {
    case PROP_TCP_LINE:
        if (*len && (nl = memchr(p, '\n', *len)) != NULL) {
            *len = (size_t)(nl - p) + 1;
            p[*len] = '\0';
            return 1;
        }
        return 0;
    case PROP_TCP_LEN16:
        if (*len < 2)
            return 0;
        need = 2 + ((size_t)(unsigned char)p[0] << 8 | (unsigned char)p[1]);
        if (*len < need)
            return 0;
        *len = need;
        p[need] = '\0';
        return 1;
    default:
        return 0;
    }
}

/* The failure's text in why (size 256); -1. */
static int say(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int
say(char *why, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, 256, fmt, ap);
    va_end(ap);
    return -1;
}

/* Wait for ev on fd until deadline, in slices that see an interruption. */
static int
wait_fd(const prop_transport *t, int fd, short ev, long long deadline, const prop_tcp_req *rq,
        char *why)
{
    for (;;) {
        struct pollfd p = {fd, ev, 0};
        long long left = deadline - tcp_now_ms();
        int n;

        if (t && prop_transport_stops(t))
            return say(why, "interrupted");
        if (left <= 0)
            return say(why, "timed out after %d ms", rq->timeout_ms);
        n = poll(&p, 1, left > 100 ? 100 : (int)left);
        if (n < 0 && errno != EINTR)
            return say(why, "poll: %s", strerror(errno));
        if (n > 0)
            return 0;
    }
}

/* A connected socket to rq's host and port, or -1 (why). */
static int
tcp_connect(const prop_transport *t, const prop_tcp_req *rq, long long deadline, char *why)
{
    struct addrinfo hints, *res = NULL, *a;
    char port[16];
    int fd = -1, rc, err = 0;
    socklen_t elen = sizeof err;

    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    snprintf(port, sizeof port, "%d", rq->port);
    rc = getaddrinfo(rq->host, port, &hints, &res);
    if (rc != 0)
        return say(why, "cannot resolve %s: %s", rq->host, gai_strerror(rc));
    for (a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            say(why, "socket: %s", strerror(errno));
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        if (errno == EINPROGRESS) {
            if (wait_fd(t, fd, POLLOUT, deadline, rq, why) < 0) {
                close(fd);
                fd = -1;
                break; /* the deadline is the whole call's */
            }
            err = 0;
            elen = sizeof err;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 && err == 0)
                break;
            errno = err ? err : errno;
        }
        say(why, "%s", strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/*
 * Connect, send, read the answer: 0 with the answer in b, or -1 with why.
 * t (may be NULL in a child) only for its interruption.
 */
static int
tcp_talk(const prop_transport *t, const prop_tcp_req *rq, prop_buf *b, char *why)
{
    long long deadline = tcp_now_ms() + rq->timeout_ms;
    size_t sent = 0;
    char chunk[16384];
    int fd;

    if ((fd = tcp_connect(t, rq, deadline, why)) < 0)
        return -1;
    if (rq->framing == PROP_TCP_CONNECT) {
        close(fd);
        return 0;
    }
    for (;;) {
        short ev = sent < rq->send_len ? POLLIN | POLLOUT : POLLIN;
        ssize_t n;

        if (wait_fd(t, fd, ev, deadline, rq, why) < 0) {
            if (b->len && rq->framing != PROP_TCP_CLOSE)
                snprintf(why + strlen(why), 256 - strlen(why), " (%zu bytes of the answer came)",
                         b->len);
            close(fd);
            return -1;
        }
        if (sent < rq->send_len) {
            n = send(fd, rq->send + sent, rq->send_len - sent, MSG_NOSIGNAL);
            if (n < 0 && errno != EAGAIN && errno != EINTR) {
                /* The peer may have answered and closed: read what it said. */
                if (errno != EPIPE && errno != ECONNRESET) {
                    say(why, "send: %s", strerror(errno));
                    close(fd);
                    return -1;
                }
                sent = rq->send_len;
            } else if (n > 0) {
                sent += (size_t)n;
            }
        }
        n = recv(fd, chunk, sizeof chunk, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            say(why, "%s", strerror(errno));
            close(fd);
            return -1;
        }
        if (n == 0) {
            close(fd);
            if (rq->framing == PROP_TCP_CLOSE) {
                /* An empty answer is an answer; b->p NULL is handled by the caller. */
                return 0;
            }
            return say(why, "the connection closed before the answer was whole (%zu bytes came)",
                       b->len);
        }
        if (b->len + (size_t)n > rq->max) {
            close(fd);
            return say(why, "the answer is over %zu bytes", rq->max);
        }
        if (prop_buf_add(b, chunk, (size_t)n) < 0) {
            close(fd);
            return say(why, "out of memory");
        }
        if (prop_tcp_whole(rq->framing, b->p, &b->len)) {
            close(fd);
            return 0;
        }
    }
}

/* Read exactly n bytes from fd before deadline: 0, or -1. */
static int
read_full(int fd, void *p, size_t n, long long deadline)
{
    char *c = p;

    while (n) {
        struct pollfd pf = {fd, POLLIN, 0};
        long long left = deadline - tcp_now_ms();
        ssize_t r;

        if (left <= 0)
            return -1;
        if (poll(&pf, 1, left > 1000 ? 1000 : (int)left) <= 0)
            continue;
        r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

static void
write_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

/*
 * In a child: enter the network namespace of pid, talk, and send back on
 * fd a status byte (0: the answer follows; 1: the reason follows), a
 * 32-bit length and the bytes.
 */
static void
netns_child(const prop_tcp_req *rq, long pid, int fd)
{
    char path[64], why[256] = "";
    prop_buf b = PROP_BUF_INIT;
    unsigned char st = 1;
    uint32_t len;
    const char *data;
    int ns;

    snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
    if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        say(why, "cannot open the network namespace of process %ld: %s", pid, strerror(errno));
    else if (setns(ns, CLONE_NEWNET) != 0)
        say(why, "cannot enter the network namespace of process %ld: %s", pid, strerror(errno));
    else if (tcp_talk(NULL, rq, &b, why) == 0)
        st = 0;
    data = st == 0 ? (b.p ? b.p : "") : why;
    len = (uint32_t)(st == 0 ? b.len : strlen(why));
    write_all(fd, &st, 1);
    write_all(fd, &len, sizeof len);
    write_all(fd, data, len);
    _exit(0);
}

/* The exchange from the network namespace of pid (a child enters it). */
static int
netns_talk(const prop_transport *t, const prop_tcp_req *rq, long pid, prop_buf *b, char *why)
{
    long long deadline = tcp_now_ms() + rq->timeout_ms + 2000;
    int fds[2], status, rc = -1;
    unsigned char st;
    uint32_t len;
    pid_t child;
    char *data;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return say(why, "pipe: %s", strerror(errno));
    child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return say(why, "fork: %s", strerror(errno));
    }
    if (child == 0) {
        close(fds[0]);
        netns_child(rq, pid, fds[1]);
    }
    close(fds[1]);
    if (read_full(fds[0], &st, 1, deadline) != 0 || read_full(fds[0], &len, 4, deadline) != 0 ||
        len > rq->max + 256) {
        say(why, "the probe's process in the network namespace of process %ld gave no answer", pid);
    } else if ((data = prop_malloc((size_t)len + 1)) == NULL) {
        say(why, "out of memory");
    } else if (read_full(fds[0], data, len, deadline) != 0) {
        free(data);
        say(why, "the probe's process in the network namespace of process %ld gave no answer", pid);
    } else {
        data[len] = '\0';
        if (st == 0) {
            rc = prop_buf_add(b, data, len) < 0 ? say(why, "out of memory") : 0;
        } else {
            snprintf(why, 256, "%s", data);
        }
        free(data);
    }
    close(fds[0]);
    if (rc != 0)
        kill(child, SIGKILL);
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    (void)t;
    return rc;
}

int
prop_tcp_exchange(prop_transport *t, const prop_tcp_req *req, long netns_pid, char **out,
                  size_t *out_len)
{
    prop_buf b = PROP_BUF_INIT;
    char why[256] = "";
    int rc;

    rc = netns_pid > 0 ? netns_talk(t, req, netns_pid, &b, why) : tcp_talk(t, req, &b, why);
    if (rc != 0) {
        prop_buf_free(&b);
        return prop_transport_fail(t, "connect to %s:%d: %s", req->host, req->port, why);
    }
    if (!(*out = prop_buf_take(&b, out_len)))
        return prop_transport_fail(t, "connect to %s:%d: out of memory", req->host, req->port);
    return PROP_OK;
}
