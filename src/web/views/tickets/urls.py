"""Routes of the organiser's tickets page, included by `web.urls`."""

from django.urls import URLPattern, path

from web.views.tickets import actions, page, tiers

BASE = "manage/events/<uuid:event_id>/tickets"

urlpatterns: list[URLPattern] = [
    path(BASE, page.tickets_page, name="manage-tickets"),
    path(f"{BASE}/types/new", tiers.new_tier, name="manage-tier-new"),
    path(f"{BASE}/types/<uuid:tier_id>/edit", tiers.edit_tier, name="manage-tier-edit"),
    path(f"{BASE}/types/<uuid:tier_id>/delete", tiers.delete_tier, name="manage-tier-delete"),
    path(f"{BASE}/sell", actions.sell, name="manage-tickets-sell"),
    path(f"{BASE}/<uuid:ticket_id>/paid", actions.mark_paid, name="manage-ticket-paid"),
    path(f"{BASE}/<uuid:ticket_id>/refund", actions.refund, name="manage-ticket-refund"),
    path(f"{BASE}/<uuid:ticket_id>/cancel", actions.cancel_ticket, name="manage-ticket-cancel"),
]
