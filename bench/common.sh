# bench/common.sh - what the benchmark scripts share; sourced, after they
# set `root` (the source tree).  Nothing here measures anything.

die() { echo "run.sh: $*" >&2; exit 1; }

# find_prop: set prop to an absolute path of the prop to measure: $prop
# when given, else the first built one under $root, else prop on PATH.
find_prop() {
    local p
    if [[ -z ${prop:-} ]]; then
        for p in "$root/build/prop" "$root/build-bench/prop" "$root"/build*/prop; do
            if [[ -x $p ]]; then prop=$p; break; fi
        done
    fi
    [[ -n ${prop:-} ]] || prop=$(command -v prop || true)
    [[ -n $prop && -x $prop ]] || die "no prop executable: build it, or give --prop PATH"
    prop=$(cd "$(dirname "$prop")" && pwd)/$(basename "$prop")
}

# The N files of the converge and ssh benchmarks: fNNNNN holding
# "bench file N" and $line2, mode 0644.
fname() { printf 'f%05d' "$1"; }

# expected_sum N: md5 of the N files' contents concatenated in name order.
expected_sum() {
    awk -v n="$1" -v l2="$line2" 'BEGIN { for (i = 1; i <= n; i++) printf "bench file %d\n%s\n", i, l2 }' |
        md5sum | cut -d' ' -f1
}

# check_tree DIR N: DIR holds exactly the N files, with their content and
# mode 0644; prints what is wrong and returns 1 otherwise.
check_tree() {
    local dir=$1 n=$2 count sum bad
    count=$(find "$dir" -mindepth 1 2>/dev/null | wc -l)
    if ((count != n)); then echo "$dir holds $count entries, not $n files"; return 1; fi
    sum=$(cd "$dir" && cat -- f* | md5sum | cut -d' ' -f1)
    if [[ $sum != $(expected_sum "$n") ]]; then echo "the files in $dir do not hold the expected content"; return 1; fi
    bad=$(find "$dir" -type f ! -perm 0644 | head -n 3)
    if [[ -n $bad ]]; then echo "files in $dir without mode 0644: $bad"; return 1; fi
}

# Numbers: the median and the largest of a list of words, KB as MB,
# seconds for a table, a ratio with one decimal.
median() { tr ' ' '\n' | { grep . || true; } | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) print "nan"; else if (NR % 2) printf "%.4f\n", v[(NR + 1) / 2];
    else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { tr ' ' '\n' | { grep . || true; } | sort -g | tail -n 1; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
fmt_s() { awk -v s="$1" 'BEGIN { if (s < 1) printf "%.3f", s; else if (s < 100) printf "%.2f", s; else printf "%.0f", s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

# Checks of an ansible-playbook run, LOG N (rc: its exit status): the
# recap of its host says N tasks changed (first run) or N ok and none
# changed (converged run); prints what is wrong and returns 1 otherwise.
ansible_recap() { sed -n 's/^[^ ]* *: *ok=\([0-9]*\) *changed=\([0-9]*\) *unreachable=\([0-9]*\) *failed=\([0-9]*\).*/\1 \2 \3 \4/p' "$1" | tail -n 1; }
ansible_first() {
    local r
    r=$(ansible_recap "$1")
    if ((rc != 0)) || [[ $r != "$2 $2 0 0" ]]; then
        echo "ansible-playbook exited $rc, recap ok/changed/unreachable/failed = ${r:-?}, not $2 $2 0 0"
        return 1
    fi
}
ansible_conv() {
    local r
    r=$(ansible_recap "$1")
    if ((rc != 0)) || [[ $r != "$2 0 0 0" ]]; then
        echo "ansible-playbook exited $rc, recap ok/changed/unreachable/failed = ${r:-?}, not $2 0 0 0"
        return 1
    fi
}

# fail WHY: count a failed check (the script exits 1 at its end).
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
