"""Routes of the manage pages (docs/spec/ui.md), included by `web.urls`.

`/manage/events/…` and `/manage/organizations/new` come before `/manage/<org_slug>`, so an
organisation slug never shadows them (the waitlist and series areas add their own
`/manage/events/…/waitlist` and `/manage/series/…` routes in their lists).
"""

from django.urls import URLPattern, path

from web.views.manage import event_form, organizations, overview

urlpatterns: list[URLPattern] = [
    path("manage", organizations.manage_home, name="manage"),
    path("manage/organizations/new", organizations.new_organization, name="manage-org-new"),
    path("manage/events/<uuid:event_id>", overview.event_overview, name="manage-event"),
    path("manage/events/<uuid:event_id>/edit", event_form.edit_event, name="manage-event-edit"),
    path(
        "manage/events/<uuid:event_id>/status/<str:status>",
        overview.change_status,
        name="manage-event-status",
    ),
    path(
        "manage/events/<uuid:event_id>/checkin/<uuid:ticket_id>",
        overview.check_in,
        name="manage-event-checkin",
    ),
    path(
        "manage/events/<uuid:event_id>/rsvps/<uuid:rsvp_id>/checkin",
        overview.check_in_rsvp,
        name="manage-event-rsvp-checkin",
    ),
    path(
        "manage/events/<uuid:event_id>/attendees.csv",
        overview.attendees_csv,
        name="manage-event-csv",
    ),
    path("manage/<slug:org_slug>", organizations.organization_page, name="manage-org"),
    path("manage/<slug:org_slug>/events/new", event_form.new_event, name="manage-event-new"),
]
