/*
 * cmd_claims.c - prop claims SITE THING [--json]: what manages a path, a
 * package, a service, a port, an account, on which hosts; each claim with
 * its property, the line that made it, the composites it sits in and its
 * exact value (never a secret's).  The REPL's :claims prints the same
 * (cli_claims_print).
 */
#include <string.h>

#include "cli.h"

/* Values longer than this are cut in text output (JSON gives them whole). */
#define TEXT_VALUE_MAX 200

typedef struct printer {
    FILE *f;
    int json;
    size_t found;
} printer;

/* s[0..len) quoted for a terminal: escapes for quotes, backslashes and
 * every control byte, so that a value can never move the cursor. */
static void
put_quoted(FILE *f, const char *s, size_t len, size_t max)
{
    size_t i, start = 0, n = len > max ? max : len;

    fputc('"', f);
    for (i = 0; i < n; i++) {
        if (s[i] != '"' && s[i] != '\\')
            continue;
        prop_text_write(f, s + start, i - start, 0);
        fprintf(f, "\\%c", s[i]);
        start = i + 1;
    }
    prop_text_write(f, s + start, n - start, 0);
    fputc('"', f);
    if (n < len)
        fprintf(f, "... (%zu bytes)", len);
}

static void
text(FILE *f, const char *s)
{
    prop_text_puts(f, s, 0);
}

static const char *
place(const prop_origin *o, char *buf, size_t size)
{
    if (o == NULL || o->nframes == 0)
        return "?";
    snprintf(buf, size, "%s:%d", o->frames[0].file, o->frames[0].line);
    return buf;
}

static void
put_json_str(FILE *f, const char *s)
{
    prop_json_write_string(f, s ? s : "", s ? strlen(s) : 0);
}

/* Whether chain[i] is worth naming: not when it says what the node below
 * it says (a recipe's pair, a requires named after its first part). */
static int
shown_in_chain(const prop_claim_match *m, size_t i)
{
    const prop_node *below = i + 1 < m->nchain ? m->chain[i + 1] : m->leaf;

    /* An undescribed props {} says nothing about itself. */
    if (prop_node_kind(m->chain[i]) == PROP_PROPS)
        return 0;
    return strcmp(prop_node_desc(m->chain[i]), prop_node_desc(below)) != 0;
}

static void
print_value(printer *p, const prop_claim *c)
{
    size_t len = c->value ? (c->value_len ? c->value_len : strlen(c->value)) : 0;

    if (c->flags & PROP_CLAIM_SECRET) {
        if (p->json)
            fputs(",\"secret\":true", p->f);
        else
            fputs(" (secret)", p->f);
        return;
    }
    if (c->value == NULL)
        return;
    if (p->json) {
        fputs(",\"value\":", p->f);
        prop_json_write_string(p->f, c->value, len);
    } else {
        fputc(' ', p->f);
        put_quoted(p->f, c->value, len, TEXT_VALUE_MAX);
    }
}

static int
print_match(void *ud, const prop_claim_match *m)
{
    printer *p = ud;
    FILE *f = p->f;
    char where[1100];
    const prop_origin *o = prop_node_origin(m->leaf);
    size_t i;
    int first = 1;

    if (p->json) {
        fputs(p->found ? ",\n {\"host\":" : "[\n {\"host\":", f);
        put_json_str(f, prop_host_fullname(m->host));
        if (m->claim) {
            fputs(",\"kind\":", f);
            put_json_str(f, prop_claim_kind_name(m->claim->kind));
            fputs(",\"key\":", f);
            put_json_str(f, m->claim->key);
            print_value(p, m->claim);
            if (m->claim->id >= 0)
                fprintf(f, ",\"id\":%lld", m->claim->id);
        } else if (m->port) {
            fprintf(f, ",\"kind\":\"port\",\"key\":\"%d\",\"port\":%d", m->port, m->port);
        } else {
            fputs(",\"kind\":\"info\",\"key\":", f);
            put_json_str(f, m->info->key);
            fputs(",\"value\":", f);
            put_json_str(f, m->info->value);
        }
        fputs(",\"property\":", f);
        put_json_str(f, prop_node_desc(m->leaf));
        fputs(",\"origin\":", f);
        put_json_str(f, place(o, where, sizeof where));
        fputs(",\"trace\":[", f);
        for (i = 0; o && i < o->nframes; i++) {
            snprintf(where, sizeof where, "%s:%d", o->frames[i].file, o->frames[i].line);
            if (i)
                fputc(',', f);
            put_json_str(f, where);
        }
        fputs("],\"chain\":[", f);
        for (i = 0; i < m->nchain; i++) {
            if (!shown_in_chain(m, i))
                continue;
            fputs(first ? "{\"desc\":" : ",{\"desc\":", f);
            first = 0;
            put_json_str(f, prop_node_desc(m->chain[i]));
            fputs(",\"kind\":", f);
            put_json_str(f, prop_kind_name(prop_node_kind(m->chain[i])));
            fputs(",\"origin\":", f);
            put_json_str(f, place(prop_node_origin(m->chain[i]), where, sizeof where));
            fputc('}', f);
        }
        fputs("]}", f);
        p->found++;
        return 0;
    }
    fprintf(f, "%s  ", prop_host_fullname(m->host));
    if (m->claim) {
        fprintf(f, "%s ", prop_claim_kind_name(m->claim->kind));
        text(f, m->claim->key);
        if (m->claim->id >= 0)
            fprintf(f, " (id %lld)", m->claim->id);
        print_value(p, m->claim);
    } else if (m->port) {
        fprintf(f, "port %d", m->port);
    } else {
        fputs("info ", f);
        text(f, m->info->key);
        fputc(' ', f);
        text(f, m->info->value);
    }
    fputs("  by \"", f);
    text(f, prop_node_desc(m->leaf));
    fputs("\" (", f);
    text(f, place(o, where, sizeof where));
    fputc(')', f);
    for (i = 0; o && i + 1 < o->nframes; i++) {
        fputs(", called from ", f);
        text(f, o->frames[i + 1].file);
        fprintf(f, ":%d", o->frames[i + 1].line);
    }
    for (i = m->nchain; i-- > 0;) {
        if (!shown_in_chain(m, i))
            continue;
        fputs(", in \"", f);
        text(f, prop_node_desc(m->chain[i]));
        fputs("\" (", f);
        text(f, place(prop_node_origin(m->chain[i]), where, sizeof where));
        fputc(')', f);
    }
    fputc('\n', f);
    p->found++;
    return 0;
}

int
cli_claims_print(const prop_site *s, const char *thing, FILE *f, int json, size_t *found)
{
    printer p = {f, json, 0};
    int rc;

    rc = prop_site_find_claims(s, thing, print_match, &p);
    if (json && (rc == PROP_OK || p.found))
        fputs(p.found ? "\n]\n" : "[]\n", f);
    *found = p.found;
    return rc;
}

static int
run_claims(int argc, char **argv)
{
    cli_site_opts o;
    const char *site = NULL, *thing = NULL;
    int json = 0, evaluated, i, r, rc;
    size_t found = 0, nerr;
    lprop_ctx *ctx;

    cli_site_opts_init(&o);
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            return cli_print_help(&cmd_claims);
        r = cli_site_opt(&o, argc, argv, &i);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--format=json") == 0)
            json = 1;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error(&cmd_claims, "unknown option \"%s\"", argv[i]);
        else if (site == NULL)
            site = argv[i];
        else if (thing == NULL)
            thing = argv[i];
        else
            return cli_usage_error(&cmd_claims, "one thing at a time");
    }
    if (site == NULL || thing == NULL)
        return cli_usage_error(&cmd_claims, site ? "claims of what? a path, package:NAME, "
                                                   "service:NAME, port:N, user:NAME or group:NAME"
                                                 : "which site file?");
    o.limits.check_only = 1;
    ctx = cli_load_site(site, &o, &evaluated);
    if (ctx == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (!evaluated) {
        prop_diags_print_text(ctx->site, stderr, o.color_err, 0);
        cli_print_summary(ctx, site, stderr, 0);
        lprop_close(ctx);
        return EXIT_REJECTED;
    }
    /* A site with findings still says what claims what: that is how one
     * finds out why two properties clash.  The findings are not repeated
     * (prop lint prints them); their count is. */
    nerr = prop_site_nerrors(ctx->site, 0);
    if (nerr > 0)
        fprintf(stderr, "prop claims: %s has %zu error%s (prop lint shows them)\n", site, nerr,
                nerr == 1 ? "" : "s");
    rc = cli_claims_print(ctx->site, thing, stdout, json, &found);
    lprop_close(ctx);
    if (rc == PROP_EINVAL)
        return cli_usage_error(&cmd_claims,
                               "\"%s\" is not a thing to look for: a path, package:NAME, "
                               "service:NAME, port:N (1..65535), user:NAME or group:NAME",
                               thing);
    if (rc != PROP_OK) {
        fprintf(stderr, "prop claims: out of memory\n");
        return EXIT_FAILED;
    }
    if (!json && found == 0)
        fprintf(stderr, "prop claims: nothing on any host of %s claims %s\n", site, thing);
    if (fflush(stdout) != 0)
        return EXIT_FAILED;
    return found ? EXIT_WELL : EXIT_FAILED;
}

const cli_command cmd_claims = {
    "claims", run_claims, "what manages a path, package, service, port or account, on which hosts",
    "prop claims SITE THING [--json] [--max-instructions N] [--max-memory MIB]\n"
    "   THING: /path, package:NAME, service:NAME, port:N, user:NAME, group:NAME,\n"
    "          a web site's name (www.example.com, www.example.com:443), any word"};
