"""The version of maxent_util (one place; the package, the CLI and generated code read it)."""

__version__ = "0.1.0"
