"""Routes of the team, organisation settings and stored pictures, included by `web.urls`."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
