"""The composition root of the HTTP API: one NinjaExtraAPI, every app's controllers."""

from django.conf import settings

from common.api import Pagination, install_error_handlers
from common.openapi import EncoreAPI
from encore import limits


def description() -> str:
    """The document's introduction, with every limit on what a request may be."""
    return "\n".join(
        [
            "Events with an active waitlist and recurring series.",
            "",
            "## Limits",
            f"- A request body: at most {settings.API_MAX_BODY_BYTES} bytes, else 413 `too_large`.",
            f"- The request line (method, path and query): at most "
            f"{limits.REQUEST_LINE_MAX_BYTES} bytes, else 414 `uri_too_long`.",
            f"- Headers: at most {limits.HEADERS_MAX}, each at most {limits.HEADER_MAX_BYTES} "
            "bytes, else 431 `headers_too_large`.",
            f"- A list: `page_size` at most {Pagination().max_page_size}.",
            f"- Writes: {settings.WRITE_THROTTLE_RATE} per caller, else 429 `throttled` "
            "with `Retry-After`.",
            "- Text fields give their lengths (`maxLength`), numbers their ranges, in the schemas.",
        ]
    )


def build_api() -> EncoreAPI:
    from accounts import controllers as account_controllers
    from events import controllers as event_controllers
    from notifications import controllers as notification_controllers

    api = EncoreAPI(
        title="Encore API",
        version="1.0.0",
        description=description(),
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
