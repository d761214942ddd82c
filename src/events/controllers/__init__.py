"""Controllers of the events app, registered by encore.api."""

CONTROLLERS: list[type] = []
