/*
 * pull.h - what prop pull's files share: cmd_pull.c and the pull_*.c
 * files (the map of bindings/ in lprop.h says what each holds).
 */
#ifndef PULL_H
#define PULL_H

#include <stdio.h>
#include <time.h>

#include "cli.h"

#define DEFAULT_KEYS_DIR "/etc/prop/pull-keys"
#define MAX_KEYRINGS 32
#define DEFAULT_FETCH_TIMEOUT 300 /* seconds */
#define PULL_TIMED_OUT (-2)       /* pull_spawn_bounded: stopped at its time limit */

typedef struct pull_opts {
    const char *repo, *branch, *host, *state_dir, *site;
    char shown[4096]; /* repo as printed and recorded: without a password */
    const char *keyrings[MAX_KEYRINGS];
    size_t nkeyrings;
    int dry, json;
    int fetch_timeout;      /* seconds: git fetch is stopped after it */
    long every;             /* --every: the schedule's interval in seconds (0: none), recorded */
    const char *prometheus; /* --prometheus FILE: the run's metrics (run_metrics.c) */
    /* The shared options (--max-instructions ...), passed on to the run. */
    char **site_args;
    int nsite_args;
} pull_opts;

/* cmd_pull.c */
/*
 * Run argv (looked up in PATH), with GNUPGHOME set to gnupghome unless it
 * is NULL; its standard output into *out (malloc'd) when out is not NULL,
 * else on our standard error.  Its exit status, 128+N for a signal N, or
 * -1 when it could not be started or its output could not be kept.
 */
int pull_spawn(char *const *argv, const char *gnupghome, char **out);
/* pull_spawn, stopped (its process group) after timeout_s seconds when
 * timeout_s > 0 and out is NULL: PULL_TIMED_OUT then. */
int pull_spawn_bounded(char *const *argv, const char *gnupghome, char **out, int timeout_s);
/* rm -rf path; 0 when it is gone. */
int pull_remove_tree(const char *path);

/* pull_verify.c */
/* Add the keys of DEFAULT_KEYS_DIR (NAME.asc, NAME.gpg) to o->keyrings,
 * their paths malloc'd into owned[*nowned...]: 0; -1 (errno) when the
 * directory cannot be read; -2 after printing that it is not trusted. */
int pull_add_keys_dir(pull_opts *o, char **owned, size_t *nowned);
/* A keyring file to trust: a regular file (not a symbolic link, not a
 * FIFO), readable, it and its directory writable by no one but root or
 * us.  0, or -1 with the reason in why. */
int pull_keyring_check(const char *path, char *why, size_t size);
/* Is commit signed by one of the trusted keys?  0: yes, the signer in
 * signer; EXIT_REJECTED: no, why in why; another exit code after
 * printing why. */
int pull_verify_commit(const pull_opts *o, const char *dir, const char *gitdir, const char *commit,
                       char *signer, size_t ssize, char *why, size_t wsize);

/* pull_record.c */
/* s as a JSON string on f, or null for NULL. */
void pull_jstr(FILE *f, const char *s);
/* Run this host's part of the site at path, as prop run does, keeping a
 * record of it (unless o->dry), and its metrics in o->prometheus when
 * set (unless o->dry); returns prop run's exit code. */
int pull_run_site(const pull_opts *o, const char *path, const char *host);
/* Write the record as last-run.json in o->state_dir: 0, or -1 (with a
 * message when it could not be written). */
int pull_write_last_run(const pull_opts *o, const char *host, const char *commit,
                        const char *signer, time_t start, double secs, int rc);
/* Forget the record. */
void pull_record_free(void);

#endif /* PULL_H */
