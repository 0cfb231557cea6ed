"""Value objects: public attributes are set once, so a cached object can be shared safely.

Derivations and utilities are cached and handed to many callers; if one caller could
rename or re-target a shared object, the change would leak into every later caller.
A subclass sets its public attributes in its constructor and never again; private
attributes (a leading underscore) hold lazily computed caches.  A cache seals what it hands out
(:meth:`Immutable._share`): then not even an attribute the constructor left unset can be added.  Changed copies come
from :meth:`Immutable._evolve`; equality and hashing use the public attributes.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

__all__ = ["Immutable", "FrozenDict"]


class Immutable:
    """Set-once public attributes, a copy-with-changes, and equality by value."""

    #: public attributes left out of equality and hashing (derived or provenance only)
    _not_compared: ClassVar[frozenset[str]] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_") and (name in self.__dict__ or self.__dict__.get("_shared")):
            raise AttributeError(
                f"`{type(self).__name__}` objects are immutable: `{name}` cannot be changed "
                f"(make a changed copy instead, e.g. with `with_name` or `subs`).")
        object.__setattr__(self, name, value)

    def _share(self) -> Any:
        """This object, sealed before a cache hands it to several callers: no public attribute can
        be set on it any more, not even one its constructor left unset (a law's ``name`` is set by
        ``with_name`` on a copy).  Returns ``self``; copies made by :meth:`_evolve` are not sealed."""
        object.__setattr__(self, "_shared", True)
        return self

    def __delattr__(self, name: str) -> None:
        if not name.startswith("_"):
            raise AttributeError(f"`{type(self).__name__}` objects are immutable: `{name}` cannot be deleted.")
        object.__delattr__(self, name)

    def _evolve(self, **changes: Any) -> Any:
        """A shallow copy with some public attributes replaced (caches are kept: reset them)."""
        new = copy.copy(self)
        object.__setattr__(new, "_shared", False)  # a new object: its maker may still name it
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        return new

    def _value_key(self) -> tuple:
        return (type(self).__name__,) + tuple(
            (name, value) for name, value in sorted(self.__dict__.items())
            if not name.startswith("_") and name not in self._not_compared)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._value_key() == other._value_key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._value_key())


class FrozenDict(dict):
    """A dict that refuses changes (it still pickles, unlike ``types.MappingProxyType``)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("this mapping is part of an immutable object and cannot be changed")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        return (FrozenDict, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))
