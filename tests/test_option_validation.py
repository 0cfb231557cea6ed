"""Odd values for the public functions' numeric options raise maxent_util errors.

Found by throwing strings, NaN, infinities, bools, None, huge and negative numbers at each
public function's keyword options (hypothesis); before the fixes these raised raw
TypeError/UFuncTypeError/OverflowError, or read None and text as numbers.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util import Support, cap_runs, compile_scorer, derive, parse_utility, plot_utilities
from maxent_util._timing import check_timeout
from maxent_util.symbols import kappa
from maxent_util.errors import ConstraintError, DataError, MaxEntError, UtilityError


ODD = st.one_of(
    st.sampled_from(["x", "", "1", None, True, False, 1 + 2j, [3], {}, b"1", 10 ** 400, -10 ** 400,
                     math.nan, math.inf, -math.inf, 0, -0.0, -1]),
    st.floats(allow_nan=True, allow_infinity=True), st.integers(max_value=1))


def _positive_float(value) -> bool:
    """Whether ``value`` is a positive, finite float or int (not a bool) within the float range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value)) and value > 0
    except OverflowError:
        return False


def _runs() -> pd.DataFrame:
    return pd.DataFrame({"algorithm": ["a", "a"], "instance": ["i", "j"], "runtime": [12.0, 700.0],
                         "status": ["solved", "capped"], "cutoff": 1000.0})


@settings(max_examples=60, deadline=None)
@given(points=st.one_of(ODD, st.floats(min_value=2, max_value=100), st.integers(min_value=10 ** 7)))
def test_plot_utilities_points_must_be_a_whole_number(points):
    # Valid: an int (not a bool) from 2 to 1,000,000; everything drawn here is outside that.
    with pytest.raises(UtilityError, match=r"^`points` of `plot_utilities` must be a whole number "
                                           r"from 2 to 1,000,000; got "):
        plot_utilities(["pareto(5, 3)"], t_max=10, points=points)


@settings(max_examples=40, deadline=None)
@given(t_max=ODD.filter(lambda v: v is not None and not _positive_float(v)))
def test_plot_utilities_t_max_must_be_positive(t_max):
    with pytest.raises(UtilityError, match=r"^`t_max` of `plot_utilities` must be a positive number"):
        plot_utilities(["pareto(5, 3)"], t_max=t_max, points=11)


@pytest.mark.parametrize("log_x", ["no", 1, None])
def test_plot_utilities_log_x_must_be_a_bool(log_x):
    with pytest.raises(UtilityError, match=r"^`log_x` of `plot_utilities` must be True or False"):
        plot_utilities(["pareto(5, 3)"], t_max=10, points=11, log_x=log_x)


def test_plot_utilities_still_draws_its_points():
    figure = plot_utilities(["pareto(5, 3)"], t_max=10, points=np.int64(7), log_x=np.bool_(False))
    # 7 evenly spaced runtimes from 0 to 10, as numpy.linspace gives them
    np.testing.assert_allclose(figure.axes[0].get_lines()[0].get_xdata(), np.linspace(0, 10, 7))


@pytest.mark.parametrize("t_max", [1e-300, 2e-281, 2e300, 1e308, 1.7976931348623157e308])
def test_plot_utilities_t_max_beyond_what_an_axis_draws_is_refused(t_max):
    # matplotlib overflows adding its margins to an axis near 1e308 s (a RuntimeWarning drawn by
    # hypothesis above) and widens one shorter than about 1e-287 s to (-0.05, 0.05)
    with pytest.raises(UtilityError, match=r"^`t_max` of `plot_utilities` must be a positive number "
                                           r"from 1e-280 to 1e300; got "):
        plot_utilities(["pareto(5, 3)"], t_max=t_max, points=11)


@pytest.mark.parametrize("log_x", [False, True])
@pytest.mark.parametrize("t_max", [1e-280, 1e300])
def test_plot_utilities_draws_the_axis_asked_at_the_ends_of_its_range(t_max, log_x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = plot_utilities(["pareto(5, 3)"], t_max=t_max, points=11, log_x=log_x)
        figure.canvas.draw()
    runtimes = figure.axes[0].get_lines()[0].get_xdata()
    assert (runtimes[0], runtimes[-1]) == pytest.approx((t_max / 1e4 if log_x else 0.0, t_max), rel=1e-12)
    low, high = figure.axes[0].get_xlim()
    # the axis holds the runtimes, with at most a margin of its own (not a range of its own)
    assert low <= runtimes[0] and t_max <= high <= (1.6 if log_x else 1.0) * t_max
    assert low >= (runtimes[0] / 1.6 if log_x else 0.0)


def test_a_preset_at_a_scale_near_the_largest_double_reads_without_a_warning():
    # the feature's range was checked on a grid that ran to 1e305 * 1e300 = inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utility = parse_utility("pareto(1e305, 1)")
        assert float(utility(2e305)) == pytest.approx(0.5)  # (k/t)**alpha above k, by hand


@settings(max_examples=40, deadline=None)
@given(cutoff=ODD.filter(lambda v: not _positive_float(v)))
def test_cap_runs_cutoff_must_be_a_positive_number(cutoff):
    with pytest.raises(DataError, match=r"^`cutoff` of `cap_runs` must be a positive finite number"):
        cap_runs(_runs(), cutoff)


@pytest.mark.parametrize("runtimes", [None, [1.0, None], "3", ["3"], b"3"])
def test_scorer_refuses_none_and_text(runtimes):
    # numpy reads None as NaN and "3" as 3.0; neither is a runtime given.
    utility = parse_utility("pareto(5, 3)")
    for function in (utility, compile_scorer(utility)):
        with pytest.raises(UtilityError, match=r"^`t` of `scorer of .*` must be real numbers"):
            function(runtimes)


@pytest.mark.parametrize("timeout", [1e300, 5e16, 10 ** 400])
def test_a_huge_timeout_is_no_limit(timeout):
    assert check_timeout(timeout) is None
    # the uniform law on [0, 10]: density 1/10 (by hand)
    assert float(derive(Support(0, 10), timeout=timeout).pdf.subs(kappa, 5)) == pytest.approx(0.1)


@pytest.mark.parametrize("timeout", [-10 ** 400, -1e300, math.nan, "1", True])
def test_a_bad_timeout_is_refused(timeout):
    with pytest.raises(ConstraintError, match=r"^`timeout` of `derive` must be None"):
        derive(Support(0, 10), timeout=timeout)


@settings(max_examples=30, deadline=None)
@given(value=ODD)
def test_odd_options_raise_only_maxent_errors(value):
    # Whatever the value, the answer is a result or a maxent_util error, never a raw one.
    for call in (lambda: plot_utilities(["pareto(5, 3)"], t_max=value, points=11),
                 lambda: cap_runs(_runs(), value), lambda: check_timeout(value)):
        try:
            call()
        except MaxEntError:
            pass
