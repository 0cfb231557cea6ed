"""Every public function says, in numpydoc, what it takes, returns and raises.

The functions checked: each function in ``maxent_util.__all__``; the public methods
(``__call__`` included; classmethods and staticmethods too) of each class there, and of the
classes they inherit from inside maxent_util; the functions in ``__all__`` of the public
submodules (export, io, datasets, plots, sampling).  Each one must have

- a return annotation;
- a summary line (the description slot), read by numpydoc's ``docscrape``;
- a ``Parameters`` section naming exactly the parameters of its signature (``self`` and
  ``cls`` left out; ``*args`` and ``**kwargs`` written so; ``x, y : float`` names two);
- a ``Returns`` or ``Yields`` section, unless it is annotated ``-> None``;
- a description, in the description slot (the indented lines below ``name : type``), for
  every entry of those sections and of ``Raises``, and no sentence in the type slot (a type
  that ends with a full stop or starts with "the", "a" or "an");
- a ``Raises`` section naming each maxent_util error (a class of :mod:`maxent_util.errors`)
  that it raises.  The rule for "raises", kept simple on purpose:

  1. its own source holds ``raise E(...)`` (or ``raise errors.E(...)``) for such an ``E``; or
  2. its own source calls a helper with ``owner="<its own name>"`` (a string literal equal to
     its ``__name__`` or ``__qualname__``): the helper then raises on its behalf, so the
     errors counted are the helper's ``error=`` argument if the call passes one, else those
     the helper's own source raises by rule 1.

  Errors raised further down (a helper of a helper, an ``owner`` passed by position or
  computed) are not counted; the docstring may still name them.

Every gap is listed in the one failure message.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import types
import warnings
from collections.abc import Callable, Iterator

import pytest
from numpydoc.docscrape import NumpyDocString

import maxent_util
from maxent_util import errors

SUBMODULES = ("export", "io", "datasets", "plots", "sampling")
ERRORS = {name for name in errors.__all__
          if isinstance(getattr(errors, name), type) and issubclass(getattr(errors, name), Exception)}


def _public_functions() -> Iterator[tuple[str, Callable]]:
    """(label, function) for every function the rules above cover, each once."""
    seen: set[int] = set()

    def add(label: str, function: Callable) -> Iterator[tuple[str, Callable]]:
        function = inspect.unwrap(function)
        if id(function) not in seen:
            seen.add(id(function))
            yield label, function

    def members(cls: type) -> Iterator[tuple[str, Callable]]:
        for owner in cls.__mro__:
            if not owner.__module__.startswith("maxent_util"):
                continue
            for name, value in vars(owner).items():
                if name.startswith("_") and name != "__call__":
                    continue
                if isinstance(value, (classmethod, staticmethod)):
                    value = value.__func__
                if inspect.isfunction(value):
                    yield from add(f"{owner.__qualname__}.{name}", value)

    def names(module: types.ModuleType, label: str) -> Iterator[tuple[str, Callable]]:
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value):
                yield from add(f"{label}{name}", value)
            elif inspect.isclass(value) and not issubclass(value, BaseException):
                yield from members(value)

    yield from names(maxent_util, "")
    for submodule in SUBMODULES:
        module = importlib.import_module(f"maxent_util.{submodule}")
        yield from names(module, f"{submodule}.")


def _tree(function: Callable) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None


def _error_name(node: ast.AST | None) -> str | None:
    """The maxent_util error that an expression such as ``DataError(...)`` names, if any."""
    if isinstance(node, ast.Call):
        node = node.func
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name if name in ERRORS else None


def _raised_here(tree: ast.AST | None) -> set[str]:
    """Rule 1: the errors named in the ``raise`` statements of a source."""
    return {name for node in ast.walk(tree or ast.Module(body=[], type_ignores=[]))
            if isinstance(node, ast.Raise) and (name := _error_name(node.exc))}


def _callee(call: ast.Call, function: Callable) -> Callable | None:
    target = call.func
    if isinstance(target, ast.Name):
        return function.__globals__.get(target.id)
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        base = function.__globals__.get(target.value.id)
        if base is None and target.value.id in ("self", "cls"):
            qualname = function.__qualname__.rsplit(".", 1)[0]
            base = function.__globals__.get(qualname)
        return getattr(base, target.attr, None)
    return None


def _raised(function: Callable, tree: ast.AST | None = None) -> set[str]:
    """The maxent_util errors a function raises, by the rule in the module docstring."""
    tree = tree or _tree(function)
    found = _raised_here(tree)
    own = {function.__name__, function.__qualname__}
    for call in ast.walk(tree or ast.Module(body=[], type_ignores=[])):
        if not isinstance(call, ast.Call):
            continue
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        owner = keywords.get("owner")
        if not (isinstance(owner, ast.Constant) and owner.value in own):
            continue
        if "error" in keywords:
            found |= {name for name in [_error_name(keywords["error"])] if name}
            continue
        helper = _callee(call, function)
        if inspect.isfunction(helper) or inspect.ismethod(helper):
            found |= _raised_here(_tree(inspect.unwrap(helper)))
    return found


def _documented_parameters(doc: NumpyDocString) -> list[str]:
    return [name.strip() for entry in doc["Parameters"] for name in entry.name.split(",")
            if name.strip()]


def _signature_parameters(signature: inspect.Signature) -> list[str]:
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [stars.get(p.kind, "") + p.name for p in signature.parameters.values()
            if p.name not in ("self", "cls")]


def _gaps(label: str, function: Callable, tree: ast.AST | None = None) -> list[str]:
    gaps = []
    signature = inspect.signature(function)
    returns = signature.return_annotation
    if returns is inspect.Signature.empty:
        gaps.append("no return annotation")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc warns about sections it does not know
        try:
            doc = NumpyDocString(inspect.getdoc(function) or "")
        except ValueError as exc:  # a section twice, or a section it cannot read
            return [*gaps, f"docstring not readable by numpydoc: {exc}"]
    if not "".join(doc["Summary"]).strip():
        gaps.append("no summary line")
    expected, documented = _signature_parameters(signature), _documented_parameters(doc)
    if expected and not doc["Parameters"]:
        gaps.append("no Parameters section")
    else:
        if missing := [name for name in expected if name not in documented]:
            gaps.append(f"Parameters lacks {', '.join(missing)}")
        if unknown := [name for name in documented if name not in expected]:
            gaps.append(f"Parameters names {', '.join(unknown)}, not in the signature")
    if returns not in (None, "None") and not (doc["Returns"] or doc["Yields"]):
        gaps.append("no Returns section")
    for section in ("Parameters", "Returns", "Yields", "Raises"):
        # "x : the number of runs" puts the description in the type slot: numpydoc wants
        # "x : int" and the description indented on the lines below
        if bare := [entry.name or entry.type for entry in doc[section] if not "".join(entry.desc).strip()]:
            gaps.append(f"{section} without a description for {', '.join(bare)}")
        # a sentence in the type slot ("x : the number of runs.", "x : a pair ...")
        if prose := [entry.name or entry.type for entry in doc[section]
                     if entry.type.rstrip().endswith(".") or entry.type.startswith(("the ", "a ", "an "))]:
            gaps.append(f"{section} has a description in the type slot for {', '.join(prose)}")
    raised = _raised(function, tree)
    if raised:
        named = " ".join(f"{entry.name} {entry.type}" for entry in doc["Raises"])
        if not doc["Raises"]:
            gaps.append(f"no Raises section (raises {', '.join(sorted(raised))})")
        elif missing := sorted(name for name in raised if name not in named.replace(",", " ").split()):
            gaps.append(f"Raises lacks {', '.join(missing)}")
    return [f"{label}: {gap}" for gap in gaps]


def all_gaps() -> list[str]:
    return [gap for label, function in _public_functions() for gap in _gaps(label, function)]


def test_every_public_function_has_a_complete_numpydoc_docstring() -> None:
    gaps = all_gaps()
    assert not gaps, f"{len(gaps)} docstring gaps:\n" + "\n".join(gaps)


def test_the_walk_covers_the_public_api() -> None:
    functions = {id(function) for _, function in _public_functions()}
    for expected in [maxent_util.derive, maxent_util.Utility.__call__, maxent_util.Scorer.__call__,
                     maxent_util.PAR.score, maxent_util.KnownCaptime.from_sympy_stats,
                     maxent_util.CaptimeDistribution.subs, maxent_util.io.read_satcomp,
                     maxent_util.export.to_json, maxent_util.datasets.satcomp2021,
                     maxent_util.plots.plot_ranking, maxent_util.sampling.plan]:
        assert id(inspect.unwrap(getattr(expected, "__func__", expected))) in functions, expected


def _gaps_of(source: str) -> list[str]:
    namespace: dict = {"DataError": errors.DataError, "UtilityError": errors.UtilityError}
    exec(compile(source, "<probe>", "exec"), namespace)  # the test's own literal source
    # inspect.getsource cannot read code made by exec, so the check is handed the text
    return _gaps("probe", namespace["probe"], tree=ast.parse(source))


COMPLETE = '''
def probe(x: int, *rest: int, **options: int) -> int:
    """Add.

    Parameters
    ----------
    x : int
        A number.
    *rest : int
        More numbers.
    **options : int
        Ignored.

    Returns
    -------
    int
        The sum.

    Raises
    ------
    DataError
        If ``x`` is negative.
    """
    if x < 0:
        raise DataError("negative")
    return x + sum(rest)
'''


def test_a_complete_docstring_passes() -> None:
    assert _gaps_of(COMPLETE) == []


@pytest.mark.parametrize("cut, gap", [
    ("    Returns\n    -------\n    int\n        The sum.\n\n", "no Returns section"),
    ("    Raises\n    ------\n    DataError\n        If ``x`` is negative.\n", "no Raises section (raises DataError)"),
    ("    *rest : int\n        More numbers.\n", "Parameters lacks *rest"),
    (" -> int", "no return annotation"),
])
def test_a_removed_section_is_a_gap(cut: str, gap: str) -> None:
    assert cut in COMPLETE
    assert _gaps_of(COMPLETE.replace(cut, "")) == [f"probe: {gap}"]


def test_an_owner_helper_counts_as_raising() -> None:
    # rule 2: the call passes owner="probe" and error=UtilityError, so probe raises UtilityError
    source = COMPLETE.replace('raise DataError("negative")',
                              'helper(x, owner="probe", error=UtilityError)')
    assert _gaps_of(source) == ["probe: Raises lacks UtilityError"]
