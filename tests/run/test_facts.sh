#!/usr/bin/env bash
# sys.facts and file.has_content with a content function, for real:
# gathered once per host however many properties ask (each execution of
# the gathering command counted through an nproc on PATH that logs its
# calls), values that match what this machine says (uname, nproc,
# /etc/os-release, /proc/meminfo, ip, dpkg), a site that chooses a file's
# content by facts (dry run, --diff, the real run, a second run), an
# error in a content function, a gathering command that fails, writes to
# the read-only table, the claim prop claims and the pre-pass see, and
# facts on a connect.dir tree (a template rendered with them too).
# Everything prop writes is under the test's scratch directory.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# A counting nproc: every execution of the gathering command runs it once.
counting_nproc

# dump(facts): every fact as key=value lines (lists joined with spaces,
# interfaces as if.NAME=ipv4 addresses).
cat >"$TMP/dump.lua" <<'EOF'
return function(f)
  local keys, out = {}, {}
  for k in pairs(f) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = f[k]
    if k ~= "interfaces" then
      out[#out + 1] = k .. "=" .. (type(v) == "table" and table.concat(v, " ") or tostring(v))
    end
  end
  for _, n in ipairs(f.interface_names or {}) do
    out[#out + 1] = "if." .. n .. "=" .. table.concat(f.interfaces[n].ipv4, " ")
    out[#out + 1] = "if6." .. n .. "=" .. table.concat(f.interfaces[n].ipv6, " ")
  end
  return table.concat(out, "\n") .. "\n"
end
EOF

L="$TMP/local"
mkdir -p "$L"
. /etc/os-release
cat >"$TMP/local.lua" <<EOF
local dump = require "dump"
host "localhost" {
  file.has_content("$L/facts", dump),
  property {
    desc = "facts in check",
    check = function(sys) return sys.facts.kernel ~= nil end,
    apply = function(sys) error("check saw no kernel") end,
  },
  property {
    desc = "facts in apply",
    apply = function(sys)
      sys:write("$L/from-apply", sys.facts.hostname .. " " .. sys.facts.cpus .. "\n")
    end,
  },
  file.has_content("$L/guarded", "guarded\n"):only_if(function(sys)
    return sys.facts.os_id == "$ID"
  end),
  file.has_content("$L/never", "never\n"):only_if(function(sys)
    return sys.facts.os_id == "not-$ID"
  end),
  file.has_content("$L/motd", function(facts)
    if facts.os_id == "$ID" and facts.cpus >= 1 then
      return { "Welcome to " .. facts.hostname, "os " .. facts.os_id .. " " .. (facts.os_release or "-") }
    end
    return "wrong OS\n"
  end),
}
EOF

# --- dry run with --diff: the content is computed and shown, nothing is written.
PATH="$SHIM:$PATH" prop_run "$TMP/dry.out" "$TMP/local.lua" --dry-run --diff
expect_run "dry run: four would change, two ok" "$TMP/dry.out" 0 4 2 0
same "dry run: the facts were gathered once" "$(calls)" 1
check "dry run: the diff shows the computed content" \
  grep -qF "+Welcome to $(hostname)" "$TMP/dry.out"
check "dry run: the diff shows the computed OS line" grep -qF "+os $ID ${VERSION_ID:--}" "$TMP/dry.out"
same "dry run: nothing written" "$(ls -A "$L")" ""

# --- the real run: still one gathering for the whole host.
: >"$TMP/nproc.log"
PATH="$SHIM:$PATH" prop_run "$TMP/run.out" "$TMP/local.lua"
expect_run "run: four changed, two ok" "$TMP/run.out" 0 4 2 0
same "run: the facts were gathered once for six properties" "$(calls)" 1
same "run: motd computed from the facts" "$(cat "$L/motd")" \
  "$(printf 'Welcome to %s\nos %s %s' "$(hostname)" "$ID" "${VERSION_ID:--}")"
same "run: facts in apply" "$(cat "$L/from-apply")" "$(hostname) $(nproc)"
same "run: only_if on facts, true" "$(cat "$L/guarded" 2>/dev/null)" guarded
check "run: only_if on facts, false" test ! -e "$L/never"

# --- what the facts say against what the machine says.
fact() { sed -n "s/^$1=//p" "$L/facts"; }
same "facts: kernel" "$(fact kernel)" "$(uname -r)"
same "facts: system" "$(fact system)" "$(uname -s)"
same "facts: arch" "$(fact arch)" "$(uname -m)"
same "facts: cpus" "$(fact cpus)" "$(nproc)"
same "facts: memory" "$(fact memory)" "$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))"
same "facts: hostname" "$(fact hostname)" "$(hostname)"
same "facts: os_id" "$(fact os_id)" "$ID"
same "facts: os_release" "$(fact os_release)" "${VERSION_ID:-}"
same "facts: os_codename" "$(fact os_codename)" "${VERSION_CODENAME:-}"
same "facts: os_name" "$(fact os_name)" "${PRETTY_NAME:-$NAME}"
same "facts: os_like" "$(fact os_like)" "${ID_LIKE:-}"
if command -v dpkg >/dev/null; then
  same "facts: dpkg_arch" "$(fact dpkg_arch)" "$(dpkg --print-architecture)"
fi
if fq="$(hostname -f 2>/dev/null)"; then
  same "facts: fqdn" "$(fact fqdn)" "$fq"
fi
if [[ -d /run/systemd/system ]]; then want_init=systemd; else want_init=sysv; fi
same "facts: init" "$(fact init)" "$want_init"
if command -v ip >/dev/null; then
  want4="$(ip -4 route get 192.0.2.1 2>/dev/null | sed -n 's/.* src \([^ ]*\).*/\1/p' | head -n 1)"
  same "facts: ipv4" "$(fact ipv4)" "$want4"
  want6="$(ip -6 route get 2001:db8::1 2>/dev/null | sed -n 's/.* src \([^ ]*\).*/\1/p' | head -n 1)"
  same "facts: ipv6" "$(fact ipv6)" "$want6"
  same "facts: loopback's address" "$(fact if.lo)" "$(ip -o -4 addr show dev lo | awk '{ print $4 }' | paste -sd ' ')"
fi
same "facts: interface names" "$(fact interface_names)" "$(ls /sys/class/net | LC_ALL=C sort | paste -sd ' ')"
want_c=""
if command -v systemd-detect-virt >/dev/null; then
  want_c="$(systemd-detect-virt -c 2>/dev/null)" || want_c=""
  [[ "$want_c" == none ]] && want_c=""
fi
if [[ -z "$want_c" && -e /.dockerenv ]]; then want_c=docker; fi
if [[ -z "$want_c" && -e /run/.containerenv ]]; then want_c=podman; fi
same "facts: container" "$(fact container)" "$want_c"
same "facts: not a tree" "$(fact tree)" ""

# --- a second run changes nothing; a site that never asks gathers nothing.
: >"$TMP/nproc.log"
PATH="$SHIM:$PATH" prop_run "$TMP/run2.out" "$TMP/local.lua"
expect_run "second run: all ok but the apply" "$TMP/run2.out" 0 1 5 0
cat >"$TMP/nofacts.lua" <<EOF
host "localhost" {
  file.has_content("$L/plain", "plain\n"),
  property { desc = "no facts", check = function(sys) return sys.host == "localhost" end,
             apply = function(sys) end },
}
EOF
: >"$TMP/nproc.log"
PATH="$SHIM:$PATH" prop_run "$TMP/nofacts.out" "$TMP/nofacts.lua"
expect_run "no facts asked: run" "$TMP/nofacts.out" 0 1 1 0
same "no facts asked: none gathered" "$(calls)" 0

# --- errors: a content function that raises, one that returns no content,
# a write to the facts.  Each fails its property only, with the site's place.
cat >"$TMP/bad.lua" <<EOF
host "localhost" {
  file.has_content("$L/raises", function(facts)
    error("no template for " .. facts.os_id)
  end),
  file.has_content("$L/number", function(facts) return facts.cpus end),
  property { desc = "writes facts", apply = function(sys) sys.facts.os_id = "x" end },
  property { desc = "writes a nested fact", apply = function(sys) sys.facts.interface_names[1] = "x" end },
  file.has_content("$L/fine", "fine\n"),
}
EOF
prop_run "$TMP/bad.out" "$TMP/bad.lua"
expect_run "errors: four failed, the rest ran" "$TMP/bad.out" 1 1 0 4
check "errors: the raising function's place and its message" \
  grep -qF "the content function ($TMP/bad.lua:2) failed: $TMP/bad.lua:3: no template for $ID" "$TMP/bad.out"
check "errors: a result that is no content" \
  grep -qF "the content function ($TMP/bad.lua:5): its result must be a string or a list of lines, got number" "$TMP/bad.out"
check "errors: facts are read-only" grep -qF "$TMP/bad.lua:6: sys.facts is read-only (setting os_id)" "$TMP/bad.out"
check "errors: nested facts are read-only" grep -qF "$TMP/bad.lua:7: sys.facts is read-only" "$TMP/bad.out"
check "errors: nothing written for the failures" test ! -e "$L/raises" -a ! -e "$L/number"
check "errors: the rest ran" test -f "$L/fine"

# --- the gathering command fails (an sh on PATH that exits 3): each
# property that asks fails with what it said, the next one asks again,
# the others run.
BROKEN="$TMP/broken"
mkdir -p "$BROKEN"
cat >"$BROKEN/sh" <<EOF
#!/bin/bash
echo called >>"$TMP/sh.log"
echo "no shell here" >&2
exit 3
EOF
chmod 755 "$BROKEN/sh"
: >"$TMP/sh.log"
cat >"$TMP/broken.lua" <<EOF
host "localhost" {
  file.has_content("$L/b1", function(facts) return facts.os_id end),
  property { desc = "asks again", check = function(sys) return sys.facts.kernel ~= nil end,
             apply = function(sys) end },
  file.has_content("$L/b-plain", "plain\n"),
}
EOF
PATH="$BROKEN:$PATH" prop_run "$TMP/broken.out" "$TMP/broken.lua"
expect_run "broken sh: two failed, the plain file written" "$TMP/broken.out" 1 1 0 2
check "broken sh: the failure says why" \
  grep -qF "sys.facts: the command that gathers the facts exited with 3: no shell here" "$TMP/broken.out"
same "broken sh: a failure is not kept, the next property asks again" \
  "$(wc -l <"$TMP/sh.log" | tr -d ' ')" 2
check "broken sh: nothing written by the content function" test ! -e "$L/b1"

# --- claims: the path is claimed before the run, the content named as computed.
run_prop "$TMP/claims.out" claims "$TMP/local.lua" "$L/motd"
check "claims: the path, computed at run time" \
  grep -qF "file.generated $L/motd \"the content function at $TMP/local.lua:21 (computed at run time)\"" "$TMP/claims.out"
cat >"$TMP/clash.lua" <<EOF
host "localhost" {
  file.has_content("$L/x", function(facts) return "a\n" end),
  file.has_content("$L/x", "b\n"),
}
EOF
run_prop "$TMP/clash.out" lint "$TMP/clash.lua"
same "clash: lint fails" "$rc" 2
check "clash: P007 names both" grep -qF "error[P007]: \"$L/x\" must be a file with fixed content here but a file generated by \"the content function at $TMP/clash.lua:2 (computed at run time)\"" "$TMP/clash.out"

# --- a connect.dir tree: the facts its os-release gives, no command run.
T="$TMP/tree"
mkdir -p "$T/etc" "$T/usr/lib"
cat >"$T/usr/lib/os-release" <<'EOF'
PRETTY_NAME="Test OS 9.1 (tcode)"
NAME="Test OS"
VERSION_ID="9.1"
VERSION="9.1 (tcode)"
ID=TestOS
ID_LIKE="debian ubuntu"
EOF
ln -s ../usr/lib/os-release "$T/etc/os-release"
mkdir -p "$TMP/templates"
printf '%s\n' '{{ name }}' 'like: {{ like | join(", ") }}' >"$TMP/templates/issue"
cat >"$TMP/tree.lua" <<EOF
local dump = require "dump"
host "tree" {
  connect.dir "$T",
  file.has_content("/etc/facts", dump),
  file.has_content("/etc/motd", function(f) return f.os_id == "testos" and "tree\n" or "no\n" end),
  file.has_content("/etc/issue", function(f)
    return template("templates/issue", { name = f.os_name, like = f.os_like })
  end),
  property { desc = "tree facts", check = function(sys) return sys.facts.tree end,
             apply = function(sys) error("not a tree") end },
}
EOF
: >"$TMP/nproc.log"
PATH="$SHIM:$PATH" prop_run "$TMP/tree.out" "$TMP/tree.lua"
expect_run "tree: run" "$TMP/tree.out" 0 3 1 0
same "tree: no command ran" "$(calls)" 0
same "tree: facts from its os-release" "$(cat "$T/etc/facts")" "$(printf '%s\n' \
  'os_codename=tcode' 'os_id=testos' 'os_like=debian ubuntu' 'os_name=Test OS 9.1 (tcode)' \
  'os_release=9.1' 'tree=true')"
same "tree: content by facts" "$(cat "$T/etc/motd")" tree
same "tree: a template rendered with facts at run time" "$(cat "$T/etc/issue")" \
  "$(printf 'Test OS 9.1 (tcode)\nlike: debian, ubuntu')"

T2="$TMP/bare"
mkdir -p "$T2/etc"
cat >"$TMP/bare.lua" <<EOF
host "bare" {
  connect.dir "$T2",
  file.has_content("/etc/facts", function(f) return "id=" .. tostring(f.os_id) .. " tree=" .. tostring(f.tree) .. "\n" end),
}
EOF
prop_run "$TMP/bare.out" "$TMP/bare.lua"
expect_run "bare tree: run" "$TMP/bare.out" 0 1 0 0
same "bare tree: every fact absent but tree" "$(cat "$T2/etc/facts")" "id=nil tree=true"

finish
