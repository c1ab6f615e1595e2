#!/usr/bin/env bash
# libprop from C: `cmake --install` of the build prop comes from into a
# scratch prefix, then examples/embed.c built against what was installed
# with `pkg-config --cflags --libs prop` (shared, then static) and run on
# a directory tree.  Also: only the public API is exported, the SSH
# transport is a module loaded on first use (libssh never loaded
# otherwise), and a missing module is a clear error.
source "$(dirname "$0")/common.sh"

BUILD="$(dirname "$PROP")"
PREFIX="$TMP/prefix"
CC="${CC:-cc}"

if ! cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" 2>&1; then
  fail install "cmake --install failed" "$TMP/install.log"
  finish
  exit 1
fi
pass

pc="$(find "$PREFIX" -name prop.pc -path '*/pkgconfig/*' | head -1)"
if [[ -n "$pc" ]]; then pass; else fail install "no prop.pc installed"; fi
PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_PATH
libdir="$(pkg-config --variable=libdir prop 2>/dev/null)"
includedir="$(pkg-config --variable=includedir prop 2>/dev/null)"
# The .pc file is relocatable: its prefix is where it was installed.
if [[ "$(cd "$libdir" 2>/dev/null && pwd -P)" == "$(cd "$(dirname "$pc")/.." && pwd -P)" ]]; then
  pass
else
  fail pkgconfig "libdir $libdir is not beside $pc"
fi
want_version="$("$PROP" --version | awk '{print $2}')"
if [[ "$(pkg-config --modversion prop)" == "$want_version" ]]; then pass; else
  fail pkgconfig "version $(pkg-config --modversion prop), prop says $want_version"
fi
for f in "$libdir/libprop.a" "$libdir/libprop.so" "$libdir/prop/libprop-ssh.so" \
  "$includedir/prop/prop.h" "$includedir/prop/transport.h" "$includedir/prop/exec.h" \
  "$includedir/prop/secrets.h" "$includedir/prop/diff.h" "$PREFIX/bin/prop"; do
  if [[ -e "$f" ]]; then pass; else fail install "missing $f"; fi
done

# ---- exports: the PROP_API functions of the headers, nothing else ----
# (A sanitized build also exports __asan_default_options, the runtime's
# hook for its default options: see transport_ssh_load.c.)
nm -D --defined-only "$libdir/libprop.so" | awk '$2 ~ /^[TtWDdBbRrV]$/ {print $3}' |
  grep -vx '__asan_default_options' | sort >"$TMP/exported"
# Every function declared in the headers (a line that starts a declaration
# at the left margin) is marked PROP_API.
grep -hE '^[A-Za-z][^(]*\bprop_[a-z0-9_]+\(' "$includedir"/prop/*.h | grep -v '^typedef' \
  >"$TMP/declarations"
if grep -v '^PROP_API ' "$TMP/declarations" >"$TMP/unmarked"; then
  fail exports "functions declared without PROP_API" "$TMP/unmarked"
else
  pass
fi
grep -oE '^[^(]*\(' "$TMP/declarations" | grep -oE 'prop_[a-z0-9_]+\($' | tr -d '(' |
  sort -u >"$TMP/declared"
if [[ -s "$TMP/declared" ]] && diff "$TMP/declared" "$TMP/exported" >"$TMP/exports.diff"; then
  pass
else
  fail exports "libprop.so exports other than the headers' PROP_API functions (< declared, > exported)" \
    "$TMP/exports.diff"
fi
nm -D --defined-only "$libdir/prop/libprop-ssh.so" | awk '{print $3}' >"$TMP/module-exports"
if [[ "$(cat "$TMP/module-exports")" == prop_ssh_module_open_v1 ]]; then pass; else
  fail exports "the SSH module exports more than its entry" "$TMP/module-exports"
fi
# libssh: needed by the module alone.
for f in "$libdir/libprop.so" "$PREFIX/bin/prop"; do
  if readelf -d "$f" | grep -q 'NEEDED.*libssh'; then fail needed "$f needs libssh"; else pass; fi
done
if readelf -d "$libdir/prop/libprop-ssh.so" | grep -q 'NEEDED.*libssh'; then pass; else
  fail needed "the SSH module does not link libssh"
fi

# The installed prop finds the module through its run path ($ORIGIN-relative).
runpath="$(readelf -d "$PREFIX/bin/prop" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
# shellcheck disable=SC2016 # a literal $ORIGIN
if [[ "$runpath" == *'$ORIGIN'* && -e "${runpath//\$ORIGIN/$PREFIX/bin}/libprop-ssh.so" ]]; then
  pass
else
  fail needed "the installed prop's run path ($runpath) does not lead to the module"
fi

# ---- examples/embed.c, shared ----
cd "$TMP" || exit 1
# A build with sanitizers (-DPROP_SANITIZE=ON) needs them in the program too.
SAN=()
if readelf -d "$libdir/libprop.so" | grep -q 'NEEDED.*libasan'; then
  SAN=("-fsanitize=address,undefined")
fi
# shellcheck disable=SC2046
if "$CC" "${SAN[@]}" -std=c11 -Wall -Wextra -Werror -o embed "$PROP_SOURCE_DIR/examples/embed.c" \
  $(pkg-config --cflags --libs prop) -Wl,-rpath,"$libdir" >"$TMP/cc.log" 2>&1; then
  pass
else
  fail build "embed.c does not build with pkg-config --cflags --libs prop" "$TMP/cc.log"
  finish
  exit 1
fi
if readelf -d embed | grep -q 'NEEDED.*libprop\.so'; then pass; else
  fail build "embed is not linked with the shared libprop"
fi

# check_tree ROOT RELOADS : the files embed makes, with their content and modes.
check_tree() {
  local root="$1" reloads="$2"
  [[ "$(cat "$root/srv/www/index.html")" == "<h1>made by libprop</h1>" ]] &&
    [[ "$(cat "$root/srv/www/robots.txt")" == $'User-agent: *\nDisallow:' ]] &&
    [[ "$(cat "$root/etc/web/web.conf")" == $'listen 8080\nroot /srv/www' ]] &&
    [[ "$(stat -c %a "$root/srv/www/index.html" "$root/etc/web/web.conf")" == $'644\n644' ]] &&
    [[ "$(stat -c %a "$root/srv/www" "$root/srv/www/static" "$root/etc/web")" == $'755\n755\n755' ]] &&
    [[ "$(grep -c reloaded "$root/etc/web/reloads")" == "$reloads" ]] &&
    [[ -z "$(find "$root" -name '.*.prop-*')" ]]
}

mkdir -p root
# LD_DEBUG=files names every object loaded: libssh must not be one.
LD_DEBUG=files LD_DEBUG_OUTPUT="$TMP/ld" ./embed root >out1 2>&1
rc=$?
if [[ $rc -eq 0 ]]; then pass; else fail run1 "embed exited $rc" out1; fi
if grep -q '^embed.c:[0-9]*: warning\[W101\]: "directory /srv/www/static" is already on host "web"' out1 &&
  grep -qx 'check: 0 error(s), 1 warning(s)' out1; then
  pass
else
  fail run1 "the pre-pass's warning is not printed" out1
fi
if grep -qx '  directory /srv/www: changed' out1 &&
  grep -qx '    file /srv/www/index.html: changed' out1 &&
  grep -qx '    web reloaded: changed' out1 &&
  grep -qx "web on dir:$(cd root && pwd -P): ok 1, changed 3, failed 0" out1; then
  pass
else
  fail run1 "the first run's results" out1
fi
if check_tree root 1; then pass; else fail run1 "the tree is not as embed.c makes it" out1; fi
if cat "$TMP"/ld.* 2>/dev/null | grep -q 'file=libprop\.so' &&
  ! cat "$TMP"/ld.* | grep -q 'libssh'; then
  pass
else
  fail run1 "libssh was loaded, or libprop.so was not"
fi

# Converged: nothing changes, the reload does not run again.
./embed root >out2 2>&1
rc=$?
if [[ $rc -eq 0 ]] && grep -qx "web on dir:$(cd root && pwd -P): ok 4, changed 0, failed 0" out2 &&
  ! grep -q 'reloaded' out2; then
  pass
else
  fail run2 "the second run changed something (exit $rc)" out2
fi
if check_tree root 1; then pass; else fail run2 "the tree changed" out2; fi

# A mistake: the pre-pass refuses, nothing runs.
mkdir -p root-broken
./embed --broken root-broken >out3 2>&1
rc=$?
if [[ $rc -eq 1 ]] &&
  grep -q '^embed.c:[0-9]*: error\[P007\]: "/etc/web/web.conf" is given two different contents' out3 &&
  grep -qx 'check: 1 error(s), 1 warning(s)' out3 && grep -qx 'web: not run' out3 &&
  [[ -z "$(ls -A root-broken)" ]]; then
  pass
else
  fail broken "the error is not reported, or something ran (exit $rc)" out3
fi

# ---- examples/embed.c, static ----
# shellcheck disable=SC2046
if "$CC" "${SAN[@]}" -std=c11 -o embed-static "$PROP_SOURCE_DIR/examples/embed.c" \
  $(pkg-config --cflags prop) $(pkg-config --static --libs prop | sed 's/-lprop\b/-l:libprop.a/') \
  >"$TMP/cc-static.log" 2>&1; then
  pass
else
  fail static "embed.c does not build with libprop.a" "$TMP/cc-static.log"
fi
if [[ -x embed-static ]] && ! readelf -d embed-static | grep -q 'NEEDED.*libprop'; then
  mkdir -p root-static
  ./embed-static root-static >out4 2>&1
  rc=$?
  if [[ $rc -eq 0 ]] && check_tree root-static 1; then pass; else
    fail static "the static embed did not make the tree (exit $rc)" out4
  fi
else
  fail static "embed-static is not linked statically with libprop"
fi

# ---- the SSH module: loaded on first use, a clear error when missing ----
cat >probe.c <<'EOF'
#include <prop/transport.h>
#include <stdio.h>
int main(void)
{
    prop_ssh_opts o = {0};
    prop_transport *t = NULL;
    int rc = prop_transport_ssh(&t, &o);
    printf("%d %s: %s\n", rc, prop_transport_name(t), prop_transport_error(t));
    prop_transport_close(t);
    return 0;
}
EOF
# shellcheck disable=SC2046
"$CC" "${SAN[@]}" -std=c11 -o probe probe.c $(pkg-config --cflags --libs prop) -Wl,-rpath,"$libdir" \
  >"$TMP/cc-probe.log" 2>&1 || fail probe "probe.c does not build" "$TMP/cc-probe.log"
# The module's own answer for a missing address: it was found beside libprop.so.
./probe >out5 2>&1
if grep -qx -- '-3 ssh: ssh: no address to connect to' out5; then pass; else
  fail module "the installed module was not loaded" out5
fi
mv "$libdir/prop/libprop-ssh.so" "$TMP/libprop-ssh.so.away"
./probe >out6 2>&1
if grep -q -- '^-3 ssh: ssh: the SSH transport is not installed: cannot load libprop-ssh.so from the library path nor from ' out6; then
  pass
else
  fail module "a missing module is not a clear error" out6
fi
# The installed prop says the same for an SSH host, and runs no property.
cat >ssh-site.lua <<'EOF'
host "far" {
  connect.ssh { address = "192.0.2.1" },
  file.has_content("/tmp/never", "x"),
}
EOF
timeout 120 "$PREFIX/bin/prop" run ssh-site.lua >out7 2>&1
rc=$?
if [[ $rc -ne 0 ]] && grep -q 'the SSH transport is not installed: cannot load libprop-ssh.so from the library path' out7; then
  pass
else
  fail module "prop run without the module (exit $rc)" out7
fi
# A module that is there but will not load: the loader's reason, not
# "not installed".
printf 'not a library\n' >"$libdir/prop/libprop-ssh.so"
./probe >out8 2>&1
if grep -q -- '^-3 ssh: ssh: the SSH transport cannot be loaded: .*libprop-ssh.so: ' out8 &&
  ! grep -q 'not installed' out8; then
  pass
else
  fail module "a broken module is not named with the loader's reason" out8
fi
mv "$TMP/libprop-ssh.so.away" "$libdir/prop/libprop-ssh.so"

finish
