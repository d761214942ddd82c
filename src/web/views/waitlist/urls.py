"""Routes of the organiser's waitlist page (ui.md), included by `web.urls`."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
