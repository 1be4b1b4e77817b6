#!/usr/bin/env python3
"""aorta_distributed through a jump host on the test cluster: node 1 is the bastion,
nodes 2 and 3 are the cluster. Every command, container and SFTP download reaches
them through one libssh2 session to the bastion (direct-tcpip channels), host keys
are checked on both hops, and the nodes' own sshd logs prove the route: every login
on nodes 2 and 3 during the run comes from the bastion's address, none from this
machine's.

Usage: jump_e2e.py AORTA_SUITE     (BASE, default /tmp/aorta-tc: ci/testcluster.sh's files)
"""
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "suite"))
from suite_run import expect, run  # noqa: E402
from test_cluster import BASE, expect_clean, passing_stages, write_inputs  # noqa: E402

BASTION = "10.211.0.11"  # node1 (ci/testcluster.sh: nodeI = 10.211.0.1I)
HOST_SIDE = "10.211.0.1"  # this machine's address on the cluster's bridge
binary = os.path.abspath(sys.argv[1])


def through_bastion(cluster, work):
    hosts = list(cluster["node_dict"])
    cluster["node_dict"] = {h: cluster["node_dict"][h] for h in hosts[1:3]}  # nodes 2 and 3
    cluster["ssh"]["jump_host"] = {"host": BASTION}  # user, key, port and known_hosts: the cluster's


def log_sizes():
    return {i: os.path.getsize(f"{BASE}/node{i}/sshd.log") for i in (1, 2, 3)}


with tempfile.TemporaryDirectory() as work:
    write_inputs(work, 3, edit_cluster=through_bastion)
    hosts = list(json.load(open(os.path.join(work, "cluster.json")))["node_dict"])
    expect(hosts == ["10.211.0.12", "10.211.0.13"], f"cluster nodes {hosts}")
    before = log_sizes()
    p, stages, report = run(binary, work, "--cluster_file", os.path.join(work, "cluster.json"), "--config_file",
                            os.path.join(work, "cpu_docker.json"), "--gtest_filter=aorta_distributed.*")
    outcomes = {k: v[0] for k, v in stages.items()}
    expect(outcomes == passing_stages(binary, distributed=True), f"stages {outcomes}", p)
    expect(p.returncode == 0, f"exit status {p.returncode}", p)
    expect(report is not None and [r["rank"] for r in report["per_rank_summary"]] == [0, 1, 2, 3],
           f"ranks {report and [r['rank'] for r in report['per_rank_summary']]}", p)
    collect = stages["test_collect_traces"][2]
    expect(sorted(collect) == sorted(f"[trace collection] (host={h}): passed" for h in hosts), str(collect))

    for i in (2, 3):
        with open(f"{BASE}/node{i}/sshd.log", errors="replace") as f:
            f.seek(before[i])
            logins = re.findall(r"Accepted publickey for \S+ from (\S+) port", f.read())
        expect(logins and all(a == BASTION for a in logins),
               f"node{i}: logins during the run came from {sorted(set(logins))}, not only the bastion {BASTION}")
        expect(HOST_SIDE not in logins, f"node{i} was reached directly from {HOST_SIDE}")
    with open(f"{BASE}/node1/sshd.log", errors="replace") as f:
        f.seek(before[1])
        bastion_logins = re.findall(r"Accepted publickey for \S+ from (\S+) port", f.read())
    expect(bastion_logins.count(HOST_SIDE) >= 1, f"the bastion saw no login from this machine: {bastion_logins}")
    expect_clean(hosts)
    print(f"ok: aorta_distributed on 2 nodes through jump host {BASTION}: "
          f"{len(bastion_logins)} bastion login(s), every node login from the bastion")
