#!/usr/bin/env bash
# Out of memory anywhere: PROP_FAIL_ALLOC=N makes the Nth request for more
# memory of prop's Lua state fail (and Lua's retry of it), as if the
# memory limit were reached there.  For lint, show and a dry run of a
# small site (and show of one with containers, and a dry run with
# --tags), N walks over the requests each makes: every run must end
# with a clean error (or succeed, when prop gets by without that block),
# never a crash, a hang or, under AddressSanitizer, a leak (LeakSanitizer
# makes the exit status 23 and prints a report).  Then the same for the
# engine's own allocations (PROP_FAIL_ENGINE_ALLOC) over a run that writes.
#
# The walk takes every request near the start and the end of each
# command (setting up the state; the pre-pass, show's formatting, the
# properties' check and apply) and every STRIDE-th in between, STRIDE
# chosen for about 100 points there.  PROP_FAULT_STRIDE=1 walks them all
# (slow: thousands of runs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1"
cd "$TMP"

# A target for the dry run: a directory tree, and when prop is root (it
# runs commands there through chroot) enough of a system for /bin/sh.
mkdir -p tree/etc
printf 'hello\n' >tree/etc/motd
if [[ "$(id -u)" == 0 ]]; then
  mkdir -p tree/bin
  cp "$(readlink -f /bin/sh)" tree/bin/sh
  ldd /bin/sh | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "tree$(dirname "$lib")"
    cp "$lib" "tree$lib"
  done
fi

cat >site.lua <<LUA
local web = props {
  apt.installed { "nginx" },
  file.has_content("/etc/motd", "hello\n", { mode = "0644", owner = "root" }),
}:tag("web")
local probe = property {
  desc = "probe",
  check = function(sys)
    local r = sys:query({ "/bin/sh", "-c", "echo out; echo err >&2" })
    local m = sys:read("/etc/motd")
    local st = sys:stat("/etc/motd")
    return m == "hello\n" and r.code == 0 and st ~= nil and web.claims[1] ~= nil
  end,
  apply = function(sys) sys:write("/etc/motd", "hello\n") end,
}
host "tree" {
  connect.dir "$TMP/tree", os.debian("bookworm", "amd64"),
  probe, web, file.has_content("/etc/x", "y"), service.running "ssh",
}
LUA

# requests ARGS...: how many requests for memory prop makes for ARGS.
requests() {
  { PROP_FAIL_ALLOC=999999999999 "$PROP" "$@" 2>&1 >/dev/null || true; } |
    sed -n 's/^prop: PROP_FAIL_ALLOC=[0-9]*: this state made \([0-9]*\) requests$/\1/p' | tail -1
}

# walk NAME ARGS...: fail each chosen request of prop ARGS in turn.
walk() {
  local name="$1" total n rc points=0 bad=0 stride edge=100
  shift
  total="$(requests "$@")"
  if [[ -z "$total" || "$total" -lt 100 ]]; then
    fail "$name" "could not count its requests for memory (got \"$total\")"
    return
  fi
  stride="${PROP_FAULT_STRIDE:-$(((total - 2 * edge) / 100 + 1))}"
  ((stride >= 1)) || stride=1
  for ((n = 1; n <= total; n++)); do
    if ((n > edge && n <= total - edge && (n - edge) % stride != 0)); then
      continue
    fi
    points=$((points + 1))
    rc=0
    PROP_FAIL_ALLOC=$n timeout 120 "$PROP" "$@" >"$TMP/fault.out" 2>&1 || rc=$?
    if grep -Eq 'Sanitizer|runtime error:|panic|Segmentation|core dumped' "$TMP/fault.out" ||
       ((rc != 0 && rc != 1 && rc != 2)) ||
       { ((rc != 0)) && ! grep -Eqi 'memory|failed' "$TMP/fault.out"; }; then
      bad=$((bad + 1))
      if ((bad <= 3)); then
        fail "$name" "request $n of $total failing: exit $rc" "$TMP/fault.out"
      fi
    fi
  done
  if ((bad == 0)); then
    pass
  else
    fail "$name" "$bad of $points runs did not end cleanly"
  fi
}

walk "lint" lint site.lua
walk "show" show site.lua
# Containers nested in their host (show's formatting walks every host).
cp "$PROP_SOURCE_DIR/examples/containers.lua" containers.lua
walk "show of containers" show containers.lua
walk "dry run" run --dry-run site.lua
# Choosing the properties to run, and the warning of a tag none has.
walk "dry run with tags" run --dry-run --tags web,nope site.lua

# The engine's own allocations (the transports' buffers and names, the
# executor's lists, the diffs: alloc.h), PROP_FAIL_ENGINE_ALLOC=N refusing
# the Nth: a run that writes a tree, from the same start each time, for
# N = 1, 2, ... until three runs in a row need no refusal (the run made
# fewer).  Each must end cleanly (a failed property, or the host not
# reached: exit 69), and under AddressSanitizer leak nothing.
mkdir -p etree0/etc
cat >esite.lua <<LUA
host "t" { connect.dir "$TMP/etree", os.debian("bookworm", "amd64"),
  file.has_content("/etc/motd", "hello\n"),
  file.directory("/srv/x"),
  file.line("/etc/hosts.allow", "ALL: 127.0.0.1", { create = true }),
}
LUA
rm -rf etree && cp -a etree0 etree
"$PROP" run esite.lua >"$TMP/clean.out" 2>&1 || fail "engine" "the run fails with nothing refused" "$TMP/clean.out"
bad=0 clean=0 n=0
while ((clean < 3 && n < 2000)); do
  n=$((n + 1))
  rm -rf etree && cp -a etree0 etree
  rc=0
  PROP_FAIL_ENGINE_ALLOC=$n timeout 120 "$PROP" run esite.lua >"$TMP/fault.out" 2>&1 || rc=$?
  if grep -Eq 'Sanitizer|runtime error:|panic|Segmentation|core dumped' "$TMP/fault.out" ||
     ((rc != 0 && rc != 1 && rc != 2 && rc != 69)) ||
     { ((rc != 0)) && ! grep -Eqi 'memory|failed' "$TMP/fault.out"; }; then
    bad=$((bad + 1))
    ((bad <= 3)) && fail "engine" "allocation $n refused: exit $rc" "$TMP/fault.out"
  fi
  if ((rc == 0)) && grep -q ', 3 changed, 0 failed' "$TMP/fault.out"; then
    clean=$((clean + 1))
  else
    clean=0
  fi
done
if ((bad == 0 && clean == 3 && n > 3)); then
  pass
else
  fail "engine" "$bad of $n runs did not end cleanly (walked to $n, $clean clean in a row)"
fi

finish
