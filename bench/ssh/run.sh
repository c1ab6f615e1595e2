#!/usr/bin/env bash
# Benchmark of `prop run` over SSH on loopback: a host of 200 files with
# given content reached through an sshd on 127.0.0.1, beside
# `ansible-playbook` over the same sshd; then a fan-out, 20 hosts (20 sshd
# on 20 loopback ports) of 50 properties each run with `prop run -j 20`,
# beside one of them alone.  A benchmark, not a test: it prints figures and
# ratios and fails only when a run does not do what it should (the first
# run must make every file, the converged run must change nothing), prop
# cannot reach a host, or prop, sshd or /usr/bin/time is missing (Ansible
# is skipped with a note when it is missing).
#
#   bench/ssh/run.sh [--props N] [--runs N] [--no-ansible] [--ansible-tasks N]
#                    [--no-fanout] [--hosts N] [--host-props N] [--jobs N]
#                    [--own-sshd] [--install] [--keep]
#                    [--prop PATH] [--smoke]
#
# --props N: properties of the one-host comparison (default 200).
# --runs N: first and converged runs of each kind; the median is shown (3).
# --ansible-tasks N: Ansible is measured with N and N/2 tasks (default 40)
#   and its time for --props tasks extrapolated from the two (a straight
#   line), and labelled so; --ansible-tasks 200 measures it in full.
# --hosts, --host-props, --jobs: the fan-out (default 20 hosts of 50
#   properties, -j equal to the hosts).
# --own-sshd: start the sshd here even when tests/ssh/common.sh, which
#   otherwise starts them, is there.
# --install: apt-get install what is missing (openssh-server,
#   openssh-client, ansible-core, time); without it Ansible is skipped
#   with a note when it is not installed.
# --keep: keep the scratch directory (/tmp/prop-bench-ssh.*).
# --smoke: prop only, 20 properties, a fan-out of 3 hosts of 5, one run;
# checks that the script still works (CI may run it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../common.sh
source "$root/bench/common.sh"

nprops=200
runs=3
ansible=1 atasks=40
fanout=1 nhosts=20 hprops=50 jobs=
own_sshd=0 install=0 keep=0 smoke=0
prop=${PROP:-}

usage_end='^# checks'

while (($#)); do
    case $1 in
    --props) nprops=${2:?}; shift 2 ;;
    --props=*) nprops=${1#*=}; shift ;;
    --runs) runs=${2:?}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --no-ansible) ansible=0; shift ;;
    --ansible-tasks) atasks=${2:?}; shift 2 ;;
    --ansible-tasks=*) atasks=${1#*=}; shift ;;
    --no-fanout) fanout=0; shift ;;
    --hosts) nhosts=${2:?}; shift 2 ;;
    --hosts=*) nhosts=${1#*=}; shift ;;
    --host-props) hprops=${2:?}; shift 2 ;;
    --host-props=*) hprops=${1#*=}; shift ;;
    --jobs | -j) jobs=${2:?}; shift 2 ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    --own-sshd) own_sshd=1; shift ;;
    --install) install=1; shift ;;
    --keep) keep=1; shift ;;
    --prop) prop=${2:?}; shift 2 ;;
    --prop=*) prop=${1#*=}; shift ;;
    --smoke) smoke=1; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
done
if ((smoke)); then
    nprops=20 runs=1 ansible=0 nhosts=3 hprops=5
fi
jobs=${jobs:-$nhosts}
positive "$nprops" "$runs" "$atasks" "$nhosts" "$hprops" "$jobs"

# ---- tools ---------------------------------------------------------------------
if ((install)); then
    want=()
    [[ -x /usr/bin/time ]] || want+=(time)
    [[ -x /usr/sbin/sshd ]] || want+=(openssh-server)
    command -v ssh-keygen >/dev/null || want+=(openssh-client)
    ((ansible)) && ! command -v ansible-playbook >/dev/null && want+=(ansible-core)
    install_wanted
fi
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed to measure memory (apt-get install time, or --install)"
[[ -x /usr/sbin/sshd ]] || die "sshd is needed (apt-get install openssh-server, or --install)"
command -v ssh-keygen >/dev/null || die "ssh-keygen is needed (apt-get install openssh-client, or --install)"
find_prop

skipped=()
if ((ansible)) && ! command -v ansible-playbook >/dev/null; then
    skipped+=("Ansible: not installed (apt-get install ansible-core, or --install)")
    ansible=0
fi

scratch=$(mktemp -d /tmp/prop-bench-ssh.XXXXXX)
chmod 755 "$scratch"
me=$(id -un)
own_pids=()
cleanup() {
    local p
    for p in "${own_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${own_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    drop_scratch
}
trap cleanup EXIT

# ---- sshd ------------------------------------------------------------------------
# Every "host" is an sshd of its own on a free 127.0.0.1 port, with a host
# key and an authorized user key made for it.  tests/ssh/common.sh starts
# them when it is there (ssh_start NAME; --own-sshd or its absence: the
# same is done here).  Either way sshd gives its sessions SHLVL=1, so that
# Debian's bash does not read the user's ~/.bashrc for each command (as on
# a fresh target: this machine's may be slow), and PROP_LOCK_FILE, so that
# each loopback host has a run lock of its own instead of sharing this
# machine's /run/lock/prop.lock (with each other and with any other prop
# run here).
common=$root/tests/ssh/common.sh
use_helper=0
if ((!own_sshd)) && [[ -r $common ]]; then
    # shellcheck source=/dev/null
    source "$common" # chains the EXIT trap set above it
    use_helper=1
    # Its clean-up stops at the first failing command under set -e.
    trap 'set +e; _ssh_exit' EXIT
fi
keys=$scratch/sshd

# own_sshd_start NAME: as ssh_start NAME, here.
own_sshd_start() {
    local name=$1 dir=$keys/$1 pid i try
    mkdir -p "$dir" /run/sshd
    ssh-keygen -q -t ed25519 -N '' -C "bench-host-$name" -f "$dir/host_key" </dev/null
    ssh-keygen -q -t ed25519 -N '' -C "bench-user-$name" -f "$dir/user_key" </dev/null
    cp "$dir/user_key.pub" "$dir/authorized_keys"
    for ((try = 0; try < 8; try++)); do
        h_port=$((20000 + RANDOM % 40000))
        port_open "$h_port" && continue
        cat >"$dir/sshd_config" <<EOF
Port $h_port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile none
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 50
MaxStartups 50:30:100
LogLevel ERROR
Subsystem sftp internal-sftp
SetEnv SHLVL=1 PROP_LOCK_FILE=$dir/prop.lock
EOF
        /usr/sbin/sshd -D -e -f "$dir/sshd_config" >>"$dir/sshd.log" 2>&1 &
        pid=$!
        for ((i = 0; i < 100; i++)); do
            kill -0 "$pid" 2>/dev/null || break # the port was taken, most likely
            if port_open "$h_port"; then
                own_pids+=("$pid")
                echo "[127.0.0.1]:$h_port $(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/known_hosts"
                h_key=$dir/user_key h_kh=$dir/known_hosts
                return 0
            fi
            sleep 0.1
        done
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    cat "$dir/sshd.log" >&2
    die "sshd $name did not start"
}

# start_host NAME: an sshd for NAME; sets h_port, h_key, h_kh.
start_host() {
    if ((use_helper)); then
        ssh_start "$1" >/dev/null || die "ssh_start $1 (tests/ssh/common.sh) failed"
        h_port=$SSH_PORT h_key=$SSH_KEY h_kh=$SSH_KNOWN_HOSTS
    else
        own_sshd_start "$1"
    fi
}

# ---- measuring (timed, timed_prop, ms_per: bench/common.sh) ------------------
# t_cpu is prop's own work; t_busy that of prop, sshd, the remote shells
# and anything else running here.  timed_prop waits should the target's
# run lock be taken by another prop run (an sshd without PROP_LOCK_FILE).
line2="managed by bench/ssh"

# bench_tool NAME N CHECK-FIRST CHECK-CONVERGED CMD...: RUNS times, empty
# the directories in $wipe, run CMD (first run), then again (converged
# run); checks as in bench/converge/run.sh, the trees being the $wipe
# directories, N files each.  Sets first_s, conv_s, peak_kb, ok, and for
# the converged runs conv_cpu and conv_busy (medians; see timed).
wipe=()
bench_tool() {
    local name=$1 n=$2 chk1=$3 chk2=$4 i why log d runner=timed
    shift 4
    local firsts='' convs='' kbs='' cpus='' busys=''
    [[ $name == prop* ]] && runner=timed_prop
    ok=1
    for ((i = 1; i <= runs; i++)); do
        for d in "${wipe[@]}"; do rm -rf "$d" && mkdir -p "$d"; done
        for kind in first conv; do
            log=$scratch/$name-$kind-$i.log
            $runner "$log" "$@"
            if [[ $kind == first ]]; then firsts+=" $t_s"; else convs+=" $t_s" cpus+=" $t_cpu" busys+=" $t_busy"; fi
            kbs+=" $t_kb"
            why=''
            if [[ $kind == first ]]; then why=$($chk1 "$log" "$n") || true; else why=$($chk2 "$log" "$n") || true; fi
            if [[ -z $why ]]; then
                for d in "${wipe[@]}"; do why=$(check_tree "$d" "$n") || break; done
            fi
            if [[ -n $why ]]; then
                fail "$name, $kind run $i: $why (output: $log)"
                ok=0 keep=1
                break 2
            fi
        done
    done
    first_s=$(median <<<"$firsts") conv_s=$(median <<<"$convs") peak_kb=$(maxof <<<"$kbs")
    conv_cpu=$(median <<<"$cpus") conv_busy=$(median <<<"$busys")
}

# prop run --json: prop_first, prop_conv (bench/common.sh), $expect_hosts
# host events; site_host: one host of N files (bench/common.sh).

# ---- one host: prop beside Ansible -------------------------------------------
echo "SSH benchmark: $(machine), $(/usr/sbin/sshd -V 2>&1 | head -n 1 || true)"
for s in "${skipped[@]}"; do note "$s"; done
start_host bench
s_port=$h_port s_key=$h_key s_kh=$h_kh
echo "one host: an sshd on 127.0.0.1:$s_port, started by $( ((use_helper)) && echo "tests/ssh/common.sh" || echo "this script")"

# How long one login takes: a slow login shell (a heavy ~/.bashrc) would
# be measured with every operation.
timed "$scratch/probe.log" ssh -p "$s_port" -i "$s_key" -o UserKnownHostsFile="$s_kh" \
    -o StrictHostKeyChecking=yes -o BatchMode=yes -o ControlMaster=no "$me@127.0.0.1" true
if ((rc != 0)); then
    cat "$scratch/probe.log" >&2
    die "ssh to 127.0.0.1:$s_port does not work (exit $rc)"
fi
echo "one ssh login running true: $(fmt_s "$t_s") s"
awk -v s="$t_s" 'BEGIN { exit !(s > 2) }' &&
    note "logging in takes $(fmt_s "$t_s") s: the login shell is slow (try --own-sshd)"
echo "$nprops files of two lines, mode 0644; median of $runs first run(s) (the files absent) and $runs converged run(s) (nothing to do)"

d=$scratch/one/files
mkdir -p "$scratch/one"
site_host bench "$s_port" "$me" "$s_key" "$s_kh" "$d" "$nprops" >"$scratch/one/site.lua"
wipe=("$d") expect_hosts=1
bench_tool prop "$nprops" prop_first prop_conv "$prop" run --json "$scratch/one/site.lua"
((ok)) || die "prop over SSH did not converge (or could not reach the host); see above"
p_first=$first_s p_conv=$conv_s p_kb=$peak_kb p_cpu=$conv_cpu p_busy=$conv_busy

if ((ansible)); then
    ap=$scratch/ansible
    mkdir -p "$ap/home" "$ap/cp"
    export ANSIBLE_HOME=$ap/home ANSIBLE_LOCAL_TEMP=$ap/home/tmp ANSIBLE_REMOTE_TMP=$ap/remote-tmp \
        ANSIBLE_SSH_CONTROL_PATH_DIR=$ap/cp ANSIBLE_NOCOLOR=1 ANSIBLE_NOCOWS=1 \
        ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
        ANSIBLE_HOST_KEY_CHECKING=True
    printf 'bench ansible_host=127.0.0.1 ansible_port=%d ansible_user=%s ansible_ssh_private_key_file=%s ansible_ssh_common_args="-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes"\n' \
        "$s_port" "$me" "$s_key" "$s_kh" >"$ap/inventory"
    asizes=$(ansible_sizes "$nprops" "$atasks")
    declare -A A_first A_conv
    a_ok=1 a_kb=0
    for n in $asizes; do
        d=$ap/files-$n
        ansible_files bench "$d" "$n" >"$ap/playbook-$n.yml"
        wipe=("$d")
        bench_tool "ansible-$n" "$n" ansible_first ansible_conv \
            ansible-playbook -i "$ap/inventory" "$ap/playbook-$n.yml"
        ((ok)) || { a_ok=0; break; }
        A_first[$n]=$first_s A_conv[$n]=$conv_s
        ((peak_kb > a_kb)) && a_kb=$peak_kb
        echo "Ansible, $n tasks measured: first run $(fmt_s "$first_s") s, converged run $(fmt_s "$conv_s") s"
    done
fi

echo
printf '%-30s %10s %9s %11s %16s %8s\n' tool properties "first s" "converged s" "ms/prop (conv)" "peak MB"
printf '%-30s %10d %9s %11s %16s %8s\n' "prop run (SSH)" "$nprops" "$(fmt_s "$p_first")" "$(fmt_s "$p_conv")" \
    "$(ms_per "$p_conv" "$nprops")" "$(mb "$p_kb")"
if ((ansible && a_ok)); then
    if ((atasks >= nprops)); then
        a_first=${A_first[$nprops]} a_conv=${A_conv[$nprops]} label="ansible-playbook (SSH)"
    else
        n1=${asizes% *} n2=${asizes#* }
        read -r a_first a_fp a_ff < <(extrapolate "${A_first[$n1]}" "${A_first[$n2]}" "$n1" "$n2" "$nprops")
        read -r a_conv a_cp a_cf < <(extrapolate "${A_conv[$n1]}" "${A_conv[$n2]}" "$n1" "$n2" "$nprops")
        label="ansible-playbook (SSH) *"
    fi
    printf '%-30s %10d %9s %11s %16s %8s\n' "$label" "$nprops" "$(fmt_s "$a_first")" "$(fmt_s "$a_conv")" \
        "$(ms_per "$a_conv" "$nprops")" "$(mb "$a_kb")"
    if ((atasks < nprops)); then
        echo "* extrapolated to $nprops tasks from $n1 and $n2 measured tasks (fixed + $nprops x per task):" \
            "converged $(fmt_s "$a_cf") s + $(ms_per "$a_cp" 1) ms a task, first run $(fmt_s "$a_ff") s + $(ms_per "$a_fp" 1) ms a task"
    fi
    echo "converged, per property: Ansible / prop = $(ratio "$a_conv" "$p_conv")x"
fi
echo "(ms/prop: the whole run, connection included, over the properties; peak MB: the largest resident set of one process, from /usr/bin/time)"
echo "prop's converged run: $(fmt_s "$p_conv") s of wall clock, $(fmt_s "$p_cpu") CPU s in prop itself, $(fmt_s "$p_busy") CPU s used on this machine meanwhile (sshd, remote shells, prop, and anyone else's work)"

# ---- fan-out ---------------------------------------------------------------------
if ((fanout)); then
    echo
    fo=$scratch/fanout
    mkdir -p "$fo"
    wipe=() fan_ports=()
    : >"$fo/site.lua"
    for ((h = 1; h <= nhosts; h++)); do
        name=$(printf 'fan%02d' "$h")
        start_host "$name"
        fan_ports+=("$h_port")
        site_host "$name" "$h_port" "$me" "$h_key" "$h_kh" "$fo/$name" "$hprops" >>"$fo/site.lua"
        wipe+=("$fo/$name")
    done
    echo "fan-out: $nhosts hosts of $hprops files, each behind its own sshd on 127.0.0.1 (ports ${fan_ports[*]}); median of $runs runs"
    all_wipe=("${wipe[@]}")
    wipe=("${all_wipe[0]}") expect_hosts=1
    bench_tool prop-fan1 "$hprops" prop_first prop_conv "$prop" run --json "$fo/site.lua" fan01
    o_first=$first_s o_conv=$conv_s o_kb=$peak_kb o_ok=$ok o_cpu=$conv_cpu o_busy=$conv_busy
    wipe=("${all_wipe[@]}") expect_hosts=$nhosts
    bench_tool prop-fanall "$hprops" prop_first prop_conv "$prop" run --json -j "$jobs" "$fo/site.lua"
    if ((o_ok && ok)); then
        printf '%-24s %6s %11s %9s %11s %8s %15s %15s\n' run hosts properties "first s" "converged s" "peak MB" "prop CPU s" "machine CPU s"
        printf '%-24s %6d %11d %9s %11s %8s %15s %15s\n' "one host (fan01)" 1 "$hprops" "$(fmt_s "$o_first")" "$(fmt_s "$o_conv")" \
            "$(mb "$o_kb")" "$(fmt_s "$o_cpu")" "$(fmt_s "$o_busy")"
        printf '%-24s %6d %11d %9s %11s %8s %15s %15s\n' "all, prop run -j $jobs" "$nhosts" "$((nhosts * hprops))" \
            "$(fmt_s "$first_s")" "$(fmt_s "$conv_s")" "$(mb "$peak_kb")" "$(fmt_s "$conv_cpu")" "$(fmt_s "$conv_busy")"
        r=$(ratio "$conv_s" "$o_conv")
        echo "converged: $nhosts hosts / one host = ${r}x (goal: under 2x: $(awk -v r="$r" 'BEGIN { print (r < 2) ? "met" : "not met" }'));" \
            "first run: $(ratio "$first_s" "$o_first")x"
        echo "(CPU s of the converged runs: prop's own, and this machine's busy time meanwhile; all $nhosts sshd, their"
        echo " shells and prop share its $(nproc) cores, $(awk -v b="$conv_busy" -v s="$conv_s" -v n="$(nproc)" 'BEGIN { printf "%.0f%%", 100 * b / (s * n) }') busy during the converged fan-out: real hosts would each bring their own)"
        echo "what the cores allow here: $nhosts x one host's machine CPU s / $(nproc) cores = $(awk -v b="$o_busy" -v h="$nhosts" -v n="$(nproc)" 'BEGIN { printf "%.1f", b * h / n }') s," \
            "$(awk -v b="$o_busy" -v h="$nhosts" -v n="$(nproc)" -v o="$o_conv" 'BEGIN { printf "%.1f", (b * h / n) / o }')x one host;" \
            "prop's own CPU: $(awk -v c="$conv_cpu" -v n="$((nhosts * hprops))" 'BEGIN { printf "%.2f", c * 1000 / n }') ms a property"
    fi
fi

if ((failures)); then
    die "$failures check(s) failed: a first run did not make the files, a converged run changed something, or a host was unreachable"
fi
