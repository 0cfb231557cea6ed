"""The derived captime distribution, split by idea: the law (:mod:`.law`), its closed form
(:mod:`.closed_form`), its numbers (:mod:`.numbers`) and its derivation record (:mod:`.record`)."""

from .law import CaptimeDistribution

__all__ = ["CaptimeDistribution"]
