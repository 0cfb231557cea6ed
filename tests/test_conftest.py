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


def test_the_controller_writes_the_rewritten_test_modules_that_pytest_reads(tmp_path, pytestconfig):
    from _pytest.assertion import rewrite

    module = tmp_path / "test_sample.py"
    module.write_text("def test_it():\n    value = 1\n    assert value == 2\n", encoding="utf-8")
    conftest._rewrite_the_test_modules_once(pytestconfig, tmp_path)
    pyc = rewrite.get_cache_dir(module) / ("test_sample" + rewrite.PYC_TAIL)
    code = rewrite._read_pyc(module, pyc)  # None: missing, stale or not pytest's
    assert code is not None
    # the assert is pytest's: its rewritten form names pytest's helpers
    test_it = next(c for c in code.co_consts if getattr(c, "co_name", None) == "test_it")
    assert any(name.startswith("@py") for name in test_it.co_names)
    # a module changed since is written again
    module.write_text("def test_it():\n    assert 3 == 4\n", encoding="utf-8")
    assert rewrite._read_pyc(module, pyc) is None
    conftest._rewrite_the_test_modules_once(pytestconfig, tmp_path)
    assert rewrite._read_pyc(module, pyc) is not None
