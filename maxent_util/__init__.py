"""maxent_util: maximum-entropy utilities for scoring algorithm runtimes."""

from .errors import (ConstraintError, DataError, ExportError, InfeasibleError,
                     MaxEntError, NoClosedFormError, NotNormalizableError,
                     UtilityError)
from .symbols import kappa, q, t
from .utility import Utility

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "kappa", "t", "q",
    "Utility",
    "MaxEntError", "ConstraintError", "InfeasibleError", "NotNormalizableError",
    "NoClosedFormError", "UtilityError", "DataError", "ExportError",
]
