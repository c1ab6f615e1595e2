#!/usr/bin/env bash
# Benchmark of `prop lint`: time and peak memory on generated sites of N
# hosts with about 50 properties each, written out and built by a Lua loop,
# and a comparison with GHC type-checking the same host as a Propellor
# config.  A benchmark, not a test: it prints figures and fails only when a
# generated site does not lint clean or a tool is missing.
#
#   bench/lint/run.sh [--sizes "1000 10000 100000"] [--variants "literal loop"]
#                     [--propellor-sizes "1000 2000"] [--no-propellor]
#                     [--runs N] [--prop PATH] [--out DIR] [--smoke]
#
# --smoke: 100 hosts, one run, no Propellor; checks that the generator and
# the script still work (CI runs this).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../common.sh
source "$root/bench/common.sh"
gen="$here/gen.lua"

sizes="1000 10000 100000"
variants="literal loop"
psizes="1000 2000"
propellor=1
runs=3
prop=${PROP:-}
out="$root/bench/out"
smoke=0

usage_end='^# --smoke'

while (($#)); do
    case $1 in
    --sizes) sizes=${2:?}; shift 2 ;;
    --sizes=*) sizes=${1#*=}; shift ;;
    --variants) variants=${2:?}; shift 2 ;;
    --variants=*) variants=${1#*=}; shift ;;
    --propellor-sizes) psizes=${2:?}; shift 2 ;;
    --propellor-sizes=*) psizes=${1#*=}; shift ;;
    --no-propellor) propellor=0; shift ;;
    --runs) runs=${2:?}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
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
    sizes=100 runs=1 propellor=0 psizes=100
fi


command -v lua5.4 >/dev/null || die "lua5.4 is needed to generate the sites (apt-get install lua5.4)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed to measure memory (apt-get install time)"
find_prop
mkdir -p "$out"

# Sites past this many hosts need more than the default evaluation limits.
big_hosts=20000
big_flags=(--max-memory 16384 --max-instructions 100000000000)

# site FILE MODE N: generate FILE unless it is newer than the generator.
site() {
    local file=$1 mode=$2 n=$3
    if [[ ! -s $file || $gen -nt $file ]]; then
        lua5.4 "$gen" "$mode" "$n" >"$file.tmp"
        mv "$file.tmp" "$file"
    fi
}

props_of() { sed -n '1s/^-- properties: //p' "$1"; }

# measure RUNS CMD...: run CMD RUNS times; sets best_s (seconds, the
# fastest run) and best_kb (its peak RSS), and status (the last exit code).
# CMD's standard output goes to $measure_out.
measure_out=/dev/null
measure() {
    local n=$1 i t0 t1 s kb tf
    shift
    tf=$(mktemp)
    best_s='' best_kb='' status=0
    for ((i = 0; i < n; i++)); do
        t0=$(date +%s%N)
        if /usr/bin/time -f %M -o "$tf" "$@" >"$measure_out" 2>&1; then status=0; else status=$?; fi
        t1=$(date +%s%N)
        s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
        kb=$(tail -n 1 "$tf")
        if [[ -z $best_s ]] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
            best_s=$s best_kb=$kb
        fi
    done
    rm -f "$tf"
}

# lint_clean FILE: the JSON diagnostics in $measure_out must be empty.
check_clean() {
    local file=$1
    if ((status != 0)) || grep -q '"code"' "$measure_out"; then
        echo "FAILED: $file does not lint clean (exit $status):" >&2
        head -c 2000 "$measure_out" >&2
        echo >&2
        failures=$((failures + 1))
        return 1
    fi
}


echo "prop lint benchmark: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(prop_version)"
echo "sites in $out; best of $runs run(s) up to 10000 hosts, one run above"
echo

# ---- prop lint on whole sites -------------------------------------------------
declare -A res_s res_kb
for variant in $variants; do
    # (%9s for a 7-character, 8-byte header: printf counts bytes.)
    printf '%-8s %8s %11s %9s %8s %9s   %s\n' \
        "$variant" hosts properties seconds MB "µs/prop" "growth (time ratio / size ratio)"
    prev_n='' prev_s=''
    for n in $sizes; do
        file="$out/site-$variant-$n.lua"
        site "$file" "$variant" "$n"
        nprops=$(props_of "$file")
        flags=(lint --format=json --werror)
        if ((n > big_hosts)); then flags+=("${big_flags[@]}"); fi
        r=$runs
        if ((n > 10000)); then r=1; fi
        measure_out="$out/lint-$variant-$n.json"
        measure "$r" "$prop" "${flags[@]}" "$file"
        check_clean "$file" || continue
        res_s[$variant-$n]=$best_s res_kb[$variant-$n]=$best_kb
        growth=-
        if [[ -n $prev_n ]]; then
            growth=$(awk -v s="$best_s" -v ps="$prev_s" -v n="$n" -v pn="$prev_n" 'BEGIN {
                printf "x%.1f for x%.0f hosts (%.2f of linear)", s / ps, n / pn, (s / ps) / (n / pn) }')
        fi
        printf '%-8s %8d %11d %9.3f %8s %9.2f   %s\n' "" "$n" "$nprops" "$best_s" \
            "$(mb "$best_kb")" "$(awk -v s="$best_s" -v p="$nprops" 'BEGIN { print s * 1e6 / p }')" \
            "$growth"
        prev_n=$n prev_s=$best_s
    done
    echo
done

for variant in $variants; do
    if [[ -n ${res_s[$variant-10000]:-} ]]; then
        s=${res_s[$variant-10000]} m=$(mb "${res_kb[$variant-10000]}")
        verdict=$(awk -v s="$s" -v m="$m" 'BEGIN { print (s < 2 && m < 512) ? "met" : "NOT met" }')
        echo "target (10000 hosts in under 2 s and 512 MB), $variant: $s s, $m MB: $verdict"
    fi
done

# ---- the memo of recipe calls ------------------------------------------------
# lint makes a recipe call equal to an earlier one again from it instead of
# running it.  The same sites with every call run (PROP_NO_MEMO=1) show
# what that saves; prop show of the whole site must print the same either
# way (a check, not a timing).
memo_n=''
for n in $sizes; do
    if ((n <= 10000)); then memo_n=$n; fi
done
if [[ -n $memo_n ]]; then
    echo
    echo "$memo_n hosts with every recipe call run (PROP_NO_MEMO=1) beside the memo:"
    printf '%-8s %12s %9s %12s %9s   %s\n' "" "memo s" MB "no memo s" MB "recipe calls (lint --stats)"
    for variant in $variants; do
        file="$out/site-$variant-$memo_n.lua"
        [[ -n ${res_s[$variant-$memo_n]:-} ]] || continue
        measure_out="$out/lint-$variant-$memo_n-nomemo.json"
        PROP_NO_MEMO=1 measure "$runs" "$prop" lint --format=json --werror "$file"
        check_clean "$file" || continue
        calls=$("$prop" lint --stats "$file" 2>&1 >/dev/null |
            sed -n 's/^.*: \([0-9]*\) recipe calls with plain-data arguments, \([0-9]*\) of them.*/\2 of \1 made again/p')
        printf '%-8s %12.3f %9s %12.3f %9s   %s\n' "$variant" "${res_s[$variant-$memo_n]}" \
            "$(mb "${res_kb[$variant-$memo_n]}")" "$best_s" "$(mb "$best_kb")" "$calls"
        if ! cmp -s <("$prop" show "$file" 2>&1) <(PROP_NO_MEMO=1 "$prop" show "$file" 2>&1); then
            echo "FAILED: prop show $file prints differently with the memo" >&2
            failures=$((failures + 1))
        fi
    done
fi

# ---- one host: prop beside Propellor ------------------------------------------
have_propellor=0
if ((propellor)) && command -v ghc >/dev/null &&
    ghc-pkg --simple-output list propellor 2>/dev/null | grep -q propellor; then
    have_propellor=1
fi

echo
echo "one host of N properties: prop lint beside GHC on the same host as a Propellor config"
if ((have_propellor)); then
    echo "($(ghc --version | sed 's/.*version/ghc/'), $(ghc-pkg --simple-output list propellor);" \
        "type-check = ghc -fno-code, compile = ghc -c -O0; one run each)"
    printf '%10s %9s %8s %14s %8s %12s %8s   %s\n' properties "prop s" "prop MB" \
        "type-check s" MB "compile s" MB "GHC type-check / prop (time, memory)"
else
    if ((propellor)); then
        echo "(ghc or the propellor library is not installed: apt-get install ghc"
        echo " libghc-propellor-dev; the Propellor figures below are the reference ones)"
    fi
    echo "(Propellor: reference figures for GHC type-checking, not measured here)"
    printf '%10s %9s %8s %26s %26s\n' properties "prop s" "prop MB" \
        "Propellor s (reference)" "Propellor MB (reference)"
fi
for n in $psizes; do
    file="$out/onehost-$n.lua"
    site "$file" onehost "$n"
    nprops=$(props_of "$file")
    measure_out="$out/lint-onehost-$n.json"
    measure "$runs" "$prop" lint --format=json --werror "$file"
    check_clean "$file" || continue
    ps=$best_s pkb=$best_kb
    if ((smoke)); then
        # Keep the Haskell generator working too: one line per property.
        site "$out/propellor-$n.hs" propellor "$n"
        grep -q '^bench = host' "$out/propellor-$n.hs" ||
            die "gen.lua propellor: no host in $out/propellor-$n.hs"
    fi
    if ((have_propellor)); then
        hsdir="$out/propellor-$n"
        mkdir -p "$hsdir"
        site "$hsdir/Bench.hs" propellor "$n"
        measure_out="$hsdir/ghc.log"
        measure 1 ghc -fno-code -fforce-recomp -outputdir "$hsdir" "$hsdir/Bench.hs"
        ((status == 0)) || { cat "$measure_out" >&2; die "ghc -fno-code failed on $hsdir/Bench.hs"; }
        ts=$best_s tkb=$best_kb
        measure 1 ghc -c -O0 -fforce-recomp -outputdir "$hsdir" "$hsdir/Bench.hs"
        ((status == 0)) || { cat "$measure_out" >&2; die "ghc -c failed on $hsdir/Bench.hs"; }
        printf '%10d %9.3f %8s %14.2f %8s %12.2f %8s   %s\n' "$nprops" "$ps" "$(mb "$pkb")" \
            "$ts" "$(mb "$tkb")" "$best_s" "$(mb "$best_kb")" \
            "$(awk -v a="$ts" -v b="$ps" -v c="$tkb" -v d="$pkb" \
                'BEGIN { printf "x%.0f, x%.0f", a / b, c / d }')"
    else
        case $n in
        1000) ref_s=4.7 ref_mb=970 ;;
        2000) ref_s=10 ref_mb=1750 ;;
        *) ref_s=- ref_mb=- ;;
        esac
        printf '%10d %9.3f %8s %26s %26s\n' "$nprops" "$ps" "$(mb "$pkb")" "$ref_s" "$ref_mb"
    fi
done

if ((have_propellor)); then
    echo "(reference figures measured elsewhere for GHC type-checking such a host:"
    echo " 1,000 properties 4.7 s and 970 MB; 2,000 properties 10 s and 1.75 GB)"
fi

if ((failures)); then
    die "$failures generated site(s) did not lint clean"
fi
