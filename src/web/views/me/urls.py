"""Routes of the me pages (ui.md), included by `web.urls`."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
