"""The budget bench's cgroups (bench/budget.py) against fake cgroup roots: tmp directories laid
out like /sys/fs/cgroup. This machine has only cgroup v1, so these are the only runs the v2
(``cpu.max``) path gets: its writes are checked on files, its quota is not measured."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from bench.budget import PERIOD_US, CgroupRoots, Group


def v2_root(tmp_path: Path, controllers: str = "cpuset cpu io memory pids", subtree: str = "") -> CgroupRoots:
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text(subtree + "\n")
    (root / "cgroup.procs").write_text("1\n")
    return CgroupRoots(v1_cpu=tmp_path / "no-v1", v1_acct=tmp_path / "no-v1", v2=root, need_root=False)


def test_v2_quota_is_cpu_max_of_the_share_of_one_core_per_short_period(tmp_path):
    roots = v2_root(tmp_path)
    group = Group.make(0.25, "tableref-bench-0_25", roots)
    d = roots.v2 / "tableref-bench-0_25"
    assert (group.version, group.dirs) == (2, [str(d)])
    assert (d / "cpu.max").read_text() == f"{PERIOD_US // 4} {PERIOD_US}"  # 1000 4000: a quarter core
    assert (roots.v2 / "cgroup.subtree_control").read_text() == "+cpu"  # children get the cpu controller
    assert Group.make(0.7, "seventy", roots) and (roots.v2 / "seventy" / "cpu.max").read_text() == f"2800 {PERIOD_US}"
    # Under a quarter core the quota stays at the kernel's 1 ms floor and the period grows: a Pi
    # Zero 2 W's tenth of a core is 1 ms per 10 ms (it was 1 ms per 4 ms, a quarter, silently).
    assert Group.make(0.1, "tiny", roots) and (roots.v2 / "tiny" / "cpu.max").read_text() == "1000 10000"


def test_v2_full_speed_group_has_no_quota_and_leaves_an_enabled_controller_alone(tmp_path):
    roots = v2_root(tmp_path, subtree="cpu memory")
    Group.make(None, "full", roots)
    assert (roots.v2 / "full" / "cpu.max").read_text() == f"max {PERIOD_US}"
    assert (roots.v2 / "cgroup.subtree_control").read_text().split() == ["cpu", "memory"]  # not rewritten


def test_v2_moves_whole_processes_and_reads_its_own_cpu_accounting(tmp_path):
    roots = v2_root(tmp_path)
    group = Group.make(0.25, "g", roots)
    d = roots.v2 / "g"
    assert group.enter_thread() is False  # v2 moves the process, not the thread: the row says so
    assert (d / "cgroup.procs").read_text() == str(os.getpid())
    group.leave_thread()  # nothing to undo on v2
    assert not (roots.v2 / "tasks").exists()
    (d / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    assert group.cpu_seconds() == 2.5


def test_v2_without_the_cpu_controller_says_why(tmp_path):
    roots = v2_root(tmp_path, controllers="io memory pids")
    with pytest.raises(OSError, match="no cgroup cpu controller"):
        Group.make(0.25, "g", roots)
    assert not (roots.v2 / "g").exists()


def test_v1_quota_and_threads_against_a_fake_root(tmp_path):
    cpu, acct = tmp_path / "cpu", tmp_path / "cpuacct"
    cpu.mkdir()
    acct.mkdir()
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    (acct / "cpuacct.usage").write_text("0\n")
    group = Group.make(0.25, "g", CgroupRoots(v1_cpu=cpu, v1_acct=acct, v2=tmp_path / "none", need_root=False))
    assert group.version == 1
    assert (cpu / "g" / "cpu.cfs_period_us").read_text() == str(PERIOD_US)
    assert (cpu / "g" / "cpu.cfs_quota_us").read_text() == str(PERIOD_US // 4)
    assert group.enter_thread() is True
    assert (cpu / "g" / "tasks").read_text() == (acct / "g" / "tasks").read_text() == str(threading.get_native_id())
    group.leave_thread()
    assert (cpu / "tasks").read_text() == str(threading.get_native_id())  # back in the parent
    (acct / "g" / "cpuacct.usage").write_text("1500000000\n")
    assert group.cpu_seconds() == 1.5
    Group.make(0.1, "zero", CgroupRoots(v1_cpu=cpu, v1_acct=acct, v2=tmp_path / "none", need_root=False))
    assert (cpu / "zero" / "cpu.cfs_period_us").read_text() == "10000"  # a Pi Zero 2 W: 1 ms per 10 ms
    assert (cpu / "zero" / "cpu.cfs_quota_us").read_text() == "1000"
