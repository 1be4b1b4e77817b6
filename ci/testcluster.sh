#!/usr/bin/env bash
# The project's test cluster on one Debian 12 machine (root, no systemd needed).
#   ci/testcluster.sh up|down|status       N nodes (default 3), state under BASE (default /tmp/aorta-tc)
#   CONTAINERS=0 ci/testcluster.sh up      bare-metal nodes: no podman service (a fleet of 32 fits 2 cores)
#   A second cluster beside the first: its own BASE, PREFIX (names of its namespaces, bridge
#   and veths; default atc), NET (default 10.211.0) and RUN_DIR (default /run/aorta-tc).
#   ci/testcluster.sh slurm-up|slurm-down   Slurm (munge, slurmctld, a slurmd per node) on a cluster that is up
#   ci/testcluster.sh kill-sshd I|restart-sshd I    node I stops / resumes answering SSH (fault tests)
# Each node is a network namespace (nodeI = 10.211.0.1I on bridge atcbr0, no uplink, no
# forwarding) with its own sshd (key-only root), hostname, /etc/hosts, node-local
# storage at /var/lib/aorta-node (a bind mount only that node sees) and its own podman
# API service, so `docker ...` over SSH reaches that node's engine. `up` writes
#   BASE/id_ed25519, BASE/known_hosts (strict checking works), BASE/cluster.json
# and records every daemon it starts in BASE/pids; `down` stops exactly those.
set -euo pipefail
BASE=${BASE:-/tmp/aorta-tc}
PREFIX=${PREFIX:-atc}
NET=${NET:-10.211.0}
RUN_DIR=${RUN_DIR:-/run/aorta-tc}
CONTAINERS=${CONTAINERS:-1}
BRIDGE=${PREFIX}br0
NODE_LOCAL=/var/lib/aorta-node
# `up` records its node count: every later command (down included) acts on the
# cluster that is up, whatever N says then.
if [ -s "$BASE/up" ]; then N=$(cat "$BASE/up"); fi
N=${N:-3}
case "$N" in '' | *[!0-9]*) echo "testcluster: N must be a node count, not '$N'" >&2; exit 2 ;; esac
[ "$N" -ge 1 ] && [ "$N" -le 200 ] || { echo "testcluster: N must be 1..200, not $N" >&2; exit 2; }

ip_of() { echo "$NET.$((10 + $1))"; }
ssh_node() { ssh -F "$BASE/ssh_config" "$(ip_of "$1")" "$2"; }

up() {
  if [ -e "$BASE/up" ]; then echo "testcluster: already up ($BASE/up); run down first" >&2; exit 1; fi
  local t0; t0=$(date +%s%N)
  mkdir -p "$BASE/pids" /run/sshd "$RUN_DIR"
  [ -f "$BASE/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C aorta-testcluster -f "$BASE/id_ed25519"
  [ -f "$BASE/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$BASE/host_key"
  chmod 600 "$BASE/id_ed25519"
  cp "$BASE/id_ed25519.pub" "$BASE/authorized_keys"
  {
    printf 'Host *\n User root\n IdentityFile %s/id_ed25519\n IdentitiesOnly yes\n' "$BASE"
    printf ' UserKnownHostsFile %s/known_hosts\n StrictHostKeyChecking yes\n BatchMode yes\n LogLevel ERROR\n' "$BASE"
  } > "$BASE/ssh_config"
  # Podman: runc (crun refuses this machine's hybrid cgroups), limits root may set
  # here, host networking unless asked otherwise.
  printf '[containers]\nnetns = "host"\ndefault_ulimits = ["nofile=%s:%s", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
    "$(ulimit -Hn)" "$(ulimit -Hn)" > "$BASE/containers.conf"

  ip link add "$BRIDGE" type bridge
  ip addr add "$NET.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  { echo "127.0.0.1 localhost"; echo "$NET.1 head"; } > "$BASE/hosts"
  : > "$BASE/known_hosts"
  local key; key=$(cut -d' ' -f1,2 "$BASE/host_key.pub")
  for i in $(seq "$N"); do
    echo "$(ip_of "$i") node$i" >> "$BASE/hosts"
    echo "$(ip_of "$i"),node$i $key" >> "$BASE/known_hosts"
  done
  for i in $(seq "$N"); do
    local ns=${PREFIX}node$i dir=$BASE/node$i
    rm -rf "$dir/local"  # every up starts with empty node-local storage
    # A home of its own: sessions must not read the tester's dotfiles (a pyenv
    # rehash there waits on a lock every concurrent login shares).
    mkdir -p "$dir/local" "$dir/home" "$RUN_DIR/node$i"
    ip netns add "$ns"
    ip link add "${PREFIX}veth$i" type veth peer name eth0 netns "$ns"
    ip link set "${PREFIX}veth$i" master "$BRIDGE" up
    ip -n "$ns" addr add "$(ip_of "$i")/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    cat > "$dir/sshd_config" <<CONF
Port 22
ListenAddress $(ip_of "$i")
HostKey $BASE/host_key
PidFile $BASE/pids/sshd-node$i.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AuthorizedKeysFile $BASE/authorized_keys
StrictModes no
UseDNS no
MaxStartups 200:30:400
Subsystem sftp internal-sftp
SetEnv DOCKER_HOST=unix://$RUN_DIR/node$i/docker.sock CONTAINERS_CONF=$BASE/containers.conf HOME=$dir/home
CONF
    start_sshd "$i"
    # Each node's podman has its own storage (container names do not clash) and
    # reads images from the machine's store.
    cat > "$dir/podman" <<WRAP
#!/bin/sh
export CONTAINERS_CONF=$BASE/containers.conf
exec /usr/bin/podman --root $dir/storage --runroot $RUN_DIR/node$i --tmpdir $RUN_DIR/node$i/tmp \\
  --storage-opt additionalimagestore=/var/lib/containers/storage "\$@"
WRAP
    chmod +x "$dir/podman"
  done
  for i in $(seq "$N"); do
    for _ in $(seq 50); do [ -s "$BASE/pids/sshd-node$i.pid" ] && break; sleep 0.1; done
    [ "$CONTAINERS" = 0 ] && continue
    ssh_node "$i" "setsid $BASE/node$i/podman system service --time=0 unix://$RUN_DIR/node$i/docker.sock \
      > $BASE/node$i/podman-service.log 2>&1 < /dev/null & echo \$! > $BASE/pids/podman-node$i.pid"
  done
  for i in $(seq "$N"); do
    [ "$CONTAINERS" = 0 ] && break
    for _ in $(seq 100); do [ -S "$RUN_DIR/node$i/docker.sock" ] && break; sleep 0.1; done
    [ -S "$RUN_DIR/node$i/docker.sock" ] || { echo "testcluster: podman service on node$i did not start" >&2; exit 1; }
  done
  write_cluster_file
  echo "$N" > "$BASE/up"
  echo "testcluster: $N nodes up in $(( ($(date +%s%N) - t0) / 1000000 )) ms; cluster file $BASE/cluster.json"
}

# The nodes to take down: those `up` recorded and any namespace of this prefix besides
# (a cluster brought up by an older script, or one whose `up` failed half-way).
cluster_nodes() {
  { seq "$N"; ip netns list 2>/dev/null | sed -n "s/^${PREFIX}node\([0-9][0-9]*\).*/\1/p"; } | sort -nu
}

# nsenter --net, not `ip netns exec`: the latter remounts /sys and hides the cgroup
# mounts runc needs. The node's own mount namespace carries its hosts file and its
# node-local storage.
start_sshd() {
  local i=$1 dir=$BASE/node$1
  nsenter --net="/run/netns/${PREFIX}node$i" unshare --uts --mount sh -c \
    "mount --bind '$BASE/hosts' /etc/hosts && mkdir -p $NODE_LOCAL && mount --bind '$dir/local' $NODE_LOCAL &&
     hostname node$i && exec /usr/sbin/sshd -f '$dir/sshd_config' -E '$dir/sshd.log'"
}

# For the fault tests: node I stops answering SSH (its listener and every session go).
kill_sshd() {
  local i=$1
  for pid in $(ip netns pids "${PREFIX}node$i"); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sshd ] && kill "$pid" 2>/dev/null || true
  done
  rm -f "$BASE/pids/sshd-node$i.pid"
}

# Brings node I's sshd back after kill-sshd (a fresh mount namespace, same files).
restart_sshd() {
  start_sshd "$1"
  for _ in $(seq 50); do [ -s "$BASE/pids/sshd-node$1.pid" ] && break; sleep 0.1; done
}

write_cluster_file() {
  {
    printf '{\n  "username": "root",\n  "priv_key_file": "%s/id_ed25519",\n' "$BASE"
    printf '  "ssh": {"port": 22, "known_hosts": "%s/known_hosts", "strict_host_key_checking": true},\n' "$BASE"
    printf '  "node_dict": {\n'
    for i in $(seq "$N"); do
      printf '    "%s": {"vpc_ip": "node%s"}%s\n' "$(ip_of "$i")" "$i" "$([ "$i" -lt "$N" ] && echo , || true)"
    done
    printf '  }\n}\n'
  } > "$BASE/cluster.json"
}

down() {
  slurm_down
  for f in "$BASE"/pids/podman-node*.pid "$BASE"/pids/sshd-node*.pid; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  # Podman 4.3's Docker-API exec leaves a conmon pair per exec behind, and a
  # container may still run: both name this cluster's storage in their arguments.
  pkill -f "conmon .*$BASE/node[0-9]*/storage" 2>/dev/null || true
  sleep 0.5
  local nodes; nodes=$(cluster_nodes)
  for i in $nodes; do
    # Containers' processes are children of conmon; anything left in the node's
    # network namespace belongs to this cluster.
    [ -e "/run/netns/${PREFIX}node$i" ] && ip netns pids "${PREFIX}node$i" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "${PREFIX}node$i" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  for i in $nodes; do
    umount -R "$BASE/node$i/storage/overlay" 2>/dev/null || true
  done
  rm -f "$BASE/up"
  echo "testcluster: down"
}

# Slurm on the same nodes: munged and slurmctld on the head (10.211.0.1), one slurmd
# per node inside the node's namespaces. A TaskProlog gives every task its node's
# DOCKER_HOST, as a site's prolog would point tasks at the local engine.
slurm_up() {
  [ -e "$BASE/up" ] || { echo "testcluster: run up first" >&2; exit 1; }
  local s=$BASE/slurm
  mkdir -p "$s/state" "$s/log" "$BASE/shared"
  install -d -o munge -g munge -m 0755 /run/munge
  [ -f /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
                                   chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
  cp /run/munge/munged.pid "$BASE/pids/munged.pid"
  printf '#!/bin/sh\necho "export DOCKER_HOST=unix://%s/$(hostname)/docker.sock"\n' "$RUN_DIR" > "$s/task_prolog.sh"
  chmod +x "$s/task_prolog.sh"
  cat > "$s/slurm.conf" <<CONF
ClusterName=aortatc
SlurmctldHost=$(hostname)($NET.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$BASE/%n/spool
SlurmctldPidFile=$BASE/pids/slurmctld.pid
SlurmdPidFile=$BASE/pids/slurmd-%n.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$s/task_prolog.sh
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
KillWait=5
CONF
  for i in $(seq "$N"); do
    echo "NodeName=node$i NodeAddr=$(ip_of "$i") CPUs=$(nproc) RealMemory=2000 State=UNKNOWN" >> "$s/slurm.conf"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$s/slurm.conf"
  export SLURM_CONF=$s/slurm.conf
  slurmctld -f "$SLURM_CONF"
  for i in $(seq "$N"); do mkdir -p "$BASE/node$i/spool"; ssh_node "$i" "slurmd -f $SLURM_CONF"; done
  for _ in $(seq 150); do [ "$(sinfo -h -o '%D %T' 2>/dev/null)" = "$N idle" ] && break; sleep 0.2; done
  [ "$(sinfo -h -o '%D %T')" = "$N idle" ] || { echo "testcluster: slurm nodes not idle: $(sinfo -h)" >&2; exit 1; }
  echo "testcluster: slurm up (SLURM_CONF=$SLURM_CONF), shared storage $BASE/shared"
}

slurm_down() {
  local pids=()
  for f in "$BASE"/pids/slurmd-*.pid "$BASE/pids/slurmctld.pid" "$BASE/pids/munged.pid"; do
    [ -f "$f" ] || continue
    pids+=("$(cat "$f")")
    kill "${pids[-1]}" 2>/dev/null || true
    rm -f "$f"
  done
  # slurmctld saves its state as it stops: removing the folder before it has gone
  # races with that write ("Directory not empty").
  for _ in $(seq 50); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  rm -rf "$BASE/slurm/state" 2>/dev/null || { sleep 1; rm -rf "$BASE/slurm/state"; }
}

status() {
  ip netns list | grep "^${PREFIX}node" || echo "no nodes"
  ls "$BASE/pids" 2>/dev/null || true
}

case "${1:-status}" in
  up | down | status) "${1:-status}" ;;
  slurm-up) slurm_up ;;
  slurm-down) slurm_down ;;
  kill-sshd) kill_sshd "$2" ;;
  restart-sshd) restart_sshd "$2" ;;
  *) echo "usage: $0 up|down|status|slurm-up|slurm-down|kill-sshd I|restart-sshd I" >&2; exit 2 ;;
esac
