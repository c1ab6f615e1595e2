/*
 * transport_ssh_lock.c - the SSH transport's run lock: a remote shell
 * holding flock(1) on the target while the session lives.
 *
 * The run lock is the one the local transport takes, on the target: as
 * root, flock(1) on /run/lock/prop.lock, otherwise on
 * ${TMPDIR:-/tmp}/prop-UID.lock.  A remote shell on a channel of this
 * session opens the file (never through a symbolic link, and only a file
 * of its own), locks it, checks that the path still names the file it
 * locked (a holder removes the file when it lets go; whoever locked a
 * removed file retries), writes the holder's description into it (pid,
 * host, user, start time) and waits for its stdin to end.  A second run is
 * refused with that description.  prop_transport_close() ends stdin: the
 * holder removes the file and exits, and close waits for it.  If this
 * process dies, sshd closes the channel, the holder's stdin ends the same
 * way: there is no stale lock to clean up (a network cut that sshd does
 * not notice keeps the lock until sshd times the connection out, see
 * ClientAliveInterval).  Without flock(1) (FreeBSD), lockf(1) holds the
 * lock the same way.  PROP_LOCK_FILE in the remote environment (sshd's
 * SetEnv; sudo drops it) puts the lock elsewhere: the tests use it.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport_ssh.h"

#define SSH_CLOSE_WAIT_MS 5000
#define EXIT_LOCKED 4 /* the lock script's "held by another run" */

/* The remote shell that takes the lock, its argument the holder's
 * description. */
static const char lock_script[] =
    "info=$1 f=$PROP_LOCK_FILE\n"
    "if [ -z \"$f\" ]; then\n"
    "  u=$(id -u) || exit 1\n"
    "  if [ \"$u\" = 0 ] && [ -d /run/lock ] && [ -w /run/lock ]; then f=/run/lock/prop.lock\n"
    "  else f=${TMPDIR:-/tmp}/prop-$u.lock; fi\n"
    "fi\n"
    "umask 022\n"
    "if command -v flock >/dev/null 2>&1; then\n"
    "  i=0\n"
    "  while :; do\n"
    "    if [ -L \"$f\" ]; then echo \"$f is a symbolic link, not a lock\" >&2; exit 1; fi\n"
    "    exec 9<>\"$f\" || exit 1\n"
    "    if ! flock -n 9; then echo \"$f\"; cat -- \"$f\"; exit 4; fi\n"
    "    [ \"$f\" -ef /dev/fd/9 ] && break\n"
    "    i=$((i + 1))\n"
    "    if [ $i -ge 100 ]; then echo \"$f keeps being replaced\" >&2; exit 1; fi\n"
    "  done\n"
    "  if [ ! -O \"$f\" ]; then echo \"$f is not owned by $(id -un)\" >&2; exit 1; fi\n"
    "  printf '%-200s\\n' \"$info\" >&9\n"
    "  echo prop-locked\n"
    "  cat >/dev/null\n"
    "  rm -f -- \"$f\"\n"
    "  exit 0\n"
    "fi\n"
    "if command -v lockf >/dev/null 2>&1; then\n"
    "  lockf -s -t 0 \"$f\" sh -c "
    "'printf \"%s\\n\" \"$1\" >\"$2\"; echo prop-locked; cat >/dev/null' "
    "sh \"$info\" \"$f\"\n"
    "  rc=$?\n"
    "  if [ $rc -eq 75 ]; then echo \"$f\"; cat -- \"$f\"; exit 4; fi\n"
    "  exit $rc\n"
    "fi\n"
    "echo 'neither flock(1) nor lockf(1) is installed on the target' >&2\n"
    "exit 1\n";

/* The transport's lock operation (see prop_transport_lock()). */
int
prop_ssh_sshtr_lock(prop_transport *t)
{
    ssh_tr *s = (ssh_tr *)t;
    char info[512], host[256], stamp[64];
    const struct passwd *pw = getpwuid(getuid());
    const char *argv[] = {"sh", "-c", lock_script, "sh", info, NULL};
    char *cmd, *p, *file, *holder;
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    if (s->locked)
        return 0;
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(stamp, sizeof stamp, "?");
    snprintf(info, sizeof info, "pid %ld on %s (user %s), since %s", (long)getpid(), host,
             pw && pw->pw_name ? pw->pw_name : "?", stamp);
    cmd = prop_ssh_build_command(s, argv);
    if (!cmd)
        return prop_transport_fail(t, "lock: out of memory");
    rc = prop_ssh_sh_open_beside(s, &s->lock, cmd, "lock");
    free(cmd);
    if (rc == 0)
        rc = prop_ssh_chan_pump(s, &s->lock, NULL, 0, 0, "prop-locked\n",
                                (long long)s->op_timeout * 1000, "lock", NULL);
    if (rc == 0 && s->lock.out.p && strstr(s->lock.out.p, "prop-locked\n")) {
        s->locked = 1;
        return 0;
    }
    if (rc == 0 && s->lock.have_status && s->lock.status == EXIT_LOCKED) {
        p = s->lock.out.p ? s->lock.out.p : (char *)"";
        file = prop_sh_next_line(&p);
        holder = prop_sh_next_line(&p);
        if (holder) { /* padded with spaces by the holder */
            size_t n = strlen(holder);

            while (n && (holder[n - 1] == ' ' || holder[n - 1] == '\r'))
                holder[--n] = '\0';
        }
        rc = prop_transport_fail(t,
                                 "%s is locked by another run: %s (lock %s on the target; it "
                                 "is released when that run ends)",
                                 s->hostport, holder && *holder ? holder : "holder unknown",
                                 file ? file : "?");
    } else if (rc == 0) {
        prop_cmd_result r;

        memset(&r, 0, sizeof r);
        r.code = s->lock.have_status ? s->lock.status : -1;
        r.err = s->lock.err.p ? s->lock.err.p : (char *)"";
        r.err_len = s->lock.err.len;
        rc = prop_sh_fail(&s->base, &r, "lock");
    }
    prop_ssh_chan_free(s, &s->lock);
    return rc;
}

/* Let the lock go, when held: end the holder's stdin and wait for it. */
void
prop_ssh_unlock(ssh_tr *s)
{
    if (s->locked) {
        /* The holder ends when its stdin does; wait for it so that the next
         * run finds the lock free. */
        if (!s->dead)
            (void)prop_ssh_chan_pump(s, &s->lock, NULL, 0, 1, NULL, SSH_CLOSE_WAIT_MS, "unlock",
                                     NULL);
        prop_ssh_chan_free(s, &s->lock);
        s->locked = 0;
    }
}
