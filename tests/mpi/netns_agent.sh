#!/bin/sh
# Open MPI's remote agent (--mca plm_rsh_agent) for the two-host test: where mpirun would run
# `ssh HOST COMMAND...`, this runs COMMAND inside the network namespace that plays HOST.
# TASKBENCH_NETNS_HOSTS maps hosts to namespaces: "198.18.0.1=nsA 198.18.0.2=nsB".
# Like ssh, the command words are joined and handed to a shell.
host=$1
shift
for pair in $TASKBENCH_NETNS_HOSTS; do
  if [ "${pair%%=*}" = "$host" ]; then
    exec ip netns exec "${pair#*=}" sh -c "$*"
  fi
done
echo "netns_agent: no namespace for host '$host' in TASKBENCH_NETNS_HOSTS='$TASKBENCH_NETNS_HOSTS'" >&2
exit 255
