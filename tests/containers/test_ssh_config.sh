#!/usr/bin/env bash
# ssh.sshd_config inside a chroot container made from the test rootfs
# cache (this machine's /etc/ssh is never touched): openssh-server
# installed there (policy-rc.d keeps sshd from starting), settings
# replacing the active or commented-out line of their keyword before the
# first Match block, duplicates dropped, the Match block left alone, the
# result accepted by sshd -t; a dry run that changes nothing; a second
# run with no change (the values sshd -T prints are the declared ones); a
# file of sshd_config.d setting one otherwise, which the probe finds (a
# dry run says "would fail", a run fails); and settings sshd refuses, which must fail with
# sshd's message and leave the old file in place.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
C="$T/sshbox/etc/ssh/sshd_config"

write_site() { # PROPERTIES...
  tarball_host "$T/sshbox" 'apt.installed_min { "openssh-server" },' "$*" >"$TMP/site.lua"
}

# ---- the package, and a file edited by hand --------------------------------
write_site ""
prop_run "$TMP/r0.out" "$TMP/site.lua"
same "setup: exit" "$rc" 0
check "setup: sshd_config is in the tree" test -f "$C"
check "setup: no sshd runs in the tree" no_process_in "$T/sshbox"
# Two active Port lines, and a Match block whose lines must stay.
sed -i '0,/^#Port 22/s//Port 2200\n#Port 22/' "$C"
sed -i 's/^#ListenAddress 0.0.0.0/Port 2201\n#ListenAddress 0.0.0.0/' "$C"
printf 'Match User prop-test\n\tPasswordAuthentication yes\n\tX11Forwarding yes\n' >>"$C"
same "setup: two Port lines made by hand" "$(grep -c '^Port ' "$C")" 2
# sshd -t wants its privilege separation directory, which the ssh service
# makes when it starts (never, in a chroot).
mkdir -p "$T/sshbox/run/sshd"
check "setup: the hand-edited file is valid" chroot "$T/sshbox" /usr/sbin/sshd -t
cp "$C" "$TMP/before"

# ---- settings: dry run, run, second run --------------------------------------
write_site 'ssh.sshd_config { PasswordAuthentication = false, Port = 2222, X11Forwarding = "no",
                            PermitRootLogin = "prohibit-password", MaxAuthTries = 4 },
    ssh.password_authentication(false),
    ssh.listen_port(2222),'
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
check "dry run: would change in the container" test "$(host_count "$TMP/d.out" localhost/sshbox changed)" -ge 1
same "dry run: sshd_config untouched" "$(cat "$C")" "$(cat "$TMP/before")"
check "dry run: no check file left" test ! -e "$C.prop-check"

prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
# One property per setting (the same setting twice is one): five changed.
same "first run: the settings changed, nothing failed" \
  "$(changed_failed "$TMP/r1.out" localhost/sshbox)" "5/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
before_match="$(sed '/^Match /,$d' "$C")"
same "one Port line before Match, the first one replaced" "$(grep -n '^Port ' <<<"$before_match" | cut -d: -f2)" "Port 2222"
same "Port replaced where the first Port line was" \
  "$(grep -n '^Port 2222$' "$C" | cut -d: -f1)" "$(grep -n '^Port 2200$' "$TMP/before" | cut -d: -f1)"
# The second Port line, above it, is gone: one line up.
same "the commented-out line replaced in place" \
  "$(grep -n '^PasswordAuthentication no$' "$C" | cut -d: -f1)" \
  "$(($(grep -n '^#PasswordAuthentication yes$' "$TMP/before" | cut -d: -f1) - 1))"
same "X11Forwarding yes replaced" "$(grep -ci '^X11Forwarding' <<<"$before_match")/$(grep -c '^X11Forwarding no$' "$C")" "1/1"
check "a new setting before the Match block" grep -q '^MaxAuthTries 4$' <<<"$before_match"
check "PermitRootLogin set" grep -q '^PermitRootLogin prohibit-password$' <<<"$before_match"
same "the Match block is untouched" "$(sed -n '/^Match /,$p' "$C")" \
  "$(printf 'Match User prop-test\n\tPasswordAuthentication yes\n\tX11Forwarding yes')"
check "sshd accepts the result" chroot "$T/sshbox" /usr/sbin/sshd -t
same "sshd reads the settings" \
  "$(chroot "$T/sshbox" /usr/sbin/sshd -T -C user=root,host=x,addr=127.0.0.1 | grep -E '^(port|passwordauthentication|maxauthtries|x11forwarding) ' | LC_ALL=C sort | tr '\n' ' ')" \
  "maxauthtries 4 passwordauthentication no port 2222 x11forwarding no "
check "no check file left" test ! -e "$C.prop-check"
check "the reload is a note in a chroot" grep -q 'ssh not reloaded: no daemon runs in a chroot' "$TMP/r1.out"
check "no sshd runs in the tree" no_process_in "$T/sshbox"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(host_count "$TMP/r2.out" localhost/sshbox changed)" 0

# ---- a file read first sets it otherwise: sshd_config is right, sshd is not --------
D="$T/sshbox/etc/ssh/sshd_config.d"
check "sshd_config includes sshd_config.d first" grep -q '^Include /etc/ssh/sshd_config.d/\*.conf' "$C"
printf 'PasswordAuthentication yes\n' >"$D/00-local.conf"
prop_verify "$TMP/ov.out" "$TMP/site.lua"
same "overridden, prop verify: exit" "$rc" 2
check "overridden, prop verify: the setting failed, with what sshd -T says" \
  grep -q '"result":"failed".*sshd -T says passwordauthentication yes' "$TMP/ov.out"
prop_run "$TMP/o0.out" "$TMP/site.lua" --dry-run
same "overridden, dry run: exit" "$rc" 1
check "overridden, dry run: would fail, with what sshd -T says" \
  grep -q 'would fail: verify: sshd -T says passwordauthentication yes, want passwordauthentication no' "$TMP/o0.out"
prop_run "$TMP/o1.out" "$TMP/site.lua"
same "overridden: exit" "$rc" 1
same "overridden: the two properties that set it fail, nothing changes" \
  "$(changed_failed "$TMP/o1.out" localhost/sshbox)" "0/2"
check "overridden: with what sshd -T says" \
  grep -q 'verify: sshd -T says passwordauthentication yes' "$TMP/o1.out"
rm "$D/00-local.conf"
prop_run "$TMP/o2.out" "$TMP/site.lua"
same "the other file gone: all hold" "$rc/$(changed_failed "$TMP/o2.out" localhost/sshbox)" "0/0/0"

# ---- settings sshd refuses ------------------------------------------------------
cp "$C" "$TMP/good"
write_site 'ssh.sshd_config { Ciphers = "no-such-cipher" },
    ssh.sshd_config { NoSuchOption = "yes" },'
prop_run "$TMP/f.out" "$TMP/site.lua"
same "refused: exit" "$rc" 1
same "refused: both fail" "$(host_count "$TMP/f.out" localhost/sshbox failed)" 2
check "refused: sshd's message about the cipher" grep -q 'Bad SSH2 cipher spec' "$TMP/f.out"
check "refused: sshd's message about the option" grep -q 'Bad configuration option: NoSuchOption' "$TMP/f.out"
check "refused: the message says the file was kept" grep -q 'is left as it was' "$TMP/f.out"
same "refused: the old file is in place" "$(cat "$C")" "$(cat "$TMP/good")"
check "refused: no check file left" test ! -e "$C.prop-check"

# ---- ssh.user_keypair: a key pair from the site's store ---------------------------
gpg_test_key 'Prop Keypair Test <kp@example.invalid>'
ssh-keygen -q -t ed25519 -N "" -C "deploy@prop-test" -f "$TMP/kp"
ssh-keygen -q -t ed25519 -N "" -C "other@prop-test" -f "$TMP/kp2"
PUB="$(cut -d' ' -f1,2 "$TMP/kp.pub")"
H="$T/sshbox/home/deploy/.ssh"
write_site "user.account \"deploy\",
    ssh.user_keypair(\"deploy\", \"ed25519\", { private = secret \"deploy_key\", public = \"$PUB\" }),"
"$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1
"$PROP" secret set "$TMP/site.lua" deploy_key <"$TMP/kp" >/dev/null 2>&1
prop_run "$TMP/k1.out" "$TMP/site.lua"
same "keypair: exit" "$rc" 0
same "keypair: the private key is the store's" "$(cat "$H/id_ed25519")" "$(cat "$TMP/kp")"
same "keypair: the public key" "$(cat "$H/id_ed25519.pub")" "$PUB"
same "keypair: private 0600" "$(mode_of "$H/id_ed25519")" 0600
same "keypair: public 0644" "$(mode_of "$H/id_ed25519.pub")" 0644
same "keypair: ~/.ssh 0700" "$(mode_of "$H")" 0700
same "keypair: owned by deploy" "$(chroot "$T/sshbox" stat -c %U "/home/deploy/.ssh/id_ed25519" \
  "/home/deploy/.ssh/id_ed25519.pub" /home/deploy/.ssh | sort -u)" deploy
check "keypair: the private key is not in the output" bash -c "! grep -q 'PRIVATE KEY' '$TMP/k1.out'"
prop_run "$TMP/k2.out" "$TMP/site.lua"
same "keypair again: no change" "$rc/$(changed_failed "$TMP/k2.out" localhost/sshbox)" "0/0/0"
prop_verify "$TMP/kv.out" "$TMP/site.lua"
same "keypair: prop verify holds (ssh-keygen -y derives the public key)" "$rc" 0
# Drift: a loosened mode and another private key are put back.
chmod 0644 "$H/id_ed25519"
prop_run "$TMP/k3.out" "$TMP/site.lua"
same "keypair drift: mode put back" "$rc/$(mode_of "$H/id_ed25519")" "0/0600"
# The store holding another key than the public one given: the probe says so.
"$PROP" secret set "$TMP/site.lua" deploy_key <"$TMP/kp2" >/dev/null 2>&1
prop_run "$TMP/k4.out" "$TMP/site.lua"
same "keypair mismatch: exit" "$rc" 1
check "keypair mismatch: the probe names it" \
  grep -q 'verify: the private key in /home/deploy/.ssh/id_ed25519 is not the one of the public key' "$TMP/k4.out"
# A private key in plain text: refused before anything runs.
write_site 'ssh.user_keypair("deploy", "ed25519", { private = "-----BEGIN", public = "'"$PUB"'" }),'
run_prop "$TMP/kp.out" lint "$TMP/site.lua"
same "keypair plain private: lint exit" "$rc" 2
check "keypair plain private: said at its line" grep -q 'site.lua:[0-9]*: error.*private must be a secret' "$TMP/kp.out"

# ---- ssh.host_keys_regenerated: new host keys, once -------------------------------
E="$T/sshbox/etc/ssh"
check "host keys: the package made some" test -s "$E/ssh_host_ed25519_key.pub"
cat "$E"/ssh_host_*_key.pub >"$TMP/hk0"
write_site 'ssh.host_keys_regenerated(),'
prop_run "$TMP/h1.out" "$TMP/site.lua"
same "host keys: exit" "$rc" 0
same "host keys: changed" "$(host_count "$TMP/h1.out" localhost/sshbox changed)" 1
check "host keys: the marker is there" test -f "$E/.prop-host-keys-regenerated"
check "host keys: an ed25519 key again" test -s "$E/ssh_host_ed25519_key"
for k in $(cut -d' ' -f2 "$TMP/hk0"); do
  if grep -qF "$k" "$E"/ssh_host_*_key.pub; then fail "host keys: the old keys are gone" "$k is still there"; else pass; fi
done
same "host keys: private 0600" "$(mode_of "$E/ssh_host_ed25519_key")" 0600
cat "$E"/ssh_host_*_key.pub >"$TMP/hk1"
prop_run "$TMP/h2.out" "$TMP/site.lua"
same "host keys again: nothing changes" "$rc/$(changed_failed "$TMP/h2.out" localhost/sshbox)" "0/0/0"
same "host keys again: the same keys" "$(cat "$E"/ssh_host_*_key.pub)" "$(cat "$TMP/hk1")"
prop_verify "$TMP/hv.out" "$TMP/site.lua"
same "host keys: prop verify holds" "$rc" 0
# A key removed: made again, the others kept.
rm "$E/ssh_host_ecdsa_key" "$E/ssh_host_ecdsa_key.pub"
prop_run "$TMP/h3.out" "$TMP/site.lua"
same "host keys, one removed: made again" "$rc/$(changed_failed "$TMP/h3.out" localhost/sshbox)" "0/1/0"
check "host keys, one removed: it is there" test -s "$E/ssh_host_ecdsa_key.pub"
same "host keys, one removed: ed25519 kept" "$(cat "$E/ssh_host_ed25519_key.pub")" "$(grep ed25519 "$TMP/hk1")"
# A public half that is not its private key's: the probe says so.
cp "$E/ssh_host_ed25519_key.pub" "$TMP/pub" && cp "$TMP/kp.pub" "$E/ssh_host_ed25519_key.pub"
prop_verify "$TMP/hv2.out" "$TMP/site.lua"
same "host keys, wrong .pub: prop verify fails" "$rc" 2
check "host keys, wrong .pub: it says which" grep -q 'ssh_host_ed25519_key.pub is not the public half' "$TMP/hv2.out"
cp "$TMP/pub" "$E/ssh_host_ed25519_key.pub"

finish
