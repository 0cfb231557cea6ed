"""Parameters named as the library's variables are refused; any other name is a parameter.

Before, exponential("t") gave the utility exp(-t/t) = exp(-1), exponential("x")
a survival function of -oo (x was the engine's integration variable), and
Utility("exp(-t/y)") an inverse in which the parameter y and the level y merged.
"""

from __future__ import annotations

import pytest
import sympy

import maxent_util as mu
from maxent_util.errors import ConstraintError, UtilityError
from maxent_util.symbols import RESERVED_NAMES, t


@pytest.mark.parametrize("name", RESERVED_NAMES)
@pytest.mark.parametrize("build, arg, owner", [
    (lambda n: mu.exponential(n), "kappa0", "exponential"),
    (lambda n: mu.pareto(5, n), "alpha", "pareto"),
    (lambda n: mu.Mean(n), "value", "Mean"),
    (lambda n: mu.Support(0, n), "upper", "Support"),
    (lambda n: mu.Moment("kappa**2", 3, where=(0, n)), "where", "Moment"),
])
def test_a_parameter_named_as_a_variable_is_refused(name, build, arg, owner):
    with pytest.raises(ConstraintError, match=rf"^`{arg}` of `{owner}` must be free of the names the "
                                              r"library keeps for its variables \(kappa, t, q, y\)"):
        build(name)


@pytest.mark.parametrize("name", ["kappa", "y"])
def test_a_utility_parameter_named_kappa_or_y_is_refused(name):
    with pytest.raises(UtilityError, match=rf"^`expr` of `Utility` must be an expression in t \(and q\) "
                                           rf"whose parameters are not named kappa or y; got 'exp\(-t/{name}\)'"):
        mu.Utility(f"exp(-t/{name})")


@pytest.mark.parametrize("name", ["x", "X", "Y", "mu", "s"])
def test_other_names_are_parameters(name):
    # reference: Appendix C, "Fixed Expectation": u(t) = exp(-t/kappa0)
    law = mu.exponential(name)
    symbol = sympy.Symbol(name, positive=True)
    assert sympy.simplify(law.utility().expr - sympy.exp(-t / symbol)) == 0
    assert law.utility().inverse_expr == -symbol * sympy.log(sympy.Symbol("y", positive=True))
    assert float(law.utility().subs(**{name: 2})(2.0)) == pytest.approx(float(sympy.exp(-1)), rel=1e-15)
