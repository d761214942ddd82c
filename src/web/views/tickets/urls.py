"""Routes of the organiser's tickets page, included by `web.urls`."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
