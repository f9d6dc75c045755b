#!/bin/bash
# A one-node Slurm cluster on this machine for the sharding test: munged,
# slurmctld and slurmd on localhost, everything they write (key, sockets,
# state, logs, pid files) in one folder, started and stopped by the test.
# Nothing is read from or written to /etc/slurm or /etc/munge.
#
# usage: slurm-cluster.sh start DIR   start it; clients then need
#                                     SLURM_CONF=DIR/slurm.conf
#        slurm-cluster.sh stop DIR    stop every daemon start started
set -euo pipefail

cmd=${1:?usage: slurm-cluster.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: slurm-cluster.sh start|stop DIR}")
say() { printf 'slurm: %s\n' "$*"; }
die() { printf 'slurm: error: %s\n' "$*" >&2; exit 1; }

# first free TCP port on localhost from $1 on
free_port() {
	local p=$1
	while [ -n "$(ss -Hltn "sport = :$p")" ]; do p=$((p + 1)); done
	echo "$p"
}

write_config() {
	local ctld_port slurmd_port
	ctld_port=$(free_port 6817)
	slurmd_port=$(free_port $((ctld_port + 1)))
	cat > "$dir/slurm.conf" <<CONF
# written by slurm-cluster.sh: one node, root runs the daemons, no
# cgroups or accounting, so it starts in a container as on a laptop
ClusterName=tunlab
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=tunlab NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=lab Nodes=tunlab Default=YES MaxTime=INFINITE State=UP
CONF
}

start() {
	local i
	for bin in munged slurmctld slurmd sinfo; do
		command -v "$bin" >/dev/null || die "$bin not found (make deps installs munge and slurm-wlm)"
	done
	[ ! -e "$dir/slurm.conf" ] || die "$dir already holds a cluster (stop it first)"
	mkdir -p "$dir/state" "$dir/spool"
	write_config
	# a key of its own: the test needs no machine-wide munge setup
	head -c 1024 /dev/urandom > "$dir/munge.key"
	chmod 0600 "$dir/munge.key"
	munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" \
		--log-file="$dir/munged.log" --pid-file="$dir/munged.pid" \
		--seed-file="$dir/munged.seed" || die "munged did not start (log: $dir/munged.log)"
	export SLURM_CONF=$dir/slurm.conf
	slurmctld -f "$SLURM_CONF" || die "slurmctld did not start (log: $dir/slurmctld.log)"
	slurmd -f "$SLURM_CONF" -N tunlab || die "slurmd did not start (log: $dir/slurmd.log)"
	for i in $(seq 50); do
		[ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && { say "one node up (SLURM_CONF=$SLURM_CONF)"; return 0; }
		sleep 0.2
	done
	tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
	die "the node did not become idle within 10 s"
}

# stop_daemon NAME: end the daemon whose pid file start wrote, and wait
stop_daemon() {
	local pidfile=$dir/$1.pid pid i
	[ -r "$pidfile" ] || return 0
	pid=$(cat "$pidfile")
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL "$pid" 2>/dev/null || true
}

stop() {
	stop_daemon slurmd
	stop_daemon slurmctld
	stop_daemon munged
	rm -f "$dir/slurm.conf"
	say "stopped"
}

case $cmd in
start) start ;;
stop) stop ;;
*) die "unknown command $cmd (start or stop)" ;;
esac
