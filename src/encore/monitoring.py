"""`/metrics`: Prometheus' text format for the scraper, when the operator wants it.

Off with `METRICS_ENABLED=false` (then 404, like any unknown path). With `METRICS_TOKEN`
set, only a request with `Authorization: Bearer <token>` gets the numbers: the counts
say how busy the site is, which is nobody else's business. Without a token, keep
`/metrics` off the public proxy (docs/architecture/deployment.md).
"""

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django_prometheus.exports import ExportToDjangoView


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_ENABLED:
        raise Http404
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            response = HttpResponse("metrics need a bearer token\n", status=401)
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return response
    return ExportToDjangoView(request)
