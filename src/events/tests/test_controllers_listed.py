"""Every controller module of the feature packages is served.

`events.controllers.MODULES` lists the modules in the OpenAPI document's order; a module
missing from the list would leave its routes unserved without any other test noticing.
"""

import importlib
import pkgutil

from events import controllers

PACKAGES = ["events.core", "events.waitlist", "events.ticketing", "events.series"]


def _declaring_modules() -> set[str]:
    found = set()
    for name in PACKAGES:
        package = importlib.import_module(f"{name}.controllers")
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if getattr(importlib.import_module(info.name), "CONTROLLERS", None):
                found.add(info.name)
    return found


def test_every_module_that_declares_controllers_is_listed_once():
    assert len(controllers.MODULES) == len(set(controllers.MODULES))
    assert set(controllers.MODULES) == _declaring_modules()


def test_every_listed_controller_is_collected():
    collected = controllers.all_controllers()
    declared = [
        c for name in controllers.MODULES for c in importlib.import_module(name).CONTROLLERS
    ]
    assert collected == declared and len(collected) == 31
