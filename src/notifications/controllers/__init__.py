"""Controllers of this app; each module declares its own `CONTROLLERS` list."""


def all_controllers() -> list[type]:
    import sys

    from common.discovery import collect_controllers

    return collect_controllers(sys.modules[__name__])
