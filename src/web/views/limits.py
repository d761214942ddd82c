"""The API's write limit on the pages' own writes (sign-up, password reset, …).

A page POST is as much a write as `POST /api/auth/register`: without the same limit, the
sign-up page would let anyone try addresses (or flood mailboxes with notices) at any
rate that the API refuses. One counter per client and scope, from `WriteThrottle`, so the
rule and its settings (`WRITE_THROTTLE_RATE`, `THROTTLE_ENABLED`) stay in one place.
"""

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext

from common.api import WriteThrottle

View = TypeVar("View", bound=Callable[..., HttpResponse])


def write_limited(view: View) -> View:
    """POSTs beyond the write rate answer 429 with Retry-After and change nothing."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            throttle = WriteThrottle()
            if not throttle.allow_request(request):
                wait = math.ceil(throttle.wait() or 1)
                context = {
                    "status": 429,
                    "detail": gettext("Too many attempts. Try again in a moment."),
                }
                response = render(request, "web/error.html", context, status=429)
                response["Retry-After"] = str(wait)
                return response
        return view(request, *args, **kwargs)

    return wrapper  # type: ignore[return-value]
