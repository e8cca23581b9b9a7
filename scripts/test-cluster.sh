#!/usr/bin/env bash
# A cluster of test hosts on this machine, for the multi-host tests (docs/clusters.md):
#
#   scripts/test-cluster.sh up N [--slurm]  N hosts (and a Slurm over them); prints the hosts
#                                           file's path as its last line
#   scripts/test-cluster.sh run CMD         runs CMD on the first host (the cluster's login node)
#   scripts/test-cluster.sh down            removes every host, link, daemon and process of it
#
# Each host is a network namespace with its own host name (a UTS namespace held by one sleeping
# process), loopback, and one link to a bridge that lives in a namespace of its own. Addresses
# come from 198.18.0.0/15, the range set aside for network benchmarks. Nothing links the cluster
# to this machine's own network: no route out, nothing forwarded; traffic goes only between the
# hosts. Processes start on a host through `nsenter` into that sleeping process's namespaces
# (the hosts file's `start` prefix), which, unlike `ip netns exec`, leaves /sys as it is.
#
# Options, before the command: --dir DIR (the cluster's files; default $TASKBENCH_TEST_CLUSTER,
# else /run/taskbench-test-cluster) and --prefix P (namespace and host names P-h1..P-hN, P-net;
# default tbc). Two clusters need two of each. Needs root, iproute2 and util-linux; --slurm also
# slurm-wlm and munge (docs/slurm.md, "The test Slurm").
set -euo pipefail

dir=${TASKBENCH_TEST_CLUSTER:-/run/taskbench-test-cluster}
prefix=tbc
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    *) echo "test-cluster: unknown option '$1'" >&2; exit 2 ;;
  esac
done
command=${1:-}
[[ $# -gt 0 ]] && shift
repo=$(cd "$(dirname "$0")/.." && pwd)
subnet=198.18.0  # /24: at most 250 hosts, .1 .. .N

die() { echo "test-cluster: $*" >&2; exit 1; }

# The pid of host K's sleeping process, which holds its UTS namespace.
anchor_of() { cat "$dir/h$1.pid"; }

enter() {  # enter K CMD...: runs CMD in host K's namespaces
  local pid
  pid=$(anchor_of "$1")
  shift
  exec nsenter --target "$pid" --net --uts -- "$@"
}

up() {
  local n=${1:-} slurm=${2:-}
  [[ -z $slurm || $slurm == --slurm ]] || die "up N [--slurm]: unknown option '$slurm'"
  [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 250 ]] || die "up N: N from 1 to 250 hosts (got '${n}')"
  [[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
  for tool in ip nsenter unshare setsid; do
    command -v $tool >/dev/null || die "no '$tool' (apt-get install iproute2 util-linux)"
  done
  [[ -e $dir/hosts.toml ]] && die "a cluster is up already ($dir/hosts.toml); 'down' first"
  mkdir -p "$dir"
  echo "$prefix" >"$dir/prefix"
  # From here on, a failure takes down what was made.
  trap 'down >/dev/null 2>&1 || true' ERR
  local net=$prefix-net
  ip netns add "$net"
  echo "$net" >>"$dir/namespaces"
  ip -n "$net" link add br0 type bridge
  ip -n "$net" link set br0 up
  ip -n "$net" link set lo up
  local hosts=$dir/hosts.toml.partial
  {
    echo "# The test cluster made by scripts/test-cluster.sh up $n: $n network-namespace hosts on"
    echo "# one machine, sharing its $(nproc) cores (figures from it say nothing of a real network)."
  } >"$hosts"
  for k in $(seq 1 "$n"); do
    local ns=$prefix-h$k
    ip netns add "$ns"
    echo "$ns" >>"$dir/namespaces"
    ip -n "$net" link add "h$k" type veth peer name eth0 netns "$ns"
    ip -n "$net" link set "h$k" master br0 up
    ip -n "$ns" addr add "$subnet.$k/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    # The host's own name: Open MPI's session files and PMIx keys are per host name.
    setsid nsenter --net=/run/netns/"$ns" unshare --uts sh -c "hostname $ns && exec sleep infinity" \
      </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/h$k.pid"
    local tries=0
    until [[ $(nsenter --target "$(anchor_of "$k")" --uts hostname 2>/dev/null) == "$ns" ]]; do
      ((++tries < 100)) || die "host $ns did not start"
      sleep 0.05
    done
    cat >>"$hosts" <<EOF

[[host]]
name = "$ns"
address = "$subnet.$k"
cores = 1  # the hosts share this machine's cores: one each keeps a run from oversubscribing them
start = ["nsenter", "--target", "$(anchor_of "$k")", "--net", "--uts", "--"]
EOF
  done
  mv "$hosts" "$dir/hosts.toml"
  [[ -n $slurm ]] && slurm_up "$n"
  trap - ERR
  echo "$n hosts up: $prefix-h1 .. $prefix-h$n ($subnet.1 .. $subnet.$n); on the first: $0 run CMD"
  echo "$dir/hosts.toml"
}

# Slurm over the hosts: munged on this machine (its socket, in the cluster's folder, reaches
# every host), slurmctld on the first host, a slurmd per host in a mount namespace of its own
# that gives the host its own temporary folder (TmpFS). Every daemon's pid is kept for `down`.
slurm_up() {
  local n=$1 k tool
  for tool in munged slurmctld slurmd sinfo; do
    command -v $tool >/dev/null || die "--slurm: no '$tool' (apt-get install slurm-wlm munge)"
  done
  local s=$dir/slurm
  mkdir -p "$s/state" "$s/log" "$s/tmp"
  chmod 0700 "$s"
  head -c 1024 /dev/urandom >"$s/munge.key"
  chmod 0400 "$s/munge.key"
  munged --foreground --force --socket="$s/munge.sock" --key-file="$s/munge.key" \
    --pid-file="$s/munged.pid" --log-file="$s/log/munged.log" --seed-file="$s/munge.seed" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/munged.pid"
  local nodes="" cpus
  cpus=$(awk '/^cores = /{print $3; exit}' "$dir/hosts.toml")
  for k in $(seq 1 "$n"); do
    nodes+="NodeName=$prefix-h$k NodeAddr=$subnet.$k CPUs=$cpus State=UNKNOWN"$'\n'
    mkdir -p "$s/spool/$prefix-h$k" "$s/tmp-h$k"
  done
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@DIR@|$s|g" -e "s|@FIRST_ADDRESS@|$subnet.1|g" \
    "$repo/scripts/slurm/slurm.conf.in" | awk -v nodes="$nodes" '$0 == "@NODES@" {printf "%s", nodes; next} {print}' \
    >"$s/slurm.conf"
  echo "CgroupPlugin=cgroup/v1" >"$s/cgroup.conf"  # read, never used: no plugin makes cgroups
  : >"$s/plugstack.conf"
  local tries=0
  until [[ -S $s/munge.sock ]]; do ((++tries < 100)) || die "munged did not start ($s/log/munged.log)"; sleep 0.05; done
  setsid nsenter --target "$(anchor_of 1)" --net --uts -- slurmctld -D -c -f "$s/slurm.conf" \
    </dev/null >>"$s/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/slurmctld.pid"
  for k in $(seq 1 "$n"); do
    setsid nsenter --target "$(anchor_of "$k")" --net --uts -- unshare --mount --propagation private -- \
      sh -c "mount --bind '$s/tmp-h$k' '$s/tmp' && exec slurmd -D -N '$prefix-h$k' -f '$s/slurm.conf'" \
      </dev/null >>"$s/log/slurmd-h$k.out" 2>&1 &
    echo $! >"$dir/slurmd-h$k.pid"
  done
  tries=0
  until [[ $(nsenter --target "$(anchor_of 1)" --net --uts -- env SLURM_CONF="$s/slurm.conf" \
             sinfo -h -o "%T %D" 2>/dev/null) == "idle $n" ]]; do
    ((++tries < 300)) || die "Slurm did not bring $n nodes up within 30 s (logs: $s/log)"
    sleep 0.1
  done
  echo "Slurm up: controller on $prefix-h1, $n nodes idle in partition 'test' (SLURM_CONF=$s/slurm.conf)"
}

down() {
  [[ -d $dir ]] || return 0
  local ns pid file
  # The Slurm daemons first, so that none restarts a job step meanwhile; munged last.
  for file in "$dir"/slurmd-h*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [[ -e $file ]] && { kill -KILL "$(cat "$file")" 2>/dev/null || true; }
  done
  # Every process on a host (started through its start prefix, or left by a run) by its pid,
  # then the sleeping anchors, then the namespaces, whose deletion removes their links.
  if [[ -e $dir/namespaces ]]; then
    while read -r ns; do
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    done <"$dir/namespaces"
  fi
  for file in "$dir"/h*.pid; do
    [[ -e $file ]] && { kill -KILL "$(cat "$file")" 2>/dev/null || true; }
  done
  if [[ -e $dir/namespaces ]]; then
    while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done <"$dir/namespaces"
  fi
  rm -rf "$dir"
}

case $command in
  up) up "$@" ;;
  down) down ;;
  run)
    [[ -e $dir/hosts.toml ]] || die "no cluster is up ($dir); '$0 up N' first"
    [[ $# -ge 1 ]] || die "run CMD...: a command to run on the first host"
    # As on a login node: the project's commands on PATH, the cluster's hosts file named.
    export PATH=$repo/.venv/bin:$PATH TASKBENCH_HOSTS=$dir/hosts.toml
    # With Slurm up, its commands find it; inside an allocation the harness uses the
    # allocation's hosts instead of the hosts file (`--hosts slurm`).
    [[ -e $dir/slurm/slurm.conf ]] && export SLURM_CONF=$dir/slurm/slurm.conf
    enter 1 "$@"
    ;;
  *) die "usage: $0 [--dir DIR] [--prefix P] up N [--slurm] | run CMD... | down" ;;
esac
