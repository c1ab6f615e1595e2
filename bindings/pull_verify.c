/*
 * pull_verify.c - prop pull's trust in a commit: the trusted keys (the
 * --keyring files, else those of /etc/prop/pull-keys/), and whether the
 * commit fetched is signed by one of them, checked with git and gpg in a
 * GNUPGHOME made for each pull and removed after it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "pull.h"

/* Owned by root or by us, and writable by no one else (a directory with
 * the sticky bit: others cannot replace what is ours in it). */
static const char *
others_write(const struct stat *st)
{
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return "another user";
    if ((st->st_mode & 022) && !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
        return "others";
    return NULL;
}

int
pull_keyring_check(const char *path, char *why, size_t size)
{
    struct stat st;
    const char *who, *slash;
    char dir[4096];

    if (lstat(path, &st) != 0) {
        snprintf(why, size, "keyring %s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, size,
                 "keyring %s is a symbolic link: name the file itself (whoever can change the "
                 "link chooses the keys); nothing was changed",
                 path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, size, "keyring %s is not a regular file; nothing was changed", path);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        snprintf(why, size, "keyring %s: %s", path, strerror(errno));
        return -1;
    }
    /* A key others could replace is no reason to trust a commit. */
    if ((who = others_write(&st)) != NULL) {
        snprintf(why, size,
                 "keyring %s can be written by %s: it is not trusted (chown root, chmod go-w); "
                 "nothing was changed",
                 path, who);
        return -1;
    }
    slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0) {
        snprintf(why, size, "keyring %s: its directory %s: %s", path, dir, strerror(errno));
        return -1;
    }
    if ((who = others_write(&st)) != NULL) {
        snprintf(why, size,
                 "keyring %s is in %s, which can be written by %s: the file could be replaced, "
                 "it is not trusted (chown root, chmod go-w the directory); nothing was changed",
                 path, dir, who);
        return -1;
    }
    return 0;
}

int
pull_add_keys_dir(pull_opts *o, char **owned, size_t *nowned)
{
    DIR *d;
    struct dirent *e;
    struct stat st;

    if (stat(DEFAULT_KEYS_DIR, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
        fprintf(stderr,
                "prop pull: %s can be written by %s: its keys are not trusted (chown root, "
                "chmod go-w); nothing was changed\n",
                DEFAULT_KEYS_DIR, (st.st_mode & 022) ? "others" : "another user");
        return -2;
    }
    d = opendir(DEFAULT_KEYS_DIR);
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL && o->nkeyrings < MAX_KEYRINGS) {
        size_t l = strlen(e->d_name);
        char *path;
        if (e->d_name[0] == '.' || l < 5 ||
            (strcmp(e->d_name + l - 4, ".asc") != 0 && strcmp(e->d_name + l - 4, ".gpg") != 0))
            continue;
        path = malloc(sizeof DEFAULT_KEYS_DIR + l + 1);
        if (path == NULL) {
            closedir(d);
            errno = ENOMEM;
            return -1;
        }
        snprintf(path, sizeof DEFAULT_KEYS_DIR + l + 1, "%s/%s", DEFAULT_KEYS_DIR, e->d_name);
        owned[(*nowned)++] = path;
        o->keyrings[o->nkeyrings++] = path;
    }
    closedir(d);
    return 0;
}

/*
 * Is commit signed by one of the trusted keys?  The keys are imported
 * into a new GNUPGHOME under dir, which is removed before returning.
 * 0: yes, the signer's fingerprint in signer; EXIT_REJECTED: no, why in
 * why; another exit code after printing why.
 */
int
pull_verify_commit(const pull_opts *o, const char *dir, const char *gitdir, const char *commit,
                   char *signer, size_t ssize, char *why, size_t wsize)
{
    char home[4096], fmt[] = "--format=%G?%n%GF%n%GK%n%GS", *out = NULL;
    size_t i;
    int rc, ret = EXIT_FAILED;

    if (snprintf(home, sizeof home, "%s/gnupg.XXXXXX", dir) >= (int)sizeof home ||
        mkdtemp(home) == NULL) {
        fprintf(stderr, "prop pull: cannot make a GNUPGHOME in %s: %s\n", dir, strerror(errno));
        return EXIT_FAILED;
    }
    for (i = 0; i < o->nkeyrings; i++) {
        char *imp[] = {"gpg",       "--batch", "--quiet",  "--no-tty",
                       "--homedir", home,      "--import", (char *)o->keyrings[i],
                       NULL};
        if (pull_spawn(imp, home, NULL) != 0) {
            fprintf(stderr, "prop pull: %s: not a public key gpg can import\n", o->keyrings[i]);
            goto out;
        }
    }
    {
        /* An SSH or X.509 signature is not one of ours: only OpenPGP. */
        char *logv[] = {"git",
                        "--git-dir",
                        (char *)gitdir,
                        "-c",
                        "gpg.program=gpg",
                        "-c",
                        "gpg.ssh.allowedSignersFile=/dev/null",
                        "-c",
                        "gpg.x509.program=false",
                        "log",
                        "-1",
                        "--no-show-signature",
                        fmt,
                        (char *)commit,
                        "--",
                        NULL};
        rc = pull_spawn(logv, home, &out);
    }
    if (rc != 0) {
        fprintf(stderr, "prop pull: git log could not read the signature of %s\n", commit);
        goto out;
    }
    {
        char *lines[4] = {"", "", "", ""}, *p = out;
        int k;

        for (k = 0; k < 4 && p; k++) {
            char *nl = strchr(p, '\n');
            lines[k] = p;
            if (nl)
                *nl = '\0';
            p = nl ? nl + 1 : NULL;
        }
        ret = EXIT_REJECTED;
        switch (lines[0][0]) {
        case 'G':
        case 'U':
            snprintf(signer, ssize, "%s", *lines[1] ? lines[1] : lines[2]);
            ret = 0;
            break;
        case 'N':
            snprintf(why, wsize, "it is not signed");
            break;
        case 'E':
            snprintf(why, wsize, "it is signed by key %s, which this host does not trust",
                     *lines[2] ? lines[2] : "(unknown)");
            break;
        case 'B':
            snprintf(why, wsize, "its signature (key %s) is bad: the commit was altered",
                     *lines[2] ? lines[2] : "(unknown)");
            break;
        case 'X':
            snprintf(why, wsize, "its signature (key %s) has expired", lines[2]);
            break;
        case 'Y':
            snprintf(why, wsize, "it is signed by key %s, which has expired", lines[2]);
            break;
        case 'R':
            snprintf(why, wsize, "it is signed by key %s, which is revoked", lines[2]);
            break;
        default:
            snprintf(why, wsize, "its signature cannot be checked (git says \"%s\")", lines[0]);
            break;
        }
    }
out:
    free(out);
    {
        char *kill_agent[] = {"gpgconf", "--homedir", home, "--kill", "all", NULL};
        (void)pull_spawn(kill_agent, home, NULL);
    }
    if (pull_remove_tree(home) != 0)
        fprintf(stderr, "prop pull: cannot remove %s: %s\n", home, strerror(errno));
    return ret;
}
