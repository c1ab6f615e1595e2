# bench/common.sh - what the benchmark scripts share; sourced, after they
# set `root` (the source tree): finding the prop to measure, the usage
# text and argument checks, timing a command, the files of the converge,
# ssh and wan benchmarks and their checks, prop's JSON host events,
# medians and ratios.

die() { echo "run.sh: $*" >&2; exit 1; }
note() { echo "note: $*"; }

# usage: the synopsis and options from the running script's header
# comment, from its "#   bench/" line to the first line matching
# $usage_end, on standard error; exits 64.
usage() {
    sed -n "/^#   bench/,/$usage_end/p" "${BASH_SOURCE[-1]}" | sed 's/^# \{0,1\}//' >&2
    exit 64
}

# positive N...: each N is a whole number from 1 up, or exit 64.
positive() {
    local v
    for v; do
        [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: not a positive number: $v" >&2; exit 64; }
    done
}

# drop_scratch: remove $scratch, or with --keep ($keep) say where it is.
drop_scratch() { if ((keep)); then echo "scratch directory kept: $scratch"; else rm -rf "$scratch"; fi; }

# machine: this machine and the prop measured, for a benchmark's first line.
machine() {
    echo "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg), $(prop_version) ($prop)"
}
prop_version() { "$prop" --version 2>/dev/null | head -n 1 || echo prop; }

# port_open PORT: something accepts connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# free_port: a port of 127.0.0.1 nothing listens on now.
free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 40000))
        port_open "$p" || { echo "$p"; return; }
    done
}

# install_wanted: apt-get install the packages of the array want, if any.
install_wanted() {
    if ((${#want[@]})); then
        echo "installing: ${want[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${want[@]}" >/dev/null ||
            die "apt-get install ${want[*]} failed"
    fi
}

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

# ---- measuring ------------------------------------------------------------------
# busy: the CPU time this whole machine has spent busy since it started,
# in ticks (tck a second).
tck=$(getconf CLK_TCK)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# timed LOG CMD...: run CMD once, its output in LOG; sets t_s (wall-clock
# seconds), t_kb (peak resident set of the largest process, from
# /usr/bin/time), t_cpu (the CPU seconds of CMD and its children), t_busy
# (the CPU seconds this whole machine was busy meanwhile: CMD, what it
# talks to, and anything else running here) and rc.  /usr/bin/time
# writes to $scratch/time.out.
timed() {
    local log=$1 t0 t1 b0 b1
    shift
    b0=$(busy)
    t0=$EPOCHREALTIME
    if /usr/bin/time -f '%M %U %S' -o "$scratch/time.out" "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
    t1=$EPOCHREALTIME
    b1=$(busy)
    t_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
    read -r t_kb t_cpu < <(tail -n 1 "$scratch/time.out" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }')
    [[ $t_kb =~ ^[0-9]+$ ]] || t_kb=0 t_cpu=0
    t_busy=$(awk -v a="$b0" -v b="$b1" -v t="$tck" 'BEGIN { printf "%.2f", (b - a) / t }')
}

# timed_wall LOG CMD...: as timed, without /usr/bin/time (CMD may be a
# shell function): sets t_s, t_busy and rc.
timed_wall() {
    local log=$1 t0 t1 b0 b1
    shift
    b0=$(busy)
    t0=$EPOCHREALTIME
    if "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
    t1=$EPOCHREALTIME
    b1=$(busy)
    t_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
    t_busy=$(awk -v a="$b0" -v b="$b1" -v t="$tck" 'BEGIN { printf "%.2f", (b - a) / t }')
}

# timed_prop LOG CMD...: timed, for a run of prop.  A run takes its
# target's lock (/run/lock/prop.lock on localhost): when someone else's
# run holds it, wait a second and try again, $lock_tries times at most
# (default 120); the waiting is not timed.
timed_prop() {
    local log=$1 tries=0
    while :; do
        timed "$@"
        if ((rc != 0)) && grep -q 'holds the lock\|locked by another run' "$log" && ((tries++ < ${lock_tries:-120})); then
            sleep 1
            continue
        fi
        return 0
    done
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

# prop_files DIR N: the N files in DIR as prop properties, a line each.
prop_files() {
    local i
    for ((i = 1; i <= $2; i++)); do
        printf '  file.has_content("%s/%s", { "bench file %d", "%s" }, { mode = "0644" }),\n' \
            "$1" "$(fname "$i")" "$i" "$line2"
    done
}

# site_host NAME PORT USER KEY KNOWN_HOSTS DIR N: a host reached over SSH
# on 127.0.0.1:PORT, of N files in DIR.
site_host() {
    printf 'host "%s" {\n  connect.ssh { address = "127.0.0.1", port = %d, user = "%s", identity = "%s", known_hosts = "%s" },\n' \
        "$1" "$2" "$3" "$4" "$5"
    prop_files "$6" "$7"
    printf '}\n'
}

# ansible_files HOSTS DIR N: a playbook making the N files in DIR on HOSTS.
ansible_files() {
    local i
    printf -- '- hosts: %s\n  gather_facts: false\n  tasks:\n' "$1"
    for ((i = 1; i <= $3; i++)); do
        printf '    - name: %s\n      copy:\n        dest: %s/%s\n        content: "bench file %d\\n%s\\n"\n        mode: "0644"\n' \
            "$(fname "$i")" "$2" "$(fname "$i")" "$i" "$line2"
    done
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
# ms_per S N: S seconds over N, in ms with one decimal.
ms_per() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.1f", s * 1000 / n }'; }

# prop run --json: prop_hosts LOG, its host events; field NAME EVENT, a
# number of one of them.
prop_hosts() { grep '"event":"host"' "$1" || true; }
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$2"; }

# prop_check LOG N first|conv: the checks of prop run --json, rc its exit
# status: every host event says changed=N (first run) or ok=N and
# changed=0 (converged run), failed=0, and there are $expect_hosts of
# them; an unreachable host is reported as such.  Prints what is wrong
# and returns 1 otherwise.
prop_check() {
    local log=$1 n=$2 kind=$3 line c f o bad=0 hosts=0
    if grep -q '"unreachable":true' "$log"; then
        echo "prop could not reach a host: $(grep '"unreachable":true' "$log" | head -n 1 | sed -n 's/.*"error":\(".*"\).*/\1/p')"
        return 1
    fi
    while IFS= read -r line; do
        hosts=$((hosts + 1))
        c=$(field changed "$line") f=$(field failed "$line") o=$(field ok "$line")
        if [[ $kind == first ]]; then [[ $c == "$n" && $f == 0 ]] || bad=1; else [[ $o == "$n" && $c == 0 && $f == 0 ]] || bad=1; fi
        if ((bad)); then echo "host event: $line (expected ${kind/conv/converged}: $n files, failed=0)"; return 1; fi
    done < <(prop_hosts "$log")
    ((hosts == expect_hosts)) || { echo "$hosts host events, not $expect_hosts (exit $rc)"; return 1; }
    ((rc == 0)) || { echo "prop exited $rc"; return 1; }
}
prop_first() { prop_check "$1" "$2" first; }
prop_conv() { prop_check "$1" "$2" conv; }

# Ansible at ATASKS and ATASKS/2 tasks, for N properties.
# ansible_sizes N ATASKS: the numbers of tasks to measure (N alone when
# ATASKS is N or more).
ansible_sizes() { if (($2 >= $1)); then echo "$1"; else echo "$(($2 / 2 > 0 ? $2 / 2 : 1)) $2"; fi; }
# extrapolate A B N1 N2 N: times A at N1 tasks and B at N2, drawn as a
# straight line (fixed + N x per task): "time-at-N per-task fixed".
extrapolate() {
    awk -v a="$1" -v b="$2" -v n1="$3" -v n2="$4" -v n="$5" \
        'BEGIN { p = (b - a) / (n2 - n1); f = a - n1 * p; printf "%.4f %.4f %.4f\n", f + n * p, p, f }'
}

# ansible_recap LOG [HOST]: "ok changed unreachable failed" of the recap
# of HOST (of any host) in the output of an ansible-playbook run.
ansible_recap() { sed -n "s/^${2:-[^ ]*} *: *ok=\([0-9]*\) *changed=\([0-9]*\) *unreachable=\([0-9]*\) *failed=\([0-9]*\).*/\1 \2 \3 \4/p" "$1" | tail -n 1; }
# Checks of an ansible-playbook run, LOG N (rc: its exit status): the
# recap of its host says N tasks changed (first run) or N ok and none
# changed (converged run); prints what is wrong and returns 1 otherwise.
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
