/*
 * cmd_pull.c - prop pull REPO: on the host itself, fetch the site from a
 * git repository, check that the commit is signed by a key this host
 * trusts, check the site as prop lint does, and run this host's part of
 * it the way prop run does; the summary is kept in last-run.json for
 * prop status (pull_record.c).
 *
 * State (--state-dir, /var/lib/prop by default):
 *   pull/<hash of REPO>/repo.git       a bare clone; fetched into, never run
 *   pull/<hash of REPO>/trees/<commit> the verified commit's files, made
 *                                      only once its signature is good
 *   pull/<hash of REPO>/lock           held for the whole pull
 *   last-run.json                      the last run's summary
 * The trusted keys (--keyring FILE, else /etc/prop/pull-keys/ *.asc and
 * *.gpg) are imported into a GNUPGHOME made for each pull and removed
 * after it, so a key taken out of the directory is trusted no more.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pull.h"
#include "spawn.h"

#define DEFAULT_STATE_DIR "/var/lib/prop"
#define MAX_OUTPUT (1u << 20)

/* ---- running git and gpg ------------------------------------------------ */

/* A signal to prop while a bounded command runs (pull_spawn_bounded). */
static volatile sig_atomic_t bounded_sig;

static void
on_bounded_sig(int sig)
{
    bounded_sig = sig;
}

/* prop_spawn's stop request: a signal to prop stops the command's group
 * with SIGTERM, and SIGKILL 2 seconds later. */
static int
bounded_stop(void *ud, int *sig)
{
    (void)ud;
    *sig = SIGTERM;
    return bounded_sig != 0;
}

int
pull_spawn(char *const *argv, const char *gnupghome, char **out)
{
    return pull_spawn_bounded(argv, gnupghome, out, 0);
}

/*
 * Run argv (looked up in PATH), standard input from /dev/null, its
 * standard error on ours; its standard output into *out (malloc'd,
 * NUL-terminated) when out is not NULL, else on our standard error (our
 * standard output stays for prop's own report).  GNUPGHOME is set to
 * gnupghome when it is not NULL; git never asks for a password.
 * Bounded (timeout_s > 0, out NULL): a process group of its own, so that
 * whatever it starts (git-remote-https, ssh) is stopped with it, sent
 * SIGTERM at the limit and SIGKILL 5 seconds later; its group does not
 * see the terminal's signals: a signal to prop stops it too, then prop as
 * the signal would have.
 */
int
pull_spawn_bounded(char *const *argv, const char *gnupghome, char **out, int timeout_s)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    const char *set[3] = {"GIT_TERMINAL_PROMPT=0", NULL, NULL};
    char *home = NULL, **envp;
    struct sigaction sa, old[3];
    prop_spawn_opts o;
    prop_spawn_result r;
    int i, sig, rc, bounded = timeout_s > 0 && !out;

    if (out)
        *out = NULL;
    if (gnupghome) {
        size_t n = strlen(gnupghome) + sizeof "GNUPGHOME=";

        if ((home = malloc(n)) == NULL) {
            fprintf(stderr, "prop pull: cannot start %s: %s\n", argv[0], strerror(ENOMEM));
            return -1;
        }
        snprintf(home, n, "GNUPGHOME=%s", gnupghome);
        set[1] = home;
    }
    if ((envp = prop_spawn_env(set)) == NULL) {
        fprintf(stderr, "prop pull: cannot start %s: %s\n", argv[0], strerror(ENOMEM));
        free(home);
        return -1;
    }
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.envp = envp;
    o.path = prop_spawn_path();
    o.stdin_null = 1;
    o.out = out ? PROP_SPAWN_CAPTURE : PROP_SPAWN_INHERIT;
    o.err = PROP_SPAWN_INHERIT;
    o.max_output = MAX_OUTPUT;
    o.drain = 1;
    if (timeout_s > 0)
        o.group = PROP_SPAWN_PGRP;
    if (bounded) {
        o.timeout_ms = (long long)timeout_s * 1000;
        o.timeout_grace_ms = 5000;
        o.stop = bounded_stop;
        o.stop_grace_ms = 2000;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_bounded_sig;
        sigemptyset(&sa.sa_mask);
        bounded_sig = 0;
        for (i = 0; i < 3; i++) {
            /* A signal prop was told to ignore (nohup) stays ignored. */
            if (sigaction(sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
                (void)sigaction(sigs[i], &sa, NULL);
        }
    }
    fflush(stdout);
    fflush(stderr);
    rc = prop_spawn(&o, &r);
    free(envp);
    free(home);
    if (bounded) {
        for (i = 0; i < 3; i++)
            (void)sigaction(sigs[i], &old[i], NULL);
        if ((sig = bounded_sig) != 0) {
            prop_buf_free(&r.out);
            fprintf(stderr, "prop pull: interrupted: the fetch was stopped; nothing was changed\n");
            (void)raise(sig);
            _exit(128 + sig);
        }
    }
    if (rc == PROP_SPAWN_TIMEOUT) {
        prop_buf_free(&r.out);
        return PULL_TIMED_OUT;
    }
    if (rc == PROP_SPAWN_NOT_RUN) {
        prop_buf_free(&r.out);
        fprintf(stderr, "prop pull: cannot run %s: %s\n", argv[0], strerror(r.errnum));
        return 127;
    }
    if (rc != PROP_SPAWN_OK) {
        prop_buf_free(&r.out);
        if (rc == PROP_SPAWN_SYS && strcmp(r.call, "fork") == 0)
            fprintf(stderr, "prop pull: cannot start %s: %s\n", argv[0], strerror(r.errnum));
        else if (rc == PROP_SPAWN_SYS && strcmp(r.call, "pipe") == 0)
            fprintf(stderr, "prop pull: pipe: %s\n", strerror(r.errnum));
        else if (out && rc == PROP_SPAWN_NOMEM)
            fprintf(stderr, "prop pull: the output of %s could not be kept\n", argv[0]);
        return -1;
    }
    if (out) {
        if (r.over || (*out = prop_buf_take(&r.out, NULL)) == NULL) {
            prop_buf_free(&r.out);
            fprintf(stderr, "prop pull: the output of %s could not be kept\n", argv[0]);
            return -1;
        }
    }
    return r.code;
}

/* ---- files ---------------------------------------------------------------- */

/* mkdir -p path with mode for the directories it makes; 0 or -1 (errno). */
static int
mkdirs(const char *path, mode_t mode)
{
    char buf[4096];
    size_t i, len = strlen(path);

    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return -1;
        buf[i] = path[i];
    }
    return 0;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        return rmdir(path) != 0 && errno != ENOENT;
    return unlink(path) != 0 && errno != ENOENT;
}

/* rm -rf path; 0 when it is gone. */
int
pull_remove_tree(const char *path)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

/* Remove the entries of dir whose names start with prefix, but keep. */
static void
remove_entries(const char *dir, const char *prefix, const char *keep)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (keep && strcmp(e->d_name, keep) == 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
            pull_remove_tree(path) != 0)
            fprintf(stderr, "prop pull: cannot remove %s: %s\n", path, strerror(errno));
    }
    closedir(d);
}

/* FNV-1a, 64 bits: the clone's directory name for a repository. */
static void
url_hash(const char *url, char out[17])
{
    uint64_t h = 1469598103934665603ULL;

    for (; *url; url++) {
        h ^= (unsigned char)*url;
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ---- the options -------------------------------------------------------- */

/*
 * The URL to print and record: "https://user:token@host/x" without its
 * token (user:***), so that a password never reaches a log or
 * last-run.json.
 */
static void
hide_password(const char *url, char *out, size_t size)
{
    const char *host = strstr(url, "://"), *at = NULL, *colon, *p;

    snprintf(out, size, "%s", url);
    if (host == NULL)
        return;
    host += 3;
    for (p = host; *p && *p != '/'; p++)
        if (*p == '@')
            at = p;
    if (at == NULL)
        return;
    colon = memchr(host, ':', (size_t)(at - host));
    if (colon == NULL)
        return;
    snprintf(out, size, "%.*s:***%s", (int)(colon - url), url, at);
}

/* A branch name git would take, and never an option. */
static int
branch_ok(const char *b)
{
    const char *p;

    if (*b == '\0' || *b == '-' || *b == '/' || strstr(b, "..") || strstr(b, "//") ||
        strstr(b, "@{") || b[strlen(b) - 1] == '/' || b[strlen(b) - 1] == '.')
        return 0;
    for (p = b; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f || strchr("~^:?*[\\", *p))
            return 0;
    return 1;
}

/* A relative path inside the repository: no "..", not absolute. */
static int
site_path_ok(const char *s)
{
    const char *p = s;

    if (*s == '\0' || *s == '/')
        return 0;
    while (*p) {
        size_t l = strcspn(p, "/");
        if (l == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += l;
        if (*p == '/')
            p++;
    }
    return 1;
}

/* "90s", "30m", "2h", "1d" (up to 7 days) in seconds, or -1. */
static long
duration(const char *v)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (errno || end == v || *v == '-' || *v == '+' || n <= 0 || end[0] == '\0' || end[1] != '\0')
        return -1;
    switch (*end) {
    case 's':
        break;
    case 'm':
        n = n > 7 * 1440 ? -1 : n * 60;
        break;
    case 'h':
        n = n > 7 * 24 ? -1 : n * 3600;
        break;
    case 'd':
        n = n > 7 ? -1 : n * 86400;
        break;
    default:
        return -1;
    }
    return n > 7 * 86400 ? -1 : n;
}

/* ---- which host is this ------------------------------------------------- */

static const prop_host *
this_host(const prop_site *s, char *name, size_t size)
{
    char hn[256];
    struct addrinfo hints, *ai = NULL;
    const prop_host *h;
    char *dot;

    if (gethostname(hn, sizeof hn) != 0)
        return NULL;
    hn[sizeof hn - 1] = '\0';
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = AI_CANONNAME;
    if (getaddrinfo(hn, NULL, &hints, &ai) == 0 && ai && ai->ai_canonname) {
        h = prop_site_find_host(s, ai->ai_canonname);
        snprintf(name, size, "%s", ai->ai_canonname);
        freeaddrinfo(ai);
        if (h)
            return h;
    } else if (ai) {
        freeaddrinfo(ai);
    }
    if ((h = prop_site_find_host(s, hn)) != NULL) {
        snprintf(name, size, "%s", hn);
        return h;
    }
    dot = strchr(hn, '.');
    if (dot) {
        *dot = '\0';
        if ((h = prop_site_find_host(s, hn)) != NULL) {
            snprintf(name, size, "%s", hn);
            return h;
        }
    }
    if (name[0] == '\0')
        snprintf(name, size, "%s", hn);
    return NULL;
}

/* ---- the command ----------------------------------------------------- */

static int
list_hosts(const prop_site *s, char *buf, size_t size)
{
    size_t k, len = 0;

    buf[0] = '\0';
    for (k = 0; k < prop_site_nhosts(s) && len < size; k++) {
        const prop_host *h = prop_site_host(s, k);
        int w;
        if (prop_host_container_kind(h) != PROP_CONTAINER_NONE)
            continue;
        w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", prop_host_name(h));
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return (int)k;
}

static void
say_refused(const pull_opts *o, const char *commit, const char *why)
{
    if (o->json) {
        fputs("{\"event\":\"pull\",\"repo\":", stdout);
        pull_jstr(stdout, o->shown);
        fputs(",\"commit\":", stdout);
        pull_jstr(stdout, commit);
        fputs(",\"refused\":true,\"error\":", stdout);
        pull_jstr(stdout, why);
        fputs("}\n", stdout);
    }
    fprintf(stderr, "prop pull: commit %.12s of %s refused: %s; nothing was changed\n",
            commit ? commit : "?", o->shown, why);
}

static int
pull_run(int argc, char **argv)
{
    pull_opts o;
    cli_site_opts so;
    char *owned[MAX_KEYRINGS];
    size_t nowned = 0, k;
    char hash[17], dir[4096], gitdir[4200], trees[4200], tree[4400], lockp[4200], sitep[8600];
    char ref[600], signer[256] = "", why[1200] = "", hostname[300] = "";
    char *commit = NULL, *out = NULL;
    const char *v;
    int i, r, rc = EXIT_FAILED, lockfd = -1, cwd = -1, evaluated;
    lprop_ctx *ctx = NULL;
    const prop_host *h;
    struct timespec t0, t1;
    time_t start;

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&so);
    o.state_dir = DEFAULT_STATE_DIR;
    o.site = "site.lua";
    o.fetch_timeout = DEFAULT_FETCH_TIMEOUT;
    o.site_args = calloc((size_t)argc, sizeof *o.site_args);
    if (o.site_args == NULL)
        return EXIT_FAILED;
    for (i = 1; i < argc; i++) {
        int at = i;
        if (cli_is_help(argv[i])) {
            free(o.site_args);
            return cli_print_help(&cmd_pull);
        }
        r = cli_site_opt(&so, argc, argv, &i);
        if (r < 0)
            goto usage;
        if (r > 0) {
            for (; at <= i; at++)
                o.site_args[o.nsite_args++] = argv[at];
            continue;
        }
        if (strcmp(argv[i], "--dry-run") == 0 || strcmp(argv[i], "-n") == 0) {
            o.dry = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            o.json = 1;
        } else if (cli_opt_value("--branch", argc, argv, &i, &v)) {
            if (v == NULL || !branch_ok(v)) {
                cli_usage_error(&cmd_pull, "--branch wants a branch name, not \"%s\"", v ? v : "");
                goto usage;
            }
            o.branch = v;
        } else if (cli_opt_value("--host", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                cli_usage_error(&cmd_pull, "--host wants a host name of the site");
                goto usage;
            }
            o.host = v;
        } else if (cli_opt_value("--site", argc, argv, &i, &v)) {
            if (v == NULL || !site_path_ok(v)) {
                cli_usage_error(&cmd_pull,
                                "--site wants the site file's path inside the repository "
                                "(relative, without \"..\"), not \"%s\"",
                                v ? v : "");
                goto usage;
            }
            o.site = v;
        } else if (cli_opt_value("--state-dir", argc, argv, &i, &v)) {
            if (v == NULL || v[0] != '/') {
                cli_usage_error(&cmd_pull, "--state-dir wants an absolute directory");
                goto usage;
            }
            o.state_dir = v;
        } else if (cli_opt_value("--fetch-timeout", argc, argv, &i, &v)) {
            char *end;
            long t = v ? strtol(v, &end, 10) : 0;

            if (v == NULL || *v == '\0' || *end != '\0' || t < 1 || t > 86400) {
                cli_usage_error(&cmd_pull, "--fetch-timeout wants seconds in 1..86400, not \"%s\"",
                                v ? v : "");
                goto usage;
            }
            o.fetch_timeout = (int)t;
        } else if (cli_opt_value("--every", argc, argv, &i, &v)) {
            if (v == NULL || (o.every = duration(v)) <= 0) {
                cli_usage_error(&cmd_pull,
                                "--every wants the schedule's interval, such as 30m, 2h or 1d, "
                                "not \"%s\"",
                                v ? v : "");
                goto usage;
            }
        } else if (cli_opt_value("--prometheus", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                cli_usage_error(&cmd_pull, "--prometheus wants a file name");
                goto usage;
            }
            o.prometheus = v;
        } else if (cli_opt_value("--keyring", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                cli_usage_error(&cmd_pull, "--keyring wants a file of public keys");
                goto usage;
            }
            if (o.nkeyrings == MAX_KEYRINGS) {
                cli_usage_error(&cmd_pull, "at most %d --keyring files", MAX_KEYRINGS);
                goto usage;
            }
            o.keyrings[o.nkeyrings++] = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error(&cmd_pull, "unknown option \"%s\"", argv[i]);
            goto usage;
        } else if (o.repo == NULL) {
            o.repo = argv[i];
        } else {
            cli_usage_error(&cmd_pull, "one repository only (\"%s\" is a second)", argv[i]);
            goto usage;
        }
    }
    if (o.repo == NULL) {
        cli_usage_error(&cmd_pull, "which git repository?");
        goto usage;
    }
    if (o.repo[0] == '-' || strpbrk(o.repo, "\n\r") != NULL) {
        cli_usage_error(&cmd_pull, "\"%s\" is not a repository URL or path", o.repo);
        goto usage;
    }
    hide_password(o.repo, o.shown, sizeof o.shown);
    if (o.nkeyrings == 0 && (r = pull_add_keys_dir(&o, owned, &nowned)) != 0) {
        if (r == -1)
            fprintf(stderr, "prop pull: cannot read %s: %s\n", DEFAULT_KEYS_DIR, strerror(errno));
        rc = r == -1 ? EXIT_FAILED : EXIT_USAGE;
        goto done;
    }
    if (o.nkeyrings == 0) {
        fprintf(stderr,
                "prop pull: no trusted keys: put the public keys whose signatures this host "
                "accepts in %s/ (NAME.asc or NAME.gpg), or name them with --keyring FILE; "
                "nothing was changed\n",
                DEFAULT_KEYS_DIR);
        rc = EXIT_USAGE;
        goto done;
    }
    for (k = 0; k < o.nkeyrings; k++)
        if (pull_keyring_check(o.keyrings[k], why, sizeof why) != 0) {
            fprintf(stderr, "prop pull: %s\n", why);
            rc = EXIT_USAGE;
            goto done;
        }
    why[0] = '\0';

    /* The clone, and the lock that keeps two pulls of it apart. */
    url_hash(o.repo, hash);
    if (snprintf(dir, sizeof dir, "%s/pull/%s", o.state_dir, hash) >= (int)sizeof dir) {
        fprintf(stderr, "prop pull: --state-dir is too long\n");
        goto done;
    }
    snprintf(gitdir, sizeof gitdir, "%s/repo.git", dir);
    snprintf(trees, sizeof trees, "%s/trees", dir);
    snprintf(lockp, sizeof lockp, "%s/lock", dir);
    if (mkdirs(o.state_dir, 0755) != 0 || mkdirs(dir, 0700) != 0 || chmod(dir, 0700) != 0) {
        fprintf(stderr, "prop pull: cannot make %s: %s\n", dir, strerror(errno));
        goto done;
    }
    lockfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lockfd < 0) {
        fprintf(stderr, "prop pull: cannot open %s: %s\n", lockp, strerror(errno));
        goto done;
    }
    if (flock(lockfd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "prop pull: another prop pull of %s is running (it holds %s)\n", o.shown,
                lockp);
        goto done;
    }
    /* What a pull killed on its way left behind. */
    remove_entries(dir, "gnupg.", NULL);
    remove_entries(dir, "new.", NULL);
    if (access(gitdir, F_OK) != 0) {
        char tmp[4300];
        char *init[] = {"git", "init", "--bare", "--quiet", "--template=", tmp, NULL};
        snprintf(tmp, sizeof tmp, "%s/new.repo", dir);
        if (pull_spawn(init, NULL, NULL) != 0 || rename(tmp, gitdir) != 0) {
            fprintf(stderr, "prop pull: cannot make the clone %s\n", gitdir);
            goto done;
        }
    }

    /* Fetch.  Nothing in the clone is ever run or checked out. */
    snprintf(ref, sizeof ref, "+%s%s:refs/prop/fetched", o.branch ? "refs/heads/" : "",
             o.branch ? o.branch : "HEAD");
    {
        /* Bounded: a server that accepts and never answers (or trickles)
         * must not hold this pull, and every later one, for ever.  Over
         * HTTP git gives up on its own when under 1 KiB/s for as long. */
        char lst[64];
        char *fetch[] = {
            "git",     "--git-dir", gitdir,         "-c",      "http.lowSpeedLimit=1024",
            "-c",      lst,         "fetch",        "--quiet", "--no-tags",
            "--force", "--",        (char *)o.repo, ref,       NULL};

        snprintf(lst, sizeof lst, "http.lowSpeedTime=%d", o.fetch_timeout);
        r = pull_spawn_bounded(fetch, NULL, NULL, o.fetch_timeout);
        if (r == PULL_TIMED_OUT) {
            fprintf(stderr,
                    "prop pull: fetching %s from %s took more than %d seconds (--fetch-timeout): "
                    "stopped; nothing was changed\n",
                    o.branch ? o.branch : "HEAD", o.shown, o.fetch_timeout);
            rc = EXIT_UNREACHABLE;
            goto done;
        }
        if (r != 0) {
            fprintf(stderr, "prop pull: cannot fetch %s from %s; nothing was changed\n",
                    o.branch ? o.branch : "HEAD", o.shown);
            rc = EXIT_UNREACHABLE;
            goto done;
        }
    }
    {
        char *parse[] = {"git",
                         "--git-dir",
                         gitdir,
                         "rev-parse",
                         "--verify",
                         "--quiet",
                         "refs/prop/fetched^{commit}",
                         NULL};
        if (pull_spawn(parse, NULL, &out) != 0 || strlen(out) < 41) {
            fprintf(stderr, "prop pull: %s has no commit at %s\n", o.shown,
                    o.branch ? o.branch : "HEAD");
            goto done;
        }
        out[strcspn(out, "\n")] = '\0';
        commit = out;
        out = NULL;
    }

    /* The signature, before anything of the commit is written out. */
    r = pull_verify_commit(&o, dir, gitdir, commit, signer, sizeof signer, why, sizeof why);
    if (r == EXIT_REJECTED) {
        say_refused(&o, commit, why);
        rc = EXIT_REJECTED;
        goto done;
    }
    if (r != 0)
        goto done;
    if (o.json) {
        fputs("{\"event\":\"pull\",\"repo\":", stdout);
        pull_jstr(stdout, o.shown);
        fputs(",\"branch\":", stdout);
        pull_jstr(stdout, o.branch);
        fputs(",\"commit\":", stdout);
        pull_jstr(stdout, commit);
        fputs(",\"signer\":", stdout);
        pull_jstr(stdout, signer);
        fputs("}\n", stdout);
    } else {
        printf("prop pull: %s %s: commit %.12s, signed by %s\n", o.shown,
               o.branch ? o.branch : "HEAD", commit, signer);
    }
    fflush(stdout);

    /* The verified commit's files: made aside, then put in place. */
    snprintf(tree, sizeof tree, "%s/%s", trees, commit);
    if (access(tree, F_OK) != 0) {
        char tmp[4300], tar[4400];
        char *archive[] = {"git", "--git-dir", gitdir, "archive", "--format=tar",
                           "-o",  tar,         commit, NULL};
        char *untar[] = {"tar", "-x", "--no-same-owner", "-f", tar, "-C", tmp, NULL};

        snprintf(tmp, sizeof tmp, "%s/new.XXXXXX", dir);
        if (mkdirs(trees, 0700) != 0 || mkdtemp(tmp) == NULL) {
            fprintf(stderr, "prop pull: cannot make a directory in %s: %s\n", dir, strerror(errno));
            goto done;
        }
        snprintf(tar, sizeof tar, "%s.tar", tmp);
        if (pull_spawn(archive, NULL, NULL) != 0 || pull_spawn(untar, NULL, NULL) != 0 ||
            rename(tmp, tree) != 0) {
            fprintf(stderr, "prop pull: cannot write commit %s out into %s\n", commit, tree);
            (void)unlink(tar);
            (void)pull_remove_tree(tmp);
            goto done;
        }
        (void)unlink(tar);
    }
    remove_entries(trees, "", commit);
    snprintf(sitep, sizeof sitep, "%s/%s", tree, o.site);
    if (access(sitep, R_OK) != 0) {
        fprintf(stderr, "prop pull: commit %.12s has no site file %s; nothing was run\n", commit,
                o.site);
        rc = EXIT_REJECTED;
        goto done;
    }

    /* The pre-pass, and this host.  Inside the tree, so that findings and
     * failures name the repository's own paths (site.lua:3). */
    cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0 || chdir(tree) != 0) {
        fprintf(stderr, "prop pull: cannot enter %s: %s\n", tree, strerror(errno));
        goto done;
    }
    so.limits.check_only = 1;
    ctx = cli_load_site(o.site, &so, &evaluated);
    if (ctx == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        goto done;
    }
    if (!evaluated || prop_site_nerrors(ctx->site, 0) > 0) {
        prop_diags_print_text(ctx->site, stderr, so.color_err, 0);
        cli_print_summary(ctx, o.site, stderr, 0);
        fprintf(stderr, "prop pull: the site at commit %.12s has errors; nothing was run\n",
                commit);
        rc = EXIT_REJECTED;
        goto done;
    }
    if (o.host) {
        h = prop_site_find_host(ctx->site, o.host);
        snprintf(hostname, sizeof hostname, "%s", o.host);
    } else {
        h = this_host(ctx->site, hostname, sizeof hostname);
    }
    if (h == NULL) {
        char names[2000];
        list_hosts(ctx->site, names, sizeof names);
        fprintf(stderr,
                "prop pull: the site declares no host \"%s\"%s (its hosts: %s); name one with "
                "--host\n",
                hostname, o.host ? "" : ", this machine's name", names[0] ? names : "none");
        rc = EXIT_USAGE;
        goto done;
    }
    snprintf(hostname, sizeof hostname, "%s", prop_host_fullname(h));
    lprop_close(ctx);
    ctx = NULL;

    /* The run. */
    start = time(NULL);
    if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0)
        memset(&t0, 0, sizeof t0);
    rc = pull_run_site(&o, o.site, hostname);
    if (clock_gettime(CLOCK_MONOTONIC, &t1) != 0)
        t1 = t0;
    if (!o.dry && rc != EXIT_USAGE && rc != EXIT_REJECTED &&
        pull_write_last_run(
            &o, hostname, commit, signer, start,
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, rc) != 0 &&
        rc == EXIT_WELL)
        rc = EXIT_FAILED;
done:
    pull_record_free();
    lprop_close(ctx);
    if (cwd >= 0) {
        if (fchdir(cwd) != 0)
            fprintf(stderr, "prop pull: cannot go back to the directory it started in: %s\n",
                    strerror(errno));
        close(cwd);
    }
    if (lockfd >= 0)
        close(lockfd);
    free(commit);
    free(out);
    for (k = 0; k < nowned; k++)
        free(owned[k]);
    free(o.site_args);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
usage:
    free(o.site_args);
    return EXIT_USAGE;
}

const cli_command cmd_pull = {
    "pull", pull_run,
    "on the host itself: fetch the site from git, check its signature, run this host's part",
    "prop pull REPO [--branch B] [--host NAME] [--site PATH] [--keyring FILE]...\n"
    "                [--state-dir DIR] [--fetch-timeout S] [--every DURATION]\n"
    "                [--prometheus FILE] [--dry-run] [--json]\n"
    "                [--max-instructions N] [--max-memory MIB] [--max-cpu S]"};
