/*
 * secret_uses.c - where a site uses the secrets of its store, for
 * prop secret list (declared in cli.h).
 *
 * For now it says nothing: finding the uses means evaluating the site
 * and walking every host for its secret "name" values, which belongs
 * with the Lua side of secrets.  This file is the one place to do it.
 */
#include "cli.h"

int
cli_secret_uses(const char *site, prop_secrets *store, FILE *out)
{
    (void)site;
    (void)store;
    (void)out;
    return 0;
}
