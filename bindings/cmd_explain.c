/*
 * cmd_explain.c - prop explain CODE: the long explanation of a diagnostic.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int
run_explain(int argc, char **argv)
{
    const char *const *codes;
    const char *text;
    char code[8];
    size_t i;

    if (argc >= 2 && cli_is_help(argv[1]))
        return cli_print_help(&cmd_explain);
    if (argc < 2) {
        for (codes = prop_explain_codes(); *codes; codes++)
            printf("%s  %s\n", *codes, prop_explain_summary(*codes));
        return EXIT_WELL;
    }
    if (argc > 2)
        return cli_usage_error(&cmd_explain, "one code at a time");
    /* Accept "p001" and "P1" as well as "P001". */
    if (strlen(argv[1]) >= sizeof code)
        return cli_usage_error(&cmd_explain, "unknown code \"%s\"", argv[1]);
    for (i = 0; i + 1 < sizeof code && argv[1][i]; i++)
        code[i] = (char)toupper((unsigned char)argv[1][i]);
    code[i] = '\0';
    if (i >= 2 && i < 4 && isalpha((unsigned char)code[0])) {
        char digits[8];
        snprintf(digits, sizeof digits, "%s", code + 1);
        snprintf(code, sizeof code, "%c%03d", code[0], (int)strtol(digits, NULL, 10));
    }
    text = prop_explain(code);
    if (text == NULL)
        return cli_usage_error(&cmd_explain, "unknown code \"%s\" ('prop explain' lists them all)",
                               argv[1]);
    fputs(text, stdout);
    if (text[0] && text[strlen(text) - 1] != '\n')
        fputc('\n', stdout);
    return EXIT_WELL;
}

const cli_command cmd_explain = {"explain", run_explain,
                                 "explain a diagnostic code, with an example and its fix",
                                 "prop explain [CODE]"};
