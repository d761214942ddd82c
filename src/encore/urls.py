from django.contrib import admin
from django.http import HttpRequest, JsonResponse
from django.urls import path

from encore.api import api


def health(_request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


#: JSON under /api (503 `unavailable` when the database is down), Django's page elsewhere.
handler500 = "common.http.responses.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("health", health),
]
