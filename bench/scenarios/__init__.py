"""Every module in this package registers its scenarios on import (one file per area)."""

import importlib
import pkgutil


def load_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        importlib.import_module(f"{__name__}.{info.name}")
