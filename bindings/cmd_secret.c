/*
 * cmd_secret.c - prop secret set|list|rm|recipients: the encrypted store
 * of a site's secret values (SITE's name with .secrets for its
 * extension).  Parsing the command line and printing; the store itself
 * is the engine's (engine/src/secrets.c).  A value comes from standard
 * input only, never from an argument, and is never printed.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

/* The longest value typed on a terminal (a pipe takes any size). */
#define TTY_VALUE_MAX 4096

/* What the command line said. */
typedef struct secret_args {
    const char *sub;  /* set, list, rm, recipients */
    const char *site; /* SITE */
    const char *word; /* NAME, or add|rm for recipients */
    const char *key;  /* KEYID for recipients add|rm */
    const char *host; /* --host */
    int json;         /* --json */
} secret_args;

/* A message of the engine (one or more lines), each line "prop secret: ...". */
static void
report(const char *msg)
{
    const char *nl;

    do {
        nl = strchr(msg, '\n');
        fputs("prop secret: ", stderr);
        prop_text_write(stderr, msg, nl ? (size_t)(nl - msg) : strlen(msg), 0);
        fputc('\n', stderr);
        msg = nl ? nl + 1 : NULL;
    } while (msg);
}

static int
parse_args(int argc, char **argv, secret_args *a)
{
    const char **pos[4] = {&a->sub, &a->site, &a->word, &a->key};
    int i, npos = 0;

    memset(a, 0, sizeof *a);
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            return cli_print_help(&cmd_secret);
        if (strcmp(argv[i], "--json") == 0) {
            a->json = 1;
        } else if (strcmp(argv[i], "--host") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error(&cmd_secret, "--host needs a host name");
            a->host = argv[++i];
        } else if (strncmp(argv[i], "--host=", 7) == 0) {
            a->host = argv[i] + 7;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error(&cmd_secret, "unknown option \"%s\"", argv[i]);
        } else if (npos < 4) {
            *pos[npos++] = argv[i];
        } else {
            return cli_usage_error(&cmd_secret, "too many arguments");
        }
    }
    if (a->sub == NULL)
        return cli_usage_error(&cmd_secret, "which of set, list, rm, recipients?");
    if (strcmp(a->sub, "set") && strcmp(a->sub, "list") && strcmp(a->sub, "rm") &&
        strcmp(a->sub, "recipients"))
        return cli_usage_error(&cmd_secret, "unknown subcommand \"%s\" (set, list, rm, recipients)",
                               a->sub);
    if (a->site == NULL)
        return cli_usage_error(&cmd_secret, "which site file?");
    if (strcmp(a->sub, "set") == 0 || strcmp(a->sub, "rm") == 0) {
        if (a->word == NULL)
            return cli_usage_error(&cmd_secret, "which secret? (a NAME after the site)");
        if (!prop_secrets_name_valid(a->word))
            return cli_usage_error(&cmd_secret,
                                   "\"%s\" is not a secret name: letters, digits, _ . and -, "
                                   "starting with a letter or _",
                                   a->word);
        if (a->key)
            return cli_usage_error(&cmd_secret, "too many arguments");
    } else if (strcmp(a->sub, "recipients") == 0) {
        if (a->word && strcmp(a->word, "add") && strcmp(a->word, "rm"))
            return cli_usage_error(&cmd_secret,
                                   "recipients takes add KEYID or rm KEYID, not \"%s\"", a->word);
        if (a->word && a->key == NULL)
            return cli_usage_error(&cmd_secret, "recipients %s needs a KEYID", a->word);
    } else if (a->word) {
        return cli_usage_error(&cmd_secret, "too many arguments");
    }
    if (a->host && strcmp(a->sub, "set") && strcmp(a->sub, "rm"))
        return cli_usage_error(&cmd_secret, "--host goes with set and rm");
    if (a->host && !prop_secrets_host_valid(a->host))
        return cli_usage_error(&cmd_secret,
                               "--host takes a host name of the site (no blank or control "
                               "character)");
    if (a->json && strcmp(a->sub, "list"))
        return cli_usage_error(&cmd_secret, "--json goes with list");
    return -1;
}

/* The store of the site; an exit code when it cannot be had. */
static int
open_store(const char *site, prop_secrets **out)
{
    struct stat st;
    char *path = NULL;
    int rc;

    *out = NULL;
    if (stat(site, &st) != 0) {
        fprintf(stderr, "prop secret: %s: %s\n", site, strerror(errno));
        return EXIT_FAILED;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "prop secret: %s is a directory, not a site file\n", site);
        return EXIT_USAGE;
    }
    rc = prop_secrets_store_path(&path, site);
    if (rc != PROP_OK) {
        fprintf(stderr, "prop secret: %s\n",
                rc == PROP_ENOMEM ? "out of memory" : "SITE is the site file, not its store");
        return rc == PROP_ENOMEM ? EXIT_FAILED : EXIT_USAGE;
    }
    rc = prop_secrets_open(out, path);
    free(path);
    if (rc != PROP_OK) {
        report(prop_secrets_error(*out));
        prop_secrets_free(*out);
        *out = NULL;
        return EXIT_FAILED;
    }
    return -1;
}

/* ---- a value typed on a terminal ---- */

static struct termios saved_tty;
static volatile sig_atomic_t tty_changed;

static void
restore_tty_and_die(int sig)
{
    if (tty_changed)
        (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* One line typed without echo, its newline dropped; 0, or -1 after saying why. */
static int
read_hidden(const char *prompt, char *buf, size_t size, size_t *len)
{
    struct termios t;
    struct sigaction sa, old_int, old_term, old_hup;
    int ok = 0;
    size_t n = 0;
    ssize_t r = 0;
    char c;

    fputs(prompt, stderr);
    fflush(stderr);
    if (tcgetattr(STDIN_FILENO, &saved_tty) != 0)
        return -1;
    t = saved_tty;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = restore_tty_and_die;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGINT, &sa, &old_int);
    (void)sigaction(SIGTERM, &sa, &old_term);
    (void)sigaction(SIGHUP, &sa, &old_hup);
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) != 0)
        goto out;
    tty_changed = 1;
    /* Byte by byte: nothing of the value is left in a stdio buffer. */
    for (;;) {
        r = read(STDIN_FILENO, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || c == '\n')
            break;
        if (n + 1 >= size) {
            fprintf(stderr,
                    "\nprop secret: more than %zu bytes: give a long value through a "
                    "pipe\n",
                    size - 1);
            goto out;
        }
        buf[n++] = c;
    }
    ok = r > 0 || n > 0;
    if (!ok)
        fprintf(stderr, "\nprop secret: no value read\n");
out:
    c = 0;
    if (tty_changed)
        (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
    tty_changed = 0;
    (void)sigaction(SIGINT, &old_int, NULL);
    (void)sigaction(SIGTERM, &old_term, NULL);
    (void)sigaction(SIGHUP, &old_hup, NULL);
    fputc('\n', stderr);
    *len = n;
    return ok ? 0 : -1;
}

/* Ask twice on the terminal; set the value when both agree. */
static int
set_from_tty(prop_secrets *s, const secret_args *a)
{
    static char one[TTY_VALUE_MAX], two[TTY_VALUE_MAX];
    char prompt[600];
    size_t n1 = 0, n2 = 0;
    int rc = EXIT_FAILED;

    snprintf(prompt, sizeof prompt, "value of %s%s%s (not shown): ", a->word,
             a->host ? " for " : "", a->host ? a->host : "");
    if (read_hidden(prompt, one, sizeof one, &n1) != 0 ||
        read_hidden("the same again: ", two, sizeof two, &n2) != 0)
        goto out;
    if (n1 != n2 || memcmp(one, two, n1) != 0) {
        fprintf(stderr, "prop secret: the two differ; nothing changed\n");
        goto out;
    }
    if (n1 == 0) {
        fprintf(stderr, "prop secret: an empty value; nothing changed (pipe it to mean it)\n");
        goto out;
    }
    if (prop_secrets_set(s, a->word, a->host, (const unsigned char *)one, n1) != PROP_OK)
        report(prop_secrets_error(s));
    else
        rc = EXIT_WELL;
out:
    prop_secrets_wipe(one, sizeof one);
    prop_secrets_wipe(two, sizeof two);
    return rc;
}

/* ---- the subcommands ---- */

static int
do_set(prop_secrets *s, const secret_args *a)
{
    int rc;

    if (prop_secrets_nrecipients(s) == 0) {
        fprintf(stderr,
                "prop secret: %s lists no recipient to encrypt to; add one first: prop secret "
                "recipients %s add KEYID\n",
                prop_secrets_path(s), a->site);
        return EXIT_FAILED;
    }
    if (isatty(STDIN_FILENO)) {
        rc = set_from_tty(s, a);
        if (rc != EXIT_WELL)
            return rc;
    } else if (prop_secrets_set_fd(s, a->word, a->host, STDIN_FILENO) != PROP_OK) {
        report(prop_secrets_error(s));
        return EXIT_FAILED;
    }
    printf("set %s%s%s in %s, encrypted to %zu recipient%s\n", a->word, a->host ? " for " : "",
           a->host ? a->host : "", prop_secrets_path(s), prop_secrets_nrecipients(s),
           prop_secrets_nrecipients(s) == 1 ? "" : "s");
    return EXIT_WELL;
}

static int
do_rm(prop_secrets *s, const secret_args *a)
{
    if (prop_secrets_remove(s, a->word, a->host) != PROP_OK) {
        report(prop_secrets_error(s));
        return EXIT_FAILED;
    }
    printf("removed %s%s%s from %s\n", a->word, a->host ? " for " : "", a->host ? a->host : "",
           prop_secrets_path(s));
    return EXIT_WELL;
}

static void
print_recipients(prop_secrets *s, const char *indent)
{
    size_t i;

    for (i = 0; i < prop_secrets_nrecipients(s); i++) {
        const char *uid = prop_secrets_recipient_uid(s, i);
        printf("%s%s", indent, prop_secrets_recipient(s, i));
        if (uid) {
            fputs("  ", stdout);
            prop_text_puts(stdout, uid, 0);
        }
        fputc('\n', stdout);
    }
}

static void
list_json(prop_secrets *s)
{
    const char *name, *host, *uid;
    size_t i, n;

    fputs("{\"store\":", stdout);
    prop_json_write_string(stdout, prop_secrets_path(s), strlen(prop_secrets_path(s)));
    fputs(",\"recipients\":[", stdout);
    for (i = 0; i < prop_secrets_nrecipients(s); i++) {
        uid = prop_secrets_recipient_uid(s, i);
        printf("%s{\"fingerprint\":\"%s\",\"uid\":", i ? "," : "", prop_secrets_recipient(s, i));
        if (uid)
            prop_json_write_string(stdout, uid, strlen(uid));
        else
            fputs("null", stdout);
        fputc('}', stdout);
    }
    fputs("],\"secrets\":[", stdout);
    for (i = 0, n = prop_secrets_count(s); i < n; i++) {
        (void)prop_secrets_entry(s, i, &name, &host);
        printf("%s{\"name\":\"%s\",\"host\":", i ? "," : "", name);
        if (host)
            prop_json_write_string(stdout, host, strlen(host));
        else
            fputs("null", stdout);
        fputc('}', stdout);
    }
    fputs("]}\n", stdout);
}

static int
do_list(prop_secrets *s, const secret_args *a)
{
    const char *name, *host;
    size_t i, n = prop_secrets_count(s), w = 0;

    if (a->json) {
        list_json(s);
        return EXIT_WELL;
    }
    printf("recipients of %s:\n", prop_secrets_path(s));
    if (prop_secrets_nrecipients(s) == 0)
        printf("  none (prop secret recipients %s add KEYID)\n", a->site);
    print_recipients(s, "  ");
    printf("secrets (* for every host):\n");
    if (n == 0)
        printf("  none\n");
    for (i = 0; i < n; i++) {
        (void)prop_secrets_entry(s, i, &name, NULL);
        if (strlen(name) > w)
            w = strlen(name);
    }
    for (i = 0; i < n; i++) {
        (void)prop_secrets_entry(s, i, &name, &host);
        printf("  %-*s  ", (int)w, name);
        prop_text_puts(stdout, host ? host : "*", 0);
        fputc('\n', stdout);
    }
    /* Where the site uses each one: bindings/secret_uses.c. */
    return cli_secret_uses(a->site, s, stdout);
}

/* Index of the recipient of s that is not among before[0..n), or (size_t)-1. */
static size_t
new_recipient(prop_secrets *s, char **before, size_t n)
{
    size_t i, j;

    for (i = 0; i < prop_secrets_nrecipients(s); i++) {
        for (j = 0; j < n && strcmp(before[j], prop_secrets_recipient(s, i)) != 0; j++)
            ;
        if (j == n)
            return i;
    }
    return (size_t)-1;
}

static int
do_recipients(prop_secrets *s, const secret_args *a)
{
    size_t n = prop_secrets_nrecipients(s), nval = prop_secrets_count(s), i, k;
    char **before;
    int rc = EXIT_FAILED, add;

    if (a->word == NULL) {
        print_recipients(s, "");
        return EXIT_WELL;
    }
    add = strcmp(a->word, "add") == 0;
    /* The fingerprints before, to name the one added or removed. */
    if ((before = calloc(n + 1, sizeof *before)) == NULL)
        goto oom;
    for (i = 0; i < n; i++)
        if ((before[i] = strdup(prop_secrets_recipient(s, i))) == NULL)
            goto oom;
    if ((add ? prop_secrets_recipient_add(s, a->key) : prop_secrets_recipient_remove(s, a->key)) !=
        PROP_OK) {
        report(prop_secrets_error(s));
        goto out;
    }
    rc = EXIT_WELL;
    if (prop_secrets_nrecipients(s) == n) {
        printf("%s already lists that key; nothing changed\n", prop_secrets_path(s));
        goto out;
    }
    if (add) {
        k = new_recipient(s, before, n);
        printf("added %s", k != (size_t)-1 ? prop_secrets_recipient(s, k) : a->key);
        if (k != (size_t)-1 && prop_secrets_recipient_uid(s, k)) {
            fputs(" (", stdout);
            prop_text_puts(stdout, prop_secrets_recipient_uid(s, k), 0);
            fputc(')', stdout);
        }
        printf(" to %s", prop_secrets_path(s));
    } else {
        for (i = 0; i < n; i++) {
            for (k = 0; k < prop_secrets_nrecipients(s); k++)
                if (strcmp(before[i], prop_secrets_recipient(s, k)) == 0)
                    break;
            if (k == prop_secrets_nrecipients(s))
                printf("removed %s from %s", before[i], prop_secrets_path(s));
        }
    }
    printf("; %zu value%s encrypted again\n", nval, nval == 1 ? "" : "s");
    if (!add && nval > 0)
        fprintf(stderr, "prop secret: note: the removed key still decrypts the values as they were "
                        "(in git history, in copies): change the values themselves too\n");
    goto out;
oom:
    fprintf(stderr, "prop secret: out of memory\n");
out:
    for (i = 0; before && i < n; i++)
        free(before[i]);
    free(before);
    return rc;
}

static int
run_secret(int argc, char **argv)
{
    secret_args a;
    prop_secrets *s = NULL;
    int rc;

    if ((rc = parse_args(argc, argv, &a)) >= 0)
        return rc;
    if ((rc = open_store(a.site, &s)) >= 0)
        return rc;
    if (strcmp(a.sub, "set") == 0)
        rc = do_set(s, &a);
    else if (strcmp(a.sub, "rm") == 0)
        rc = do_rm(s, &a);
    else if (strcmp(a.sub, "list") == 0)
        rc = do_list(s, &a);
    else
        rc = do_recipients(s, &a);
    if (fflush(stdout) != 0 && rc == EXIT_WELL) {
        fprintf(stderr, "prop secret: cannot write the output: %s\n", strerror(errno));
        rc = EXIT_FAILED;
    }
    prop_secrets_free(s);
    return rc;
}

const cli_command cmd_secret = {
    "secret", run_secret, "keep the site's secret values, encrypted with OpenPGP, beside it",
    "prop secret set SITE NAME [--host HOST]     (the value on standard input)\n"
    "       prop secret list SITE [--json]\n"
    "       prop secret rm SITE NAME [--host HOST]\n"
    "       prop secret recipients SITE [add KEYID | rm KEYID]"};
