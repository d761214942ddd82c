"""Routes of the series pages (ui.md), included by `web.urls`."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
