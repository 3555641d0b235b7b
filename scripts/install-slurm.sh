#!/usr/bin/env bash
# install-slurm.sh
#
# Installs, with Debian's apt-get, what the Slurm deployment's tests
# (deploy/slurm, `make slurm-test`) run against: the controller
# (slurmctld), the compute daemon (slurmd), the client commands (sbatch,
# srun, squeue, scancel, scontrol, sinfo; slurm-client) and munge, which
# authenticates them. The tests configure and start these daemons
# themselves, in a temporary directory, on unprivileged ports; nothing is
# enabled as a system service here, and misslab itself never needs Slurm.
# Safe to rerun: it does nothing when every command is present.
set -euo pipefail

source "$(dirname "$0")/apt-ensure.sh"
commands=(slurmctld slurmd sbatch srun squeue scancel scontrol sinfo munged munge)
have() {
	local c
	for c in "${commands[@]}"; do
		command -v "$c" >/dev/null 2>&1 || [[ -x /usr/sbin/$c ]] || return 1
	done
}
# Debian's postinst may start the packaged services where systemd runs;
# the tests never use them (they run their own daemons on other ports).
apt_ensure install-slurm "slurmctld, slurmd, the Slurm client and munge" have \
	slurmctld slurmd slurm-client munge
