/*
 * unit.h - helpers the unit tests (check_*.c) share: running a suite,
 * appending to a trail, shell commands, waiting, and raising the
 * interruption flag a transport watches (tests/unit/unit.c).
 */
#ifndef PROP_TESTS_UNIT_H
#define PROP_TESTS_UNIT_H

#include <check.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* Run every test of s; EXIT_SUCCESS when none failed, else EXIT_FAILURE. */
int run_suite(Suite *s);

/* Append a then b to the string in buf (size bytes), cut to fit. */
void append(char *buf, size_t size, const char *a, const char *b);

/* Run a shell command line (formatted); its exit status, 128 + the signal
 * that killed it, or -1. */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sleep ms milliseconds, whatever signals arrive meanwhile. */
void msleep(long ms);

/* A monotonic clock, in seconds. */
double seconds(void);

/* The pid in a file a command wrote, waiting for it (10 s at most). */
pid_t pid_in(const char *file);

/* Has pid ended (gone, or a zombie)?  Waits 10 s at most for it. */
int ended(pid_t pid);

/* The interruption flag the tests raise (prop_transport_set_interrupt):
 * stop_in_a_second(n) raises it a second from now, n times a second apart
 * (SIGALRM). */
extern volatile sig_atomic_t STOPS;
void stop_in_a_second(int n);

#endif
