#!/usr/bin/env bash
# Benchmark of `prop run` over a slow link: an sshd on loopback reached
# through bench/wan/delay, a proxy that delays every chunk by half the
# round trip each way (no kernel support needed).  For each round trip
# time it prints `ssh true` (connecting, key exchange, authentication:
# the floor), prop's first run (every file written) and converged run
# (nothing to do) of N file.has_content, its first run with --no-pipeline
# (every write waiting for its answer), and ansible-playbook with
# pipelining where it is installed, each also as a multiple of `ssh true`;
# then a fan-out: H hosts behind H proxies at one round trip time, run
# with -j H, beside one of them alone, with the CPU seconds this machine
# was busy (the targets share its cores).  A benchmark, not a test: it
# fails only when a run does not do what it should.
#
#   bench/wan/run.sh [--props N] [--rtts "0 10 50 150"] [--runs N]
#                    [--no-ansible] [--ansible-tasks N] [--no-fanout]
#                    [--hosts N] [--host-props N] [--fanout-rtt MS]
#                    [--no-container] [--container-files N] [--rootfs TARBALL]
#                    [--prop PATH] [--keep] [--smoke]
#
# --props N: file.has_content of the one-host runs (default 200, or
#   $WAN_PROPS).
# --rtts: the round trip times in ms (default "0 10 50 150").
# --runs N: runs of each kind; the median is shown (default 1).
# --ansible-tasks N: Ansible's tasks (default 5; its time is per task).
# --hosts, --host-props, --fanout-rtt: the fan-out (20 hosts of 50
#   properties at 50 ms).
# --no-container, --container-files N, --rootfs TARBALL: a chroot
#   container of N files (default 50) on the host, reached as root through
#   a proxy at the fan-out's round trip time, made from TARBALL (a Debian
#   root file system; by default the one the container tests cache in
#   /var/tmp/prop-test-cache/rootfs, else the container is not measured).
# --smoke: 10 properties, 0 and 50 ms, 3 hosts of 5, no Ansible; it
#   checks that the script still works.
# The target's user is a throw-away account, propwan, with /bin/sh as its
# shell: sshd runs in a mount namespace of its own (unshare -m) where
# /etc/passwd and /etc/group are copies with that user added; nothing of
# this machine is changed beyond the scratch directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../common.sh
source "$root/bench/common.sh"

nprops=${WAN_PROPS:-200}
rtts="0 10 50 150"
runs=1 ansible=1 atasks=5
fanout=1 nhosts=20 hprops=50 frtt=50
container=1 cfiles=50 rootfs=
keep=0 smoke=0
prop=${PROP:-}

usage_end='^#$'
while (($#)); do
    case $1 in
    --props) nprops=${2:?}; shift 2 ;;
    --rtts) rtts=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --no-ansible) ansible=0; shift ;;
    --ansible-tasks) atasks=${2:?}; shift 2 ;;
    --no-fanout) fanout=0; shift ;;
    --hosts) nhosts=${2:?}; shift 2 ;;
    --host-props) hprops=${2:?}; shift 2 ;;
    --fanout-rtt) frtt=${2:?}; shift 2 ;;
    --no-container) container=0; shift ;;
    --container-files) cfiles=${2:?}; shift 2 ;;
    --rootfs) rootfs=${2:?}; shift 2 ;;
    --prop) prop=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --smoke) smoke=1; shift ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
done
if ((smoke)); then
    nprops=10 rtts="0 50" runs=1 ansible=0 nhosts=3 hprops=5 container=0
fi
for v in "$nprops" "$runs" "$atasks" "$nhosts" "$hprops" "$cfiles"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $v"
done
for v in $rtts $frtt; do
    [[ $v =~ ^[0-9]+$ ]] || die "not a round trip time in ms: $v"
done

(($(id -u) == 0)) || die "needs root (sshd, and a mount namespace for its user)"
[[ -x /usr/sbin/sshd ]] || die "sshd is needed (apt-get install openssh-server)"
command -v ssh >/dev/null || die "ssh is needed (apt-get install openssh-client)"
command -v unshare >/dev/null || die "unshare(1) is needed (util-linux)"
command -v cc >/dev/null || die "a C compiler (cc) is needed for the delay proxy"
find_prop
notes=()
if ((container)) && [[ -z $rootfs ]]; then
    rootfs=$(ls /var/tmp/prop-test-cache/rootfs/debian-*-minbase-*.tar.gz 2>/dev/null | head -n 1 || true)
    if [[ -z $rootfs ]]; then
        notes+=("container: no root file system tarball (give --rootfs, or run the container tests once): not measured")
        container=0
    fi
fi
if ((container)) && [[ ! -f $rootfs ]]; then die "--rootfs $rootfs: no such file"; fi
if ((ansible)) && ! command -v ansible-playbook >/dev/null; then
    notes+=("Ansible: not installed (apt-get install ansible-core): not measured")
    ansible=0
fi

scratch=$(mktemp -d /tmp/prop-bench-wan.XXXXXX)
chmod 755 "$scratch"
pgids=()
cleanup() {
    local p
    for p in "${pgids[@]}"; do kill -- "-$p" 2>/dev/null || true; done
    for p in "${pgids[@]}"; do wait "$p" 2>/dev/null || true; done
    drop_scratch
}
trap cleanup EXIT

cc -O2 -Wall -o "$scratch/delay" "$here/delay.c" || die "cannot build the delay proxy"

# ---- the target: one sshd, users propwan and propwan1..H ----------------------
uid0=64200
users=(propwan)
for ((h = 1; h <= nhosts; h++)); do users+=("propwan$h"); done
cp /etc/passwd "$scratch/passwd"
cp /etc/group "$scratch/group"
mkdir -p "$scratch/home"
for ((i = 0; i < ${#users[@]}; i++)); do
    u=${users[i]}
    echo "$u:x:$((uid0 + i)):$((uid0 + i))::$scratch/home/$u:/bin/sh" >>"$scratch/passwd"
    echo "$u:x:$((uid0 + i)):" >>"$scratch/group"
    mkdir -p "$scratch/home/$u"
    chown "$((uid0 + i)):$((uid0 + i))" "$scratch/home/$u"
done
ssh-keygen -q -t ed25519 -N '' -C bench-wan-host -f "$scratch/host_key" </dev/null
ssh-keygen -q -t ed25519 -N '' -C bench-wan-user -f "$scratch/user_key" </dev/null
cp "$scratch/user_key.pub" "$scratch/authorized_keys"
chmod 644 "$scratch/authorized_keys"
mkdir -p /run/sshd
started=0
for ((try = 0; try < 8 && !started; try++)); do
    sport=$(free_port)
    {
        cat <<EOF
Port $sport
ListenAddress 127.0.0.1
HostKey $scratch/host_key
PidFile none
AuthorizedKeysFile $scratch/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 100
MaxStartups 100:30:200
LogLevel ERROR
EOF
        for u in "${users[@]}"; do
            printf 'Match User %s\n  SetEnv PROP_LOCK_FILE=%s/home/%s/prop.lock\n' "$u" "$scratch" "$u"
        done
        # root, for the container: its run lock in the scratch directory
        # too, and SHLVL=1 so that bash does not read root's ~/.bashrc.
        printf 'Match User root\n  SetEnv SHLVL=1 PROP_LOCK_FILE=%s/root.lock\n' "$scratch"
    } >"$scratch/sshd_config"
    # shellcheck disable=SC2016 # expanded by the inner sh
    setsid unshare -m --propagation private sh -c \
        'mount --bind "$1/passwd" /etc/passwd && mount --bind "$1/group" /etc/group &&
         exec /usr/sbin/sshd -D -e -f "$1/sshd_config"' sh "$scratch" >>"$scratch/sshd.log" 2>&1 &
    spid=$!
    for ((i = 0; i < 100; i++)); do
        kill -0 "$spid" 2>/dev/null || break
        if port_open "$sport"; then started=1; pgids+=("$spid"); break; fi
        sleep 0.1
    done
    ((started)) || { kill -- "-$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }
done
((started)) || { cat "$scratch/sshd.log" >&2; die "sshd did not start"; }

# proxy MS: a delay proxy to the sshd with MS ms of round trip; sets pport.
: >"$scratch/known_hosts"
proxy() {
    local half=$(($1 / 2)) try pid
    for ((try = 0; try < 8; try++)); do
        pport=$(free_port)
        setsid "$scratch/delay" "$pport" "$sport" "$half" >"$scratch/proxy-$pport.out" 2>&1 &
        pid=$!
        for ((i = 0; i < 50; i++)); do
            if grep -q ready "$scratch/proxy-$pport.out" 2>/dev/null; then
                pgids+=("$pid")
                echo "[127.0.0.1]:$pport $(cut -d' ' -f1,2 "$scratch/host_key.pub")" >>"$scratch/known_hosts"
                return 0
            fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        kill -- "-$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    die "the delay proxy did not start"
}

# ---- measuring (timed_wall, ms_per: bench/common.sh) ---------------------------
line2="managed by bench/wan"

ssh_true() { # PORT USER
    ssh -p "$1" -i "$scratch/user_key" -o UserKnownHostsFile="$scratch/known_hosts" \
        -o StrictHostKeyChecking=yes -o BatchMode=yes -o ControlMaster=no -o ControlPath=none \
        "$2@127.0.0.1" true
}

# wan_host NAME PORT USER DIR N: one host of N files in DIR, reached
# through the proxy on PORT as USER (site_host: bench/common.sh).
wan_host() { site_host "$1" "$2" "$3" "$scratch/user_key" "$scratch/known_hosts" "$4" "$5"; }

# fresh DIR UID: an empty directory for the files, the user's.
fresh() { rm -rf "$1" && mkdir -p "$1" && chown "$2:$2" "$1"; }

# bench_prop SITE N HOSTS DIR... : runs times first and converged, each
# checked by prop_first, prop_conv (bench/common.sh) for HOSTS host events;
# sets first_s conv_s first_busy conv_busy (medians).
bench_prop() {
    local site=$1 n=$2 expect_hosts=$3 i d why fs='' cs='' fb='' cb='' args=()
    shift 3
    [[ ${jobs:-} ]] && args=(-j "$jobs")
    [[ ${nopipe:-} ]] && args+=(--no-pipeline)
    for ((i = 1; i <= runs; i++)); do
        for d in "$@"; do fresh "${d%:*}" "${d##*:}"; done
        timed_wall "$scratch/prop-first.log" "$prop" run --json "${args[@]}" "$site"
        why=$(prop_first "$scratch/prop-first.log" "$n") || die "prop's first run: $why (see $scratch/prop-first.log; --keep)"
        for d in "$@"; do why=$(check_tree "${d%:*}" "$n") || die "after the first run: $why"; done
        fs+=" $t_s" fb+=" $t_busy"
        timed_wall "$scratch/prop-conv.log" "$prop" run --json "${args[@]}" "$site"
        why=$(prop_conv "$scratch/prop-conv.log" "$n") || die "prop's converged run: $why"
        cs+=" $t_s" cb+=" $t_busy"
    done
    first_s=$(median <<<"$fs") conv_s=$(median <<<"$cs")
    first_busy=$(fmt_s "$(median <<<"$fb")") conv_busy=$(fmt_s "$(median <<<"$cb")")
}

echo "WAN benchmark: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(prop_version) ($prop), $(/usr/sbin/sshd -V 2>&1 | head -n 1 || true)"
echo "$nprops file.has_content (two lines, mode 0644), user propwan (/bin/sh), median of $runs run(s); x: a multiple of ssh true at that round trip"
for s in "${notes[@]}"; do note "$s"; done
echo
printf '| RTT | `ssh true` | prop, first run | prop, converged | ms a property, first | prop --no-pipeline, first run |%s\n' \
    "$( ((ansible)) && echo ' ansible, a task, first / converged |')"
printf '|---:|---:|---:|---:|---:|---:|%s\n' "$( ((ansible)) && echo '---:|')"
for rtt in $rtts; do
    proxy "$rtt"
    p=$pport
    ts=''
    for ((i = 1; i <= 3; i++)); do
        timed_wall "$scratch/ssh.log" ssh_true "$p" propwan
        ((rc == 0)) || { cat "$scratch/ssh.log" >&2; die "ssh propwan@127.0.0.1 -p $p true failed"; }
        ts+=" $t_s"
    done
    ssh_s=$(median <<<"$ts")
    d=$scratch/files-$rtt
    wan_host wan "$p" propwan "$d" "$nprops" >"$scratch/site-$rtt.lua"
    nopipe=1 jobs='' bench_prop "$scratch/site-$rtt.lua" "$nprops" 1 "$d:$uid0"
    nopipe_s=$first_s
    jobs='' bench_prop "$scratch/site-$rtt.lua" "$nprops" 1 "$d:$uid0"
    acol=''
    if ((ansible)); then
        ap=$scratch/ansible-$rtt
        mkdir -p "$ap/cp"
        printf 'wan ansible_host=127.0.0.1 ansible_port=%d ansible_user=propwan ansible_ssh_private_key_file=%s ansible_ssh_common_args="-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" ansible_python_interpreter=/usr/bin/python3\n' \
            "$p" "$scratch/user_key" "$scratch/known_hosts" >"$ap/inventory"
        {
            printf -- '- hosts: wan\n  gather_facts: false\n  tasks:\n'
            for ((i = 1; i <= atasks; i++)); do
                printf '    - copy: { dest: "%s/%s", mode: "0644", content: "bench file %d\\n%s\\n" }\n' "$ap/files" "$(fname "$i")" "$i" "$line2"
            done
        } >"$ap/play.yml"
        fresh "$ap/files" "$uid0"
        ANSIBLE_PIPELINING=1 ANSIBLE_SSH_CONTROL_PATH_DIR=$ap/cp ANSIBLE_HOST_KEY_CHECKING=True \
            timed_wall "$scratch/ansible.log" ansible-playbook -i "$ap/inventory" "$ap/play.yml"
        a1=$t_s
        ANSIBLE_PIPELINING=1 ANSIBLE_SSH_CONTROL_PATH_DIR=$ap/cp ANSIBLE_HOST_KEY_CHECKING=True \
            timed_wall "$scratch/ansible.log" ansible-playbook -i "$ap/inventory" "$ap/play.yml"
        a2=$t_s
        acol=" $(fmt_s "$(awk -v s="$a1" -v n="$atasks" 'BEGIN { print s / n }')") s / $(fmt_s "$(awk -v s="$a2" -v n="$atasks" 'BEGIN { print s / n }')") s ($atasks tasks: $(ratio "$a1" "$ssh_s")× / $(ratio "$a2" "$ssh_s")×) |"
    fi
    printf '| %d ms | %s s | %s s (%s×) | %s s (%s×) | %s | %s s (%s×) |%s\n' "$rtt" "$(fmt_s "$ssh_s")" \
        "$(fmt_s "$first_s")" "$(ratio "$first_s" "$ssh_s")" "$(fmt_s "$conv_s")" "$(ratio "$conv_s" "$ssh_s")" \
        "$(ms_per "$first_s" "$nprops")" "$(fmt_s "$nopipe_s")" "$(ratio "$nopipe_s" "$ssh_s")" "$acol"
done

if ((fanout)); then
    echo
    echo "Fan-out: $nhosts hosts (users propwan1..$nhosts of the one sshd, a proxy each) of $hprops properties at $frtt ms, prop run -j $nhosts, beside one of them alone; busy: the CPU seconds this machine was busy (prop, the proxies, sshd and the remote shells)"
    site=$scratch/fanout.lua one=$scratch/fanout-one.lua
    : >"$site"
    dirs=()
    for ((h = 1; h <= nhosts; h++)); do
        proxy "$frtt"
        wan_host "fan$h" "$pport" "propwan$h" "$scratch/fan/$h" "$hprops" >>"$site"
        dirs+=("$scratch/fan/$h:$((uid0 + h))")
        ((h == 1)) && wan_host fan1 "$pport" propwan1 "$scratch/fan/1" "$hprops" >"$one"
    done
    timed_wall "$scratch/ssh.log" ssh_true "$pport" "propwan$nhosts"
    echo
    echo '| run | hosts | properties | first run | converged run | busy, first | busy, converged |'
    echo '|---|---:|---:|---:|---:|---:|---:|'
    jobs='' bench_prop "$one" "$hprops" 1 "${dirs[0]}"
    printf '| one host | 1 | %d | %s s | %s s | %s s | %s s |\n' "$hprops" "$(fmt_s "$first_s")" "$(fmt_s "$conv_s")" "$first_busy" "$conv_busy"
    o1=$first_s o2=$conv_s
    jobs=$nhosts bench_prop "$site" "$hprops" "$nhosts" "${dirs[@]}"
    printf '| `-j %d` | %d | %d | %s s (%s× one) | %s s (%s× one) | %s s | %s s |\n' "$nhosts" "$nhosts" $((nhosts * hprops)) \
        "$(fmt_s "$first_s")" "$(ratio "$first_s" "$o1")" "$(fmt_s "$conv_s")" "$(ratio "$conv_s" "$o2")" "$first_busy" "$conv_busy"
fi

# ---- a container on the host ------------------------------------------------------
# A chroot container of C files on the host, reached as root (the user key
# is root's too) through a proxy: the container's operations are commands
# run on the host over that one SSH session.  Made once (not timed), then
# a run that writes every file (a new content) and a converged run.
if ((container)); then
    proxy "$frtt"
    timed_wall "$scratch/ssh.log" ssh_true "$pport" root
    ((rc == 0)) || { cat "$scratch/ssh.log" >&2; die "ssh root@127.0.0.1 -p $pport true failed"; }
    cssh=$t_s
    # The release and architecture, from the tarball's name (debian-SUITE-ARCH-...).
    cbase=$(basename "$rootfs")
    csuite=$(cut -d- -f2 <<<"$cbase") carch=$(cut -d- -f3 <<<"$cbase")
    ctree=$scratch/ctr-tree
    csite() { # VERSION
        echo "local c = chroot.from_tarball(\"$ctree\", os.debian(\"$csuite\", \"$carch\"), \"$rootfs\", {"
        for ((i = 1; i <= cfiles; i++)); do
            printf '  file.has_content("/srv/%s", "bench file %d, %s\\n"),\n' "$(fname "$i")" "$i" "$1"
        done
        echo "})"
        printf 'host "box" {\n  connect.ssh { address = "127.0.0.1", port = %d, user = "root", identity = "%s", known_hosts = "%s" },\n' \
            "$pport" "$scratch/user_key" "$scratch/known_hosts"
        printf '  os.debian("%s", "%s"),\n  chroot.provisioned(c),\n}\n' "$csuite" "$carch"
    }
    csite v0 >"$scratch/ctr0.lua"
    "$prop" run --json "$scratch/ctr0.lua" >"$scratch/ctr0.log" 2>&1 || die "the container was not made (see $scratch/ctr0.log; --keep)"
    csite v1 >"$scratch/ctr1.lua"
    timed_wall "$scratch/ctr1.log" "$prop" run --json "$scratch/ctr1.lua"
    c1=$t_s
    grep '"event":"host"' "$scratch/ctr1.log" | grep -q "\"changed\":$cfiles,\"failed\":0" ||
        die "the container's first run did not change its $cfiles files (see $scratch/ctr1.log; --keep)"
    timed_wall "$scratch/ctr2.log" "$prop" run --json "$scratch/ctr1.lua"
    c2=$t_s
    grep '"event":"host"' "$scratch/ctr2.log" | grep -q "\"ok\":$cfiles,\"changed\":0,\"failed\":0" ||
        die "the container's converged run was not all ok (see $scratch/ctr2.log; --keep)"
    echo
    echo "A chroot container of $cfiles file.has_content on the host at $frtt ms, reached as root (\`ssh true\` $(fmt_s "$cssh") s); the whole run, the host's part included:"
    echo
    echo '| container | files | writes every file | converged |'
    echo '|---|---:|---:|---:|'
    printf '| chroot (%s %s) | %d | %s s (%s×) | %s s (%s×) |\n' "$csuite" "$carch" "$cfiles" \
        "$(fmt_s "$c1")" "$(ratio "$c1" "$cssh")" "$(fmt_s "$c2")" "$(ratio "$c2" "$cssh")"
    rm -rf --one-file-system "$ctree"
fi

# ---- what the target itself does for a first run -------------------------------
# The steps of one atomic write over SSH, for the N files one after the
# other: as before pipelining (prop_write: mktemp, the content, chmod, sync
# of the file, mv over the path, sync of the directory), and as prop's
# pipelined writes do them now (staged by the shell's builtins into a
# staging directory, noclobber, the mode from the umask; then one sync of
# all the files, one mv of them all, the directory synced once), beside
# the same N writes batched in one script with an mv each (one sync of
# all the files, an mv each, one sync of the directory).  Run by sh on this
# machine without any link: the floor the target's own work sets under a
# first run, whatever the round trips.
echo
echo "The target's own work for $nprops atomic writes, run here by sh without SSH (the floor under a first run at any round trip time):"
w=$scratch/writes
cat >"$scratch/before.sh" <<'EOS'
d=$1 n=$2 i=1
while [ $i -le $n ]; do
  ( umask 077; tmp=$(mktemp "$d/.f$i.prop-XXXXXX") || exit 1
    printf 'bench file %d\nx\n' $i >"$tmp" && chmod 644 "$tmp" && sync -- "$tmp" &&
    mv -f -- "$tmp" "$d/f$i" && sync -- "$d" ) </dev/null || exit 1
  i=$((i + 1))
done
EOS
cat >"$scratch/per.sh" <<'EOS'
d=$1 n=$2 i=1 sd=$1/.prop-stg-bench um=$(umask)
[ -d "$sd" ] || mkdir -m 700 -- "$sd" || exit 1
while [ $i -le $n ]; do
  umask 133; set -C
  if { :; } 2>/dev/null >"$sd/f$i"; then set +C; printf 'bench file %d\nx\n' $i >|"$sd/f$i" || exit 1
  else exit 1; fi
  umask "$um"; i=$((i + 1))
done
sync -- "$sd"/f* || exit 1
e=$(mv -f -- "$sd"/f* "$d/" 2>&1) || exit 1
rm -rf -- "$sd"
sync -- "$d"
EOS
cat >"$scratch/batch.sh" <<'EOS'
d=$1 n=$2 i=1 t=
umask 077; set -C
while [ $i -le $n ]; do
  tmp="$d/.f$i.prop-b$$"; printf 'bench file %d\nx\n' $i >"$tmp" || exit 1; t="$t $tmp"; i=$((i + 1))
done
chmod 644 $t && sync -- $t || exit 1
i=1
while [ $i -le $n ]; do mv -f -- "$d/.f$i.prop-b$$" "$d/f$i" || exit 1; i=$((i + 1)); done
sync -- "$d"
EOS
echo
echo '| writes | one at a time, before pipelining | staged, as prop now | batched, an mv each |'
echo '|---:|---:|---:|---:|'
rm -rf "$w" && mkdir -p "$w"
timed_wall "$scratch/before.log" sh "$scratch/before.sh" "$w" "$nprops"
((rc == 0)) || die "the write steps failed: $(cat "$scratch/before.log")"
before_s=$t_s
rm -rf "$w" && mkdir -p "$w"
timed_wall "$scratch/per.log" sh "$scratch/per.sh" "$w" "$nprops"
((rc == 0)) || die "the pipelined write steps failed: $(cat "$scratch/per.log")"
per_s=$t_s
rm -rf "$w" && mkdir -p "$w"
timed_wall "$scratch/batch.log" sh "$scratch/batch.sh" "$w" "$nprops"
((rc == 0)) || die "the batched write steps failed: $(cat "$scratch/batch.log")"
printf '| %d | %s s (%s ms a file) | %s s (%s ms a file) | %s s |\n' "$nprops" "$(fmt_s "$before_s")" \
    "$(ms_per "$before_s" "$nprops")" "$(fmt_s "$per_s")" "$(ms_per "$per_s" "$nprops")" "$(fmt_s "$t_s")"
