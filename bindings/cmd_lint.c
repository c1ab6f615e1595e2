/*
 * cmd_lint.c - prop lint SITE: evaluate the site in the sandbox, run the
 * pre-pass, print every finding at once.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_GITHUB };

/* ---- SARIF and GitHub workflow commands ---------------------------------- */

/* What P000 (recorded by the bindings, not by the pre-pass) means. */
static const char p000_summary[] = "the site could not be evaluated";
static const char p000_text[] =
    "P000 (error): the site could not be evaluated\n"
    "\n"
    "The site file has a syntax error, raises a runtime error, passes nil in a\n"
    "host's list (often a misspelt recipe), reads an undefined global, tries\n"
    "something the sandbox forbids, or goes past a limit (--max-cpu,\n"
    "--max-instructions, --max-memory).  Evaluation stops at the first such\n"
    "error; the pre-pass does not run.  See prop-diagnostics(7).\n";

static const char *
code_summary(const char *code)
{
    const char *s = prop_explain_summary(code);

    if (s == NULL && strcmp(code, "P000") == 0)
        s = p000_summary;
    return s ? s : code;
}

static const char *
code_text(const char *code)
{
    const char *s = prop_explain(code);

    if (s == NULL && strcmp(code, "P000") == 0)
        s = p000_text;
    return s ? s : code_summary(code);
}

static int
json_string(FILE *f, const char *s)
{
    return prop_json_write_string(f, s, strlen(s)) == PROP_OK ? 0 : -1;
}

/*
 * A file path as a SARIF artifact URI: a relative path stays relative (to
 * the directory prop ran in: the repository root in CI), an absolute one
 * becomes a file:// URI; bytes outside RFC 3986's unreserved set and "/"
 * are percent-encoded.  Written as a JSON string.
 */
static int
json_uri(FILE *f, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p;

    if (fputs(path[0] == '/' ? "\"file://" : "\"", f) == EOF)
        return -1;
    for (p = (const unsigned char *)path; *p; p++) {
        int plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                    (*p >= '0' && *p <= '9') || strchr("-._~/", *p) != NULL;

        if (plain ? putc(*p, f) == EOF : fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]) < 0)
            return -1;
    }
    return putc('"', f) == EOF ? -1 : 0;
}

/* {"physicalLocation":{...}} for file:line; a line of 0 has no region. */
static int
sarif_location_body(FILE *f, const char *file, int line)
{
    if (fputs("\"physicalLocation\":{\"artifactLocation\":{\"uri\":", f) == EOF ||
        json_uri(f, file) != 0 || fputs("}", f) == EOF)
        return -1;
    if (line > 0 && fprintf(f, ",\"region\":{\"startLine\":%d}", line) < 0)
        return -1;
    return fputs("}", f) == EOF ? -1 : 0;
}

/* The distinct codes of the diagnostics, in order of first use. */
static const char **
used_codes(const prop_site *s, size_t *n)
{
    size_t i, k, nd = prop_site_ndiags(s);
    const char **v = malloc((nd ? nd : 1) * sizeof *v);

    *n = 0;
    if (v == NULL)
        return NULL;
    for (i = 0; i < nd; i++) {
        const char *code = prop_site_diag(s, i)->code;

        for (k = 0; k < *n && strcmp(v[k], code) != 0; k++)
            ;
        if (k == *n)
            v[(*n)++] = code;
    }
    return v;
}

static size_t
code_index(const char **codes, size_t n, const char *code)
{
    size_t k;

    for (k = 0; k < n && strcmp(codes[k], code) != 0; k++)
        ;
    return k;
}

/*
 * The diagnostics as a SARIF 2.1.0 log (what GitHub code scanning and
 * other tools read): one run, a rule per code used (its one-line summary
 * and the text of prop explain), a result per diagnostic, its notes as
 * related locations.  A diagnostic without a place is put at the site
 * file.  Returns 0, or -1 on a write error or no memory.
 */
static int
print_sarif(const prop_site *s, const char *site, FILE *f, int werror)
{
    size_t i, k, ncodes, nd = prop_site_ndiags(s);
    const char **codes = used_codes(s, &ncodes);
    int rc = -1;

    if (codes == NULL)
        return -1;
    if (fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
              "\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{\"name\":\"prop\","
              "\"version\":\"" PROP_VERSION "\",\"rules\":[",
              f) == EOF)
        goto out;
    for (k = 0; k < ncodes; k++) {
        if (fputs(k ? ",\n{\"id\":" : "\n{\"id\":", f) == EOF || json_string(f, codes[k]) != 0 ||
            fputs(",\"shortDescription\":{\"text\":", f) == EOF ||
            json_string(f, code_summary(codes[k])) != 0 ||
            fputs("},\"fullDescription\":{\"text\":", f) == EOF ||
            json_string(f, code_text(codes[k])) != 0 || fputs("},\"help\":{\"text\":", f) == EOF ||
            json_string(f, code_text(codes[k])) != 0 ||
            fprintf(f, "},\"defaultConfiguration\":{\"level\":\"%s\"}}",
                    codes[k][0] == 'W' ? "warning" : "error") < 0)
            goto out;
    }
    if (fputs("]}},\n\"results\":[", f) == EOF)
        goto out;
    for (i = 0; i < nd; i++) {
        const prop_diag *d = prop_site_diag(s, i);
        int error = d->severity == PROP_SEV_ERROR || werror;

        if (fputs(i ? ",\n{\"ruleId\":" : "\n{\"ruleId\":", f) == EOF ||
            json_string(f, d->code) != 0 ||
            fprintf(f, ",\"ruleIndex\":%zu,\"level\":\"%s\",\"message\":{\"text\":",
                    code_index(codes, ncodes, d->code), error ? "error" : "warning") < 0 ||
            json_string(f, d->message) != 0 || fputs("},\"locations\":[{", f) == EOF ||
            sarif_location_body(f, d->file ? d->file : site, d->file ? d->line : 0) != 0 ||
            fputs("}]", f) == EOF)
            goto out;
        if (d->nnotes > 0 && fputs(",\"relatedLocations\":[", f) == EOF)
            goto out;
        for (k = 0; k < d->nnotes; k++) {
            const prop_note *n = &d->notes[k];

            if (fprintf(f, "%s{\"id\":%zu,", k ? "," : "", k) < 0 ||
                (n->file != NULL &&
                 (sarif_location_body(f, n->file, n->line) != 0 || fputs(",", f) == EOF)) ||
                fputs("\"message\":{\"text\":", f) == EOF || json_string(f, n->message) != 0 ||
                fputs("}}", f) == EOF)
                goto out;
        }
        if (fputs(d->nnotes > 0 ? "]}" : "}", f) == EOF)
            goto out;
    }
    if (fputs(nd ? "\n]}]}\n" : "]}]}\n", f) == EOF)
        goto out;
    rc = 0;
out:
    free(codes);
    return rc;
}

/*
 * Text from the site made safe for a workflow command (GitHub's rules,
 * as @actions/core escapes them): what a terminal would obey is shown
 * instead (prop_text_write), then %, CR and LF are percent-encoded, and
 * in a property also ":" and ",".
 */
static int
github_escape(FILE *f, const char *s, int property)
{
    char *buf = NULL;
    size_t len = 0, i;
    FILE *m = open_memstream(&buf, &len);
    int rc = 0;

    if (m == NULL)
        return -1;
    if (prop_text_write(m, s, strlen(s), PROP_TEXT_LINES) != PROP_OK)
        rc = -1;
    if (fclose(m) != 0 || buf == NULL) {
        free(buf);
        return -1;
    }
    for (i = 0; rc == 0 && i < len; i++) {
        const char *e = buf[i] == '%'               ? "%25"
                        : buf[i] == '\r'            ? "%0D"
                        : buf[i] == '\n'            ? "%0A"
                        : property && buf[i] == ':' ? "%3A"
                        : property && buf[i] == ',' ? "%2C"
                                                    : NULL;

        if (e ? fputs(e, f) == EOF : putc(buf[i], f) == EOF)
            rc = -1;
    }
    free(buf);
    return rc;
}

/*
 * One GitHub Actions workflow command per diagnostic:
 * "::error file=F,line=L,title=CODE::message" (::warning for a warning),
 * the notes after the message on lines of their own.
 */
static int
print_github(const prop_site *s, FILE *f, int werror)
{
    size_t i, k, nd = prop_site_ndiags(s);

    for (i = 0; i < nd; i++) {
        const prop_diag *d = prop_site_diag(s, i);
        int error = d->severity == PROP_SEV_ERROR || werror;

        if (fprintf(f, "::%s ", error ? "error" : "warning") < 0)
            return -1;
        if (d->file != NULL &&
            (fputs("file=", f) == EOF || github_escape(f, d->file, 1) != 0 ||
             (d->line > 0 && fprintf(f, ",line=%d", d->line) < 0) || fputs(",", f) == EOF))
            return -1;
        if (fputs("title=", f) == EOF || github_escape(f, d->code, 1) != 0 ||
            fputs("::", f) == EOF || github_escape(f, d->message, 0) != 0)
            return -1;
        for (k = 0; k < d->nnotes; k++) {
            const prop_note *n = &d->notes[k];

            if (fputs("%0A", f) == EOF)
                return -1;
            if (n->file != NULL &&
                (github_escape(f, n->file, 0) != 0 ||
                 (n->line > 0 && fprintf(f, ":%d", n->line) < 0) || fputs(": ", f) == EOF))
                return -1;
            if (fputs("note: ", f) == EOF || github_escape(f, n->message, 0) != 0)
                return -1;
        }
        if (putc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

/* The format named v: FMT_*, or -1. */
static int
format_named(const char *v)
{
    static const char *const names[] = {"text", "json", "sarif", "github"};
    int k;

    for (k = 0; k < 4; k++)
        if (strcmp(v, names[k]) == 0)
            return k;
    return -1;
}

/* --stats: what the site made and what checking it cost, on stderr. */
static void
print_stats(lprop_ctx *ctx, const char *site, const cli_load_times *t)
{
    size_t nh = prop_site_nhosts(ctx->site);

    fprintf(stderr, "%s: %zu host%s, %zu nodes (properties and combinators)\n", site, nh,
            nh == 1 ? "" : "s", prop_site_mark(ctx->site));
    if (ctx->memo.table)
        fprintf(stderr,
                "%s: %zu recipe calls with plain-data arguments, %zu of them made again "
                "from an earlier equal call\n",
                site, ctx->memo.recipe_calls, ctx->memo.recipe_remade);
    else
        fprintf(stderr, "%s: %zu recipe calls with plain-data arguments, each one run\n", site,
                ctx->memo.recipe_calls);
    fprintf(stderr, "%s: evaluated in %.3f s, pre-pass %.3f s, peak memory %.1f MB\n", site,
            t->eval, t->check, (double)ctx->heap.peak / 1e6);
}

static int
run_lint(int argc, char **argv)
{
    cli_site_opts o;
    const char *site = NULL;
    int format = FMT_TEXT, werror = 0, out = 0, stats = 0, evaluated, i, r, rc;
    cli_load_times t;
    lprop_ctx *ctx;

    cli_site_opts_init(&o);
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            return cli_print_help(&cmd_lint);
        r = cli_site_opt(&o, argc, argv, &i);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--json") == 0) {
            format = FMT_JSON;
        } else if (strcmp(argv[i], "--format") == 0 || strncmp(argv[i], "--format=", 9) == 0) {
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : NULL;

            if (v == NULL)
                return cli_usage_error(&cmd_lint, "--format wants text, json, sarif or github");
            format = format_named(v);
            if (format < 0)
                return cli_usage_error(&cmd_lint,
                                       "unknown format \"%s\" (text, json, sarif or github)", v);
        } else if (strcmp(argv[i], "--werror") == 0) {
            werror = 1;
        } else if (strcmp(argv[i], "--stats") == 0) {
            stats = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error(&cmd_lint, "unknown option \"%s\"", argv[i]);
        } else if (site == NULL) {
            site = argv[i];
        } else {
            return cli_usage_error(&cmd_lint, "one site file at a time");
        }
    }
    if (site == NULL)
        return cli_usage_error(&cmd_lint, "which site file?");
    o.limits.check_only = 1;
    ctx = cli_load_site_timed(site, &o, &evaluated, &t);
    if (ctx == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (format == FMT_JSON) {
        prop_diags_print_json(ctx->site, stdout, werror);
    } else if (format == FMT_SARIF) {
        out = print_sarif(ctx->site, site, stdout, werror);
    } else if (format == FMT_GITHUB) {
        out = print_github(ctx->site, stdout, werror);
    } else {
        prop_diags_print_text(ctx->site, stdout, o.color_out, werror);
        cli_print_summary(ctx, site, stderr, werror);
    }
    if (stats)
        print_stats(ctx, site, &t);
    rc = (!evaluated || prop_site_nerrors(ctx->site, werror) > 0) ? EXIT_REJECTED : EXIT_WELL;
    lprop_close(ctx);
    if (fflush(stdout) != 0 || out != 0)
        return EXIT_FAILED;
    return rc;
}

const cli_command cmd_lint = {
    "lint", run_lint, "check a site: evaluate it and run the pre-pass, report every finding",
    "prop lint SITE [--format=text|json|sarif|github] [--werror] [--stats] [--max-instructions N]\n"
    "                [--max-memory MIB] [--max-cpu S]"};
