/*
 * unit.c - helpers the unit tests (check_*.c) share; see unit.h.  Linked
 * into every unit test.
 */
#include "unit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void
append(char *buf, size_t size, const char *a, const char *b)
{
    size_t used = strlen(buf);

    snprintf(buf + used, size - used, "%s%s", a, b);
}

int
sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    rc = system(cmd);
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

void
msleep(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

double
seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

pid_t
pid_in(const char *file)
{
    int i;

    for (i = 0; i < 1000; i++) {
        FILE *f = fopen(file, "r");
        long pid = 0;

        if (f) {
            int ok = fscanf(f, "%ld", &pid) == 1;

            fclose(f);
            if (ok && pid > 0)
                return (pid_t)pid;
        }
        msleep(10);
    }
    ck_abort_msg("no pid in %s", file);
    return 0;
}

int
ended(pid_t pid)
{
    char file[64], buf[512], *p;
    int i;

    snprintf(file, sizeof file, "/proc/%ld/stat", (long)pid);
    for (i = 0; i < 1000; i++) {
        FILE *f = fopen(file, "r");

        if (!f)
            return 1;
        p = fgets(buf, sizeof buf, f);
        fclose(f);
        if (!p || !(p = strrchr(buf, ')')) || p[2] == 'Z' || p[2] == 'X')
            return 1;
        msleep(10);
    }
    return 0;
}

volatile sig_atomic_t STOPS;
static volatile sig_atomic_t STOPS_WANTED;

/* SIGALRM: one more request to stop, and another a second later while more are wanted. */
static void
on_alarm(int sig)
{
    (void)sig;
    STOPS++;
    if (STOPS < STOPS_WANTED)
        alarm(1);
}

void
stop_in_a_second(int n)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
    STOPS = 0;
    STOPS_WANTED = n;
    alarm(1);
}
