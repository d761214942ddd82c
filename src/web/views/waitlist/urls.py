"""Routes of the organiser's waitlist page (docs/spec/ui.md), included by `web.urls`."""

from django.urls import URLPattern, path

from web.views.waitlist import actions, page, preview

PREFIX = "manage/events/<uuid:event_id>/waitlist"

urlpatterns: list[URLPattern] = [
    path(PREFIX, page.waitlist_page, name="waitlist-page"),
    path(f"{PREFIX}/preview", preview.settings_preview, name="waitlist-settings-preview"),
    path(f"{PREFIX}/entries/<uuid:entry_id>/offer", actions.offer_seat, name="waitlist-offer-seat"),
    path(f"{PREFIX}/entries/<uuid:entry_id>/remove", actions.remove_entry, name="waitlist-remove"),
    path(f"{PREFIX}/offers/<uuid:offer_id>/revoke", actions.revoke_offer, name="waitlist-revoke"),
    path(
        f"{PREFIX}/offers/<uuid:offer_id>/reactivate",
        actions.reactivate_offer,
        name="waitlist-reactivate",
    ),
]
