"""The cost of runs from a utility, in numpy alone.

This module is the one place where a run's cost is computed: the library's
:func:`~maxent_util.export.cost_function` calls it with a compiled scorer, and
every cost module :func:`~maxent_util.export.export_cost` writes carries this
very source (it imports nothing but numpy, so that it can be copied verbatim),
called with the exported ``utility``.  Their numbers therefore differ only where
the two utilities do (tested to 1e-15).
"""

import numpy

#: how a capped run counts: "zero" (u = 0, cost 1; the paper's estimate) or "cutoff"
#: (u(cutoff), the most it could be worth)
CAPPED_RULES = ("zero", "cutoff")

_SOLVED, _CAPPED, _FAILED = 0, 1, 2


def _status_name(value, aliases):
    if hasattr(value, "name") and not isinstance(value, str):  # an enum such as SMAC's StatusType
        value = value.name
    text = str(value).strip().lower()
    return aliases.get(text, text)


def status_codes(status, shape, aliases, failures, refuse):
    """0 solved, 1 capped, 2 failed (u = 0), broadcast to ``shape``; ``refuse(arg,
    requirement, value)`` makes the error for an unknown status."""

    def code(value):
        name = _status_name(value, aliases)
        if name == "solved":
            return _SOLVED
        if name == "capped":
            return _CAPPED
        if name in failures:
            return _FAILED
        raise refuse("status", "one of 'solved', 'capped', " + ", ".join(map(repr, failures))
                     + " (SMAC-style names SUCCESS, TIMEOUT, CRASHED, MEMORYOUT are accepted too)",
                     value)

    values = numpy.asarray(status)
    if values.dtype.kind in "US":
        # a few distinct strings among many runs: classify each once
        distinct, index = numpy.unique(values, return_inverse=True)
        codes = numpy.array([code(str(v)) for v in distinct], dtype=numpy.int8)[index]
        codes = codes.reshape(values.shape)
    else:
        values = numpy.asarray(status, dtype=object)
        codes = numpy.empty(values.shape, dtype=numpy.int8)
        for position, value in numpy.ndenumerate(values):
            codes[position] = code(value)
    return numpy.broadcast_to(codes, shape)


def _seconds(value, arg, refuse):
    """Runtimes or cutoffs as floats; text, booleans and objects are refused, not guessed."""
    array = numpy.asarray(value)
    if array.dtype.kind not in "iuf":
        raise refuse(arg, "a number of seconds or an array of them", value)
    return array.astype(float)


def run_cost(utility, runtime, status, cutoff, capped, aliases, failures, refuse):
    """``1 - u`` of each run: ``utility(runtime)`` for a solved run, 0 or ``utility(cutoff)``
    (``capped``) for a capped one (``cutoff`` None: the runtime, the time it was stopped),
    0 for a failure; arrays broadcast, a scalar call gives a float."""
    runtimes = _seconds(runtime, "runtime", refuse)
    cutoffs = runtimes if cutoff is None else _seconds(cutoff, "cutoff", refuse)
    shape = numpy.broadcast_shapes(runtimes.shape, numpy.shape(status), cutoffs.shape)
    codes = status_codes(status, shape, aliases, failures, refuse)
    runtimes = numpy.broadcast_to(runtimes, shape)
    value = numpy.asarray(utility(runtimes), dtype=float)
    if capped == "cutoff":
        at_cutoff = numpy.asarray(utility(numpy.broadcast_to(cutoffs, shape)), dtype=float)
        value = numpy.where(codes == _CAPPED, at_cutoff, value)
    else:
        value = numpy.where(codes == _CAPPED, 0.0, value)
    value = numpy.where(codes == _FAILED, 0.0, value)
    out = 1.0 - value
    return float(out) if out.ndim == 0 else out


def status_of(runtime, cutoff):
    """The status of a run a process runner measured: ``"crash"`` for ``inf`` (a failure),
    ``"capped"`` at or past the cutoff, ``"solved"`` before it."""
    runtime = float(runtime)
    if runtime == numpy.inf:
        return "crash"
    return "capped" if runtime >= float(cutoff) else "solved"


def inverse_by_bisection(utility, level):
    """The runtime at which ``utility`` falls to ``level``, by bisection on ``log t`` over the
    doubles (for a utility without a closed-form inverse): 1 gives 0, a level outside (0, 1]
    or one the utility never reaches NaN; vectorised, a scalar call gives a float."""
    levels = numpy.asarray(level, dtype=float)
    low = numpy.full(levels.shape, numpy.log(5e-324))
    high = numpy.full(levels.shape, numpy.log(1.7976931348623157e308))
    with numpy.errstate(all="ignore"):
        for _ in range(80):  # 2**-80 of 1,450 nats: below a double's spacing of log t
            middle = 0.5 * (low + high)
            above = numpy.asarray(utility(numpy.exp(middle)), dtype=float) > levels
            low = numpy.where(above, middle, low)
            high = numpy.where(above, high, middle)
        out = numpy.exp(high)
        reached = numpy.abs(numpy.asarray(utility(out), dtype=float) - levels) <= 1e-12
    out = numpy.where((levels > 0) & (levels < 1) & reached, out, numpy.nan)
    out = numpy.where(levels == 1.0, 0.0, out)
    return float(out) if out.ndim == 0 else out
