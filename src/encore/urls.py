from django.contrib import admin
from django.urls import include, path

from encore import health, monitoring
from encore.api import api

#: JSON under /api (503 `unavailable` when the database is down), Django's page elsewhere.
handler500 = "common.http.responses.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("health", health.ready, name="health"),
    path("metrics", monitoring.metrics, name="metrics"),
    # The pages (docs/spec/ui.md) last: every other prefix above is matched first.
    path("", include("web.urls")),
]
