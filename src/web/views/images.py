"""`/images/{image_id}`: a picture the app stored (ADR 0039), served by every node alike;
and `/favicon.ico`.

Every upload is a new row, so an id always names the same bytes: a browser or a proxy
may keep the answer for a year without asking again.
"""

import uuid

from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.views.decorators.http import require_safe

from events.core.selectors.images import get_image

#: One year, the longest a cache honours; `immutable` spares the revalidation on reload.
CACHE_CONTROL = "public, max-age=31536000, immutable"


@require_safe
def image(request: HttpRequest, image_id: uuid.UUID) -> HttpResponse:
    stored = get_image(image_id)
    if stored is None:
        raise Http404("No such picture.")
    response = HttpResponse(bytes(stored.data), content_type=stored.content_type)
    response["Cache-Control"] = CACHE_CONTROL
    return response


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers and crawlers ask for `/favicon.ico` whatever the page links: the SVG icon."""
    return HttpResponsePermanentRedirect(static("web/favicon.svg"))
