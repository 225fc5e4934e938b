"""Lazy loading for the subpackages of :mod:`blanket.exact` (PEP 562 module ``__getattr__``).

Each subpackage ``__init__`` holds one table, ``_EXPORTS``: each of its modules with the public names it defines
(separated by spaces), and hands it to :func:`lazy_package` (a :class:`LazyPackage`); importing the package then
imports no module, and ``package.name`` imports the one module that defines ``name`` on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


class LazyPackage:
    """The public face of one package whose modules load on first attribute access.

    ``package``: the package's ``__name__``; ``exports``: module name → the public names it defines, separated by
    spaces (a module may list none).  ``names`` is the package's ``__all__`` (the modules first, then the exported
    names, in the table's order).  A name listed under two modules is refused (``ValueError``).  O(1) per lookup.

    >>> lazy = LazyPackage("blanket.exact.numbers", {"arith": "integer_in exact_in"})
    >>> lazy.load("integer_in")("3", "n"), lazy.names
    (3, ['arith', 'integer_in', 'exact_in'])
    >>> lazy.load("nothing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'blanket.exact.numbers' has no attribute 'nothing'
    """

    def __init__(self, package: str, exports: Mapping[str, str]) -> None:
        self.package = package
        self.modules = tuple(exports)
        self.exports: dict[str, str] = {}
        for module, names in exports.items():
            for name in names.split():
                if name in self.exports:
                    raise ValueError(f"{package}: {name} is listed under {self.exports[name]} and {module}")
                self.exports[name] = module
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
    package: str, exports: Mapping[str, str]
) -> tuple[list[str], Callable[[], list[str]], Callable[[str], Any]]:
    """``(__all__, __dir__, __getattr__)`` for a package ``__init__``: one line,
    ``__all__, __dir__, __getattr__ = lazy_package(__name__, _EXPORTS)``."""
    lazy = LazyPackage(package, exports)
    return lazy.names, lazy.dir, lazy.load
