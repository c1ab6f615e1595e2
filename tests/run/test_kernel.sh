#!/usr/bin/env bash
# kernel.module_loaded: the file of /etc/modules-load.d on a connect.dir
# tree (dry run, first run, second run ok, drift, revert, a directory in
# the way), and modprobe on this machine in dry runs only: no module is
# ever loaded or unloaded here.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
F="$T/etc/modules-load.d/br_netfilter.conf"
cat >"$TMP/load.lua" <<EOF
host "tree" { connect.dir "$T", os.debian("bookworm", "amd64"), kernel.module_loaded "br_netfilter" }
EOF
cat >"$TMP/unload.lua" <<EOF
host "tree" { connect.dir "$T", os.debian("bookworm", "amd64"), revert(kernel.module_loaded "br_netfilter") }
EOF

prop_run "$TMP/dry.out" "$TMP/load.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 1 0 0
check "dry run: nothing written" test ! -e "$T/etc/modules-load.d"
prop_run "$TMP/run1.out" "$TMP/load.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
same "the file names the module" "$(grep -v '^#' "$F")" br_netfilter
same "mode and owner" "$(mode_of "$F") $(owner_of "$F")" "0644 root:root"
check "tree: says the kernel is not its own" grep -q "not loaded now: a directory tree" "$TMP/run1.out"
check "tree: no modprobe" test "$(grep -c 'modprobe' "$TMP/run1.out")" = 0
prop_run "$TMP/run2.out" "$TMP/load.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0
echo other >"$F"
prop_run "$TMP/run3.out" "$TMP/load.lua"
expect_run "edited file: changed" "$TMP/run3.out" 0 1 0 0
same "edited file: put back" "$(grep -v '^#' "$F")" br_netfilter

prop_run "$TMP/rdry.out" "$TMP/unload.lua" --dry-run
expect_run "revert, dry run: would change" "$TMP/rdry.out" 0 1 0 0
check "revert, dry run: the file stays" test -f "$F"
prop_run "$TMP/r1.out" "$TMP/unload.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 1 0 0
check "revert: the file is gone" test ! -e "$F"
prop_run "$TMP/r2.out" "$TMP/unload.lua"
expect_run "revert again: ok" "$TMP/r2.out" 0 0 1 0

# A directory where the file goes: a failure, left alone.
mkdir -p "$F/keep"
prop_run "$TMP/bad.out" "$TMP/load.lua"
expect_run "a directory in the way: failed" "$TMP/bad.out" 1 0 0 1
check "a directory in the way: says so" grep -q "is a directory" "$TMP/bad.out"
check "a directory in the way: kept" test -d "$F/keep"
rm -rf "$F"

# This machine, dry runs only: a module that is not loaded would be
# loaded with modprobe; the revert of a module built into the kernel
# would leave it.
M=prop_test_nomod_$$
cat >"$TMP/local.lua" <<EOF
host "localhost" { kernel.module_loaded "$M" }
EOF
prop_run "$TMP/ldry.out" "$TMP/local.lua" --dry-run
expect_run "localhost, dry run: would change" "$TMP/ldry.out" 0 1 0 0
check "localhost, dry run: would modprobe" grep -q "would run: modprobe -- $M" "$TMP/ldry.out"
check "localhost, dry run: no file" test ! -e "/etc/modules-load.d/$M.conf"
builtin=""
for d in /sys/module/*; do
  if [[ -d "$d" && ! -e "$d/initstate" ]]; then builtin="${d##*/}"; break; fi
done
if [[ -n "$builtin" ]]; then
  cat >"$TMP/lrev.lua" <<EOF
host "localhost" { revert(kernel.module_loaded "$builtin") }
EOF
  prop_run "$TMP/lrev.out" "$TMP/lrev.lua" --dry-run
  check "built-in module: stays" grep -q "$builtin is built into the kernel" "$TMP/lrev.out"
  check "built-in module: no modprobe -r" test "$(grep -c 'modprobe -r' "$TMP/lrev.out")" = 0
fi

cat >"$TMP/arg.lua" <<EOF
host "localhost" { kernel.module_loaded "../evil" }
EOF
run_prop "$TMP/arg.out" lint "$TMP/arg.lua"
check "bad name: P012 at its line" grep -q "arg.lua:1: error\[P012\]" "$TMP/arg.out"

# The probe, on this machine in a private mount namespace: a copy of /etc
# with the module's file, and a /sys/module of the test's own where the
# module is still loading (initstate "coming").  The file and
# /sys/module/NAME are there, so the check holds; the probe reads the
# state, and a dry run says it would fail.  Nothing is loaded, and this
# machine's /etc and /sys stay as they are.
if [[ "$(id -u)" == 0 ]] && unshare -m --propagation private true 2>/dev/null; then
  cat >"$TMP/ns.sh" <<'EOF'
set -u
mkdir -p "$TMP/etc" "$TMP/sysmod/$M" && cp -a /etc/. "$TMP/etc/" || exit 99
mkdir -p "$TMP/etc/modules-load.d" || exit 99
printf '# written by prop (kernel.module_loaded): loaded at boot\n%s\n' "$M" >"$TMP/etc/modules-load.d/$M.conf"
chmod 644 "$TMP/etc/modules-load.d/$M.conf"
echo coming >"$TMP/sysmod/$M/initstate"
mount --bind "$TMP/etc" /etc || exit 99
mount --bind "$TMP/sysmod" /sys/module || exit 99
timeout 300 "$PROP" run "$TMP/local.lua" --json --dry-run >"$TMP/ns.out" 2>&1
echo "$?" >"$TMP/ns.rc"
EOF
  ns_rc=0
  TMP="$TMP" PROP="$PROP" M="$M" unshare -m --propagation private bash "$TMP/ns.sh" || ns_rc=$?
  same "probe: the namespace set up" "$ns_rc" 0
  same "probe, module still loading: dry run exit" "$(cat "$TMP/ns.rc")" 1
  check "probe, module still loading: would fail, with what it saw" \
    grep -q "would fail: verify: module $M is coming (/sys/module/$M/initstate), want live" "$TMP/ns.out"
  check "probe: this machine's /etc has no file" test ! -e "/etc/modules-load.d/$M.conf"
else
  skip_part "no private mount namespace here (root and unshare -m) for the probe"
fi

finish
