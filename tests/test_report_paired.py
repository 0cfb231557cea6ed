"""The report's paired tests are made in a thread beside the rest of the page: the page holds
what the section makes alone, and an error in them reaches the caller."""

from __future__ import annotations

import re

import pytest
import sympy

from maxent_util import PAR, DataError, rank, t
from maxent_util import report as report_module
from maxent_util.report import SECTIONS, ReportData, report_html

from synthetic_runs import competition

OPTIONS = {"ci": 0.9, "resamples": 300, "seed": 3, "duplicates": "raise", "missing": "raise"}


def test_paired_tests_made_beside_the_page_are_those_the_section_makes_alone():
    table = competition(7, instances=40, seed=5)
    rules = {"PAR-2": PAR(2), "exp(-t/50)": sympy.exp(-t / 50)}
    options = {key: OPTIONS[key] for key in ("ci", "resamples", "seed")}
    page = report_html(table, rules=rules, sections=["rankings", "uncertainty"], date="fixed",
                       **options)
    alone = next(part for part in SECTIONS if part.id == "uncertainty").render(ReportData(
        table=table, rules=tuple(rules.items()), ranking=rank(table, rules, bounds=True,
                                                              **OPTIONS),
        label="runs", provenance=(), notes=(), options=OPTIONS))
    body = re.search(r'<section id="uncertainty"><h2>[^<]*</h2>(.*?)</section>', page, re.S)
    assert body is not None and body.group(1) == alone
    assert alone.count('<table class="matrix"') == 2  # the tests of both rules are in it


def test_an_error_in_the_paired_tests_reaches_the_caller(monkeypatch):
    def failing(*args, **kwargs):
        raise DataError("the paired tests failed")

    monkeypatch.setattr(report_module, "pairwise", failing)
    table = competition(3, instances=8, seed=1)
    with pytest.raises(DataError, match="the paired tests failed"):
        report_html(table, rules={"PAR-2": PAR(2)}, date="fixed", sections=["uncertainty"])
