/*
 * pull.h - what prop pull's files share: cmd_pull.c and the pull_*.c
 * files (the map of bindings/ in lprop.h says what each holds).
 */
#ifndef PULL_H
#define PULL_H

#include <stdio.h>
#include <time.h>

#include "cli.h"

#define MAX_KEYRINGS 32

typedef struct pull_opts {
    const char *repo, *branch, *host, *state_dir, *site;
    char shown[4096]; /* repo as printed and recorded: without a password */
    const char *keyrings[MAX_KEYRINGS];
    size_t nkeyrings;
    int dry, json;
    /* The shared options (--max-instructions ...), passed on to the run. */
    char **site_args;
    int nsite_args;
} pull_opts;

/* pull_record.c */
/* s as a JSON string on f, or null for NULL. */
void pull_jstr(FILE *f, const char *s);
/* Run this host's part of the site at path, as prop run does, keeping a
 * record of it (unless o->dry); returns prop run's exit code. */
int pull_run_site(const pull_opts *o, const char *path, const char *host);
/* Write the record as last-run.json in o->state_dir: 0, or -1 (with a
 * message when it could not be written). */
int pull_write_last_run(const pull_opts *o, const char *host, const char *commit,
                        const char *signer, time_t start, double secs, int rc);
/* Forget the record. */
void pull_record_free(void);

#endif /* PULL_H */
