"""Collect the controllers an app's `controllers` package declares, module by module.

Each controller module lists its classes in a module-level `CONTROLLERS`; the package
gathers them so that adding a controller never means editing a shared list.
"""

import importlib
import pkgutil
from types import ModuleType


def collect_controllers(package: ModuleType) -> list[type]:
    found: list[type] = []
    for info in sorted(
        pkgutil.walk_packages(package.__path__, package.__name__ + "."), key=lambda i: i.name
    ):
        module = importlib.import_module(info.name)
        for controller in getattr(module, "CONTROLLERS", ()):
            if controller not in found:
                found.append(controller)
    return found
