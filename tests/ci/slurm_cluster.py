"""A single-node Slurm (slurmctld + slurmd + munge) in a temporary directory, for tests.

Debian's ``slurm-wlm``: one node ``localhost`` with this machine's CPUs and no GPUs, every
state, spool, log and socket file under the directory, the daemons in the foreground as
children of the test so that the finalizer stops exactly them. Settings that work as root in
a container: no cgroup (``proctrack/linuxproc``, ``task/none``), no accounting.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
import socket
import subprocess
import time

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("slurmctld", "slurmd", "munged", "sbatch", "scontrol", "sinfo")


def missing_reason() -> str | None:
    """Why Slurm cannot run here (one line), after installing it with apt as root; else None."""
    if all(shutil.which(name) or os.path.exists(f"/usr/sbin/{name}") for name in DAEMONS):
        return None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "slurm-wlm and munge are not installed and this is not root with apt-get"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *PACKAGES]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode:
            return f"{' '.join(command)} failed: {done.stderr.strip().splitlines()[-1:]}"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclasses.dataclass
class SlurmCluster:
    """A running single-node cluster; ``env`` is what sbatch/scontrol need to reach it."""

    root: pathlib.Path
    env: dict[str, str]
    processes: list[subprocess.Popen]

    def run(self, *command: str, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            list(command), env=self.env, cwd=cwd, capture_output=True, text=True, check=False
        )

    def job_state(self, job_id: str) -> dict[str, str]:
        """The fields of ``scontrol show job`` for one job (an array's tasks: the first)."""
        shown = self.run("scontrol", "show", "job", "--oneliner", job_id).stdout
        first = shown.splitlines()[0] if shown.strip() else ""
        return dict(part.split("=", 1) for part in first.split() if "=" in part)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for(check, what: str, timeout: float, logs: list[pathlib.Path]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    tails = "\n".join(f"{log}:\n{log.read_text()[-1500:]}" for log in logs if log.exists())
    raise RuntimeError(f"{what} not ready after {timeout:.0f} s\n{tails}")


def start(root: pathlib.Path) -> SlurmCluster:
    """Start munged, slurmctld and slurmd under ROOT; the caller stops them (``stop``)."""
    for sub in ("state", "spool", "munge", "log"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(root / "munge", 0o700)
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    munge_socket = root / "munge" / "munge.socket"
    cpus = os.cpu_count() or 1
    conf = root / "slurm.conf"
    conf.write_text(
        f"""\
ClusterName=iconbench-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={root / "state"}
SlurmdSpoolDir={root / "spool"}
SlurmctldPidFile={root / "slurmctld.pid"}
SlurmdPidFile={root / "slurmd.pid"}
SlurmctldLogFile={root / "log" / "slurmctld.log"}
SlurmdLogFile={root / "log" / "slurmd.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""
    )
    env = dict(os.environ, SLURM_CONF=str(conf))
    logs = [root / "log" / name for name in ("munged.log", "slurmctld.log", "slurmd.log")]
    cluster = SlurmCluster(root, env, [])
    try:
        cluster.processes.append(
            subprocess.Popen(
                [
                    "munged",
                    "--foreground",
                    "--force",
                    f"--key-file={key}",
                    f"--socket={munge_socket}",
                    f"--pid-file={root / 'munge' / 'munged.pid'}",
                    f"--log-file={logs[0]}",
                    f"--seed-file={root / 'munge' / 'munge.seed'}",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
        )
        _wait_for(munge_socket.exists, "munged", 20, logs)
        for daemon in (["slurmctld", "-D", "-i"], ["slurmd", "-D", "-N", "localhost"]):
            cluster.processes.append(
                subprocess.Popen(
                    [daemon[0], "-f", str(conf), *daemon[1:]],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.STDOUT,
                )
            )

        def node_idle() -> bool:
            shown = cluster.run("sinfo", "-h", "-N", "-o", "%T").stdout.strip()
            return shown.startswith("idle")

        _wait_for(node_idle, "the Slurm node", 60, logs)
    except BaseException:
        cluster.stop()
        raise
    return cluster
