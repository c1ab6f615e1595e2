#!/usr/bin/env bash
# Tags: p:tag(...) (and tag(p, ...)) marks a property and every part of it;
# prop run --tags T runs only the properties with one of the tags (their
# own or a composite's), --skip-tags T leaves those out; what is left out
# is neither run nor reported nor counted.  A trigger target runs for a
# change that ran, tagged or not (as Ansible's handlers do).  A tag the
# site does not have is a warning naming the site's tags; a bad tag name
# stops the evaluation at its line.  Files in the test's scratch
# directory only.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

S="$TMP/s"
mkdir -p "$S"
cat >"$TMP/site.lua" <<LUA
local reload = cmd.run { "sh", "-c", "echo reload >> $S/reloads" }
host "localhost" {
  os.debian("bookworm", "amd64"),
  file.has_content("$S/ntp.conf", { "ntp" }):tag("ntp"),
  props {
    file.has_content("$S/web.conf", { "web" }):on_change(reload),
    file.directory "$S/www",
  }:tag("web"),
  file.has_content("$S/motd", { "hello" }),
  tag(file.has_content("$S/both", { "both" }), "web", "ntp"),
}
LUA

# ---- --tags web: the web parts, the one tagged twice, the trigger -----------
prop_run "$TMP/o1" "$TMP/site.lua" --tags web
same "tags web: exit" "$rc" 0
check "tags web: web.conf written" test -f "$S/web.conf"
check "tags web: the directory made" test -d "$S/www"
check "tags web: a property with both tags" test -f "$S/both"
check "tags web: ntp.conf left alone" test ! -e "$S/ntp.conf"
check "tags web: motd (untagged) left alone" test ! -e "$S/motd"
same "tags web: the untagged trigger target ran" "$(cat "$S/reloads" 2>/dev/null)" reload
same "tags web: three properties changed, and the target" \
  "$(host_count "$TMP/o1" localhost changed)" 4
same "tags web: nothing left out is reported" \
  "$(grep -c -e 'ntp.conf' -e '/motd' "$TMP/o1" || true)" 0

# ---- --skip-tags web: everything else -----------------------------------------
prop_run "$TMP/o2" "$TMP/site.lua" --skip-tags web
same "skip web: exit" "$rc" 0
check "skip web: ntp.conf written" test -f "$S/ntp.conf"
check "skip web: motd written" test -f "$S/motd"
same "skip web: two changed (ntp.conf, motd)" "$(host_count "$TMP/o2" localhost changed)" 2
same "skip web: the web parts not reported" "$(grep -c 'web.conf' "$TMP/o2" || true)" 0

# ---- --tags ntp --skip-tags web: the one with both is left out -------------
rm -f "$S/both" "$S/ntp.conf"
prop_run "$TMP/o3" "$TMP/site.lua" --tags ntp --skip-tags web
same "ntp, not web: exit" "$rc" 0
check "ntp, not web: ntp.conf" test -f "$S/ntp.conf"
check "ntp, not web: both left out" test ! -e "$S/both"

# ---- a tag the site does not have: a warning, nothing runs -------------------
rm -f "$S/motd"
run_prop "$TMP/o4" run "$TMP/site.lua" --tags nope
same "unknown tag: exit" "$rc" 0
check "unknown tag: warned with the site's tags" grep -qF \
  'prop run: warning: --tags nope: no property of the site has that tag (its tags: ntp web)' "$TMP/o4"
check "unknown tag: nothing ran" test ! -e "$S/motd"

# ---- usage and bad names ---------------------------------------------------------
run_prop "$TMP/o5" run "$TMP/site.lua" --tags ""
same "empty --tags: usage" "$rc" 64
printf 'host "localhost" {\n  file.has_content("/x", "y"):tag("no spaces")\n}\n' >"$TMP/bad.lua"
run_prop "$TMP/o6" lint "$TMP/bad.lua"
same "bad tag: rejected" "$rc" 2
check "bad tag: at its line" grep -q 'bad.lua:2: error\[P000\]: tag "no spaces": a tag is 1 to 64 letters' "$TMP/o6"
printf 'host "localhost" {\n  file.has_content("/x", "y"):tag()\n}\n' >"$TMP/none.lua"
run_prop "$TMP/o7" lint "$TMP/none.lua"
same "no tag: rejected" "$rc" 2

finish
