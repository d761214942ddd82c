"""Routes of the series pages (docs/spec/ui.md), included by `web.urls`."""

from django.urls import URLPattern, path

from web.views.series import builder, details, edit, manage, public, split

urlpatterns: list[URLPattern] = [
    path(
        "events/<slug:org_slug>/series/<slug:series_slug>",
        public.series_page,
        name="series-public",
    ),
    path(
        "events/<slug:org_slug>/series/<slug:series_slug>/follow",
        public.follow,
        name="series-follow",
    ),
    path(
        "events/<slug:org_slug>/series/<slug:series_slug>/unfollow",
        public.unfollow,
        name="series-unfollow",
    ),
    path("manage/<slug:org_slug>/series/new", builder.new_series, name="series-new"),
    path(
        "manage/<slug:org_slug>/series/new/preview",
        builder.preview_new_series,
        name="series-new-preview",
    ),
    path("manage/series/<uuid:series_id>", manage.series_admin, name="series-admin"),
    path("manage/series/<uuid:series_id>/template", edit.edit_template, name="series-template"),
    path("manage/series/<uuid:series_id>/details", details.edit_details, name="series-details"),
    path("manage/series/<uuid:series_id>/recurrence", edit.edit_cadence, name="series-cadence"),
    path(
        "manage/series/<uuid:series_id>/recurrence/preview",
        edit.preview_cadence,
        name="series-cadence-preview",
    ),
    path("manage/series/<uuid:series_id>/split", split.split, name="series-split"),
    path(
        "manage/series/<uuid:series_id>/split/preview",
        split.preview_split,
        name="series-split-preview",
    ),
    *[
        path(
            f"manage/series/<uuid:series_id>/{name}",
            manage.series_action(name, action),
            name=f"series-{name}",
        )
        for name, action in manage.ACTIONS.items()
    ],
]
