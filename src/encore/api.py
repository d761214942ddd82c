"""The composition root of the HTTP API: one NinjaExtraAPI, every app's controllers."""

from common.api import install_error_handlers
from common.openapi import EncoreAPI


def build_api() -> EncoreAPI:
    from accounts import controllers as account_controllers
    from events import controllers as event_controllers
    from notifications import controllers as notification_controllers

    api = EncoreAPI(
        title="Encore API",
        version="1.0.0",
        description="Events with an active waitlist and recurring series.",
        urls_namespace="api",
        docs_url="/docs",
        openapi_url="/openapi.json",
    )
    install_error_handlers(api)
    api.register_controllers(
        *account_controllers.all_controllers(),
        *notification_controllers.all_controllers(),
        *event_controllers.all_controllers(),
    )
    return api


api = build_api()
