"""The composition root of the HTTP API: one NinjaExtraAPI, every app's controllers."""

from ninja_extra import NinjaExtraAPI

from common.api import install_error_handlers


def build_api() -> NinjaExtraAPI:
    from accounts.controllers import CONTROLLERS as ACCOUNT_CONTROLLERS
    from events.controllers import CONTROLLERS as EVENT_CONTROLLERS

    api = NinjaExtraAPI(
        title="Encore API",
        version="1.0.0",
        description="Events with an active waitlist and recurring series.",
        urls_namespace="api",
        docs_url="/docs",
        openapi_url="/openapi.json",
    )
    install_error_handlers(api)
    api.register_controllers(*ACCOUNT_CONTROLLERS, *EVENT_CONTROLLERS)
    return api


api = build_api()
