#!/usr/bin/env bash
# A cluster of test hosts on this machine, for the multi-host tests (docs/clusters.md):
#
#   scripts/test-cluster.sh up N     N hosts; prints the hosts file's path as its last line
#   scripts/test-cluster.sh run CMD  runs CMD on the first host (the cluster's login node)
#   scripts/test-cluster.sh down     removes every host, link and process of the cluster
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
# default tbc). Two clusters need two of each. Needs root, iproute2 and util-linux.
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
  local n=${1:-}
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
  trap - ERR
  echo "$n hosts up: $prefix-h1 .. $prefix-h$n ($subnet.1 .. $subnet.$n); on the first: $0 run CMD"
  echo "$dir/hosts.toml"
}

down() {
  [[ -d $dir ]] || return 0
  local ns pid
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
    enter 1 "$@"
    ;;
  *) die "usage: $0 [--dir DIR] [--prefix P] up N | run CMD... | down" ;;
esac
