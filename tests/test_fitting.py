"""fit_captime (maxent_util.fitting): the captime law learned from waiting times.

References: without censoring, scipy.stats' own fits of the same families (expon, lognorm,
pareto, gamma with the location fixed at 0) and a direct maximisation of scipy.stats.truncexpon's
log-likelihood; with censoring, lifelines' ExponentialFitter and LogNormalFitter, the closed-form
estimates of the exponential and Pareto laws (derived by hand below), and a direct maximisation of
scipy.stats.gamma's logpdf/logsf.  Interval coverage by a small seeded simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from maxent_util import CaptimeDistribution, fit_captime, score
from maxent_util.errors import DataError, MaxEntError
from maxent_util.export import from_json, to_json, to_latex

lifelines = pytest.importorskip("lifelines")


def censored_sample(draw, n: int, seed: int, follow_up: float) -> tuple[np.ndarray, np.ndarray]:
    """Captimes drawn by ``draw(rng, n)``, censored by independent exponential answer times."""
    rng = np.random.default_rng(seed)
    captimes = draw(rng, n)
    answers = rng.exponential(follow_up, n)
    return np.minimum(captimes, answers), captimes > answers


def lognormal_times(rng, n):
    return rng.lognormal(math.log(300.0), 1.0, n)


# ---------------------------------------------------------------------------
# without censoring: scipy.stats' fits of the same families


def test_mean_on_the_half_line_is_scipys_exponential_fit() -> None:
    times = np.random.default_rng(0).exponential(60.0, 150)
    loc, scale = stats.expon.fit(times, floc=0)
    model = fit_captime(times, kinds=("mean",)).models[("mean",)]
    assert model.family == "exponential"
    assert model.parameters["rate"] == pytest.approx(1 / scale, rel=1e-12)
    assert model.loglik == pytest.approx(stats.expon.logpdf(times, loc, scale).sum(), rel=1e-12)


def test_log_and_log2_is_scipys_lognormal_fit() -> None:
    times = lognormal_times(np.random.default_rng(1), 150)
    sigma, loc, scale = stats.lognorm.fit(times, floc=0)
    model = fit_captime(times, kinds=("log", "log2")).models[("log", "log2")]
    assert model.parameters["mu"] == pytest.approx(math.log(scale), rel=1e-10)
    assert model.parameters["sigma"] == pytest.approx(sigma, rel=1e-10)
    assert model.loglik == pytest.approx(stats.lognorm.logpdf(times, sigma, loc, scale).sum(), rel=1e-10)


def test_log_alone_is_scipys_pareto_fit_with_the_smallest_time_as_scale() -> None:
    times = (stats.pareto.rvs(1.7, size=150, random_state=np.random.default_rng(2)) * 20.0)
    alpha, loc, scale = stats.pareto.fit(times, floc=0)
    fit = fit_captime(times, kinds="log")
    model = fit.models[("log",)]
    assert model.support == (pytest.approx(scale, rel=1e-12), math.inf)
    assert model.parameters["alpha"] == pytest.approx(alpha, rel=1e-10)
    assert model.n_parameters == 2  # the scale is fitted from the data too
    assert model.loglik == pytest.approx(stats.pareto.logpdf(times, alpha, loc, scale).sum(), rel=1e-10)


def test_mean_and_log_is_scipys_gamma_fit() -> None:
    times = np.random.default_rng(3).gamma(2.5, 40.0, 200)
    shape, loc, scale = stats.gamma.fit(times, floc=0)
    model = fit_captime(times, kinds=("mean", "log")).models[("mean", "log")]
    assert model.parameters["shape"] == pytest.approx(shape, rel=1e-5)
    assert model.parameters["rate"] == pytest.approx(1 / scale, rel=1e-5)
    assert model.loglik >= stats.gamma.logpdf(times, shape, loc, scale).sum() - 1e-8


def test_log_below_and_above_is_scipys_asymmetric_laplace_of_the_log() -> None:
    # scipy.stats.laplace_asymmetric(k, loc, scale) of log kappa: alpha = k / scale above the
    # location, beta = 1 / (k scale) below it; the density of kappa divides by kappa
    logs = stats.laplace_asymmetric.rvs(1.5, math.log(200.0), 0.7, size=200,
                                        random_state=np.random.default_rng(16))
    k, loc, scale = stats.laplace_asymmetric.fit(logs)
    fit = fit_captime(np.exp(logs), kinds=("log_below", "log_above"))
    model = fit.models[("log_below", "log_above")]
    assert model.family == "log-Laplace" and model.n_parameters == 3
    assert model.parameters["kappa0"] == pytest.approx(math.exp(loc), rel=1e-4)
    assert model.parameters["alpha"] == pytest.approx(k / scale, rel=1e-4)
    assert model.parameters["beta"] == pytest.approx(1 / (k * scale), rel=1e-4)
    reference = stats.laplace_asymmetric.logpdf(logs, k, loc, scale).sum() - logs.sum()
    assert model.loglik >= reference - 1e-7  # scipy's simplex stops near the same maximum
    # the law is the paper's generalized log-Laplace preset at the fitted values
    law = fit.law
    assert law.preset == ("generalized_log_laplace",
                          (model.parameters["kappa0"], model.parameters["alpha"], model.parameters["beta"]))
    for runtime in (50.0, 200.0, 900.0):
        expected = stats.laplace_asymmetric.sf(math.log(runtime), model.parameters["alpha"] / (
            math.sqrt(model.parameters["alpha"] * model.parameters["beta"])), math.log(
            model.parameters["kappa0"]), 1 / math.sqrt(model.parameters["alpha"] * model.parameters["beta"]))
        assert float(law.utility()(runtime)) == pytest.approx(expected, rel=1e-9)


def test_mean_on_a_bounded_support_is_the_truncated_exponential() -> None:
    upper = 300.0
    rng = np.random.default_rng(4)
    times = rng.exponential(120.0, 400)
    times = times[times <= upper][:150]

    def negative(scale):  # scipy's truncexpon on [0, upper] is b = upper / scale
        return -stats.truncexpon.logpdf(times, upper / scale, 0, scale).sum()

    scale = optimize.minimize_scalar(negative, bounds=(1.0, 1e4), method="bounded",
                                     options={"xatol": 1e-9}).x
    fit = fit_captime(times, kinds="mean", support=(0, upper))
    model = fit.models[("mean",)]
    assert model.parameters["rate"] == pytest.approx(1 / scale, rel=1e-5)
    assert model.loglik == pytest.approx(-negative(scale), abs=1e-7)
    # without censoring the maximum-entropy law has the sample's mean (the moment equation)
    law = fit.law
    assert float(law.constraints[1].value) == pytest.approx(times.mean(), rel=1e-6)


# ---------------------------------------------------------------------------
# with censoring: lifelines and closed forms


def test_censored_exponential_agrees_with_lifelines_and_the_closed_form() -> None:
    times, censored = censored_sample(lambda rng, n: rng.exponential(200.0, n), 200, 5, 300.0)
    assert 40 < censored.sum() < 160
    model = fit_captime(times, censored, kinds="mean").models[("mean",)]
    reference = lifelines.ExponentialFitter().fit(times, event_observed=~censored)
    # by hand: loglik = d log(rate) - rate * (sum of all times), maximal at d / sum
    assert model.parameters["rate"] == pytest.approx((~censored).sum() / times.sum(), rel=1e-12)
    assert model.parameters["rate"] == pytest.approx(1 / reference.lambda_, rel=1e-6)
    assert model.loglik == pytest.approx(reference.log_likelihood_, abs=1e-6)


def test_censored_lognormal_agrees_with_lifelines() -> None:
    times, censored = censored_sample(lognormal_times, 200, 6, 600.0)
    assert 40 < censored.sum() < 160
    model = fit_captime(times, censored, kinds=("log", "log2")).models[("log", "log2")]
    reference = lifelines.LogNormalFitter().fit(times, event_observed=~censored)
    assert model.parameters["mu"] == pytest.approx(reference.mu_, rel=1e-5)
    assert model.parameters["sigma"] == pytest.approx(reference.sigma_, rel=1e-4)
    # ours is the higher maximum (lifelines stops at its own tolerance)
    assert model.loglik >= reference.log_likelihood_ - 1e-7
    assert model.loglik == pytest.approx(reference.log_likelihood_, abs=1e-5)


def test_censored_pareto_is_the_closed_form() -> None:
    times, censored = censored_sample(
        lambda rng, n: 20.0 * stats.pareto.rvs(1.5, size=n, random_state=rng), 200, 7, 200.0)
    lower = times[~censored].min()
    model = fit_captime(times, censored, kinds="log").models[("log",)]
    # by hand: loglik = d log(alpha) - alpha * sum log(t / lower) over every time above lower
    # (censored times below lower add log 1) - sum over events of log t, maximal at d / sum
    exposure = np.log(np.maximum(times, lower) / lower).sum()
    assert model.support[0] == lower
    assert model.parameters["alpha"] == pytest.approx((~censored).sum() / exposure, rel=1e-12)


def test_censored_log_laplace_agrees_with_scipys_logpdf_and_logsf() -> None:
    logs = stats.laplace_asymmetric.rvs(1.5, math.log(200.0), 0.7, size=100,
                                        random_state=np.random.default_rng(17))
    answers = np.random.default_rng(18).exponential(600.0, 100)
    times, censored = np.minimum(np.exp(logs), answers), np.exp(logs) > answers
    y = np.log(times)

    def negative(v):  # (log kappa0, log k, log scale) through scipy.stats of log kappa
        loc, k, scale = v[0], math.exp(v[1]), math.exp(v[2])
        return -(stats.laplace_asymmetric.logpdf(y[~censored], k, loc, scale).sum() - y[~censored].sum()
                 + stats.laplace_asymmetric.logsf(y[censored], k, loc, scale).sum())

    model = fit_captime(times, censored, kinds=("log_below", "log_above")).models[("log_below", "log_above")]
    alpha, beta = model.parameters["alpha"], model.parameters["beta"]
    ours = [math.log(model.parameters["kappa0"]), 0.5 * math.log(alpha / beta), -0.5 * math.log(alpha * beta)]
    assert -negative(ours) == pytest.approx(model.loglik, abs=1e-8)  # the same likelihood
    # a simplex from three starts around the answer finds nothing higher
    for shift in (-0.2, 0.2):
        best = optimize.minimize(negative, np.array(ours) + shift, method="Nelder-Mead",
                                 options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 4000})
        assert -best.fun <= model.loglik + 1e-6


def test_censored_gamma_agrees_with_scipys_logpdf_and_logsf() -> None:
    times, censored = censored_sample(lambda rng, n: rng.gamma(2.0, 50.0, n), 200, 8, 200.0)

    def negative(u):
        shape, scale = np.exp(u)
        return -(stats.gamma.logpdf(times[~censored], shape, 0, scale).sum()
                 + stats.gamma.logsf(times[censored], shape, 0, scale).sum())

    best = optimize.minimize(negative, [0.5, 4.0], method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000})
    model = fit_captime(times, censored, kinds=("mean", "log")).models[("mean", "log")]
    assert model.parameters["shape"] == pytest.approx(math.exp(best.x[0]), rel=1e-5)
    assert model.parameters["rate"] == pytest.approx(math.exp(-best.x[1]), rel=1e-5)
    assert model.loglik == pytest.approx(-best.fun, abs=1e-7)


# ---------------------------------------------------------------------------
# intervals


def test_profile_interval_ends_sit_at_the_chi_square_quantile() -> None:
    times, censored = censored_sample(lognormal_times, 120, 9, 600.0)
    fit = fit_captime(times, censored, kinds=[("mean",), ("log", "log2")])
    rate = fit.models[("mean",)]
    d, exposure = (~censored).sum(), times.sum()

    def loglik(value):  # the censored exponential's log-likelihood, by hand
        return d * math.log(value) - value * exposure

    for end in rate.intervals["rate"]:
        assert 2 * (rate.loglik - loglik(end)) == pytest.approx(stats.chi2.ppf(0.95, 1), rel=1e-6)
    mu, sigma = (fit.models[("log", "log2")].intervals[name] for name in ("mu", "sigma"))
    estimate = fit.models[("log", "log2")].parameters
    assert mu[0] < estimate["mu"] < mu[1] and 0 < sigma[0] < estimate["sigma"] < sigma[1]


def test_profile_intervals_cover_at_their_level() -> None:
    # 100 seeded samples of 30 censored exponential captimes: the 95% interval should hold the
    # true rate in about 95 (binomial sd 2.2; the band is 3 sd below, and at most 99 above: an
    # interval that always covers is too wide)
    true_rate = 1 / 100.0
    covered = 0
    rng = np.random.default_rng(10)
    for _ in range(100):
        captimes, answers = rng.exponential(100.0, 30), rng.exponential(150.0, 30)
        times, censored = np.minimum(captimes, answers), captimes > answers
        if censored.all():
            continue
        low, high = fit_captime(times, censored, kinds="mean").models[("mean",)].intervals["rate"]
        covered += low <= true_rate <= high
    assert 88 <= covered <= 99


# ---------------------------------------------------------------------------
# the choice between kind sets


def test_model_choice_reports_every_kind_set_side_by_side() -> None:
    times, censored = censored_sample(lognormal_times, 150, 11, 600.0)
    fit = fit_captime(times, censored)
    table = fit.table
    assert set(table.index) == {"log+log2", "log_below+log_above", "mean+log", "mean", "log"}
    assert table.index[0] == "log+log2" and table["aic"].is_monotonic_increasing  # best first
    assert fit.chosen == ("log", "log2") and table.loc["log+log2", "chosen"]
    assert table.loc["log+log2", "delta"] == 0 and (table["delta"] >= 0).all()
    for kinds, model in fit.models.items():
        assert model.aic == pytest.approx(-2 * model.loglik + 2 * model.n_parameters)
        assert model.bic == pytest.approx(-2 * model.loglik + model.n_parameters * math.log(150))
    assert set(fit.estimates["parameter"]) == {"rate", "alpha", "beta", "kappa0", "mu", "sigma", "shape"}
    by_bic = fit_captime(times, censored, kinds=[("mean",), ("log", "log2")], criterion="bic")
    assert by_bic.chosen == ("log", "log2") and by_bic.criterion == "bic"


def test_cross_validation_chooses_and_reports_held_out_log_likelihood() -> None:
    times, censored = censored_sample(lognormal_times, 200, 12, 600.0)
    fit = fit_captime(times, censored, kinds=[("mean",), ("log", "log2")], criterion="cv", seed=3)
    table = fit.table
    assert "cv_loglik" in table.columns and fit.chosen == ("log", "log2")
    for model in fit.models.values():
        assert model.cv_loglik < model.loglik  # held-out records fit worse than the training ones
    # every kind set is scored on the same folds: alone or second, the same held-out sum
    alone = fit_captime(times, censored, kinds=("log", "log2"), criterion="cv", seed=3)
    assert alone.models[("log", "log2")].cv_loglik == fit.models[("log", "log2")].cv_loglik


def test_a_held_out_time_below_a_folds_pareto_scale_is_impossible() -> None:
    times = 10.0 * stats.pareto.rvs(2.0, size=60, random_state=np.random.default_rng(13))
    fit = fit_captime(times, kinds=[("log",), ("mean",)], criterion="cv")
    assert fit.models[("log",)].cv_loglik == -math.inf  # the fold holding the smallest time
    assert fit.chosen == ("mean",)


# ---------------------------------------------------------------------------
# the fitted law is an ordinary distribution


def test_the_fitted_law_is_an_ordinary_distribution_with_its_provenance(tmp_path) -> None:
    times, censored = censored_sample(lognormal_times, 200, 14, 600.0)
    fit = fit_captime(times, censored, kinds=[("mean",), ("log", "log2")])
    law = fit.law
    model = fit.models[fit.chosen]
    assert isinstance(law, CaptimeDistribution)
    # the utility is the fitted survival function: lognormal SF at the fitted mu, sigma
    u = law.utility()
    for runtime in (30.0, 300.0, 3000.0):
        expected = stats.lognorm.sf(runtime, model.parameters["sigma"], 0, math.exp(model.parameters["mu"]))
        assert float(u(runtime)) == pytest.approx(expected, rel=1e-9)
    assert 0 < score([10.0, 100.0, 1000.0], u).estimate < 1
    assert "\\log" in to_latex(law) or "log" in to_latex(law)
    assert from_json(to_json(u))(300.0) == pytest.approx(float(u(300.0)), rel=1e-12)
    provenance = fit.provenance
    assert provenance["n"] == 200 and provenance["censored"] == int(censored.sum())
    assert provenance["criterion"] == "aic" and len(provenance["sha256"]) == 64
    note = law.notes[-1]
    assert provenance["sha256"] in note and "200 waiting times" in note
    assert note.endswith("chosen by AIC among mean, log+log2")
    assert law.name == f"fit(log+log2, n=200, censored={int(censored.sum())})"


def test_the_provenance_survives_the_json_format() -> None:
    fit = fit_captime([5.0, 7.0, 30.0, 45.0, 12.0], [False, False, True, False, False], kinds="mean")
    document = to_json(fit.law)
    assert '"notes"' in document and fit.provenance["sha256"] in document
    again = from_json(document)
    assert again.notes == fit.law.notes and again.name == fit.law.name
    with pytest.raises(MaxEntError, match=r"`derivation.notes\[0\]` of `from_json` must be a "
                                          r"string of at most 1000 characters; got 7\."):
        from_json(document.replace('"notes": [', '"notes": [7, ', 1))


def test_the_data_hash_depends_on_times_and_flags() -> None:
    times = np.array([10.0, 20.0, 35.0, 60.0])
    first = fit_captime(times, [False, True, False, False], kinds="mean").provenance["sha256"]
    assert first == fit_captime(list(times), np.array([0, 1, 0, 0]), kinds="mean").provenance["sha256"]
    assert first != fit_captime(times, [False, False, True, False], kinds="mean").provenance["sha256"]


def test_a_censored_fit_on_a_bounded_support_is_derived_from_its_fitted_moments() -> None:
    times, censored = censored_sample(lambda rng, n: np.minimum(rng.exponential(100.0, n), 250.0),
                                      120, 15, 200.0)
    times = np.minimum(times, 249.0)
    fit = fit_captime(times, censored, kinds="mean", support=(0, 300))
    rate = fit.models[("mean",)].parameters["rate"]
    law = fit.law
    assert law.constraints[0].upper == 300 and not law.closed_form
    # the law's density is the truncated exponential at the fitted rate, by scipy.stats
    expected = stats.truncexpon.pdf(100.0, 300 * rate, 0, 1 / rate)
    assert float(law.to_scipy().pdf(100.0)) == pytest.approx(expected, rel=1e-8)
    assert fit.provenance["sha256"] in law.notes[-1]  # also on a law whose closed form came later


def test_law_of_names_the_fitted_kind_sets() -> None:
    fit = fit_captime([5.0, 7.0, 30.0, 45.0], kinds="mean")
    with pytest.raises(DataError, match=r"`kinds` of `CaptimeFit.law_of` must be one of the fitted "
                                        r"kind sets \(mean\); got 'log'\."):
        fit.law_of("log")


# ---------------------------------------------------------------------------
# refusals


@pytest.mark.parametrize(("arguments", "message"), [
    (([1.0, -2.0],), r"`times\[1\]` of `fit_captime` must be a finite nonnegative number of seconds; got -2.0\."),
    (([1.0, float("nan")],), r"`times\[1\]` of `fit_captime` must be a finite nonnegative .*got nan\."),
    (([1.0, float("inf")],), r"`times\[1\]` .* got inf\."),
    (([],), r"`times` of `fit_captime` must be non-empty"),
    (([1.0, True],), r"`times\[1\]` of `fit_captime` must be a number \(not True/False or text\)"),
    ((["3", "4"],), r"`times\[0\]` of `fit_captime` must be a number"),
    (([1.0, 2.0], [True]), r"`censored` of `fit_captime` must be of length 2 \(one flag per time\); got 1\."),
    (([1.0, 2.0], [True, "no"]), r"`censored\[1\]` of `fit_captime` must be True or False"),
    (([1.0, 2.0], [1, 2]), r"`censored\[1\]` of `fit_captime` must be True or False"),
    (([1.0, 2.0], "yes"), r"`censored` of `fit_captime` must be None or one True/False per time"),
    (([1.0, 2.0], [True, True]), r"`censored` of `fit_captime` must be False for at least one record"),
])
def test_bad_data_is_refused_naming_the_argument(arguments, message) -> None:
    with pytest.raises(DataError, match=message):
        fit_captime(*arguments)


@pytest.mark.parametrize(("options", "message"), [
    ({"kinds": "median"}, r"`kinds` of `fit_captime` must be made of the kinds mean, log, log2, log_below, "
                          r"log_above; got 'median'\."),
    ({"kinds": ("log2",)}, r"`kinds` of `fit_captime` must be one of the kind sets with a family: mean "
                           r"\(exponential\), .*; got \('log2',\)\."),
    ({"kinds": [("mean",), ("mean",)]}, r"kind sets each named once"),
    ({"kinds": 3}, r"`kinds` of `fit_captime` must be a kind set"),
    ({"support": (5, 2)}, r"`support` of `fit_captime` must be None or a pair \(lower, upper\)"),
    ({"support": "0,9"}, r"`support` of `fit_captime` must be None or a pair"),
    ({"support": (0, 20)}, r"`times\[2\]` of `fit_captime` must be within the support \[0, 20\]; got 30.0\."),
    ({"criterion": "likelihood"}, r"`criterion` of `fit_captime` must be one of 'aic', 'bic', 'cv'"),
    ({"level": 1.5}, r"`level` of `fit_captime` must be a confidence level"),
    ({"criterion": "cv", "folds": 9}, r"`folds` of `fit_captime` must be an integer from 2 to the number "
                                      r"of records \(4\); got 9\."),
    ({"seed": -1}, r"`seed` of `fit_captime` must be None, a nonnegative integer"),
])
def test_bad_options_are_refused_naming_the_argument(options, message) -> None:
    with pytest.raises(DataError, match=message):
        fit_captime([5.0, 7.0, 30.0, 45.0], **options)


def test_a_censored_time_beyond_the_support_is_refused() -> None:
    with pytest.raises(DataError, match=r"`times\[1\]` of `fit_captime` must be below the support's "
                                        r"upper end 10 .*; got 10.0\."):
        fit_captime([1.0, 10.0, 3.0], [False, True, False], support=(0, 10))


def test_data_no_kind_set_can_fit_is_refused_with_each_reason() -> None:
    with pytest.raises(DataError, match=r"`times` of `fit_captime` must be data with a maximum-likelihood "
                                        r"fit for at least one kind set; got \[7.0, 7.0, 7.0\]\. "
                                        r"log\+log2: no fit: 1 distinct time\(s\) cannot fix 2"):
        fit_captime([7.0, 7.0, 7.0], kinds=[("log", "log2"), ("log",)])


@pytest.mark.parametrize(("times", "censored", "options"), [
    ([0.0, 0.0], None, {"kinds": "mean"}),                          # the rate runs to infinity
    ([10.0, 10.0, 10.0], None, {"kinds": "mean", "support": (0, 10)}),  # every time at the upper end
    ([5.0, 5.0], None, {"kinds": "log", "support": (5, 100)}),      # every time at the lower end
])
def test_a_likelihood_without_a_maximum_is_refused(times, censored, options) -> None:
    with pytest.raises(DataError, match=r"no fit: the likelihood keeps growing toward the edge of the "
                                        r"parameters' domain"):
        fit_captime(times, censored, **options)


@pytest.mark.parametrize("kinds", [("log", "log2"), ("mean", "log"), ("log_below", "log_above")])
def test_one_repeated_captime_without_a_censored_time_beyond_it_has_no_fit(kinds) -> None:
    # a law ever more concentrated at the captime 1 gives it an unbounded density, and the censored
    # time 0.5 below it costs nothing: no maximum (once a raw ValueError from the profile's brentq)
    fit = fit_captime([0.5, 1.0, 1.0], [True, False, False], kinds=[kinds, ("mean",)])
    assert fit.models[kinds].note.startswith("no fit: ") and not fit.models[kinds].fitted
    assert fit.chosen == ("mean",)
    # a censored time beyond the captime bounds the likelihood: by hand, the log-normal law's
    # log-likelihood 2 log f(1) + log S(3) is maximal where scipy.optimize finds it
    model = fit_captime([1.0, 1.0, 3.0], [False, False, True], kinds=("log", "log2")).models[("log", "log2")]

    def negative(v):
        return -(2 * stats.lognorm.logpdf(1.0, math.exp(v[1]), 0, math.exp(v[0]))
                 + stats.lognorm.logsf(3.0, math.exp(v[1]), 0, math.exp(v[0])))

    best = optimize.minimize(negative, [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12})
    assert model.loglik == pytest.approx(-best.fun, abs=1e-8)
    assert model.loglik >= -best.fun - 1e-10


def test_one_captime_with_censored_records_has_a_fit() -> None:
    # by hand: the exponential's rate is d / (sum of all times) = 1/3; the Pareto law starts at the
    # one captime, 1, and its alpha is d / sum log(t / 1) = 1 / log 8
    assert fit_captime([0.0, 3.0], [False, True], kinds="mean").models[("mean",)].parameters["rate"] \
        == pytest.approx(1 / 3, rel=1e-12)
    pareto_fit = fit_captime([1.0, 2.0, 4.0], [False, True, True], kinds="log").models[("log",)]
    assert pareto_fit.parameters["alpha"] == pytest.approx(1 / math.log(8), rel=1e-12)


def test_a_log_laplace_search_past_the_range_of_a_double_is_not_an_error() -> None:
    # found by hypothesis: the profile of alpha moved kappa0 to exp(-700), below the smallest double
    fit = fit_captime([1e-300, 315787.9507084438, 5.00924813209018e+82], kinds=("log_below", "log_above"))
    model = fit.models[("log_below", "log_above")]
    assert math.isfinite(model.loglik) and all(low <= high for low, high in model.intervals.values())


def test_a_kind_set_without_a_fit_is_reported_not_chosen() -> None:
    fit = fit_captime([0.0, 3.0, 9.0, 20.0])  # a captime of 0 has no log
    assert fit.chosen == ("mean",)
    assert fit.models[("log", "log2")].note == "no fit: a captime of 0 has no log"
    assert fit.table.loc["log+log2", "aic"] == math.inf


# ---------------------------------------------------------------------------
# properties


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
times_strategy = st.lists(st.one_of(st.floats(min_value=0, max_value=1e6), st.floats(allow_nan=True),
                                    st.sampled_from([0.0, 1.0, 1e-300, 1e300])), min_size=0, max_size=12)


@SETTINGS
@given(times=times_strategy, flags=st.one_of(st.none(), st.lists(st.booleans(), max_size=12)),
       kinds=st.sampled_from(["mean", "log", ("log", "log2"), ("log_below", "log_above"), None]))
def test_any_data_fits_or_is_refused_cleanly(times, flags, kinds) -> None:
    try:
        fit = fit_captime(times, flags, kinds=kinds)
    except MaxEntError:
        return
    chosen = fit.models[fit.chosen]
    assert math.isfinite(chosen.loglik) and all(math.isfinite(v) for v in chosen.parameters.values())
    for low, high in chosen.intervals.values():
        assert low <= high and not (math.isnan(low) or math.isnan(high))


# ---------------------------------------------------------------------------
# reading a log


def test_waiting_times_are_read_from_a_csv_file(tmp_path) -> None:
    from maxent_util.fitting import read_waiting_times

    path = tmp_path / "waits.csv"
    path.write_text("user,waited,still_waiting\na,12.5,0\nb,239.87959650981142,TRUE\nc,40,no\n")
    times, censored = read_waiting_times(path, "waited", "still_waiting")
    # the nearest double to every cell (pandas' to_numeric gives 239.87959650981145 here)
    assert times.tolist() == [12.5, 239.87959650981142, 40.0] and censored.tolist() == [False, True, False]
    times, censored = read_waiting_times(path, "waited")
    assert censored is None
    with pytest.raises(DataError, match=r"`column` of `read_waiting_times` must be a column of .*waits.csv "
                                        r"\('user', 'waited', 'still_waiting'\); got 'wait'\."):
        read_waiting_times(path, "wait")
    path.write_text("waited,still_waiting\n12.5,0\n-3,1\n")
    with pytest.raises(DataError, match=r"`waited` of `.*waits.csv, data row 2` must be a finite "
                                        r"nonnegative number of seconds or a duration with units "
                                        r"\(such as 1201, 1201s, 20 min\); got '-3'\."):
        read_waiting_times(path, "waited", "still_waiting")
    path.write_text("waited,still_waiting\n12.5,\n")
    with pytest.raises(DataError, match=r"`still_waiting` of `.*waits.csv, data row 1` must be a censoring "
                                        r"flag: .*; got ''\. An empty cell is read only where empty_flag"):
        read_waiting_times(path, "waited", "still_waiting")
    path.write_text("waited,still_waiting\n12.5,maybe\n")
    with pytest.raises(DataError, match=r"`still_waiting` of `.*waits.csv, data row 1` must be a censoring "
                                        r"flag: 1, true, yes \(still waiting\) or 0, false, no; got 'maybe'\."):
        read_waiting_times(path, "waited", "still_waiting")


# ---------------------------------------------------------------------------
# a nested family's fit is never below the family it nests

FEW = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_log_laplace_supremum_on_its_boundary_is_the_pareto_fit() -> None:
    # Pareto data: the log-Laplace likelihood grows as beta -> inf with kappa0 at the smallest
    # captime, toward the Pareto law; an optimiser once stopped at beta = 998, 0.78 below it
    times = 5 * (1 + np.random.default_rng(0).pareto(1.5, 400))
    fit = fit_captime(times, kinds=[("log",), ("log_below", "log_above")])
    pareto_fit, laplace = fit.models[("log",)], fit.models[("log_below", "log_above")]
    # by hand: the Pareto law's maximum from the smallest time, alpha = n / sum log(t / min t)
    alpha = times.size / np.log(times / times.min()).sum()
    assert pareto_fit.parameters["alpha"] == pytest.approx(alpha, rel=1e-12)
    reference = stats.pareto.logpdf(times, alpha, 0, times.min()).sum()
    assert laplace.loglik == pytest.approx(reference, rel=1e-12)
    assert laplace.loglik >= pareto_fit.loglik - 1e-9 * abs(pareto_fit.loglik)
    assert laplace.note.startswith("on the boundary: the likelihood grows as beta -> inf")
    assert laplace.family == "Pareto" and laplace.support == (times.min(), math.inf)
    assert laplace.n_parameters == 3 and laplace.fitted  # still the three-parameter model
    assert fit.chosen == ("log",)  # the same likelihood with one parameter fewer
    law = fit.law_of(("log_below", "log_above"))
    assert law.preset[0] == "pareto" and float(law.preset[1][0]) == pytest.approx(times.min(), rel=1e-12)
    assert "on the boundary" in law.notes[-1]


def test_the_other_boundary_is_the_power_law_up_to_the_largest_time() -> None:
    # power-law data on (0, 50]: alpha -> inf empties the side above kappa0
    times = 50 * np.random.default_rng(3).power(2.0, 300)
    model = fit_captime(times, kinds=("log_below", "log_above")).models[("log_below", "log_above")]
    # by hand: f = beta t**(beta - 1) / u**beta on (0, u], u the largest time, beta = n / sum log(u / t)
    u = times.max()
    beta = times.size / np.log(u / times).sum()
    reference = (np.log(beta) + (beta - 1) * np.log(times) - beta * np.log(u)).sum()
    assert model.note.startswith("on the boundary: the likelihood grows as alpha -> inf")
    assert model.family == "power law" and model.support == (0.0, u)
    assert model.loglik == pytest.approx(reference, rel=1e-10)


@FEW
@given(alpha=st.floats(0.3, 5.0), scale=st.floats(1e-3, 1e5), n=st.integers(3, 40),
       seed=st.integers(0, 2**32 - 1), follow_up=st.one_of(st.none(), st.floats(0.5, 20.0)))
def test_a_log_laplace_fit_is_never_below_the_pareto_fit(alpha, scale, n, seed, follow_up) -> None:
    # samples from the nested law (the Pareto), censored by exponential answer times or not
    rng = np.random.default_rng(seed)
    captimes = scale * (1 + rng.pareto(alpha, n))
    censored = None
    if follow_up is not None:
        answers = scale * (1 + rng.exponential(follow_up, n))
        captimes, censored = np.minimum(captimes, answers), captimes > answers
        if censored.all():
            return
    try:
        fit = fit_captime(captimes, censored, kinds=[("log",), ("log_below", "log_above")])
    except DataError:
        return
    pareto_fit, laplace = fit.models[("log",)], fit.models[("log_below", "log_above")]
    if pareto_fit.fitted:
        assert laplace.fitted
        assert laplace.loglik >= pareto_fit.loglik - 1e-9 * max(1.0, abs(pareto_fit.loglik))


@FEW
@given(mean=st.floats(1e-2, 1e4), n=st.integers(3, 40), seed=st.integers(0, 2**32 - 1),
       follow_up=st.one_of(st.none(), st.floats(0.2, 5.0)))
def test_a_gamma_fit_is_never_below_the_exponential_fit(mean, n, seed, follow_up) -> None:
    # samples from the nested law (the exponential: the gamma law of shape 1)
    rng = np.random.default_rng(seed)
    captimes = rng.exponential(mean, n)
    censored = None
    if follow_up is not None:
        answers = rng.exponential(mean * follow_up, n)
        captimes, censored = np.minimum(captimes, answers), captimes > answers
        if censored.all():
            return
    fit = fit_captime(captimes, censored, kinds=[("mean",), ("mean", "log")])
    exponential, gamma = fit.models[("mean",)], fit.models[("mean", "log")]
    if gamma.fitted:
        assert gamma.loglik >= exponential.loglik - 1e-9 * max(1.0, abs(exponential.loglik))


# ---------------------------------------------------------------------------
# the unit of time changes nothing but the units


@FEW
@given(exponent=st.integers(-300, 300), seed=st.integers(0, 2**32 - 1), censoring=st.booleans())
def test_a_fit_in_another_unit_of_time_is_the_same_fit(exponent, seed, censoring) -> None:
    # times c * t: rates / c, mu + log c, kappa0 and support ends * c, exponents unchanged, and
    # each captime's log-density log c lower (the density of c t is f(t / c) / c)
    rng = np.random.default_rng(seed)
    times = rng.lognormal(0.0, 1.0, 30)
    censored = rng.random(30) < 0.3 if censoring else np.zeros(30, bool)
    c = 10.0 ** exponent
    kinds = [("mean",), ("log", "log2"), ("mean", "log")]
    here, there = fit_captime(times, censored, kinds=kinds), fit_captime(times * c, censored, kinds=kinds)
    shift = (~censored).sum() * math.log(c)
    for key, model in here.models.items():
        other = there.models[key]
        assert other.loglik == pytest.approx(model.loglik - shift, rel=1e-7, abs=1e-7)
        for name, value in model.parameters.items():
            expected = {"rate": value / c, "mu": value + math.log(c)}.get(name, value)
            assert other.parameters[name] == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_times_near_the_ends_of_a_double_fit_or_are_refused_by_name() -> None:
    # fit_captime(1e-300 * (1, ..., 10)) once raised ZeroDivisionError in the gamma's start
    times = np.full(10, 1e-300) * np.arange(1, 11)
    fit = fit_captime(times)
    assert fit.models[("mean",)].parameters["rate"] == pytest.approx(1 / times.mean(), rel=1e-12)
    log_normal = fit.models[("log", "log2")].parameters  # by hand: the mean and sd of log t
    assert log_normal["mu"] == pytest.approx(np.log(times).mean(), rel=1e-12)
    assert log_normal["sigma"] == pytest.approx(np.log(times).std(), rel=1e-9)
    huge = fit_captime(np.full(10, 1e300) * np.arange(1, 11), kinds="mean")
    assert huge.models[("mean",)].parameters["rate"] == pytest.approx(1 / (5.5e300), rel=1e-12)
    # a rate of 1 / 2e-320 s is beyond a double: that kind set has no fit, said so
    tiny = fit_captime([1e-320, 2e-320, 3e-320], kinds=[("mean",), ("log", "log2")])
    assert tiny.models[("mean",)].note == ("no fit: a fitted parameter in seconds lies beyond the "
                                           "range of a double")
    assert tiny.chosen == ("log", "log2")
    with pytest.raises(DataError, match=r"`times\[0\]` of `fit_captime` must be at most 1e289 times the "
                                        r"median time .* and at least its 1e-308th .*; got 1e-300\."):
        fit_captime([1e-300, 1e300, 2e300])
    with pytest.raises(DataError, match=r"`times\[3\]` .*; got 7e\+299\."):  # a sum of times overflowed
        fit_captime([1e-8, 3e-301, 3e-301, 7e299, 7e299], kinds="mean")


def test_waiting_times_take_units_and_empty_flags_when_told(tmp_path) -> None:
    from maxent_util.fitting import read_waiting_times

    path = tmp_path / "waits.csv"
    path.write_text("waited,still_waiting\n1201s,0\n20 min,1\n1h30min,\n12.5, YES\n")
    times, censored = read_waiting_times(path, "waited", "still_waiting", empty_flag="no")
    assert times.tolist() == [1201.0, 1200.0, 5400.0, 12.5]
    assert censored.tolist() == [False, True, False, True]
    assert read_waiting_times(path, "waited", "still_waiting", empty_flag="1")[1].tolist() == [
        False, True, True, True]
    for cell in ("\uff11\uff12", "12 parsecs", "-5s", "1e400s"):  # full-width digits are not read as 12
        path.write_text(f"waited\n{cell}\n")
        with pytest.raises(DataError, match=r"`waited` of `.*, data row 1` must be a finite nonnegative"):
            read_waiting_times(path, "waited")


@pytest.mark.parametrize(("arguments", "message"), [
    ((None,), r"`column` of `read_waiting_times` must be a column name \(str\); got None\."),
    (("waited", 3), r"`censored_column` of `read_waiting_times` must be a column name \(str\) or None; got 3\."),
    (("waited", "flag", "maybe"), r"`empty_flag` of `read_waiting_times` must be None or a censoring flag "
                                  r"\(1, true, yes, 0, false, no\); got 'maybe'\."),
])
def test_reading_arguments_are_refused_by_name(tmp_path, arguments, message) -> None:
    from maxent_util.fitting import read_waiting_times

    path = tmp_path / "waits.csv"
    path.write_text("waited,flag\n10,0\n")
    column, *rest = arguments
    options = {"empty_flag": rest[1]} if len(rest) > 1 else {}
    with pytest.raises(DataError, match=message):
        read_waiting_times(path, column, *rest[:1], **options)


# ---------------------------------------------------------------------------
# the likelihood from sufficient statistics


@FEW
@given(seed=st.integers(0, 2**32 - 1), n_events=st.integers(1, 30), n_censored=st.integers(0, 30),
       kappa0=st.floats(0.05, 50.0), a=st.floats(0.2, 5.0), b=st.floats(0.2, 5.0))
def test_the_likelihood_from_sums_is_the_likelihood_record_by_record(seed, n_events, n_censored,
                                                                     kappa0, a, b) -> None:
    # the reference: every record's log f or log S from the families' closed forms, summed; the
    # gradients against central differences of that sum
    from maxent_util.fitting.closed_forms import Exponential, Gamma, LogLaplace, LogNormal, Power
    from maxent_util.fitting.likelihood import Data

    rng = np.random.default_rng(seed)
    data = Data(rng.lognormal(1.0, 1.0, n_events), rng.lognormal(1.0, 1.0, n_censored))
    low, high = data.event_range
    cases = [(Exponential(0.0, math.inf), {"rate": a}), (Exponential(0.0, 2 * high), {"rate": a - b}),
             (Power(low, math.inf), {"alpha": a}), (Power(0.0, high), {"alpha": -b}),
             (LogNormal(0.0, math.inf), {"mu": a, "sigma": b}),
             (LogNormal(low / 2, 2 * high), {"mu": a, "sigma": b}),
             (Gamma(0.0, math.inf), {"shape": a, "rate": b}), (LogLaplace(0.0, math.inf, kappa0), {"alpha": a, "beta": b})]

    def by_record(family, p):
        return float(np.sum(family.logpdf(data.events, p)) + np.sum(family.logsf(data.censored, p)))

    for family, p in cases:
        assert family.holds(data)
        expected = by_record(family, p)
        assert family.loglik(data, p) == pytest.approx(expected, rel=1e-11, abs=1e-9)
        if family.analytic_gradient:
            u, h = family.internal(p), 1e-5
            slopes = [(by_record(family, family.values(u + h * e)) - by_record(family, family.values(u - h * e)))
                      / (2 * h) for e in np.eye(u.size)]
            assert family.gradient(data, u) == pytest.approx(slopes, rel=1e-5, abs=1e-5)
