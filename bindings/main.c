/*
 * main.c - the prop command: finds the subcommand in a table and runs it.
 * Each subcommand lives in its own cmd_<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_command *const commands[] = {
    &cmd_run,  &cmd_verify, &cmd_lint,   &cmd_show, &cmd_graph,   &cmd_claims, &cmd_secret,
    &cmd_pull, &cmd_status, &cmd_report, &cmd_repl, &cmd_explain, NULL};

static void
usage(FILE *f)
{
    const cli_command *const *c;

    fprintf(f, "usage: prop COMMAND [ARGS...]\n\n"
               "prop makes hosts the way a Lua site file says, after checking the whole\n"
               "site before anything runs.\n\ncommands:\n");
    for (c = commands; *c; c++)
        fprintf(f, "  %-9s %s\n", (*c)->name, (*c)->summary);
    fprintf(f, "\n'prop COMMAND --help' describes a command; see prop(1).\n");
}

int
main(int argc, char **argv)
{
    const cli_command *const *c;

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        if (argc > 2) {
            for (c = commands; *c; c++)
                if (strcmp((*c)->name, argv[2]) == 0)
                    return cli_print_help(*c);
        }
        usage(stdout);
        return EXIT_WELL;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("prop %s\n", PROP_VERSION);
        return EXIT_WELL;
    }
    for (c = commands; *c; c++)
        if (strcmp((*c)->name, argv[1]) == 0)
            return (*c)->run(argc - 1, argv + 1);
    fprintf(stderr, "prop: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
