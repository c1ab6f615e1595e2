#!/usr/bin/env bash
# Fuzz prop with libFuzzer, every target in turn:
#
#   tests/fuzz/run.sh [SECONDS]        (default 60, shared by the targets)
#
# Each tests/fuzz/fuzz_NAME.c is a target, built with clang in build-fuzz/
# (-DPROP_FUZZ=ON: libFuzzer, AddressSanitizer, UBSan) as fuzz_NAME and
# run for its share of SECONDS (SECONDS / the number of targets), so that
# the whole takes SECONDS however many targets there are.  A target is
# seeded from tests/fuzz/fuzz_NAME.seeds/ when there is one, and uses
# tests/fuzz/fuzz_NAME.dict when there is one; fuzz_eval (the evaluation
# of a site and the pre-pass) is seeded with every site under tests/sites/
# and uses lua.dict.  New inputs that reach new code are kept in
# build-fuzz/fuzz-corpus/fuzz_NAME/ for the next run.  Fails when a fuzzer
# finds a crash, a leak, undefined behaviour, a hang or a runaway memory
# use; the input is saved in build-fuzz/fuzz-artifacts/, and
#   build-fuzz/fuzz_NAME build-fuzz/fuzz-artifacts/crash-...
# runs it again (fuzz_eval: from an empty directory, as the input is
# written to ./fuzz-site.lua).
#
# An input that runs out of CPU time inside a function of Lua's library
# (a pattern that backtracks for ever) ends the fuzz_eval process: that is
# what prop does, not a bug, so the fuzzer is started again for the time
# left.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
secs=${1:-60}
[[ $secs =~ ^[0-9]+$ ]] || { echo "usage: tests/fuzz/run.sh [SECONDS]" >&2; exit 64; }
build=${PROP_FUZZ_BUILD:-$root/build-fuzz}
command -v clang >/dev/null || { echo "run.sh: clang is needed (apt-get install clang)" >&2; exit 1; }

targets=()
for src in "$root"/tests/fuzz/fuzz_*.c; do
    [[ -e $src ]] && targets+=("$(basename "$src" .c)")
done
((${#targets[@]} > 0)) || { echo "run.sh: no tests/fuzz/fuzz_*.c" >&2; exit 1; }
share=$((secs / ${#targets[@]}))
((share > 0)) || share=1

CC=clang cmake -S "$root" -B "$build" -DPROP_FUZZ=ON -DPROP_WERROR=ON >/dev/null
cmake --build "$build" -j2 --target "${targets[@]}"

artifacts=$build/fuzz-artifacts
log=$build/fuzz.log
mkdir -p "$artifacts"

# seeds_NAME DIR : extra seeds of a target, into DIR.
seeds_fuzz_eval() {
    # The sites of the tests, flattened (lib/roles.lua becomes
    # lib_roles.lua), but for those that exist to run out of CPU time
    # (their "--! args" set --max-cpu): each would end the fuzzer as it
    # loads its seeds.
    (cd "$root/tests/sites" && find . -name '*.lua' | sort | while read -r f; do
        grep -q -- '--max-cpu' "$f" || cp "$f" "$1/$(echo "${f#./}" | tr / _)"
    done)
}

# fuzz NAME SECONDS : run target NAME for SECONDS.
fuzz() {
    local name=$1 secs=$2 corpus=$build/fuzz-corpus/$1 seeds=$build/fuzz-seeds/$1
    local work=$build/fuzz-work/$1 deadline runs=0 stops=0 rc left
    local opts=(-timeout=30 -rss_limit_mb=3072 -max_len=16384)
    rm -rf "$seeds" "$work"
    mkdir -p "$corpus" "$seeds" "$work"
    if [[ -d $root/tests/fuzz/$name.seeds ]]; then
        cp -r "$root/tests/fuzz/$name.seeds/." "$seeds/"
    fi
    if declare -F "seeds_$name" >/dev/null; then
        "seeds_$name" "$seeds"
    fi
    if [[ -f $root/tests/fuzz/$name.dict ]]; then
        opts+=(-dict="$root/tests/fuzz/$name.dict")
    elif [[ $name == fuzz_eval ]]; then
        opts+=(-dict="$root/tests/fuzz/lua.dict")
    fi
    deadline=$((SECONDS + secs))
    while left=$((deadline - SECONDS)); ((left > 0)); do
        runs=$((runs + 1))
        rc=0
        # A smaller quarantine than ASan's 256 MB: with thousands of inputs
        # of all shapes, its allocator's footprint is most of the resident
        # size.
        (cd "$work" && ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            "$build/$name" -max_total_time="$left" "${opts[@]}" -artifact_prefix="$artifacts/" \
            -print_final_stats=1 "$corpus" "$seeds") >"$log" 2>&1 || rc=$?
        if compgen -G "$artifacts/crash-*" >/dev/null || compgen -G "$artifacts/leak-*" >/dev/null ||
            compgen -G "$artifacts/timeout-*" >/dev/null || compgen -G "$artifacts/oom-*" >/dev/null; then
            tail -n 60 "$log"
            echo "run.sh: $name found a problem; its input is in $artifacts" >&2
            exit 1
        fi
        if ((rc == 0)); then
            break
        fi
        if ((rc == 2)) && grep -q "inside a function of Lua's library, which cannot be stopped midway" "$log"; then
            stops=$((stops + 1))
            continue
        fi
        tail -n 60 "$log"
        echo "run.sh: $name ended with status $rc" >&2
        exit 1
    done
    grep -E '^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE' "$log" || true
    echo "run.sh: $name fuzzed for $secs s in $runs run(s) ($stops ended by the CPU limit inside Lua's library); nothing found"
}

for name in "${targets[@]}"; do
    fuzz "$name" "$share"
done
echo "run.sh: ${#targets[@]} target(s), $secs s in all; nothing found"
