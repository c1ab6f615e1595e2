#!/usr/bin/env bash
# Fuzz the evaluation of a site and the pre-pass with libFuzzer:
#
#   tests/fuzz/run.sh [SECONDS]        (default 60)
#
# Builds the target with clang in build-fuzz/ (-DPROP_FUZZ=ON: libFuzzer,
# AddressSanitizer, UBSan), seeds it with every site under tests/sites/,
# and runs it for SECONDS.  New inputs that reach new code are kept in
# build-fuzz/fuzz-corpus/ for the next run.  Fails when the fuzzer finds a
# crash, a leak, undefined behaviour, a hang or a runaway memory use; the
# input is saved in build-fuzz/fuzz-artifacts/, and
#   build-fuzz/fuzz_eval build-fuzz/fuzz-artifacts/crash-...
# (run from an empty directory: the input is written to ./fuzz-site.lua)
# runs it again.
#
# An input that runs out of CPU time inside a function of Lua's library
# (a pattern that backtracks for ever) ends the process: that is what prop
# does, not a bug, so the fuzzer is started again for the time left.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
secs=${1:-60}
[[ $secs =~ ^[0-9]+$ ]] || { echo "usage: tests/fuzz/run.sh [SECONDS]" >&2; exit 64; }
build=${PROP_FUZZ_BUILD:-$root/build-fuzz}
command -v clang >/dev/null || { echo "run.sh: clang is needed (apt-get install clang)" >&2; exit 1; }

CC=clang cmake -S "$root" -B "$build" -DPROP_FUZZ=ON -DPROP_WERROR=ON >/dev/null
cmake --build "$build" -j2 --target fuzz_eval

corpus=$build/fuzz-corpus
seeds=$build/fuzz-seeds
artifacts=$build/fuzz-artifacts
work=$build/fuzz-work
log=$build/fuzz.log
rm -rf "$seeds" "$work"
mkdir -p "$corpus" "$seeds" "$artifacts" "$work"
# The sites of the tests, flattened (lib/roles.lua becomes lib_roles.lua),
# but for those that exist to run out of CPU time (their "--! args" set
# --max-cpu): each would end the fuzzer as it loads its seeds.
(cd "$root/tests/sites" && find . -name '*.lua' | sort | while read -r f; do
    grep -q -- '--max-cpu' "$f" || cp "$f" "$seeds/$(echo "${f#./}" | tr / _)"
done)

cd "$work"
deadline=$((SECONDS + secs))
runs=0 stops=0
while left=$((deadline - SECONDS)); ((left > 0)); do
    runs=$((runs + 1))
    rc=0
    # A smaller quarantine than ASan's 256 MB: with thousands of inputs of
    # all shapes, its allocator's footprint is most of the resident size.
    ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/fuzz_eval" -max_total_time="$left" -timeout=30 -rss_limit_mb=3072 \
        -max_len=16384 -dict="$root/tests/fuzz/lua.dict" -artifact_prefix="$artifacts/" \
        -print_final_stats=1 "$corpus" "$seeds" >"$log" 2>&1 || rc=$?
    if compgen -G "$artifacts/crash-*" >/dev/null || compgen -G "$artifacts/leak-*" >/dev/null ||
        compgen -G "$artifacts/timeout-*" >/dev/null || compgen -G "$artifacts/oom-*" >/dev/null; then
        tail -n 60 "$log"
        echo "run.sh: the fuzzer found a problem; its input is in $artifacts" >&2
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
    echo "run.sh: the fuzzer ended with status $rc" >&2
    exit 1
done
grep -E '^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE' "$log" || true
echo "run.sh: fuzzed for $secs s in $runs run(s) ($stops ended by the CPU limit inside Lua's library); nothing found"
