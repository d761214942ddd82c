"""Controllers of the accounts app, registered by encore.api."""

CONTROLLERS: list[type] = []
