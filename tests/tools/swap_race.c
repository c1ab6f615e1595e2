/*
 * swap_race - for the tests: swap two names in a directory tree back and
 * forth, as fast as it can, for a bounded time and a bounded number of
 * swaps, so that something working on paths under one of them meets the
 * other in its place at any moment.
 *
 *   swap_race A B SECONDS MAX_SWAPS
 *
 * A and B (a directory and a symbolic link, say) trade names with
 * renameat2(RENAME_EXCHANGE), or with three renames where the file system
 * cannot exchange.  It stops after SECONDS or MAX_SWAPS swaps, or on
 * SIGTERM, and leaves both where they started.  Prints the number of
 * swaps; 0 on success, 1 on a failure to swap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
    (void)sig;
    stop = 1;
}

/* Swap the names a and b: 0 or -1 (errno). */
static int
swap(const char *a, const char *b, const char *aside, int *exchange)
{
#ifdef RENAME_EXCHANGE
    if (*exchange) {
        if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0)
            return 0;
        if (errno != EINVAL && errno != ENOSYS)
            return -1;
        *exchange = 0;
    }
#else
    (void)exchange;
#endif
    if (rename(a, aside) != 0 || rename(b, a) != 0 || rename(aside, b) != 0)
        return -1;
    return 0;
}

int
main(int argc, char **argv)
{
    char aside[4096];
    struct timespec start, now;
    unsigned long max, n = 0;
    double secs;
    int exchange = 1;
    struct sigaction sa;

    if (argc != 5) {
        fprintf(stderr, "usage: swap_race A B SECONDS MAX_SWAPS\n");
        return 2;
    }
    secs = atof(argv[3]);
    max = strtoul(argv[4], NULL, 10);
    if (snprintf(aside, sizeof aside, "%s.swap-aside", argv[1]) >= (int)sizeof aside)
        return 2;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0 ||
        clock_gettime(CLOCK_MONOTONIC, &start) != 0)
        return 1;
    while (!stop && n < max) {
        if (swap(argv[1], argv[2], aside, &exchange) != 0) {
            fprintf(stderr, "swap_race: %s <-> %s: %s\n", argv[1], argv[2], strerror(errno));
            return 1;
        }
        n++;
        if ((n & 255) == 0) {
            if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
                return 1;
            if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 >= secs)
                break;
        }
    }
    /* Back as they were. */
    if ((n & 1) && swap(argv[1], argv[2], aside, &exchange) != 0) {
        fprintf(stderr, "swap_race: %s <-> %s: %s\n", argv[1], argv[2], strerror(errno));
        return 1;
    }
    printf("%lu\n", n);
    return 0;
}
