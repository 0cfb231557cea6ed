"""from_json refuses documents that contradict themselves (issue 23, section 4): a utility that is
not its law's survival function, a reversed support or breakpoints, a preset label that is not the
law, qualities with q0 > q1.  Each refusal is an ExportError naming the field; the documents that
to_json writes still read back."""

from __future__ import annotations

import json

import pytest
import sympy

import maxent_util as mu
from maxent_util import families
from maxent_util.documents import from_json, to_json
from maxent_util.errors import ExportError
from maxent_util.expressions import to_tree
from maxent_util.symbols import t


def _document(obj) -> dict:
    return json.loads(to_json(obj))


def test_a_utility_that_is_not_its_laws_survival_function_is_refused():
    document = _document(families.exponential(24).utility())
    document["expr"] = to_tree(sympy.exp(-t / 12))
    with pytest.raises(ExportError, match=r"^`expr` of `from_json` must be the survival function 1 - F\(t\) of "
                                          r"its `distribution`; got 'exp\(-t/12\)'\. They differ at t = "):
        from_json(json.dumps(document))


def test_a_reversed_support_is_refused():
    document = _document(families.uniform(24))
    document["support"] = list(reversed(document["support"]))
    with pytest.raises(ExportError, match=r"^`support` of `from_json` must be increasing points; "
                                          r"got \['24', '0'\]\. Item 1 \(0\) comes before item 0 \(24\)\."):
        from_json(json.dumps(document))


def test_reversed_breakpoints_are_refused():
    document = _document(families.piecewise(24, 12, 0.3))
    document["breakpoints"] = list(reversed(document["breakpoints"]))
    with pytest.raises(ExportError, match=r"^`breakpoints` of `from_json` must be non-decreasing points; "
                                          r"got \['24', '12', '0'\]"):
        from_json(json.dumps(document))


def test_breakpoints_that_do_not_span_the_support_are_refused():
    document = _document(families.uniform(24))
    document["breakpoints"] = [to_tree(0), to_tree(12)]
    with pytest.raises(ExportError, match=r"^`breakpoints` of `from_json` must be points from the lower to the "
                                          r"upper end of the support; got \['0', '12'\]\. The support is \[0, 24\]"):
        from_json(json.dumps(document))


@pytest.mark.parametrize("family, arguments, message", [
    ("log_laplace", [24, 2], r"`preset` of `from_json` must be the preset whose constraints the law has; "
                             r"got 'log_laplace\(24, 2\)'\. The law's constraints are Support\(24, oo\)"),
    ("pareto", [24, 3], r"`preset` of `from_json` must be the preset whose constraints the law has; "
                        r"got 'pareto\(24, 3\)'"),
    ("no_such_family", [24], r"`preset.family` of `from_json` must be a preset of the catalogue"),
    ("pareto", [24], r"`preset.arguments` of `from_json` must be 2 arguments \(kappa0, alpha\)"),
], ids=["other-family", "other-arguments", "unknown-family", "wrong-count"])
def test_a_preset_label_that_is_not_the_law_is_refused(family, arguments, message):
    document = _document(families.pareto(24, 2))
    document["preset"] = {"family": family, "arguments": [to_tree(a) for a in arguments]}
    with pytest.raises(ExportError, match=message):
        from_json(json.dumps(document))


def test_qualities_with_q0_above_q1_are_refused():
    document = _document(mu.QualityUtility("q*exp(-t)", q0=0, q1=1))
    document["q0"], document["q1"] = document["q1"], document["q0"]
    with pytest.raises(ExportError, match=r"^`q1` of `from_json` must be greater than `q0` = 1 \(qualities lie "
                                          r"in \[q0, q1\]\); got '0'\."):
        from_json(json.dumps(document))


@pytest.mark.parametrize("obj", [
    families.pareto(24, 2), families.piecewise(24, 12, 0.3), families.log_normal(24, 0.5).utility(),
    families.symbolic_preset("generalized_log_laplace").utility(), mu.QualityUtility("q*exp(-t)", q0=0, q1=1),
], ids=["pareto", "piecewise", "log-normal-utility", "symbolic-utility", "quality"])
def test_documents_written_by_to_json_still_read_back(obj):
    back = from_json(to_json(obj))
    assert to_json(back) == to_json(obj)
