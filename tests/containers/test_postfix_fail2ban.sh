#!/usr/bin/env bash
# postfix and fail2ban for real, inside a Docker container made by the
# test (from the cached bookworm tree; nothing listens on this machine):
# postfix.satellite installs Postfix without a question and makes a null
# client (relayhost, empty mydestination, loopback only, /etc/mailname
# from the host's name); postfix.main_cf edits one line; fail2ban.jail
# writes a jail fail2ban-client runs; a second run changes nothing; the
# probes see a jail stopped and a Postfix listening off loopback though
# main.cf says loopback-only (a dry run says would fail, prop verify
# exits 2, a run reloads fail2ban and restarts Postfix); a dry
# run with --diff shows the new line and changes nothing; a main.cf that
# postfix check refuses and a jail fail2ban-client -t refuses both fail and
# leave the old file in place with the daemon still running the old one;
# revert(fail2ban.jail) takes the jail out.  Bad arguments are P012 at
# their line, and two values for one main.cf parameter are P007.  Every
# image and container is named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments and conflicts, checked before anything runs ---------------------
cat >"$TMP/bad.lua" <<'EOF'
host "mail.example.org" {
  os.debian("bookworm", "amd64"),
  postfix.satellite "[smtp.example.org]:587",
  postfix.main_cf { relayhost = "other.example.org" },
  postfix.installed(),
  postfix.satellite "bad relay",
  postfix.main_cf { Relayhost = "x" },
  postfix.satellite("[x]:99999"),
  fail2ban.jail("../x", { maxretry = 3 }),
  fail2ban.jail("web", { maxretry = {} }),
  fail2ban.installed { x = 1 },
  hostname.mailname "other.example.org",
}
host "bsd" { os.freebsd("14.1", "amd64"), fail2ban.installed() }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad: exit" "$rc" 2
check "another relayhost is P007" grep -q 'bad.lua:4: error\[P007\]: "/etc/postfix/main.cf": relayhost must be "other.example.org" here but "\[smtp.example.org\]:587" at .*bad.lua:3' "$TMP/bad.out"
check "postfix.installed beside a satellite is P007" grep -q 'bad.lua:5: error\[P007\]: "/var/cache/debconf/config.dat": postfix/main_mailer_type' "$TMP/bad.out"
check "a relay with a blank is P012" grep -q 'bad.lua:6: error\[P012\]: postfix.satellite: relay "bad relay" must be a host name' "$TMP/bad.out"
check "an upper-case parameter is P012" grep -q 'bad.lua:7: error\[P012\]: postfix.main_cf: setting names must be main.cf parameters' "$TMP/bad.out"
check "a relay port out of range is P012" grep -q 'bad.lua:8: error\[P012\]: postfix.satellite: the port of relay 99999 is outside 1..65535' "$TMP/bad.out"
check "a jail name with a slash is P012" grep -q 'bad.lua:9: error\[P012\]: fail2ban.jail: name "../x" is not valid' "$TMP/bad.out"
check "an empty list value is P012" grep -q 'bad.lua:10: error\[P012\]: fail2ban.jail: maxretry must not be an empty list' "$TMP/bad.out"
check "fail2ban.installed takes no options" grep -q 'bad.lua:11: error\[P012\]: unknown key "x" for fail2ban.installed' "$TMP/bad.out"
check "another mail name is P007" grep -q 'bad.lua:12: error\[P007\]: "/etc/mailname"' "$TMP/bad.out"
check "fail2ban on FreeBSD is a type error" grep -q 'bad.lua:14: error\[P00[0-9]\].*DebianLike' "$TMP/bad.out"

cat >"$TMP/show.lua" <<'EOF'
host "mail.example.org" {
  os.debian("bookworm", "amd64"),
  postfix.installed(),
  postfix.main_cf { message_size_limit = 1024000, mydestination = "" },
  fail2ban.jail("sshd", { maxretry = 3, logpath = { "/var/log/a.log", "/var/log/b.log" } }),
}
EOF
run_prop "$TMP/show.out" show "$TMP/show.lua"
check "show: postfix.installed declares port 25" grep -q 'postfix installed (Internet Site) : DebianLike, ports 25' "$TMP/show.out"
check "show: one claim per setting" grep -q 'claims file.setting /etc/postfix/main.cf "message_size_limit=1024000"' "$TMP/show.out"
check "show: an empty value" grep -q 'claims file.setting /etc/postfix/main.cf "mydestination="' "$TMP/show.out"
check "show: the jail claims its file" grep -q 'claims file.content /etc/fail2ban/jail.d/sshd.local' "$TMP/show.out"
check "show: the jail is revertable" grep -q 'fail2ban jail sshd : DebianLike, revertable' "$TMP/show.out"

run_prop "$TMP/claims.out" claims "$TMP/show.lua" port:25
check "prop claims: port 25 is postfix's" grep -q 'port 25 .*by "postfix installed (Internet Site)"' "$TMP/claims.out"
run_prop "$TMP/claims2.out" claims "$TMP/show.lua" /etc/postfix/main.cf
check "prop claims: main.cf's settings, one a line" grep -q 'file.setting /etc/postfix/main.cf "message_size_limit=1024000"' "$TMP/claims2.out"
cat >"$TMP/p6.lua" <<'EOF'
host "m" {
  os.debian("bookworm", "amd64"),
  postfix.installed(),
  property { desc = "another smtpd", ports = { 25 }, apply = function() end },
}
host "s" {
  os.debian("bookworm", "amd64"),
  postfix.satellite "smtp.example.org",
  property { desc = "another smtpd", ports = { 25 }, apply = function() end },
}
EOF
run_prop "$TMP/p6.out" lint "$TMP/p6.lua"
check "another service on port 25 beside postfix.installed is P006" grep -q 'p6.lua:4: error\[P006\]: port 25 is used by both' "$TMP/p6.out"
check "a satellite declares no port" bash -c "! grep -q 'p6.lua:9:' '$TMP/p6.out'"

# ---- Docker -------------------------------------------------------------------
docker_up

rootfs_cache
docker_test "prop-test-mail-img-$$" "prop-test-mail-$$"

JAIL='{ filter = "sshd", logpath = "/var/log/prop-web.log", maxretry = 3, backend = "polling", port = "http,https" }'
write_site() { # PROPERTIES...  (NO_AUTHLOG=1: without /var/log/auth.log)
  local extra auth='file.has_content("/var/log/auth.log", ""),'
  extra="$(printf '  %s,\n' "$@")"
  [[ -n "${NO_AUTHLOG:-}" ]] && auth=''
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local mail = docker.container("$CTR", base, {
  -- Debian's sshd jail reads auth.log, which rsyslog writes: there is none here.
  $auth
  file.has_content("/var/log/prop-web.log", ""),
  postfix.satellite "[relay.invalid]:587",
  fail2ban.installed(),
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(mail),
}
EOF
}
# The container's top-level properties changed/failed.
top_changed_inside() {
  echo "$(results "$1" changed "localhost/$CTR")/$(results "$1" failed "localhost/$CTR")"
}
# any_result OUT DESC : the result of the container's property DESC (at any depth).
any_result() {
  grep '"event":"property"' "$1" | grep -F "\"host\":\"localhost/$CTR\"" |
    grep -F "\"desc\":\"$2\"" | head -1 | sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
# The local addresses listening on TCP port 25 (hex, from /proc/net/tcp*).
port25() {
  docker exec "$CTR" sh -c "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null" |
    awk '$4 == "0A" && $2 ~ /:0019$/ { print $2 }' | sort -u | tr '\n' ' '
}

# ---- first run --------------------------------------------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site 'postfix.main_cf { message_size_limit = 10240000 }' "fail2ban.jail(\"prop-web\", $JAIL)"
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: six changed, none failed" "$(top_changed_inside "$TMP/r1.out")" "6/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
check "postfix is installed" inside dpkg-query -W postfix
check "postfix runs" inside postfix status
same "relayhost, as postfix reads it" "$(inside postconf -h relayhost)" "[relay.invalid]:587"
same "mydestination is empty" "$(inside postconf -h mydestination)" ""
same "loopback only" "$(inside postconf -h inet_interfaces)" "loopback-only"
same "myorigin" "$(inside postconf -h myorigin)" "/etc/mailname"
same "the mail name is the host's" "$(inside cat /etc/mailname)" "$CTR"
same "message_size_limit" "$(inside postconf -h message_size_limit)" "10240000"
same "main.cf has one relayhost line" "$(inside grep -c '^relayhost' /etc/postfix/main.cf)" 1
# 0100007F:0019 is 127.0.0.1:25; the IPv6 loopback is ...01000000:0019.
check "port 25 is open on loopback" bash -c "[[ '$(port25)' == *0100007F:0019* ]]"
check "port 25 is open on nothing else" bash -c "! grep -qvE '^(0100007F:0019|00000000000000000000000001000000:0019)$' <<<'$(port25 | tr ' ' '\n' | sed '/^$/d')'"
check "a message is queued for the relay" bash -c "echo hi | docker exec -i $CTR /usr/sbin/sendmail root@example.com && for i in \$(seq 50); do docker exec $CTR postqueue -p | grep -q 'root@example.com' && exit 0; sleep 0.2; done; exit 1"
check "fail2ban runs" inside fail2ban-client ping
check "fail2ban runs the jail" bash -c "docker exec $CTR fail2ban-client status | grep -q 'prop-web'"
same "with its maxretry" "$(inside fail2ban-client get prop-web maxretry)" 3
check "no check copy left" bash -c "! docker exec $CTR test -e /etc/postfix/prop-check"

# ---- second run: nothing changes ------------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changed" "$(top_changed_inside "$TMP/r2.out")" "0/0"

# ---- effects broken behind prop's back: only the probes see them -------------------------
# The jail stopped (its file still right), and Postfix restarted with
# inet_interfaces = all, then main.cf put back: it listens on every
# interface though main.cf says loopback-only.
inside fail2ban-client stop prop-web >/dev/null
inside cp /etc/postfix/main.cf /root/main.cf.sat
inside postconf -e inet_interfaces=all
inside service postfix restart >/dev/null 2>&1
inside cp /root/main.cf.sat /etc/postfix/main.cf
wide=no
for _ in $(seq 50); do [[ "$(port25)" == *00000000:0019* ]] && { wide=yes; break; }; sleep 0.2; done
same "broken: postfix listens on every interface" "$wide" yes
prop_run "$TMP/b1.out" "$TMP/site.lua" --dry-run
same "broken, dry run: exit 1" "$rc" 1
same "broken, dry run: the satellite and the jail would fail" "$(top_changed_inside "$TMP/b1.out")" "0/2"
check "broken, dry run: the jail's probe, with what it saw" grep -q "would fail: verify: jail prop-web is not active" "$TMP/b1.out"
check "broken, dry run: postfix's probe, with what it saw" grep -q "would fail: verify: postfix listens on 0.0.0.0:25.*, want loopback only (inet_interfaces = loopback-only)" "$TMP/b1.out"
check "broken, dry run: the jail is still stopped" bash -c "! docker exec $CTR fail2ban-client status prop-web >/dev/null 2>&1"
check "broken, dry run: postfix still listens on every interface" bash -c "[[ '$(port25)' == *00000000:0019* ]]"
prop_verify "$TMP/bv.out" "$TMP/site.lua"
same "broken, prop verify: exit 2" "$rc" 2
same "broken, prop verify: the jail failed" "$(any_result "$TMP/bv.out" "fail2ban jail prop-web")" failed
same "broken, prop verify: inet_interfaces failed" "$(any_result "$TMP/bv.out" "main.cf: inet_interfaces = loopback-only")" failed
check "broken, prop verify: with what the probe saw" grep -q "postfix listens on 0.0.0.0:25.*, want loopback only" "$TMP/bv.out"
check "broken, prop verify: the jail is still stopped" bash -c "! docker exec $CTR fail2ban-client status prop-web >/dev/null 2>&1"
prop_run "$TMP/b2.out" "$TMP/site.lua"
same "broken: the run repairs both: exit" "$rc" 0
same "broken: the satellite and the jail changed" "$(top_changed_inside "$TMP/b2.out")" "2/0"
check "broken: postfix restarted" grep -q "postfix restarted: it did not run with inet_interfaces = loopback-only" "$TMP/b2.out"
check "broken: fail2ban reloaded" grep -q "fail2ban reloaded: jail prop-web was not active" "$TMP/b2.out"
check "repaired: the jail is active" inside fail2ban-client status prop-web
check "repaired: port 25 on loopback only" bash -c "! grep -qvE '^(0100007F:0019|00000000000000000000000001000000:0019)$' <<<'$(port25 | tr ' ' '\n' | sed '/^$/d')'"
prop_run "$TMP/b3.out" "$TMP/site.lua"
same "repaired: the next run changes nothing" "$(top_changed_inside "$TMP/b3.out")/$rc" "0/0/0"
prop_verify "$TMP/bv3.out" "$TMP/site.lua"
same "repaired, prop verify: all hold" "$rc" 0

# ---- dry run with --diff ----------------------------------------------------------------
write_site 'postfix.main_cf { message_size_limit = 20480000 }' "fail2ban.jail(\"prop-web\", $JAIL)"
inside cp /etc/postfix/main.cf /root/main.cf.before
prop_run "$TMP/dry.out" "$TMP/site.lua" --dry-run --diff
same "dry run: exit" "$rc" 0
same "dry run: one would change" "$(top_changed_inside "$TMP/dry.out")" "1/0"
check "dry run: the diff has the old line" grep -qF -- '-message_size_limit = 10240000' "$TMP/dry.out"
check "dry run: and the new one" grep -qF -- '+message_size_limit = 20480000' "$TMP/dry.out"
check "dry run: says it would check" grep -q 'would check the new main.cf with postfix check' "$TMP/dry.out"
check "dry run: main.cf unchanged" inside cmp -s /etc/postfix/main.cf /root/main.cf.before

# ---- the new value: checked, written, reloaded --------------------------------------------
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new value: exit" "$rc" 0
same "new value: one changed" "$(top_changed_inside "$TMP/r3.out")" "1/0"
check "new value: postfix reloaded" grep -q 'postfix reloaded' "$TMP/r3.out"
same "new value: postfix reads it" "$(inside postconf -h message_size_limit)" "20480000"
same "new value: its line replaced in place" "$(inside grep -c '^message_size_limit' /etc/postfix/main.cf)" 1

# ---- a main.cf postfix check refuses ---------------------------------------------------
inside cp /etc/postfix/main.cf /root/main.cf.good
write_site 'postfix.main_cf { message_size_limit = 20480000, default_process_limit = "many" }' "fail2ban.jail(\"prop-web\", $JAIL)"
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "refused main.cf: exit" "$rc" 1
same "refused main.cf: it alone failed" "$(top_changed_inside "$TMP/r4.out")" "0/1"
check "refused main.cf: postfix's message" grep -q 'bad numerical configuration' "$TMP/r4.out"
check "refused main.cf: says the file was kept" grep -q 'postfix check refuses the new configuration, /etc/postfix/main.cf is left as it was' "$TMP/r4.out"
check "refused main.cf: the old file is in place" inside cmp -s /etc/postfix/main.cf /root/main.cf.good
check "refused main.cf: no check copy left" bash -c "! docker exec $CTR test -e /etc/postfix/prop-check"
check "refused main.cf: postfix still runs" inside postfix status
check "refused main.cf: postfix check passes" inside postfix check

# ---- a jail fail2ban-client -t refuses ----------------------------------------------------
inside cp /etc/fail2ban/jail.d/prop-web.local /root/jail.good
write_site 'postfix.main_cf { message_size_limit = 20480000 }' \
  'fail2ban.jail("prop-web", { filter = "no-such-filter", logpath = "/var/log/prop-web.log", maxretry = 5 })'
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "refused jail: exit" "$rc" 1
same "refused jail: it alone failed" "$(top_changed_inside "$TMP/r5.out")" "0/1"
check "refused jail: fail2ban's message" grep -q "Unable to read the filter" "$TMP/r5.out"
check "refused jail: says it was put back" grep -q 'put back as it was' "$TMP/r5.out"
check "refused jail: the old file is in place" inside cmp -s /etc/fail2ban/jail.d/prop-web.local /root/jail.good
same "refused jail: fail2ban keeps the old jail" "$(inside fail2ban-client get prop-web maxretry)" 3

# ---- revert: the jail goes --------------------------------------------------------------
write_site 'postfix.main_cf { message_size_limit = 20480000 }' "revert(fail2ban.jail(\"prop-web\", $JAIL))"
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: one changed" "$(top_changed_inside "$TMP/r6.out")" "1/0"
check "revert: the file is gone" bash -c "! docker exec $CTR test -e /etc/fail2ban/jail.d/prop-web.local"
check "revert: fail2ban runs without the jail" bash -c "docker exec $CTR fail2ban-client status | grep -q 'Jail list:' && ! docker exec $CTR fail2ban-client status | grep -q prop-web"
prop_run "$TMP/r7.out" "$TMP/site.lua"
same "revert, again: nothing changed" "$(top_changed_inside "$TMP/r7.out")" "0/0"

# ---- fail2ban cannot start: fail2ban.installed says why ------------------------------
inside service fail2ban stop >/dev/null
inside rm -f /var/log/auth.log
NO_AUTHLOG=1 write_site 'postfix.main_cf { message_size_limit = 20480000 }'
prop_run "$TMP/r8.out" "$TMP/site.lua"
same "fail2ban cannot start: exit" "$rc" 1
same "fail2ban cannot start: fail2ban.installed fails" "$(result_of "$TMP/r8.out" "fail2ban installed")" failed
check "fail2ban cannot start: says why" grep -q 'fail2ban cannot start, fail2ban-client -t refuses its configuration' "$TMP/r8.out"
check "fail2ban cannot start: with fail2ban's words" grep -q 'Have not found any log file for sshd jail' "$TMP/r8.out"

finish
