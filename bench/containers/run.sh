#!/usr/bin/env bash
# Benchmark of chroot containers on this machine: a Debian bookworm tree
# made from a cached tarball and provisioned with about ten properties
# inside (a directory, files with content, an account, a line in a file, a
# symlink), by `prop run` and, side by side in the same run, by a compiled
# Propellor config (Chroot.provisioned) and by `ansible-playbook` through
# its chroot connection.  Each tool makes the tree and provisions it (first
# run, the tree absent), then runs again over it (converged run, nothing to
# do).  Then prop on a host with three containers beside the same host
# bare, converged.  A benchmark, not a test: it prints figures and ratios
# and fails only when prop does not do what it should (the first run must
# make every change, the converged run none), or prop, root or
# /usr/bin/time is missing.  A tool to compare with that is missing or
# cannot run here is reported n/a with the reason.
#
#   bench/containers/run.sh [--files N] [--runs N] [--no-propellor]
#                           [--no-ansible] [--no-three] [--install] [--keep]
#                           [--prop PATH] [--out DIR] [--cache DIR] [--smoke]
#
# --files N: files with content in each container (default 6: with the
#   directory, the account, the line and the symlink, 10 properties).
# --runs N: first and converged runs per tool; the median is shown (3).
# --no-three: leave out the three containers beside the bare host.
# --install: apt-get install what is missing (time, debootstrap, ghc and
#   libghc-propellor-dev, ansible for its community.general.chroot
#   connection); without it, a missing tool is reported n/a.
# --keep: keep the scratch directory (/tmp/prop-bench-containers.*).
# --out DIR: where the compiled Propellor config is kept
#   (bench/out/containers).
# --cache DIR: where the tarball of the tree is kept between runs
#   (/var/tmp/prop-bench-cache); made once by prop, not timed.
# --smoke: 2 files, one run, every tool, no three containers, --install
# implied; checks only that each tool ran and that prop's converged run
# changed nothing (CI).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../common.sh
source "$root/bench/common.sh"

nfiles=6
runs=3
propellor=1 ansible=1 three=1
install=0 keep=0 smoke=0
prop=${PROP:-}
out="$root/bench/out/containers"
cache=/var/tmp/prop-bench-cache

usage_end='^# changed nothing'

while (($#)); do
    case $1 in
    --files) nfiles=${2:?}; shift 2 ;;
    --files=*) nfiles=${1#*=}; shift ;;
    --runs) runs=${2:?}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --no-propellor) propellor=0; shift ;;
    --no-ansible) ansible=0; shift ;;
    --no-three) three=0; shift ;;
    --install) install=1; shift ;;
    --keep) keep=1; shift ;;
    --prop) prop=${2:?}; shift 2 ;;
    --prop=*) prop=${1#*=}; shift ;;
    --out) out=${2:?}; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --cache) cache=${2:?}; shift 2 ;;
    --cache=*) cache=${1#*=}; shift ;;
    --smoke) smoke=1; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
done
if ((smoke)); then
    nfiles=2 runs=1 install=1 three=0
fi
positive "$nfiles" "$runs"
[[ $cache == /* ]] || die "--cache needs an absolute path: $cache"
((EUID == 0)) || die "containers need root: run it as root"

suite=bookworm
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
case $arch in # Propellor's name for it
amd64) parch=X86_64 ;; i386) parch=X86_32 ;; arm64) parch=ARM64 ;; armhf) parch=ARMHF ;;
*) parch= ;;
esac

# ---- tools ---------------------------------------------------------------------
has_propellor() { command -v ghc >/dev/null && ghc-pkg --simple-output list propellor 2>/dev/null | grep -q propellor; }
# The chroot connection is in the community.general collection (Debian
# package ansible), not in ansible-core.
has_ansible_chroot() {
    command -v ansible-playbook >/dev/null &&
        ansible-doc -t connection -l 2>/dev/null | grep -q '^community\.general\.chroot '
}
if ((install)); then
    want=()
    [[ -x /usr/bin/time ]] || want+=(time)
    command -v debootstrap >/dev/null || want+=(debootstrap)
    command -v unshare >/dev/null || want+=(util-linux)
    ((propellor)) && ! has_propellor && want+=(ghc libghc-propellor-dev)
    ((ansible)) && ! has_ansible_chroot && want+=(ansible)
    if ((${#want[@]})); then
        echo "installing: ${want[*]}"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -qq "${want[@]}" >/dev/null 2>&1; then
            apt-get update -qq >/dev/null 2>&1 || true
            apt-get install -y -qq "${want[@]}" >/dev/null ||
                die "apt-get install ${want[*]} failed"
        fi
    fi
fi

[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed to measure memory (apt-get install time, or --install)"
command -v unshare >/dev/null || die "unshare is needed (apt-get install util-linux)"
find_prop

declare -A NA # tool -> why it is n/a
((propellor)) || NA[propellor]="not measured (--no-propellor)"
((ansible)) || NA[ansible]="not measured (--no-ansible)"
if ((propellor)) && [[ -z $parch ]]; then
    NA[propellor]="no Propellor architecture for $arch here"
    propellor=0
fi
if ((propellor)) && ! has_propellor; then
    NA[propellor]="ghc or the propellor library is not installed (apt-get install ghc libghc-propellor-dev, or --install)"
    propellor=0
fi
if ((ansible)); then
    if ! command -v ansible-playbook >/dev/null; then
        NA[ansible]="not installed (apt-get install ansible, or --install)"
        ansible=0
    elif ! has_ansible_chroot; then
        NA[ansible]="no chroot connection: ansible-core alone lacks it; community.general.chroot is in the Debian package ansible (or --install)"
        ansible=0
    fi
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
scratch=$(mktemp -d /tmp/prop-bench-containers.XXXXXX)

# mounted_below DIR: the mount points at or below DIR, deepest first.
mounted_below() {
    awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print length($2), $2 }' /proc/self/mounts |
        sort -rn | cut -d' ' -f2-
}
# remove_tree DIR: rm -rf --one-file-system, once nothing is mounted below
# it (what a killed run left is unmounted first; a mount that stays is
# reported and the tree kept).
remove_tree() {
    local d=$1 m
    [[ -e $d ]] || return 0
    for m in $(mounted_below "$d"); do umount -l "$m" 2>/dev/null || true; done
    if [[ -n $(mounted_below "$d") ]]; then
        echo "run.sh: still mounted below $d, not removed: $(mounted_below "$d" | tr '\n' ' ')" >&2
        return 1
    fi
    rm -rf --one-file-system -- "$d"
}
cleanup() {
    if ((keep)); then
        echo "scratch directory kept: $scratch"
    else
        remove_tree "$scratch" || echo "run.sh: $scratch kept: something is still mounted below it" >&2
    fi
}
trap cleanup EXIT

# ---- the tree's tarball, made once by prop (not timed) ---------------------------
include=python3 # Ansible's modules run with the tree's python3
rootfs=$cache/rootfs
find_tarball() { tarball=$(ls "$rootfs"/debian-$suite-"$arch"-minbase-*.tar.gz 2>/dev/null | head -n 1 || true); }
chroot_opts="{ include = { \"$include\" }, cache = \"$rootfs\" }"
find_tarball
if [[ -z $tarball ]]; then
    command -v debootstrap >/dev/null || die "no tarball in $rootfs and no debootstrap to make one (apt-get install debootstrap, or --install)"
    echo "making the $suite tree once with prop (debootstrap, a minute or more; kept in $rootfs; not timed)"
    cat >"$scratch/rootfs.lua" <<EOF
host "localhost" {
  chroot.provisioned(chroot.debootstrapped("$scratch/rootfs-tree", os.debian("$suite", "$arch"), {}, $chroot_opts)),
}
EOF
    for _ in $(seq 600); do
        if "$prop" run "$scratch/rootfs.lua" >"$scratch/rootfs.log" 2>&1; then rc=0; else rc=$?; fi
        grep -q 'holds the lock' "$scratch/rootfs.log" || break
        sleep 1
    done
    remove_tree "$scratch/rootfs-tree"
    find_tarball
    [[ $rc == 0 && -n $tarball ]] || { cat "$scratch/rootfs.log" >&2; die "prop could not make the tree's tarball in $rootfs"; }
fi

# ---- measuring (timed, timed_prop: bench/common.sh) -------------------------------
# A run of prop on localhost waits up to ten minutes for someone else's
# run to let go of /run/lock/prop.lock.
lock_tries=600

# bench_tool NAME N TREES CHECK-FIRST CHECK-CONVERGED CMD...: RUNS times,
# remove the trees (a space-separated list), run CMD (first run: it makes
# them), then again (converged run); each run's output is checked by the
# named function (LOG N; prints why and returns 1 when wrong).  Sets
# first_s, conv_s (medians), peak_kb (the largest of all runs), and ok (0
# and why when a check failed).
bench_tool() {
    local name=$1 n=$2 trees=$3 chk1=$4 chk2=$5 i d log runner=timed
    shift 5
    local firsts='' convs='' kbs=''
    [[ $name == prop* ]] && runner=timed_prop
    ok=1 why=''
    for ((i = 1; i <= runs; i++)); do
        for d in $trees; do remove_tree "$d" || { ok=0 why="a mount below $d"; break 2; }; done
        log=$scratch/$name-first-$i.log
        $runner "$log" "$@"
        firsts+=" $t_s" kbs+=" $t_kb"
        if ! why=$($chk1 "$log" "$n"); then
            why="first run $i: $why (output: $log)"
            ok=0 keep=1
            break
        fi
        log=$scratch/$name-conv-$i.log
        $runner "$log" "$@"
        convs+=" $t_s" kbs+=" $t_kb"
        if ! why=$($chk2 "$log" "$n"); then
            why="converged run $i: $why (output: $log)"
            ok=0 keep=1
            break
        fi
    done
    first_s=$(median <<<"$firsts") conv_s=$(median <<<"$convs") peak_kb=$(maxof <<<"$kbs")
}

# bench_conv NAME N CHECK CMD...: RUNS converged runs of CMD (the trees
# already made); sets conv_s, peak_kb, ok and why.
bench_conv() {
    local name=$1 n=$2 chk=$3 i log runner=timed
    shift 3
    local convs='' kbs=''
    [[ $name == prop* ]] && runner=timed_prop
    ok=1 why=''
    for ((i = 1; i <= runs; i++)); do
        log=$scratch/$name-conv-$i.log
        $runner "$log" "$@"
        convs+=" $t_s" kbs+=" $t_kb"
        if ! why=$($chk "$log" "$n"); then
            why="converged run $i: $why (output: $log)"
            ok=0 keep=1
            break
        fi
    done
    conv_s=$(median <<<"$convs") peak_kb=$(maxof <<<"$kbs")
}

# ---- what every tool does inside each container -----------------------------------
# A directory, N files with content, an account, a line in /etc/motd, a
# symlink: N + 4 properties.
nprops=$((nfiles + 4))
line2="managed by bench/containers"

gen_prop_inside() { # > Lua list named inside
    local i
    printf 'local inside = {\n  file.directory("/srv/bench"),\n'
    for ((i = 1; i <= nfiles; i++)); do
        printf '  file.has_content("/srv/bench/%s", { "bench file %d", "%s" }),\n' "$(fname "$i")" "$i" "$line2"
    done
    printf '  user.account "benchapp",\n  file.contains_lines("/etc/motd", { "%s" }),\n' "$line2"
    printf '  file.symlink("/srv/bench/current", "/srv/bench/%s"),\n}\n' "$(fname 1)"
}
# gen_prop BASE CONTAINERS > site.lua: localhost with the host's own
# properties (a directory and N files under BASE/host) when CONTAINERS is
# not 1, and CONTAINERS chroots BASE/c1... (none: the bare host).
gen_prop() {
    local base=$1 k=$2 i
    printf -- '-- bench/containers/run.sh\n'
    gen_prop_inside
    printf 'host "localhost" {\n  os.debian("%s", "%s"),\n' "$suite" "$arch"
    if ((k != 1)); then
        printf '  file.directory("%s/host"),\n' "$base"
        for ((i = 1; i <= nfiles; i++)); do
            printf '  file.has_content("%s/host/%s", { "bench file %d", "%s" }),\n' "$base" "$(fname "$i")" "$i" "$line2"
        done
    fi
    for ((i = 1; i <= k; i++)); do
        printf '  chroot.provisioned(chroot.debootstrapped("%s/c%d", os.debian("%s", "%s"), inside, %s)),\n' \
            "$base" "$i" "$suite" "$arch" "$chroot_opts"
    done
    printf '}\n'
}

gen_propellor() { # > Bench.hs (where the trees are: /usr/local/propellor/bench.conf)
    local i
    cat <<EOF
{-# OPTIONS_GHC -Wno-tabs #-}
-- Chroot containers as a Propellor user writes them (bench/containers/run.sh).
-- Propellor runs a copy of this program inside each chroot and gives it
-- only "--continue CHAIN": both copies read where the trees are and the
-- tarball they are made from in /usr/local/propellor/bench.conf
-- (Propellor's own directory, bind-mounted into each chroot).
-- Run as: bench-propellor HOST (one, three or bare).
module Main (main) where

import Propellor
import Propellor.CmdLine (defaultMain)
import Propellor.Engine (mainProperties)
import qualified Propellor.Property.Chroot as Chroot
import qualified Propellor.Property.File as File
import qualified Propellor.Property.User as User
import qualified GHC.IO.Encoding as Encoding
import System.Environment (getArgs)
import System.IO

-- As Propellor's own main does (its Utility.FileSystemEncoding is not
-- exported): file names and contents as bytes, whatever the locale.
useFileSystemEncoding :: IO ()
useFileSystemEncoding = do
	e <- Encoding.getFileSystemEncoding
	mapM_ (\`hSetEncoding\` e) [stdin, stdout, stderr]
	Encoding.setLocaleEncoding e

main :: IO ()
main = do
	useFileSystemEncoding
	conf <- lines <$> readFile "/usr/local/propellor/bench.conf"
	let hs = case conf of
		(base : tarball : _) -> hosts base tarball
		_ -> error "bad /usr/local/propellor/bench.conf"
	args <- getArgs
	case args of
		("--continue" : _) -> defaultMain hs
		[hn] -> maybe (error ("no host " ++ hn)) mainProperties (findHost hs hn)
		_ -> error "usage: bench-propellor HOST"

hosts :: FilePath -> FilePath -> [Host]
hosts base tarball =
	[ host "one" \$ props
		& Chroot.provisioned (box "c1")
	, host "three" \$ props
		& bare base
		& Chroot.provisioned (box "c1")
		& Chroot.provisioned (box "c2")
		& Chroot.provisioned (box "c3")
	, host "bare" \$ props
		& bare base
	]
  where
	box name = Chroot.bootstrapped (Chroot.ChrootTarball tarball) (base ++ "/" ++ name) \$ props
		& osDebian (Stable "$suite") $parch
		& File.dirExists "/srv/bench"
EOF
    for ((i = 1; i <= nfiles; i++)); do
        printf '\t\t& File.hasContent "/srv/bench/%s" ["bench file %d", "%s"]\n' "$(fname "$i")" "$i" "$line2"
    done
    cat <<EOF
		& User.accountFor (User "benchapp")
		& File.containsLine "/etc/motd" "$line2"
		& "/srv/bench/current" \`File.isSymlinkedTo\` File.LinkTarget "/srv/bench/$(fname 1)"

bare :: FilePath -> Property UnixLike
bare base = propertyList "the host's own" \$ props
	& File.dirExists (base ++ "/host")
EOF
    for ((i = 1; i <= nfiles; i++)); do
        printf '\t& File.hasContent (base ++ "/host/%s") ["bench file %d", "%s"]\n' "$(fname "$i")" "$i" "$line2"
    done
}

gen_ansible() { # BASE > playbook.yml (the inventory: c1, a chroot)
    local base=$1 i
    cat <<EOF
# bench/containers/run.sh: the tree made from the tarball on this machine,
# then provisioned through the chroot connection.
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: c1 tree
      file: { path: "$base/c1", state: directory, mode: "0755" }
    - name: c1 unpacked
      command: tar --numeric-owner --xattrs --xattrs-include=* --acls -xpzf "$tarball" -C "$base/c1"
      args: { creates: "$base/c1/bin/sh" }
- hosts: boxes
  gather_facts: false
  tasks:
    - file: { path: /srv/bench, state: directory }
EOF
    for ((i = 1; i <= nfiles; i++)); do
        printf '    - copy: { dest: /srv/bench/%s, content: "bench file %d\\n%s\\n" }\n' "$(fname "$i")" "$i" "$line2"
    done
    cat <<EOF
    - user: { name: benchapp }
    - lineinfile: { path: /etc/motd, line: "$line2" }
    - file: { path: /srv/bench/current, src: /srv/bench/$(fname 1), state: link }
EOF
}

# ---- the checks: LOG N ------------------------------------------------------------
# prop run --json: the host events (prop_hosts, field: bench/common.sh).
# First run: each container changed N, none failed, the parent changed
# (its containers made).  Converged: every host changed nothing, each
# container ok N.
box_check() { # LOG N first|conv
    local log=$1 n=$2 kind=$3 line c f o boxes=0
    if grep -q '"unreachable":true' "$log"; then
        echo "prop could not run: $(grep '"unreachable":true' "$log" | head -n 1 | sed -n 's/.*"error":\(".*"\).*/\1/p')"
        return 1
    fi
    while IFS= read -r line; do
        c=$(field changed "$line") f=$(field failed "$line") o=$(field ok "$line")
        if [[ $line == *'"container":'* ]]; then
            boxes=$((boxes + 1))
            if [[ $kind == first ]]; then
                [[ $c == "$n" && $f == 0 ]] || { echo "container: $line (expected changed=$n failed=0)"; return 1; }
            else
                [[ $o == "$n" && $c == 0 && $f == 0 ]] || { echo "container: $line (expected ok=$n changed=0 failed=0)"; return 1; }
            fi
        elif [[ $kind == first ]]; then
            [[ $c -ge 1 && $f == 0 ]] || { echo "host: $line (expected changed>=1 failed=0)"; return 1; }
        else
            [[ $c == 0 && $f == 0 ]] || { echo "host: $line (expected changed=0 failed=0)"; return 1; }
        fi
    done < <(prop_hosts "$log")
    ((boxes == expect_boxes)) || { echo "$boxes container host events, not $expect_boxes (exit $rc)"; return 1; }
    ((rc == 0)) || { echo "prop exited $rc"; return 1; }
}
box_first() { box_check "$1" "$2" first; }
box_conv() { box_check "$1" "$2" conv; }
# Propellor prints "HOST DESC ... done" for a change, "... ok" for none,
# "... failed" for a failure, inside the chroot as on the host.
propellor_first() {
    ((rc == 0)) || { echo "Propellor exited $rc: $(grep -m1 -i 'failed\|error' "$1" || tail -n 1 "$1")"; return 1; }
    local d
    d=$(grep -c '\.\.\. done' "$1" || true)
    ((d >= $2)) || { echo "Propellor reported $d changes, not $2 or more"; return 1; }
}
propellor_conv() {
    ((rc == 0)) || { echo "Propellor exited $rc: $(grep -m1 -i 'failed\|error' "$1" || tail -n 1 "$1")"; return 1; }
    local d f o
    d=$(grep -c '\.\.\. done' "$1" || true)
    f=$(grep -c '\.\.\. failed' "$1" || true)
    o=$(grep -c '\.\.\. ok' "$1" || true)
    ((d == 0 && f == 0 && o >= $2)) || { echo "Propellor reported $d changes, $f failures and $o ok, not 0, 0 and $2 or more"; return 1; }
}
# ansible-playbook: the recap (ansible_recap: bench/common.sh) of c1 (N
# tasks) and of localhost (2 tasks).
ansible_box_check() { # LOG N first|conv
    local c l ch lh
    c=$(ansible_recap "$1" c1) l=$(ansible_recap "$1" localhost)
    if [[ $3 == first ]]; then ch=$2 lh=2; else ch=0 lh=0; fi
    if ((rc != 0)) || [[ $c != "$2 $ch 0 0" || $l != "2 $lh 0 0" ]]; then
        echo "ansible-playbook exited $rc, recap ok/changed/unreachable/failed of c1 = ${c:-?}, of localhost = ${l:-?}, not $2 $ch 0 0 and 2 $lh 0 0$(grep -m1 'FAILED\|UNREACHABLE' "$1" | sed 's/^/: /' | cut -c1-300)"
        return 1
    fi
}
ansible_box_first() { ansible_box_check "$1" "$2" first; }
ansible_box_conv() { ansible_box_check "$1" "$2" conv; }

# ---- the runs --------------------------------------------------------------------
echo "container benchmark: $(machine)"
echo "a $suite minbase tree (with $include) from $tarball ($(du -m "$tarball" | cut -f1) MB), $nprops properties inside; median of $runs first run(s) (the tree absent: made from the tarball, then provisioned) and $runs converged run(s) (nothing to do)"

declare -A R_first R_conv R_kb R_label
tools=(prop propellor ansible)
R_label[prop]="prop run"
R_label[propellor]="Propellor (compiled)"
R_label[ansible]="ansible-playbook (chroot)"

# prop: one container
pdir=$scratch/prop
mkdir -p "$pdir"
gen_prop "$pdir" 1 >"$pdir/one.lua"
expect_boxes=1
bench_tool prop "$nprops" "$pdir/c1" box_first box_conv "$prop" run --json "$pdir/one.lua"
((ok)) || { fail "prop: $why"; die "prop did not converge; see the output above"; }
R_first[prop]=$first_s R_conv[prop]=$conv_s R_kb[prop]=$peak_kb
echo "prop: first run $(fmt_s "$first_s") s, converged run $(fmt_s "$conv_s") s"

# Propellor: compile once (cached in $out while the generated source is the
# same), run in a mount namespace of its own where /usr/local is a scratch
# directory: Propellor keeps its binary, the shim it copies into each chroot
# and its locks in /usr/local/propellor, and mounts /proc and that directory
# in the chroot; all of it is gone when the run ends.
# $propellor_run HOST (a script, for /usr/bin/time to run).
propellor_run=$scratch/propellor/run
mkdir -p "$scratch/propellor"
cat >"$propellor_run" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount --bind "\$1" /usr/local && exec /usr/local/propellor/propellor "\$2"' \\
    sh "$scratch/propellor/usr-local" "\$1"
EOF
chmod +x "$propellor_run"
if ((propellor)); then
    cdir=$out/propellor-$nfiles
    mkdir -p "$cdir" "$scratch/propellor/usr-local/propellor" "$scratch/propellor/trees"
    gen_propellor >"$scratch/Bench.hs"
    if [[ -x $cdir/bench-propellor && -s $cdir/compile.txt ]] && cmp -s "$scratch/Bench.hs" "$cdir/Bench.hs"; then
        read -r c_s c_kb c_when <"$cdir/compile.txt"
        echo "Propellor: $cdir/bench-propellor is up to date (compiled on $c_when)"
        c_ok=1
    else
        cp "$scratch/Bench.hs" "$cdir/Bench.hs"
        rm -f "$cdir/bench-propellor" "$cdir/compile.txt"
        echo "Propellor: compiling $cdir/Bench.hs with $(ghc --numeric-version | sed 's/^/GHC /') and $(ghc-pkg --simple-output list propellor) (ghc -O0)"
        timed "$cdir/ghc.log" ghc -O0 -package propellor -outputdir "$cdir/obj" -o "$cdir/bench-propellor" "$cdir/Bench.hs"
        if ((rc == 0)); then
            c_s=$t_s c_kb=$t_kb c_when=$(date +%F) c_ok=1
            echo "$c_s $c_kb $c_when" >"$cdir/compile.txt"
        else
            c_ok=0
            NA[propellor]="ghc failed on $cdir/Bench.hs (exit $rc): $(grep -m1 -A2 'error' "$cdir/ghc.log" | tr '\n' ' ' | cut -c1-300)"
        fi
    fi
    if ((c_ok)); then
        compile_line="Propellor compile (ghc -O0, with linking): $(fmt_s "$c_s") s, $(mb "$c_kb") MB peak"
        echo "$compile_line"
        cp "$cdir/bench-propellor" "$scratch/propellor/usr-local/propellor/propellor"
        printf '%s\n%s\n' "$scratch/propellor/trees" "$tarball" >"$scratch/propellor/usr-local/propellor/bench.conf"
        bench_tool propellor "$nprops" "$scratch/propellor/trees/c1" propellor_first propellor_conv "$propellor_run" one
        if ((ok)); then
            R_first[propellor]=$first_s R_conv[propellor]=$conv_s R_kb[propellor]=$peak_kb
            echo "Propellor: first run $(fmt_s "$first_s") s, converged run $(fmt_s "$conv_s") s"
        else
            NA[propellor]="its chroot did not work here: $why"
        fi
        remove_tree "$scratch/propellor/trees/c1" || true
    fi
fi

# ansible-playbook: localhost unpacks the tarball, then c1 through the
# chroot connection (community.general.chroot), with the tree's python3.
if ((ansible)); then
    ap=$scratch/ansible
    mkdir -p "$ap/home" "$ap/trees"
    export ANSIBLE_HOME=$ap/home ANSIBLE_LOCAL_TEMP=$ap/home/tmp ANSIBLE_NOCOLOR=1 \
        ANSIBLE_NOCOWS=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
    printf '[boxes]\nc1 ansible_connection=community.general.chroot ansible_host=%s/trees/c1\n' "$ap" >"$ap/inventory"
    gen_ansible "$ap/trees" >"$ap/playbook.yml"
    bench_tool ansible "$nprops" "$ap/trees/c1" ansible_box_first ansible_box_conv \
        ansible-playbook -i "$ap/inventory" "$ap/playbook.yml"
    if ((ok)); then
        R_first[ansible]=$first_s R_conv[ansible]=$conv_s R_kb[ansible]=$peak_kb
        echo "Ansible: first run $(fmt_s "$first_s") s, converged run $(fmt_s "$conv_s") s"
    else
        NA[ansible]="it did not run here: $why"
    fi
    remove_tree "$ap/trees/c1" || true
fi

echo
printf '%-27s %6s %9s %11s %8s %15s %11s\n' tool props "first s" "converged s" "peak MB" "converged/prop" "first/prop"
for t in "${tools[@]}"; do
    if [[ -n ${R_conv[$t]:-} ]]; then
        printf '%-27s %6d %9s %11s %8s %15s %11s\n' "${R_label[$t]}" "$nprops" "$(fmt_s "${R_first[$t]}")" \
            "$(fmt_s "${R_conv[$t]}")" "$(mb "${R_kb[$t]}")" \
            "$(ratio "${R_conv[$t]}" "${R_conv[prop]}")x" "$(ratio "${R_first[$t]}" "${R_first[prop]}")x"
    else
        printf '%-27s %6d %9s %11s %8s %15s %11s\n' "${R_label[$t]}" "$nprops" n/a n/a n/a n/a n/a
    fi
done
[[ -n ${compile_line:-} ]] && echo "$compile_line"
echo "(first run: the tree made from the tarball and provisioned; peak MB: the largest resident set of one process of the run, from /usr/bin/time)"
for t in "${tools[@]}"; do
    [[ -n ${NA[$t]:-} ]] && echo "n/a: ${R_label[$t]}: ${NA[$t]}"
done
for t in "${tools[@]}"; do
    [[ $t == prop || -z ${R_conv[$t]:-} ]] && continue
    echo "converged: ${R_label[$t]} / prop = $(ratio "${R_conv[$t]}" "${R_conv[prop]}")x"
done

# ---- three containers beside the bare host, converged ----------------------------
# The host's own properties (a directory and N files) alone, then with
# three containers of the properties above; the trees are made once
# (checked, not timed), then both are measured converged.
if ((three)); then
    echo
    echo "three containers beside the bare host, converged (median of $runs; the trees made once before, not timed)"
    declare -A T_bare T_three T_kb
    gen_prop "$pdir" 0 >"$pdir/bare.lua"
    gen_prop "$pdir" 3 >"$pdir/three.lua"
    expect_boxes=3
    for c in 1 2 3; do remove_tree "$pdir/c$c" || true; done
    timed_prop "$scratch/prop-three-make.log" "$prop" run --json "$pdir/three.lua"
    if ! why=$(box_first "$scratch/prop-three-make.log" "$nprops"); then
        fail "prop, three containers, first run: $why (output: $scratch/prop-three-make.log)"
        keep=1
    else
        bench_conv prop-three "$nprops" box_conv "$prop" run --json "$pdir/three.lua"
        ((ok)) || fail "prop, three containers: $why"
        T_three[prop]=$conv_s T_kb[prop-three]=$peak_kb
        expect_boxes=0
        bench_conv prop-bare "$nprops" box_conv "$prop" run --json "$pdir/bare.lua"
        ((ok)) || fail "prop, bare host: $why"
        T_bare[prop]=$conv_s T_kb[prop-bare]=$peak_kb
    fi
    for c in 1 2 3; do remove_tree "$pdir/c$c" || true; done
    if ((propellor)) && [[ -n ${R_conv[propellor]:-} ]]; then
        if "$propellor_run" three >"$scratch/propellor-three-make.log" 2>&1; then rc=0; else rc=$?; fi
        if ! why=$(propellor_first "$scratch/propellor-three-make.log" $((3 * nprops))); then
            NA[propellor-three]="first run: $why (output: $scratch/propellor-three-make.log)"
        else
            bench_conv propellor-three $((3 * nprops)) propellor_conv "$propellor_run" three
            if ((ok)); then
                T_three[propellor]=$conv_s T_kb[propellor-three]=$peak_kb
                bench_conv propellor-bare 1 propellor_conv "$propellor_run" bare
            fi
            if ((ok)); then T_bare[propellor]=$conv_s T_kb[propellor-bare]=$peak_kb; else NA[propellor-three]=$why; fi
        fi
        for c in 1 2 3; do remove_tree "$scratch/propellor/trees/c$c" || true; done
    fi
    printf '%-27s %11s %14s %8s %14s\n' tool "bare host s" "3 containers s" "peak MB" "3 containers/bare"
    for t in prop propellor; do
        if [[ -n ${T_three[$t]:-} && -n ${T_bare[$t]:-} ]]; then
            printf '%-27s %11s %14s %8s %14s\n' "${R_label[$t]}" "$(fmt_s "${T_bare[$t]}")" "$(fmt_s "${T_three[$t]}")" \
                "$(mb "$(maxof <<<"${T_kb[$t-three]} ${T_kb[$t-bare]}")")" "$(ratio "${T_three[$t]}" "${T_bare[$t]}")x"
        elif [[ $t == prop ]] || ((propellor)); then
            printf '%-27s %11s %14s %8s %14s\n' "${R_label[$t]}" n/a n/a n/a n/a
        fi
    done
    [[ -n ${NA[propellor-three]:-} ]] && echo "n/a: Propellor, three containers: ${NA[propellor-three]}"
    if [[ -n ${T_three[prop]:-} ]]; then
        echo "prop: a host with three containers / the same host bare, converged = $(ratio "${T_three[prop]}" "${T_bare[prop]}")x (the goal is under 3x)"
    fi
fi

if ((smoke)); then
    # Each tool not left out with --no-... ran (the figures are not looked at).
    for t in "${tools[@]}"; do
        [[ -n ${R_conv[$t]:-} || ${NA[$t]:-} == "not measured (--no-"* ]] ||
            fail "smoke: ${R_label[$t]} did not run: ${NA[$t]:-}"
    done
fi
if ((failures)); then
    die "$failures check(s) failed"
fi
