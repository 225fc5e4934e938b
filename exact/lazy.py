"""Lazy loading for the subpackages of :mod:`blanket.exact` (PEP 562 module ``__getattr__``).

Each subpackage ``__init__`` lists its modules and its public names (the ``_EXPORTS`` table: name → module) and
hands them to :func:`lazy_package` (a :class:`LazyPackage`); importing the package then imports no module, and ``package.name`` imports
the one module that defines ``name`` on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


class LazyPackage:
    """The public face of one package whose modules load on first attribute access.

    ``package``: the package's ``__name__``; ``modules``: its module names; ``exports``: public name → module.
    ``names`` is the package's ``__all__`` (modules first, then the exported names).  O(1) per lookup.

    >>> lazy = LazyPackage("blanket.exact.numbers", ("arith",), {"integer_in": "arith"})
    >>> lazy.load("integer_in")("3", "n")
    3
    >>> lazy.load("nothing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'blanket.exact.numbers' has no attribute 'nothing'
    """

    def __init__(self, package: str, modules: tuple[str, ...], exports: Mapping[str, str]) -> None:
        self.package = package
        self.modules = tuple(modules)
        self.exports = dict(exports)
        self.names: list[str] = [*self.modules, *self.exports]

    def load(self, name: str) -> Any:
        """The module or exported object ``name`` (imports its module on first use); ``AttributeError`` otherwise."""
        if name in self.modules:
            return importlib.import_module(f"{self.package}.{name}")
        if name in self.exports:
            return getattr(importlib.import_module(f"{self.package}.{self.exports[name]}"), name)
        raise AttributeError(f"module {self.package!r} has no attribute {name!r}")

    def dir(self) -> list[str]:
        """The sorted public names (the package's ``__dir__``)."""
        return sorted(self.names)


def lazy_package(
    package: str, modules: tuple[str, ...], exports: Mapping[str, str]
) -> tuple[list[str], Callable[[], list[str]], Callable[[str], Any]]:
    """``(__all__, __dir__, __getattr__)`` for a package ``__init__``: one line,
    ``__all__, __dir__, __getattr__ = lazy_package(__name__, _MODULES, _EXPORTS)``."""
    lazy = LazyPackage(package, modules, exports)
    return lazy.names, lazy.dir, lazy.load
