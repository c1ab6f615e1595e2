/*
 * ssh_fixture.h - what the SSH unit tests (check_ssh*.c) share: the sshd
 * on loopback they run against, and their helpers (ssh_fixture.c).
 */
#ifndef PROP_TESTS_SSH_FIXTURE_H
#define PROP_TESTS_SSH_FIXTURE_H

#include <check.h>
#include <stddef.h>
#include <stdio.h>

#include "prop/transport.h"
#include "unit.h"

#define SSHD "/usr/sbin/sshd"

extern char T[256]; /* scratch directory */
extern int PORT;    /* sshd's port */

/* snprintf into an array, which must be large enough. */
#define FMT(buf, ...) ck_assert_int_lt(snprintf(buf, sizeof buf, __VA_ARGS__), (int)sizeof buf)

/* A transport call that must succeed; the failure's reason otherwise. */
#define OK(t, call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        ck_assert_msg(rc_ == 0, "%s: %d: %s", #call, rc_, prop_transport_error(t));                \
    } while (0)

/* T/name into buf (n bytes; "" when it does not fit). */
void path(char *buf, size_t n, const char *name);
/* A whole file, NUL-terminated (malloc'd; *len its length when len), or NULL. */
char *slurp(const char *file, size_t *len);
/* Write file with data[0..len): 0 or -1. */
int spit(const char *file, const char *data, size_t len);
/* The options that reach the sshd as root with the authorized key. */
void default_opts(prop_ssh_opts *o);
/* A transport connected with o; the test fails otherwise. */
prop_transport *connect_ok(const prop_ssh_opts *o);
/* A transport connected with default_opts(). */
prop_transport *connect_default(void);
/* A fresh directory T/files/name for one test. */
void test_dir(char *buf, size_t n, const char *name);
/* Entries of dir (other than . and ..). */
int count_entries(const char *dir);
/* SIGKILL every process below the listening sshd: drops all sessions. */
int kill_sessions(void);
/* Stop the ssh-agent that test_auth_agent started, if any. */
void stop_agent(void);
/* A TCP port of 127.0.0.1 free just now, or -1. */
int free_port(void);

/* The main() of a check_ssh*.c named name: skipped (77) without root or
 * openssh-server, else the suite run against an sshd started for it. */
int ssh_main(const char *name, Suite *(*suite)(void));

#endif
