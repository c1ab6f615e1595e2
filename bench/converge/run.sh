#!/usr/bin/env bash
# Benchmark of a converged run on this machine: 200 files with given
# content, made by `prop run` and, side by side in the same run, by a
# compiled Propellor config, `puppet apply` and `ansible-playbook -c local`.
# Each tool makes the files once (first run, the files absent) and then
# runs again over them (converged run, nothing to do).  Also prop alone on
# 1,000 and 10,000 files.  A benchmark, not a test: it prints figures and
# ratios and fails only when a run does not do what it should (the first
# run must make every file, the converged run must change nothing), or
# prop or /usr/bin/time is missing (a missing tool to compare with is
# skipped with a note).
#
#   bench/converge/run.sh [--files N] [--sizes "1000 10000"] [--runs N]
#                         [--no-propellor] [--no-puppet] [--no-ansible]
#                         [--ansible-tasks N] [--install] [--keep]
#                         [--prop PATH] [--out DIR] [--smoke]
#
# --files N: the files of the side-by-side comparison (default 200).
# --sizes: prop alone on these numbers of files ("" for none).
# --runs N: first and converged runs per tool; the median is shown (5).
# --ansible-tasks N: Ansible takes about half a second a task, so it is measured
#   with N and N/2 tasks (default 40) and its time for --files tasks is
#   extrapolated from the two (a straight line), and labelled so; give
#   --ansible-tasks 200 to measure it in full.
# --install: apt-get install what is missing (propellor, ghc, puppet,
#   ansible-core, time); without it, a missing tool is skipped with a note.
# --keep: keep the scratch directory (/tmp/prop-bench-converge.*).
# --out DIR: where the compiled Propellor config is kept (bench/out/converge).
# --smoke: prop only, 20 files, one run; checks that the script still
# works (CI may run it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../common.sh
source "$root/bench/common.sh"

nfiles=200
sizes="1000 10000"
runs=5
propellor=1 puppet=1 ansible=1
atasks=40
install=0 keep=0 smoke=0
prop=${PROP:-}
out="$root/bench/out/converge"

usage_end='^# works'

while (($#)); do
    case $1 in
    --files) nfiles=${2:?}; shift 2 ;;
    --files=*) nfiles=${1#*=}; shift ;;
    --sizes) sizes=${2?}; shift 2 ;;
    --sizes=*) sizes=${1#*=}; shift ;;
    --runs) runs=${2:?}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --no-propellor) propellor=0; shift ;;
    --no-puppet) puppet=0; shift ;;
    --no-ansible) ansible=0; shift ;;
    --ansible-tasks) atasks=${2:?}; shift 2 ;;
    --ansible-tasks=*) atasks=${1#*=}; shift ;;
    --install) install=1; shift ;;
    --keep) keep=1; shift ;;
    --prop) prop=${2:?}; shift 2 ;;
    --prop=*) prop=${1#*=}; shift ;;
    --out) out=${2:?}; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --smoke) smoke=1; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
done
if ((smoke)); then
    nfiles=20 runs=1 sizes="" propellor=0 puppet=0 ansible=0
fi
positive "$nfiles" "$runs" "$atasks"
# shellcheck disable=SC2086 # one number a word
positive $sizes

# ---- tools ---------------------------------------------------------------------
if ((install)); then
    want=()
    [[ -x /usr/bin/time ]] || want+=(time)
    if ((propellor)); then
        command -v ghc >/dev/null || want+=(ghc)
        ghc-pkg --simple-output list propellor 2>/dev/null | grep -q propellor ||
            want+=(propellor libghc-propellor-dev)
    fi
    ((puppet)) && ! command -v puppet >/dev/null && want+=(puppet)
    ((ansible)) && ! command -v ansible-playbook >/dev/null && want+=(ansible-core)
    install_wanted
fi

[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed to measure memory (apt-get install time, or --install)"
find_prop

skipped=()
if ((propellor)); then
    if ! command -v ghc >/dev/null || ! ghc-pkg --simple-output list propellor 2>/dev/null | grep -q propellor; then
        skipped+=("Propellor: ghc or the propellor library is not installed (apt-get install propellor ghc, or --install)")
        propellor=0
    fi
fi
if ((puppet)) && ! command -v puppet >/dev/null; then
    skipped+=("puppet: not installed (apt-get install puppet, or --install)")
    puppet=0
fi
if ((ansible)) && ! command -v ansible-playbook >/dev/null; then
    skipped+=("Ansible: not installed (apt-get install ansible-core, or --install)")
    ansible=0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
scratch=$(mktemp -d /tmp/prop-bench-converge.XXXXXX)
trap drop_scratch EXIT

# ---- what every tool makes -------------------------------------------------------
# File i (i = 1..N) is DIR/fNNNNN holding two lines, mode 0644.
line2="managed by bench/converge"

gen_prop() { # DIR N > site.lua
    printf -- '-- %d files under %s (bench/converge/run.sh)\nhost "localhost" {\n' "$2" "$1"
    prop_files "$1" "$2"
    printf '}\n'
}

gen_propellor() { # N > Bench.hs (the directory is the program's argument)
    local n=$1 i
    cat <<EOF
-- $n files with content, as a Propellor user writes them (bench/converge/run.sh).
-- Run as: bench-propellor DIR, which ensures the properties here, locally.
module Main (main) where

import Propellor
import Propellor.Engine (mainProperties)
import qualified Propellor.Property.File as File
import System.Environment (getArgs)

main :: IO ()
main = do
	args <- getArgs
	case args of
		[dir] -> mainProperties (bench dir)
		_ -> error "usage: bench-propellor DIR"

bench :: FilePath -> Host
bench d = host "localhost" \$ props
EOF
    for ((i = 1; i <= n; i++)); do
        printf '\t& File.hasContent (d ++ "/%s") ["bench file %d", "%s"]\n' "$(fname "$i")" "$i" "$line2"
    done
}

gen_puppet() { # DIR N > site.pp
    local dir=$1 n=$2 i
    for ((i = 1; i <= n; i++)); do
        printf "file { '%s/%s': ensure => file, content => \"bench file %d\\\\n%s\\\\n\", mode => '0644' }\n" \
            "$dir" "$(fname "$i")" "$i" "$line2"
    done
}

# ---- measuring (timed, timed_prop: bench/common.sh) -----------------------------
fmt_ms() { awk -v s="$1" 'BEGIN { if (s == "nan" || s == "") print "-"; else printf "%.1f", s }'; }

# bench_tool NAME N WIPE-DIR CHECK-FIRST CHECK-CONVERGED CMD...: RUNS times,
# empty WIPE-DIR, run CMD (first run), then run it again (converged run);
# each run's output is checked by the named function (LOG N; returns 1 and
# prints why when wrong) and the files by check_tree.  Sets first_s, conv_s
# (medians), peak_kb (the largest of all runs) and ok (0 when a check failed).
bench_tool() {
    local name=$1 n=$2 dir=$3 chk1=$4 chk2=$5 i why log runner=timed
    shift 5
    local firsts='' convs='' kbs='' inruns=''
    [[ $name == prop || $name == prop-* ]] && runner=timed_prop
    ok=1
    for ((i = 1; i <= runs; i++)); do
        rm -rf "$dir" && mkdir -p "$dir"
        log=$scratch/$name-first-$i.log
        $runner "$log" "$@"
        firsts+=" $t_s" kbs+=" $t_kb"
        if ! why=$($chk1 "$log" "$n") || ! why=$(check_tree "$dir" "$n"); then
            fail "$name, first run $i: $why (output: $log)"
            ok=0 keep=1
            break
        fi
        log=$scratch/$name-conv-$i.log
        $runner "$log" "$@"
        convs+=" $t_s" kbs+=" $t_kb"
        if [[ $name == prop || $name == prop-* ]]; then
            inruns+=" $(prop_hosts "$log" | tail -n 1 | sed -n 's/.*"ms":\([0-9.]*\).*/\1/p')"
        fi
        if ! why=$($chk2 "$log" "$n") || ! why=$(check_tree "$dir" "$n"); then
            fail "$name, converged run $i: $why (output: $log)"
            ok=0 keep=1
            break
        fi
    done
    first_s=$(median <<<"$firsts") conv_s=$(median <<<"$convs") peak_kb=$(maxof <<<"$kbs")
    in_ms=$(median <<<"$inruns")
}

# The checks of each tool's output: LOG N.  prop's (prop_first,
# prop_conv: bench/common.sh): the one host event of localhost.
expect_hosts=1
# Propellor prints "HOST DESC ... done" for a change and "... ok" for none;
# "overall" is the host as a whole.
propellor_first() {
    ((rc == 0)) || { echo "Propellor exited $rc"; return 1; }
    local d
    d=$(grep -c '\.\.\. done' "$1" || true)
    ((d >= $2)) || { echo "Propellor reported $d changes, not $2"; return 1; }
}
propellor_conv() {
    ((rc == 0)) || { echo "Propellor exited $rc"; return 1; }
    local d o
    d=$(grep -c '\.\.\. done' "$1" || true)
    o=$(grep -c '\.\.\. ok' "$1" || true)
    ((d == 0 && o >= $2)) || { echo "Propellor reported $d changes and $o ok, not 0 and $2"; return 1; }
}
# puppet apply --detailed-exitcodes: 2 changes made, 0 nothing to do.
puppet_first() { ((rc == 2)) || { echo "puppet apply exited $rc, not 2 (changes made)"; return 1; }; }
puppet_conv() { ((rc == 0)) || { echo "puppet apply exited $rc, not 0 (nothing to do)"; return 1; }; }

# ---- the runs --------------------------------------------------------------------
echo "converged-run benchmark: $(machine)"
echo "$nfiles files of two lines, mode 0644, under $scratch; median of $runs first run(s) (the files absent) and $runs converged run(s) (nothing to do)"
for s in "${skipped[@]}"; do note "$s"; done

declare -A R_first R_conv R_kb R_label
tools=()

# The floor: how long starting a process that does nothing measures here.
floor=''
for ((i = 0; i < runs; i++)); do
    timed "$scratch/true.log" /bin/true
    floor+=" $t_s"
done
floor=$(median <<<"$floor")
echo "starting a process that does nothing (/bin/true) measures $(awk -v s="$floor" 'BEGIN { printf "%.1f", s * 1000 }') ms here (median of $runs)"

# prop
d=$scratch/prop/files
mkdir -p "$scratch/prop"
gen_prop "$d" "$nfiles" >"$scratch/prop/site.lua"
bench_tool prop "$nfiles" "$d" prop_first prop_conv "$prop" run --json "$scratch/prop/site.lua"
((ok)) || die "prop did not converge; see the output above"
tools+=(prop) R_first[prop]=$first_s R_conv[prop]=$conv_s R_kb[prop]=$peak_kb R_label[prop]="prop run"
prop_in_ms=$in_ms

# Propellor: compile once (cached in $out while the generated source is the same)
if ((propellor)); then
    pdir=$out/propellor-$nfiles
    mkdir -p "$pdir"
    gen_propellor "$nfiles" >"$scratch/Bench.hs"
    if [[ -x $pdir/bench-propellor && -s $pdir/compile.txt ]] && cmp -s "$scratch/Bench.hs" "$pdir/Bench.hs"; then
        read -r c_s c_kb c_when <"$pdir/compile.txt"
        echo "Propellor: $pdir/bench-propellor is up to date (compiled on $c_when)"
    else
        cp "$scratch/Bench.hs" "$pdir/Bench.hs"
        rm -f "$pdir/bench-propellor" "$pdir/compile.txt"
        echo "Propellor: compiling $pdir/Bench.hs with $(ghc --numeric-version | sed 's/^/GHC /') and $(ghc-pkg --simple-output list propellor) (ghc -O0; this takes a while)"
        timed "$pdir/ghc.log" ghc -O0 -package propellor -outputdir "$pdir/obj" -o "$pdir/bench-propellor" "$pdir/Bench.hs"
        if ((rc != 0)); then
            cat "$pdir/ghc.log" >&2
            die "ghc failed on $pdir/Bench.hs (exit $rc)"
        fi
        c_s=$t_s c_kb=$t_kb c_when=$(date +%F)
        echo "$c_s $c_kb $c_when" >"$pdir/compile.txt"
    fi
    compile_line="Propellor compile (ghc -O0, $nfiles properties, with linking): $(fmt_s "$c_s") s, $(mb "$c_kb") MB peak"
    echo "$compile_line"
    d=$scratch/propellor/files
    bench_tool propellor "$nfiles" "$d" propellor_first propellor_conv "$pdir/bench-propellor" "$d"
    if ((ok)); then
        tools+=(propellor) R_first[propellor]=$first_s R_conv[propellor]=$conv_s R_kb[propellor]=$peak_kb
        R_label[propellor]="Propellor (compiled)"
    fi
fi

# puppet apply, with its own confdir/vardir so that nothing of the system's is used
if ((puppet)); then
    pp=$scratch/puppet
    mkdir -p "$pp"
    d=$pp/files
    gen_puppet "$d" "$nfiles" >"$pp/site.pp"
    bench_tool puppet "$nfiles" "$d" puppet_first puppet_conv \
        puppet apply --detailed-exitcodes --color=false \
        --confdir "$pp/conf" --vardir "$pp/var" --codedir "$pp/code" \
        --logdir "$pp/log" --rundir "$pp/run" "$pp/site.pp"
    if ((ok)); then
        tools+=(puppet) R_first[puppet]=$first_s R_conv[puppet]=$conv_s R_kb[puppet]=$peak_kb
        R_label[puppet]="puppet apply"
    fi
fi

# ansible-playbook -c local, at ATASKS and ATASKS/2 tasks unless ATASKS >= N
if ((ansible)); then
    ap=$scratch/ansible
    mkdir -p "$ap/home"
    export ANSIBLE_HOME=$ap/home ANSIBLE_LOCAL_TEMP=$ap/home/tmp ANSIBLE_REMOTE_TMP=$ap/remote-tmp ANSIBLE_NOCOLOR=1 \
        ANSIBLE_NOCOWS=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
    asizes=$(ansible_sizes "$nfiles" "$atasks")
    declare -A A_first A_conv
    a_ok=1 a_kb=0
    for n in $asizes; do
        d=$ap/files-$n
        ansible_files localhost "$d" "$n" >"$ap/playbook-$n.yml"
        bench_tool "ansible-$n" "$n" "$d" ansible_first ansible_conv \
            ansible-playbook -i localhost, -c local "$ap/playbook-$n.yml"
        ((ok)) || { a_ok=0; break; }
        A_first[$n]=$first_s A_conv[$n]=$conv_s
        ((peak_kb > a_kb)) && a_kb=$peak_kb
        echo "Ansible, $n tasks measured: first run $(fmt_s "$first_s") s, converged run $(fmt_s "$conv_s") s"
    done
    if ((a_ok)); then
        tools+=(ansible) R_kb[ansible]=$a_kb
        if ((atasks >= nfiles)); then
            R_first[ansible]=${A_first[$nfiles]} R_conv[ansible]=${A_conv[$nfiles]}
            R_label[ansible]="ansible-playbook -c local"
        else
            n1=${asizes% *} n2=${asizes#* }
            # t(n) = fixed + n * per_task through the two measured points
            read -r "R_first[ansible]" a_fp a_ff < <(extrapolate "${A_first[$n1]}" "${A_first[$n2]}" "$n1" "$n2" "$nfiles")
            read -r "R_conv[ansible]" a_cp a_cf < <(extrapolate "${A_conv[$n1]}" "${A_conv[$n2]}" "$n1" "$n2" "$nfiles")
            R_label[ansible]="ansible-playbook -c local *"
            ansible_note="* Ansible extrapolated to $nfiles tasks from $n1 and $n2 measured tasks (fixed + $nfiles x per task): converged $(fmt_s "$a_cf") s + $(awk -v p="$a_cp" 'BEGIN { printf "%.3f", p }') s a task, first run $(fmt_s "$a_ff") s + $(awk -v p="$a_fp" 'BEGIN { printf "%.3f", p }') s a task"
        fi
    fi
fi

echo
printf '%-29s %6s %9s %11s %8s %15s %11s\n' tool files "first s" "converged s" "peak MB" "converged/prop" "first/prop"
for t in "${tools[@]}"; do
    printf '%-29s %6d %9s %11s %8s %15s %11s\n' "${R_label[$t]}" "$nfiles" "$(fmt_s "${R_first[$t]}")" \
        "$(fmt_s "${R_conv[$t]}")" "$(mb "${R_kb[$t]}")" \
        "$(ratio "${R_conv[$t]}" "${R_conv[prop]}")x" "$(ratio "${R_first[$t]}" "${R_first[prop]}")x"
done
[[ -n ${compile_line:-} ]] && echo "$compile_line"
[[ -n ${ansible_note:-} ]] && echo "$ansible_note"
echo "(peak MB: the largest resident set of one process of the run, from /usr/bin/time)"
for t in "${tools[@]}"; do
    [[ $t == prop ]] && continue
    echo "converged: ${R_label[$t]% \*} / prop = $(ratio "${R_conv[$t]}" "${R_conv[prop]}")x"
done

# ---- prop alone: scaling ---------------------------------------------------------
if [[ -n $sizes ]]; then
    echo
    echo "prop alone on more files (median of $runs first and $runs converged runs;"
    echo " host ms: the time prop's JSON gives for the converged host, without start-up and site evaluation)"
    printf '%8s %9s %11s %8s %13s %13s %16s\n' files "first s" "converged s" "peak MB" "ms/file conv" "ms/file first" "host ms (conv)"
    printf '%8d %9s %11s %8s %13s %13s %16s\n' "$nfiles" "$(fmt_s "${R_first[prop]}")" "$(fmt_s "${R_conv[prop]}")" \
        "$(mb "${R_kb[prop]}")" "$(awk -v s="${R_conv[prop]}" -v n="$nfiles" 'BEGIN { printf "%.3f", s * 1000 / n }')" \
        "$(awk -v s="${R_first[prop]}" -v n="$nfiles" 'BEGIN { printf "%.3f", s * 1000 / n }')" "$(fmt_ms "$prop_in_ms")"
    for n in $sizes; do
        d=$scratch/prop-$n/files
        mkdir -p "$scratch/prop-$n"
        gen_prop "$d" "$n" >"$scratch/prop-$n/site.lua"
        bench_tool "prop-$n" "$n" "$d" prop_first prop_conv "$prop" run --json "$scratch/prop-$n/site.lua"
        ((ok)) || continue
        printf '%8d %9s %11s %8s %13s %13s %16s\n' "$n" "$(fmt_s "$first_s")" "$(fmt_s "$conv_s")" "$(mb "$peak_kb")" \
            "$(awk -v s="$conv_s" -v n="$n" 'BEGIN { printf "%.3f", s * 1000 / n }')" \
            "$(awk -v s="$first_s" -v n="$n" 'BEGIN { printf "%.3f", s * 1000 / n }')" "$(fmt_ms "$in_ms")"
        rm -rf "$scratch/prop-$n"
    done
fi

if ((failures)); then
    die "$failures check(s) failed: a first run did not make the files or a converged run changed something"
fi
