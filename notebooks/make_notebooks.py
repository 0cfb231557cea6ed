"""Write the example notebooks (without outputs) from the cells below.

Run ``python notebooks/make_notebooks.py`` after editing a cell here; the
``.ipynb`` files are generated, so edit this script rather than the
notebooks, and keep them free of outputs in version control.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent


def md(text: str):
    return new_markdown_cell(text.strip("\n"))


def code(text: str):
    return new_code_cell(text.strip("\n"))


# ---------------------------------------------------------------------------
FAMILIES = [
    md(r"""
# Deriving the paper's seven utilities from constraints

A utility $u(t)$ says how much a run of length $t$ is worth. When the time
we will be given, the captime $\kappa$, is uncertain, the utility is the
probability that the captime is longer than the run: $u(t) = 1 - F_K(t)$
(Section 3 of *Formalizing Preferences Over Runtime Distributions*, ICML 2023).

We rarely know the captime distribution $K$, but we know *something* about it.
Maximum entropy turns that something into a distribution. Here we state what we
know as constraints, let `derive` find the maximum-entropy law symbolically, and
get the paper's seven utilities, none of them typed in by hand.
"""),
    code(r"""
import importlib.util

import matplotlib.pyplot as plt
import numpy as np
import sympy
from IPython.display import Math, Markdown, display

from maxent_util import (ContinuousAt, LogMoment, Mean, SquaredLogDeviation, Support,
                         TailProbability, derive, t)
"""),
    md(r"""
## What we know, as constraints

The parameters are symbols, so each derivation gives the whole family. Each row is
one statement about the captime from Section 3 (and the paper's Appendix C).
"""),
    code(r"""
kappa0, kappa1, alpha, beta, sigma, delta = sympy.symbols(
    "kappa0 kappa1 alpha beta sigma delta", positive=True)
oo = sympy.oo

constraint_sets = {
    # the captime is at most kappa0
    "uniform": (Support(0, kappa0),),
    # the captime is kappa0 on average
    "exponential": (Support(0, oo), Mean(kappa0)),
    # its order of magnitude above kappa0 is 1/alpha
    "Pareto": (Support(kappa0, oo), LogMoment(1 / alpha, kappa0)),
    # the same order of magnitude on both sides of kappa0, density continuous there
    "log-Laplace": (Support(0, oo), LogMoment(1 / alpha, kappa0, side="below"),
                    LogMoment(1 / alpha, kappa0, side="above"), ContinuousAt(kappa0)),
    # different orders of magnitude below (1/beta) and above (1/alpha)
    "generalized log-Laplace": (Support(0, oo), LogMoment(1 / beta, kappa0, side="below"),
                                LogMoment(1 / alpha, kappa0, side="above"), ContinuousAt(kappa0)),
    # centred on kappa0 in log scale, with log-spread sigma
    "log-normal": (Support(0, oo), LogMoment(0, kappa0), SquaredLogDeviation(sigma, kappa0)),
    # at most kappa0, and a probability delta of being cut short before kappa1
    "piecewise": (Support(0, kappa0), TailProbability(kappa1, delta)),
}
"""),
    md(r"""
## Derive

`derive` builds the Lagrangian, solves for the multipliers and integrates the
density. Each result renders its constraints, pdf, utility and multipliers.
"""),
    code(r"""
laws = {name: derive(*constraints) for name, constraints in constraint_sets.items()}

for name, law in laws.items():
    display(Markdown(f"### {name}"))
    for constraint in law.constraints:
        display(Math(constraint.latex()))
    display(Math(r"p(\kappa) = " + sympy.latex(law.pdf)))
    display(Math(r"u(t) = " + sympy.latex(law.utility().expr)))
    display(Math(r"\quad " + r",\ ".join(f"{sympy.latex(m)} = {sympy.latex(v)}"
                                          for m, v in law.multipliers.items())))
"""),
    md(r"""
## The same formulas as the paper

Section 3 prints the utilities. We type them in here, independently of the
library, and compare them with the derived ones at a grid of runtimes and random
parameter values.
"""),
    code(r"""
def paper_utility(name, t, kappa0, kappa1, alpha, beta, sigma, delta):
    # Section 3 of the paper, formula by formula
    from scipy.special import erf
    below = t < kappa0
    if name == "uniform":
        return np.where(below, 1 - t / kappa0, 0.0)
    if name == "exponential":
        return np.exp(-t / kappa0)
    if name == "Pareto":
        return np.where(below, 1.0, (kappa0 / t) ** alpha)
    if name == "log-Laplace":
        return np.where(below, 1 - 0.5 * (t / kappa0) ** alpha, 0.5 * (kappa0 / t) ** alpha)
    if name == "generalized log-Laplace":
        return np.where(below, 1 - alpha / (alpha + beta) * (t / kappa0) ** beta,
                        beta / (alpha + beta) * (kappa0 / t) ** alpha)
    if name == "log-normal":
        return 0.5 - 0.5 * erf(np.log(t / kappa0) / (np.sqrt(2) * sigma))
    if name == "piecewise":
        return np.where(t < kappa1, 1 - delta * t / kappa1,
                        np.where(below, (1 - delta) * (kappa0 - t) / (kappa0 - kappa1), 0.0))

rng = np.random.default_rng(0)
runtimes = np.linspace(0.01, 100, 2001)
for name, law in laws.items():
    for _ in range(3):
        values = dict(kappa0=rng.uniform(5, 50), alpha=rng.uniform(0.5, 3), beta=rng.uniform(0.5, 6),
                      sigma=rng.uniform(0.2, 2), delta=rng.uniform(0.05, 0.95))
        values["kappa1"] = values["kappa0"] * rng.uniform(0.1, 0.9)
        used = {s.name: values[s.name] for s in law.utility().parameters}
        derived = law.utility()(runtimes, **used)  # parameter values by name, no substitution
        expected = paper_utility(name, runtimes, **values)
        assert np.allclose(derived, expected, atol=1e-12), name
print("all seven derived utilities agree with the paper's formulas")
"""),
    md(r"""
## The full derivations

`maxent_util.export.derivation` writes a derivation in the shape of the paper's
Appendix C (constraints, Lagrangian, stationary density, multipliers, pdf, CDF,
utility) as LaTeX, ready for a paper. A notebook renders the maths of a Markdown
cell, so we turn the LaTeX sections into Markdown headings and the `align*`
blocks into displayed equations.
"""),
    code(r"""
import re

def as_markdown(latex):
    text = re.sub(r"\\section\*?\{(.*?)\}", r"#### \1", latex)
    text = re.sub(r"\\begin\{align\*\}(.*?)\\end\{align\*\}",
                  lambda m: "$$\\begin{aligned}" + m.group(1) + "\\end{aligned}$$", text, flags=re.S)
    return text

if importlib.util.find_spec("maxent_util.export") is not None:
    from maxent_util.export import derivation
    for name in ("Pareto", "generalized log-Laplace"):
        latex = derivation(*constraint_sets[name])
        display(Markdown(f"### {name}\n\n" + as_markdown(latex)))
else:
    print("maxent_util.export is not available in this installation")
"""),
    md(r"""
## The utility figure

The paper's figure of the seven utilities, with $\kappa_0 = 24$: Pareto with
$\alpha = 1$; log-Laplace with $\alpha = 2$; generalized log-Laplace with
$\alpha = 2, \beta = 5$; log-normal with $\sigma = 0.5$; piecewise with
$\kappa_1 = 12, \delta = 0.3$. The values go into the symbolic results.
"""),
    code(r"""
figure_parameters = {
    "uniform": dict(kappa0=24),
    "exponential": dict(kappa0=24),
    "Pareto": dict(kappa0=24, alpha=1),
    "log-Laplace": dict(kappa0=24, alpha=2),
    "generalized log-Laplace": dict(kappa0=24, alpha=2, beta=5),
    "log-normal": dict(kappa0=24, sigma=0.5),
    "piecewise": dict(kappa0=24, kappa1=12, delta=0.3),
}
utilities = {name: laws[name].utility().subs(**values) for name, values in figure_parameters.items()}

grid = np.linspace(0.0, 72.0, 1441)
styles = ["-", "--", "-.", ":"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for index, (name, utility) in enumerate(utilities.items()):
    for ax, runtimes in zip(axes, (grid, np.logspace(-1, 3, 801))):
        ax.plot(runtimes, utility(runtimes), styles[index % 4], label=name)
axes[0].set(xlabel="runtime t", ylabel="utility u(t)", title="kappa0 = 24")
axes[1].set(xscale="log", xlabel="runtime t (log scale)", title="the tails")
axes[0].axvline(24, color="grey", lw=0.5)
axes[0].legend(fontsize=8)
fig.tight_layout()
plt.show()
"""),
    md(r"""
All seven start at 1 and never increase, as the main theorem requires. The
uniform and piecewise utilities reach 0 at the bounded captime $\kappa_0$; the
others only approach 0, slowly for the Pareto ($24/t$) and quickly for the
exponential. The log-Laplace family and the log-normal give half the value at
$\kappa_0$; the generalized log-Laplace gives $\beta/(\alpha+\beta) = 5/7$ there.
"""),
]


# ---------------------------------------------------------------------------
SAT_COMPETITION = [
    md(r"""
# The SAT Competition 2021 under different utilities

The SAT Competition 2021 ranked solvers by PAR-2 (runtime, or twice the 5000 s
cutoff if unsolved). Section 5 of the paper re-ranks the parallel track under
several utilities: each gives a different top three. The results ship with
`maxent_util`.
"""),
    code(r"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from maxent_util import (PAR, datasets, exponential, log_laplace, log_normal, pareto, rank, step,
                         uniform)

pd.set_option("display.width", 200)
pd.set_option("display.max_columns", 20)

parallel = datasets.satcomp2021("parallel")
main = datasets.satcomp2021("main")
for name, table in [("parallel", parallel), ("main", main)]:
    print(f"{name}: {table['algorithm'].nunique()} solvers, {table['instance'].nunique()} instances,",
          dict(table["status"].value_counts()))
"""),
    md(r"""
## The rules

Five utilities from the paper's catalogue, tuned to a user who thinks in minutes
rather than hours, next to the competition's own PAR-2 and the solved count
(the step utility at the cutoff).
"""),
    code(r"""
rules = {
    "solved": step(5000),
    "uniform(5000)": uniform(5000).utility(),
    "exponential(1000)": exponential(1000).utility(),
    "pareto(60, 1)": pareto(60, 1).utility(),
    "log_laplace(300, 1)": log_laplace(300, 1).utility(),
    "log_normal(300, 2)": log_normal(300, 2).utility(),
    "PAR-2": PAR(2),
}

def podiums(ranking):
    ranks = ranking.filter(like=" rank")
    return pd.DataFrame({rule.removesuffix(" rank"): ranks[rule].sort_values().index[:3].tolist()
                         for rule in ranks}, index=["1st", "2nd", "3rd"]).T

parallel_ranking = rank(parallel, rules, bounds=True)
parallel_ranking.filter(like=" rank")
"""),
    md(r"""
## How the top three change: parallel track
"""),
    code(r"""
parallel_podiums = podiums(parallel_ranking)
display(parallel_podiums)
distinct = parallel_podiums.apply(tuple, axis=1).nunique()
print(f"{distinct} different top-three rankings among {len(rules)} rules")
"""),
    md(r"""
Capped runs leave each utility score uncertain between a lower bound (capped runs
count 0) and an upper bound (capped runs count $u(5000)$). With these utilities
$u(5000)$ is small, so the intervals are narrow and the orders are settled by the
data, not by the cutoff:
"""),
    code(r"""
columns = [c for c in parallel_ranking.columns if c.startswith("pareto(60, 1)")]
parallel_ranking[columns].round(4)
"""),
    md(r"""
A bump chart of the ranks under each rule (the paper's SAT Competition figure):
"""),
    code(r"""
def bump_chart(ranking, title):
    ranks = ranking.filter(like=" rank")
    rules = [c.removesuffix(" rank") for c in ranks.columns]
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(ranks) + 1.5))
    for algorithm, row in ranks.iterrows():
        ax.plot(range(len(rules)), row.values, "o-", label=algorithm)
        ax.annotate(algorithm, (len(rules) - 1, row.values[-1]), xytext=(6, 0),
                    textcoords="offset points", va="center", fontsize=8)
    ax.set_xticks(range(len(rules)), rules, rotation=20)
    ax.set(ylabel="rank", title=title)
    ax.invert_yaxis()
    fig.tight_layout()
    plt.show()

bump_chart(parallel_ranking, "SAT Competition 2021, parallel track")
"""),
    md(r"""
## Main track

46 solvers. Again, the podium depends on the rule.
"""),
    code(r"""
main_ranking = rank(main, rules)
main_podiums = podiums(main_ranking)
display(main_podiums)
print(f"{main_podiums.apply(tuple, axis=1).nunique()} different top-three rankings among {len(rules)} rules")
"""),
    md(r"""
How far is each utility's ranking from PAR-2's over the whole field? Kendall's
$\tau$ is 1 for the same order.
"""),
    code(r"""
par_ranks = main_ranking["PAR-2 rank"]
agreement = {rule: kendalltau(main_ranking[f"{rule} rank"], par_ranks).statistic
             for rule in rules if rule != "PAR-2"}
pd.Series(agreement, name="Kendall tau with PAR-2").round(3)
"""),
    code(r"""
moves = (main_ranking["pareto(60, 1) rank"] - par_ranks).sort_values()
print("largest moves from PAR-2 to pareto(60, 1) (negative = better under the utility):")
pd.concat([moves.head(5), moves.tail(5)])
"""),
    md(r"""
The rankings agree broadly, since good solvers are good under any reasonable
rule, but the top three, which is what a competition announces, moves with what
the user values: finishing at all (solved, PAR-2) or finishing fast (the
heavy-tailed utilities).
"""),
]


# ---------------------------------------------------------------------------
CROSS_UTILITY = [
    md(r"""
# What optimising the wrong utility costs

The paper's Figure 2 picks the best configuration of a solver under one utility
and scores it under another. Here the "configurations" are the 46 solvers of
the SAT Competition 2021 main track: pick the winner under rule $r$, and ask
what share of the best available score under rule $c$ it keeps.
"""),
    code(r"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from maxent_util import (PAR, cross_utility, datasets, exponential, log_laplace, log_normal,
                         pareto, step, uniform)

main = datasets.satcomp2021("main")
rules = {
    "solved": step(5000),
    "uniform(5000)": uniform(5000).utility(),
    "exponential(100)": exponential(100).utility(),
    "exponential(1000)": exponential(1000).utility(),
    "pareto(10, 1)": pareto(10, 1).utility(),
    "pareto(60, 2)": pareto(60, 2).utility(),
    "log_laplace(300, 1)": log_laplace(300, 1).utility(),
    "log_normal(30, 1)": log_normal(30, 1).utility(),
    "PAR-2": PAR(2),
}
cross = cross_utility(main, rules)
cross.round(3)
"""),
    md(r"""
Row $r$, column $c$: the score under $c$ of the solver that $r$ ranks first,
divided by the best score under $c$ (for PAR-2, the best score divided by it).
The diagonal is 1. Which solver does each rule pick?
"""),
    code(r"""
pd.Series(cross.attrs["picked"], name="winner")
"""),
    code(r"""
loss = 1 - cross
fig, ax = plt.subplots(figsize=(8, 6.5))
image = ax.imshow(loss.values, cmap="Reds", vmin=0)
ax.set_xticks(range(len(rules)), cross.columns, rotation=45, ha="right")
ax.set_yticks(range(len(rules)), cross.index)
ax.set(xlabel="scored by (the utility you care about)", ylabel="picked by (the rule you optimised)",
       title="share of the available score given up, SAT Competition 2021 main track")
for i in range(len(rules)):
    for j in range(len(rules)):
        ax.text(j, i, f"{loss.values[i, j]:.0%}", ha="center", va="center", fontsize=7)
fig.colorbar(image, ax=ax, label="1 - kept share")
fig.tight_layout()
plt.show()
"""),
    code(r"""
off_diagonal = loss.where(~np.eye(len(rules), dtype=bool))
worst = off_diagonal.stack().sort_values(ascending=False).head(5)
print("largest losses (picked by, scored by):")
worst.round(3)
"""),
    md(r"""
Rules that agree on the winner lose nothing to each other. Where they disagree,
the losses are not symmetric: the rules fall into groups that pick the same
winner, and a user whose utility rewards speed (the fast-decaying exponential,
Pareto and log-normal utilities) gives up the most when the winner is picked by
the solved count or PAR-2. The utility is a choice that changes the answer; the
paper found the same, with larger losses, when configuring one solver (Figure 2).
"""),
]


# ---------------------------------------------------------------------------
SAMPLING = [
    md(r"""
# Estimating a score from capped runs

Section 4's estimation theorem: to estimate $E[u(T)]$ within $\epsilon$ with
probability $1 - \delta$, make
$m = \frac{\ln(2/\delta)}{2}\left(\frac{2-\epsilon}{\epsilon}\right)^2$ runs,
each capped at $u^{-1}(\epsilon/2)$. This holds for *any* runtime distribution,
even one whose mean is infinite, where capped runs can never estimate the mean
runtime.
"""),
    code(r"""
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import integrate

from maxent_util import exponential, log_normal, pareto, plan, simulate_plan
"""),
    md(r"""
## The plan

`plan(epsilon, delta, utility)` gives the runs, the captime, and the bounds on
the total time: no algorithm needs more than $m\,u^{-1}(\epsilon/2)$, and some
need more than $m\,u^{-1}(2\epsilon)$.
"""),
    code(r"""
utilities = {"pareto(10, 1)": pareto(10, 1).utility(),
             "exponential(10)": exponential(10).utility(),
             "log_normal(10, 1)": log_normal(10, 1).utility()}
rows = []
for name, utility in utilities.items():
    for epsilon in (0.1, 0.05, 0.02):
        p = plan(epsilon, 0.05, utility)
        rows.append(dict(utility=name, epsilon=epsilon, runs=p.runs, captime=p.captime,
                         min_total_time=p.min_total_time, max_total_time=p.max_total_time))
pd.DataFrame(rows).round({"captime": 1, "min_total_time": 0, "max_total_time": 0})
"""),
    md(r"""
The number of runs depends only on $\epsilon$ and $\delta$; the captime, and so
the time budget, on the utility: the heavy-tailed Pareto utility needs long caps,
the exponential short ones.

## A runtime law with infinite mean

Let the runtime be Pareto with shape $a = 1/2$ and scale 1:
$P(T > t) = t^{-1/2}$ for $t \ge 1$. Its mean is infinite. With the utility
$u(t) = \min(1, 10/t)$ (the Pareto utility, $\kappa_0 = 10$, $\alpha = 1$),
the true score is, by hand,

$$E[u(T)] = P(T < 10) + \int_{10}^\infty \frac{10}{t}\, a t^{-a-1}\,dt
= 1 - \frac{10^{-a}}{a + 1}.$$
"""),
    code(r"""
shape = 0.5
utility = utilities["pareto(10, 1)"]
truth = 1 - 10 ** -shape / (shape + 1)

# the same number by quadrature over the runtime density a t^(-a-1) on [1, oo)
density = lambda x: shape * x ** (-shape - 1)
by_quadrature = (integrate.quad(density, 1, 10)[0]
                 + integrate.quad(lambda x: 10 / x * density(x), 10, np.inf)[0])
print(f"E[u(T)] = {truth:.6f} (closed form), {by_quadrature:.6f} (quadrature)")
assert abs(truth - by_quadrature) < 1e-8

def pareto_runtimes(size, rng):
    # numpy's pareto is the Lomax law; 1 + Lomax is Pareto with scale 1
    return 1 + rng.pareto(shape, size)
"""),
    md(r"""
## Simulation

Repeat the planned experiment many times: draw $m$ runtimes, cap them at the
planned captime, average the utilities, and compare with the truth.
"""),
    code(r"""
epsilon, delta = 0.05, 0.05
p = plan(epsilon, delta, utility)
print(p)

rng = np.random.default_rng(2023)
trials = 400
samples = pareto_runtimes((trials, p.runs), rng)
capped = np.minimum(samples, p.captime)
estimates = utility(capped).mean(axis=1)
errors = np.abs(estimates - truth)
print(f"{np.mean(errors < epsilon):.1%} of {trials} estimates within epsilon = {epsilon} "
      f"(the theorem promises at least {1 - delta:.0%}); largest error {errors.max():.4f}")
print(f"time used per experiment: at most {capped.sum(axis=1).max():,.0f} s, "
      f"bound {p.max_total_time:,.0f} s")
assert np.mean(errors < epsilon) >= 1 - delta
assert capped.sum(axis=1).max() <= p.max_total_time
"""),
    code(r"""
fraction = simulate_plan(p, pareto_runtimes, utility, trials=400, rng=1, truth=truth)
print(f"simulate_plan: {fraction:.1%} of trials within epsilon")
"""),
    md(r"""
## The mean runtime, by contrast

The same capped runs say nothing reliable about the mean runtime: the sample
mean of uncapped runtimes keeps jumping as rare enormous runs arrive, and the
capped mean depends on the cap rather than on the algorithm.
"""),
    code(r"""
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
axes[0].hist(estimates, bins=30, color="tab:blue", alpha=0.8)
for x in (truth - epsilon, truth, truth + epsilon):
    axes[0].axvline(x, color="k", ls="-" if x == truth else "--", lw=1)
axes[0].set(xlabel="capped estimate of E[u(T)]", ylabel="experiments",
            title=f"{p.runs} runs capped at {p.captime:.0f} s")

stream = pareto_runtimes(10**6, np.random.default_rng(7))
counts = np.arange(1, stream.size + 1)
axes[1].loglog(counts, np.cumsum(stream) / counts, label="running mean of T")
axes[1].loglog(counts, np.cumsum(utility(stream)) / counts * 100, label="running mean of u(T), x100")
axes[1].set(xlabel="runs", title="mean runtime never settles; mean utility does")
axes[1].legend(fontsize=8)
fig.tight_layout()
plt.show()
"""),
]

# ---------------------------------------------------------------------------
DESIGN = [
    md(r"""
# State your patience: a utility from plain answers

The paper's summary table ("Implied scoring functions for different scenarios")
asks two things: how well do you know the captime, the time you will have for
an answer (exactly, as a distribution, or only a few facts), and is a solution
worth the same whenever it comes, or does waiting cost money (Section 3)?

`maxent_util.designer.design` takes the answers in plain words, shows each as
the constraint it becomes, explains answers that cannot hold together, and
gives the maximum-entropy law and its utility. The command line asks the same
questions (`maxent-util design`).
"""),
    code(r"""
from IPython.display import Math, display
import ipywidgets as widgets

from maxent_util.designer import QUESTIONS, DesignError, design
"""),
    md(r"""
## In Python

A few facts about an unknown captime: never more than an hour, ten minutes a
typical wait. Each answer is shown with the constraint it becomes.
"""),
    code(r"""
result = design({"captime": "facts", "longest": "1h", "typical": "10 min", "value": "constant"})
for fact in result.facts:
    print(fact)
print()
print(result.summary())
display(Math("u(t) = " + result.latex()))
"""),
    md(r"""
An answer that cannot hold with the others is explained in the same words,
before anything is derived:
"""),
    code(r"""
try:
    design({"captime": "facts", "longest": "1h", "typical": "2h", "value": "constant"})
except DesignError as error:
    print(error.explanation)
    assert error.keys == ("typical", "longest")
"""),
    md(r"""
## With widgets

One field per question; the fields that do not apply to the first answers are
hidden. *Design* reads the fields and shows the result, or what to change.
"""),
    code(r"""
fields = {}
for question in QUESTIONS:
    if question.choices:
        fields[question.key] = widgets.Dropdown(
            options=[(words, name) for name, words in question.choices], description=question.key,
            style={"description_width": "initial"}, layout=widgets.Layout(width="95%"))
    else:
        fields[question.key] = widgets.Text(placeholder=question.prompt, description=question.key,
                                            style={"description_width": "initial"},
                                            layout=widgets.Layout(width="95%"))
fields["captime"].value, fields["value"].value = "facts", "constant"
button = widgets.Button(description="Design", button_style="primary")
out = widgets.Output()
state = {}


def answers():
    chosen = {"captime": fields["captime"].value, "value": fields["value"].value}
    return {key: field.value for key, field in fields.items()
            if QUESTIONS[[q.key for q in QUESTIONS].index(key)].applies(chosen) and field.value}


def show_applicable(change=None):
    chosen = {"captime": fields["captime"].value, "value": fields["value"].value}
    for question in QUESTIONS:
        fields[question.key].layout.display = None if question.applies(chosen) else "none"


def on_design(_):
    out.clear_output()
    with out:
        try:
            state["result"] = design(answers())
        except DesignError as error:
            state["result"] = None
            state["error"] = error
            print("!", error.explanation, "(change:", ", ".join(error.keys) + ")")
        else:
            print(state["result"].summary())


for key in ("captime", "value"):
    fields[key].observe(show_applicable, names="value")
show_applicable()
button.on_click(on_design)
display(widgets.VBox([*fields.values(), button, out]))
"""),
    md(r"""
Filled in and pressed from code here, so that the notebook runs unattended:
never more than two hours, half the time one would stop before ten minutes, and
one time in ten one would still be waiting after an hour.
"""),
    code(r"""
fields["longest"].value = "2h"
fields["median"].value = "10 min"
fields["tail"].value = "1 in 10 after 1h"
button.click()
assert state["result"] is not None
print(state["result"].constraints)
"""),
    md(r"""
A typical wait shorter than half the median cannot be: the other half of the
waits lasts at least ten minutes.
"""),
    code(r"""
fields["typical"].value = "3 min"
button.click()
assert state["result"] is None and state["error"].keys == ("median", "typical", "longest")
print(state["error"].explanation)
"""),
]


NOTEBOOKS = {
    "01_derive_families.ipynb": FAMILIES,
    "02_sat_competition.ipynb": SAT_COMPETITION,
    "03_cross_utility.ipynb": CROSS_UTILITY,
    "04_sampling.ipynb": SAMPLING,
    "05_design.ipynb": DESIGN,
}


def build(directory: Path = HERE) -> list[Path]:
    """Write every notebook into ``directory``; return their paths."""
    written = []
    for name, cells in NOTEBOOKS.items():
        for number, cell in enumerate(cells):
            cell.id = f"{name.split('_')[0]}-{number:02d}"  # stable ids: regenerating changes no line
        notebook = new_notebook(cells=cells, metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        })
        nbformat.validate(notebook)
        path = directory / name
        nbformat.write(notebook, path)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in build():
        print(path)
