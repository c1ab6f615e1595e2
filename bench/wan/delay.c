/*
 * delay.c - a TCP proxy that delays every chunk by D milliseconds each
 * way, for bench/wan/run.sh: a slow link without kernel support (netem).
 *
 *   delay LISTEN_PORT TARGET_PORT DELAY_MS
 *
 * Listens on 127.0.0.1:LISTEN_PORT; each connection it accepts is served
 * by a child of its own, which connects to 127.0.0.1:TARGET_PORT and
 * forwards what either side sends DELAY_MS after it arrived (a round trip
 * through it takes 2 * DELAY_MS more), in order, without limiting the
 * bandwidth.  An end of stream travels with the same delay.  It prints
 * "ready" on stdout once it listens, and runs until killed.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct chunk {
    struct chunk *next;
    long long due; /* ms */
    size_t len, off;
    int eof; /* an end of stream, not data */
    char data[];
} chunk;

typedef struct dir {
    int from, to;
    chunk *head, *tail;
    int read_done, write_done;
} dir;

static long long
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
die(const char *what)
{
    perror(what);
    exit(1);
}

static void
push(dir *d, const char *data, size_t len, int eof, long long due)
{
    chunk *c = malloc(sizeof *c + len);

    if (!c)
        die("malloc");
    c->next = NULL;
    c->due = due;
    c->len = len;
    c->off = 0;
    c->eof = eof;
    if (len)
        memcpy(c->data, data, len);
    if (d->tail)
        d->tail->next = c;
    else
        d->head = c;
    d->tail = c;
}

static void
pop(dir *d)
{
    chunk *c = d->head;

    d->head = c->next;
    if (!d->head)
        d->tail = NULL;
    free(c);
}

static void
serve(int a, int b, long long delay)
{
    dir d[2] = {{a, b, NULL, NULL, 0, 0}, {b, a, NULL, NULL, 0, 0}};
    static char buf[1 << 16];

    for (;;) {
        struct pollfd p[4];
        int n = 0, i, timeout = -1, rfd[2] = {-1, -1}, wfd[2] = {-1, -1};
        long long now = now_ms();

        if (d[0].write_done && d[1].write_done)
            return;
        for (i = 0; i < 2; i++) {
            if (!d[i].read_done) {
                p[n].fd = d[i].from;
                p[n].events = POLLIN;
                rfd[i] = n++;
            }
            if (d[i].head) {
                if (d[i].head->due <= now) {
                    p[n].fd = d[i].to;
                    p[n].events = POLLOUT;
                    wfd[i] = n++;
                } else if (timeout < 0 || d[i].head->due - now < timeout) {
                    timeout = (int)(d[i].head->due - now);
                }
            }
        }
        if (n == 0 && timeout < 0)
            return;
        if (poll(p, (nfds_t)n, timeout) < 0) {
            if (errno == EINTR)
                continue;
            die("poll");
        }
        now = now_ms();
        for (i = 0; i < 2; i++) {
            if (rfd[i] >= 0 && (p[rfd[i]].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t r = read(d[i].from, buf, sizeof buf);

                if (r > 0) {
                    push(&d[i], buf, (size_t)r, 0, now + delay);
                } else if (r == 0 || errno != EINTR) {
                    d[i].read_done = 1;
                    push(&d[i], NULL, 0, 1, now + delay);
                }
            }
            if (wfd[i] >= 0 && (p[wfd[i]].revents & (POLLOUT | POLLHUP | POLLERR))) {
                chunk *c = d[i].head;

                if (c->eof || d[i].write_done) {
                    if (c->eof && !d[i].write_done) {
                        shutdown(d[i].to, SHUT_WR);
                        d[i].write_done = 1;
                    }
                    pop(&d[i]);
                    continue;
                }
                ssize_t w = write(d[i].to, c->data + c->off, c->len - c->off);

                if (w > 0) {
                    c->off += (size_t)w;
                    if (c->off == c->len)
                        pop(&d[i]);
                } else if (w < 0 && errno != EINTR && errno != EAGAIN) {
                    /* The peer is gone: so is this direction. */
                    d[i].write_done = 1;
                    d[i].read_done = 1;
                    d[1 - i].read_done = 1;
                    d[1 - i].write_done = 1;
                }
            }
        }
    }
}

int
main(int argc, char **argv)
{
    struct sockaddr_in sa;
    int ls, one = 1;
    long listen_port, target_port, delay;

    if (argc != 4) {
        fprintf(stderr, "usage: delay LISTEN_PORT TARGET_PORT DELAY_MS\n");
        return 64;
    }
    listen_port = strtol(argv[1], NULL, 10);
    target_port = strtol(argv[2], NULL, 10);
    delay = strtol(argv[3], NULL, 10);
    if (listen_port <= 0 || listen_port > 65535 || target_port <= 0 || target_port > 65535 ||
        delay < 0) {
        fprintf(stderr, "delay: bad arguments\n");
        return 64;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_IGN); /* no zombies */
    if ((ls = socket(AF_INET, SOCK_STREAM, 0)) < 0)
        die("socket");
    if (setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
        die("setsockopt");
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((unsigned short)listen_port);
    if (bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0)
        die("bind");
    if (listen(ls, 64) < 0)
        die("listen");
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        int a = accept(ls, NULL, NULL), b;
        pid_t pid;

        if (a < 0) {
            if (errno == EINTR)
                continue;
            die("accept");
        }
        pid = fork();
        if (pid < 0)
            die("fork");
        if (pid > 0) {
            close(a);
            continue;
        }
        close(ls);
        if ((b = socket(AF_INET, SOCK_STREAM, 0)) < 0)
            die("socket");
        sa.sin_port = htons((unsigned short)target_port);
        if (connect(b, (struct sockaddr *)&sa, sizeof sa) < 0)
            die("connect");
        (void)setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        (void)setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        serve(a, b, delay);
        _exit(0);
    }
}
