"""Utilities are values: shared cached objects cannot be changed by one caller for the next."""

from __future__ import annotations

import pytest
import sympy

import maxent_util as mu
from maxent_util.symbols import t


def test_a_utility_cannot_be_renamed_or_retargeted_in_place():
    u = mu.parse_utility("pareto(5, 3)")
    for name, value in (("name", "mine"), ("expr", t), ("distribution", None)):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(u, name, value)
    with pytest.raises(AttributeError, match="immutable"):
        del u.expr
    # the next caller gets the same law under the same name
    again = mu.parse_utility("pareto(5, 3)")
    assert again.name == "pareto(5, 3)" and again.expr == u.expr


def test_changed_copies_leave_the_original_alone():
    u = mu.Utility("exp(-t/a)", name="exp")
    renamed = u.with_name("other")
    substituted = u.subs(a=2)
    assert (u.name, renamed.name) == ("exp", "other")
    assert u.expr == sympy.exp(-t / sympy.Symbol("a")) and substituted.expr == sympy.exp(-t / 2)


def test_equal_utilities_are_equal_and_hash_alike():
    a, b = mu.Utility("exp(-t/2)", name="u"), mu.Utility(sympy.exp(-t / 2), name="u")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.with_name("v") and a != mu.Utility("exp(-t/3)", name="u")
    assert mu.KnownCaptime("1/10", (0, 10)) == mu.KnownCaptime("1/10", (0, 10))
    q1, q2 = (mu.linear_quality(10, 0, 1) for _ in range(2))
    assert q1 == q2 and hash(q1) == hash(q2)


def test_a_cached_distribution_cannot_be_changed_by_one_caller_for_the_next():
    law = mu.pareto(5, 3)
    with pytest.raises(AttributeError, match="immutable"):
        law.name = "mine"
    with pytest.raises(TypeError, match="cannot be changed"):
        law.multipliers[sympy.Symbol("lambda_9")] = 1
    assert isinstance(law.derivation.terms, tuple)  # no append on a shared record
    with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError
        law.derivation.method = "forged"
    again = mu.pareto(5, 3)
    assert again.name == "pareto(5, 3)" and again == law and hash(again) == hash(law)
    # log_laplace(24, 2) and generalized_log_laplace(24, 2, 2) are one cached law under two names
    assert mu.log_laplace(24, 2).name == "log_laplace(24, 2)"
    assert mu.generalized_log_laplace(24, 2, 2).name == "generalized_log_laplace(24, 2, 2)"
    assert mu.log_laplace(24, 2).name == "log_laplace(24, 2)"
    assert law.with_name("other").name == "other" and law.name == "pareto(5, 3)"
