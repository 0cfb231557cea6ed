"""The suite's own set-up in conftest.py: how many workers ``-n auto`` starts."""

from __future__ import annotations

import os

import conftest


def test_auto_starts_one_worker_more_than_the_cores(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert conftest.pytest_xdist_auto_num_workers(None) == 3
    # a number set by the caller wins: None hands the choice on to xdist, which reads it
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")
    assert conftest.pytest_xdist_auto_num_workers(None) is None
