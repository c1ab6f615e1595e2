#!/usr/bin/env bash
# systemd-nspawn machines for real: a bookworm tree (from the tarball
# cache) provisioned inside through systemd-nspawn in command mode (a
# file, an account, packages), twice with no change the second time; the
# .nspawn file and the unit's drop-in as written (systemd-analyze verify);
# a systemd-nspawn of another user's that names the tree is refused, and
# nothing runs in it or beside it; where systemd is not this machine's init, systemd.nspawned refuses to
# claim it started the machine; the tree booted for real by systemd-nspawn
# from its .nspawn file (Boot=yes, Bind=), then provisioned through its
# init's namespaces, where service.running really starts a service; revert
# removes the tree and the files; bad arguments are P012.
#
# Outside the scratch directory the test writes only
# /etc/systemd/nspawn/prop-test-*.nspawn and
# /etc/systemd/system/systemd-nspawn@prop-test-*.service.d, removed on
# exit, and never /var/lib/machines.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v systemd-nspawn >/dev/null; then
  skip_missing systemd-container "systemd-nspawn is not installed (apt-get install systemd-container)"
fi

rootfs_cache
T="$TMP/machines"
mkdir -p "$T" "$TMP/shared"
NAME="prop-test-nspawn-$$"
NAME2="prop-test-nspawn2-$$"
for n in "$NAME" "$NAME2"; do
  on_exit "rm -f /etc/systemd/nspawn/$n.nspawn; rm -rf /etc/systemd/system/systemd-nspawn@$n.service.d"
done
bootpid=
stop_machine() {
  [[ -n "$bootpid" ]] || return 0
  kill -TERM "$bootpid" 2>/dev/null || true
  for _ in $(seq 120); do
    kill -0 "$bootpid" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$bootpid" 2>/dev/null || true
  wait "$bootpid" 2>/dev/null || true
  bootpid=
}
on_exit stop_machine

write_site() { # START-OPTS MOTD
  cat >"$TMP/site.lua" <<EOF
local web = systemd.container("$NAME", os.debian("$SUITE", "$ARCH"), {
  file.has_content("/etc/motd", "$2\n"),
  user.account "webapp",
  apt.installed { "cron", "systemd", "dbus" },
  service.running "cron",
  systemd.bind("$TMP/shared", "/mnt/shared"),
}, { path = "$T/web", tarball = "$ROOTFS" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  systemd.nspawned(web$1),
}
EOF
}

# ---- provisioned in command mode, twice ------------------------------------
write_site ", { start = false }" "inside"
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the parent's property changed" "$(host_count "$TMP/r1.out" localhost changed)" 1
same "first run: the container's" \
  "$(changed_failed "$TMP/r1.out" "localhost/$NAME")" "3/0"
check "the tree was unpacked from the cache" grep -q "unpacked $ROOTFS" "$TMP/r1.out"
same "the file is in the tree" "$(cat "$T/web/etc/motd")" "inside"
check "the account is in the tree's passwd" grep -q '^webapp:' "$T/web/etc/passwd"
check "not in this machine's" bash -c "! grep -q '^webapp:' /etc/passwd"
check "the packages are installed in the tree" bash -c "chroot '$T/web' dpkg-query -W cron systemd dbus >/dev/null"
check "the tree can boot: it has systemd" test -x "$T/web/lib/systemd/systemd"
check "service.running says why cron is not started" \
  grep -q 'service cron not started: the machine is not running' "$TMP/r1.out"
check "no process is left running in the tree" no_process_in "$T/web"

same "the .nspawn file" "$(cat "/etc/systemd/nspawn/$NAME.nspawn")" \
  "# Made by prop for the machine $NAME: edit the site, not this file.
[Exec]
Boot=yes
PrivateUsers=no

[Files]
Bind=$TMP/shared:/mnt/shared

[Network]
Private=no
VirtualEthernet=no"
dropin="/etc/systemd/system/systemd-nspawn@$NAME.service.d/prop-directory.conf"
check "the unit's drop-in names the tree" \
  grep -qx "ExecStart=systemd-nspawn --quiet --keep-unit --boot --link-journal=try-guest --settings=override --machine=%i --directory=$T/web" "$dropin"
check "the drop-in first clears the unit's ExecStart" grep -qx "ExecStart=" "$dropin"
if systemd-analyze verify "systemd-nspawn@$NAME.service" >"$TMP/verify.out" 2>&1; then
  pass
else
  fail "systemd-analyze verify accepts the unit with its drop-in" "exit code" "$TMP/verify.out"
fi

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" \
  "$(host_count "$TMP/r2.out" localhost changed)/$(host_count "$TMP/r2.out" "localhost/$NAME" changed)" "0/0"

# ---- another user's systemd-nspawn naming the tree: refused ----------------
# A stand-in run as nobody: a script called systemd-nspawn, given -D and
# the tree, whose child looks like a booted machine's init (/run/systemd/
# system exists in the mount namespace made for it here).  Its root is
# this machine's: a property run in it would write this machine's files.
fakepid=
stop_fake() {
  [[ -n "$fakepid" ]] || return 0
  # shellcheck disable=SC2046 # the children's pids, one word each
  kill $(cat /proc/"$fakepid"/task/*/children 2>/dev/null) "$fakepid" 2>/dev/null || true
  wait "$fakepid" 2>/dev/null || true
  fakepid=
}
on_exit stop_fake
if command -v setpriv >/dev/null; then
  mkdir -p "$TMP/fake" "$TMP/escaped"
  chmod 755 "$TMP/fake" # $TMP is 755 (common.sh): nobody runs the script
  printf '#!/bin/sh\nsleep 3600 &\nwait\n' >"$TMP/fake/systemd-nspawn"
  chmod 755 "$TMP/fake/systemd-nspawn"
  unshare -m --propagation private sh -c \
    'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec "$@"' sh \
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$TMP/fake/systemd-nspawn" -D "$T/web" \
    </dev/null >/dev/null 2>&1 &
  fakepid=$!
  for _ in $(seq 100); do
    child="$(cat /proc/"$fakepid"/task/*/children 2>/dev/null | awk '{ print $1 }')"
    [[ -n "$child" && -d "/proc/$child/root/run/systemd/system" ]] && break
    sleep 0.1
  done
  cat >"$TMP/fake.lua" <<EOF
local web = systemd.container("$NAME", os.debian("$SUITE", "$ARCH"), {
  file.has_content("$TMP/escaped/marker", "written\n"),
}, { path = "$T/web", tarball = "$ROOTFS" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  systemd.nspawned(web, { start = false }),
}
EOF
  prop_run "$TMP/f.out" "$TMP/fake.lua"
  same "another user's systemd-nspawn: exit" "$rc" 1
  check "another user's systemd-nspawn: the error says which process and why" \
    grep -qF "could not enter systemd-nspawn machine $NAME: process $fakepid runs systemd-nspawn -D $T/web as user ids 65534 65534 65534 65534, not root's" "$TMP/f.out"
  check "another user's systemd-nspawn: nothing ran in its namespaces" test ! -e "$TMP/escaped/marker"
  check "another user's systemd-nspawn: nor in a machine beside it" test ! -e "$T/web$TMP/escaped/marker"
  stop_fake
else
  echo "SKIP: no setpriv: another user's systemd-nspawn is not tried"
fi

# ---- started, where systemd is not the init --------------------------------
if [[ ! -d /run/systemd/system ]]; then
  write_site "" "inside"
  prop_run "$TMP/s.out" "$TMP/site.lua"
  same "start without systemd: exit" "$rc" 1
  check "start without systemd: says why" \
    grep -q "systemd is not running on this host: systemd-nspawn@$NAME.service cannot be started" "$TMP/s.out"
  check "start without systemd: the container is refused" \
    grep -q "\"host\":\"localhost/$NAME\".*\"refused\":true" "$TMP/s.out"
fi

# ---- booted from its .nspawn file, provisioned through its init ----------------
echo "from the host" >"$TMP/shared/note"
# No --boot: Boot=yes and Bind= come from /etc/systemd/nspawn/NAME.nspawn.
setsid systemd-nspawn --register=no --keep-unit -M "$NAME" -D "$T/web" \
  >"$TMP/boot.out" 2>&1 </dev/null &
bootpid=$!
leader=
for _ in $(seq 240); do
  leader="$(cat /proc/"$bootpid"/task/*/children 2>/dev/null | awk '{ print $1 }')"
  if [[ -n "$leader" ]]; then
    state="$(nsenter -t "$leader" -a systemctl is-system-running --wait 2>/dev/null || true)"
    [[ "$state" == running || "$state" == degraded ]] && break
  fi
  kill -0 "$bootpid" 2>/dev/null || break
  sleep 0.5
done
if [[ -n "$leader" ]] && [[ "$(cat "/proc/$leader/comm" 2>/dev/null)" == systemd ]]; then
  pass
  OUT="$TMP/boot.out"
  inside() { nsenter -t "$leader" -a -- "$@"; }
  same "booted: its init is systemd" "$(inside cat /proc/1/comm)" "systemd"
  same "booted: the bind from the .nspawn file" "$(inside cat /mnt/shared/note)" "from the host"
  same "booted: cron started at boot (apt enabled it)" "$(inside systemctl is-active cron)" "active"
  inside systemctl stop cron || true
  same "booted: cron stopped by hand" "$(inside systemctl is-active cron || true)" "inactive"
  write_site ", { start = false }" "booted"
  prop_run "$TMP/b.out" "$TMP/site.lua"
  same "booted run: exit" "$rc" 0
  same "booted run: the motd and cron changed" "$(host_count "$TMP/b.out" "localhost/$NAME" changed)" 2
  check "booted run: no note about command mode" bash -c "! grep -q 'the machine is not running' '$TMP/b.out'"
  same "booted run: cron runs in the machine" "$(inside systemctl is-active cron)" "active"
  same "booted run: the file, seen from inside" "$(inside cat /etc/motd)" "booted"
  stop_machine
  check "halted: nothing runs in the tree" no_process_in "$T/web"
else
  fail "the tree boots with systemd-nspawn from its .nspawn file" "no systemd init came up" "$TMP/boot.out"
  stop_machine
fi

# ---- a published port and a private network: the .nspawn file ------------------
cat >"$TMP/pub.lua" <<EOF
local api = systemd.container("$NAME2", os.debian("$SUITE", "$ARCH"), {
  systemd.publish(18080, 80),
  systemd.publish(18053, 53, { protocol = "udp" }),
  systemd.bind("$TMP/shared", { readonly = true }),
  systemd.private_network(),
}, { path = "$T/api", tarball = "$ROOTFS" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  systemd.nspawned(api, { start = false }),
}
EOF
prop_run "$TMP/p.out" "$TMP/pub.lua"
same "published: exit" "$rc" 0
same "published: the .nspawn file" "$(cat "/etc/systemd/nspawn/$NAME2.nspawn")" \
  "# Made by prop for the machine $NAME2: edit the site, not this file.
[Exec]
Boot=yes
PrivateUsers=no

[Files]
BindReadOnly=$TMP/shared

[Network]
Private=yes
VirtualEthernet=yes
Port=tcp:18080:80
Port=udp:18053:53"
check "published: nothing listens on the published ports (the machine does not run)" \
  bash -c "! ss -H -ltnu | awk '{ print \$5 }' | grep -Eq ':(18080|18053)\$'"
run_prop "$TMP/show.out" show "$TMP/pub.lua" localhost
check "published: the host port is one of the parent's" grep -q 'ports 18053 18080' "$TMP/show.out"

# ---- the default tree: /var/lib/machines/NAME, no drop-in -------------------------
cat >"$TMP/default.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  systemd.nspawned(systemd.container("$NAME", os.debian("$SUITE", "$ARCH"), {})),
}
EOF
run_prop "$TMP/def.out" show "$TMP/default.lua" localhost
check "default tree: /var/lib/machines/NAME" grep -q "claims file.owned /var/lib/machines/$NAME " "$TMP/def.out"
check "default tree: no drop-in" bash -c "! grep -q 'service.d' '$TMP/def.out'"

# ---- dry run of a new machine: nothing is made ---------------------------------
NAME3="prop-test-nspawn3-$$"
on_exit "rm -f /etc/systemd/nspawn/$NAME3.nspawn; rm -rf /etc/systemd/system/systemd-nspawn@$NAME3.service.d"
cat >"$TMP/dry.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  systemd.nspawned(systemd.container("$NAME3", os.debian("$SUITE", "$ARCH"),
                                     { file.has_content("/etc/x", "x") },
                                     { path = "$T/dry", tarball = "$ROOTFS" }), { start = false }),
}
EOF
prop_run "$TMP/d.out" "$TMP/dry.lua" --dry-run
same "dry run: exit" "$rc" 0
check "dry run: the .nspawn file would be written" grep -q "would write /etc/systemd/nspawn/$NAME3.nspawn" "$TMP/d.out"
check "dry run: the machine would be made" grep -q '"not_made":true' "$TMP/d.out"
check "dry run: nothing was made" test ! -e "$T/dry" -a ! -e "$T/dry.prop-new" \
  -a ! -e "/etc/systemd/nspawn/$NAME3.nspawn" -a ! -e "/etc/systemd/system/systemd-nspawn@$NAME3.service.d"

# ---- revert removes the machine -------------------------------------------------
write_site "" "inside"
sed -i 's/^  systemd.nspawned(web)/  revert(systemd.nspawned(web))/' "$TMP/site.lua"
prop_run "$TMP/v.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
check "revert: the tree is gone" test ! -e "$T/web"
check "revert: the .nspawn file is gone" test ! -e "/etc/systemd/nspawn/$NAME.nspawn"
check "revert: the drop-in is gone" test ! -e "/etc/systemd/system/systemd-nspawn@$NAME.service.d"
check "revert: the container is not run" bash -c "! grep -q 'localhost/$NAME\"' '$TMP/v.out'"
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert again: nothing to do" "$(host_count "$TMP/v2.out" localhost changed)" 0

# ---- bad arguments --------------------------------------------------------------
cat >"$TMP/bad.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  systemd.nspawned(systemd.container("$NAME", os.debian("$SUITE", "$ARCH"), {
    systemd.publish(0, 80),
  }, { path = "relative/tree" })),
}
EOF
prop_run "$TMP/bad.out" "$TMP/bad.lua"
same "bad arguments: rejected" "$rc" 2
check "bad arguments: the relative path is P012" grep -q 'bad.lua:3: error\[P012\]: systemd.container: path must be an absolute path' "$TMP/bad.out"
check "bad arguments: the port is P012" grep -q 'bad.lua:4: error\[P012\]: systemd.publish: host port 0 is outside 1..65535' "$TMP/bad.out"
check "bad arguments: nothing was made" test ! -e "/etc/systemd/nspawn/$NAME.nspawn"

finish
