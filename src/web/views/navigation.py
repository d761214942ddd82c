"""Where a page goes after log-in or sign-up: the `next` it came with, if it is ours."""

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def next_url(request: HttpRequest) -> str:
    """The `next` of the form or the query string when it stays on this site, else `/`."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"
