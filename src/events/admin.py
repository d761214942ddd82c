"""Django admin for platform operators (`is_staff`). Organisers use the API.

Attendance rows are read-only here: seats move only through the services, which hold
the Event lock and keep `attendee_count` true, so nothing in the admin bypasses a
capacity check.
"""

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from common.errors import EncoreError
from events.models import (
    Blacklist,
    Event,
    EventRSVP,
    EventSeries,
    EventSeriesFollow,
    EventSeriesSlug,
    EventWaitList,
    Invitation,
    Organization,
    OrganizationFollow,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    Payment,
    PaymentRefund,
    RecurrenceRule,
    StoredImage,
    StripeConnection,
    StripeEvent,
    Ticket,
    TicketTier,
    Venue,
    WaitlistDraw,
    WaitlistOffer,
    WaitlistQueueSample,
)
from events.waitlist import services as waitlist_service


class ReadOnlyAdmin(admin.ModelAdmin):
    """Visible for support, changed only through the services."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class StaffInline(admin.TabularInline):
    model = OrganizationStaff
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "owner", "timezone", "visibility", "accept_membership_requests"]
    search_fields = ["name", "slug", "owner__email"]
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ["owner"]
    raw_id_fields = ["logo"]
    inlines = [StaffInline]


@admin.register(OrganizationMember)
class OrganizationMemberAdmin(admin.ModelAdmin):
    list_display = ["user", "organization", "status", "created_at"]
    list_filter = ["status"]
    search_fields = ["user__email", "organization__name"]
    autocomplete_fields = ["user", "organization"]


@admin.register(OrganizationStaff)
class OrganizationStaffAdmin(admin.ModelAdmin):
    list_display = ["user", "organization", "created_at"]
    search_fields = ["user__email", "organization__name"]
    autocomplete_fields = ["user", "organization"]


@admin.register(OrganizationMembershipRequest)
class MembershipRequestAdmin(admin.ModelAdmin):
    list_display = ["user", "organization", "status", "created_at", "decided_at"]
    list_filter = ["status"]
    search_fields = ["user__email", "organization__name"]


@admin.register(OrganizationFollow)
class OrganizationFollowAdmin(admin.ModelAdmin):
    list_display = ["user", "organization", "notify_new_events", "is_archived"]
    list_filter = ["is_archived", "notify_new_events"]


@admin.register(EventSeriesFollow)
class EventSeriesFollowAdmin(admin.ModelAdmin):
    list_display = ["user", "event_series", "notify_new_events", "is_archived"]
    list_filter = ["is_archived", "notify_new_events"]


@admin.register(Blacklist)
class BlacklistAdmin(admin.ModelAdmin):
    list_display = ["organization", "user", "email", "created_at"]
    search_fields = ["email", "user__email", "organization__name"]


@admin.register(Venue)
class VenueAdmin(admin.ModelAdmin):
    list_display = ["name", "organization", "capacity"]
    search_fields = ["name", "organization__name"]


@admin.register(EventSeries)
class EventSeriesAdmin(admin.ModelAdmin):
    list_display = ["name", "organization", "slug", "is_active", "auto_publish"]
    list_filter = ["is_active", "auto_publish"]
    search_fields = ["name", "slug"]
    # The slug too: a rename through the series routes records the former slug, so its
    # public address keeps redirecting (ADR 0023); the admin would skip that.
    readonly_fields = [
        "slug",
        "template_event",
        "recurrence_rule",
        "exdates",
        "rdates",
        "continues",
        "last_generated_until",
    ]


@admin.register(EventSeriesSlug)
class EventSeriesSlugAdmin(ReadOnlyAdmin):
    """Read-only: a former slug is recorded by `update_series` when a series is renamed,
    and its old public address redirects to the series (ADR 0023)."""

    list_display = ["slug", "series", "organization", "created_at"]
    search_fields = ["slug", "series__name"]


@admin.register(RecurrenceRule)
class RecurrenceRuleAdmin(ReadOnlyAdmin):
    """Read-only: a cadence change goes through the series routes
    (`recurrence_service.apply_series_change`), which move, keep or cancel occurrences."""

    list_display = ["rrule_string", "frequency", "interval", "timezone", "dtstart"]


class TicketTierInline(admin.TabularInline):
    model = TicketTier
    extra = 0
    readonly_fields = ["quantity_sold"]


@admin.register(StoredImage)
class StoredImageAdmin(ReadOnlyAdmin):
    """Read-only: a picture is re-encoded by the image service when an organiser uploads it;
    the bytes themselves are never shown here."""

    list_display = ["id", "content_type", "width", "height", "created_at"]
    exclude = ["data"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "organization",
        "status",
        "start",
        "attendee_count",
        "max_attendees",
        "waitlist_open",
    ]
    list_filter = ["status", "visibility", "requires_ticket", "waitlist_open", "is_template"]
    search_fields = ["name", "slug", "organization__name"]
    date_hierarchy = "start"
    readonly_fields = ["attendee_count", "status"]
    raw_id_fields = ["cover_image"]
    inlines = [TicketTierInline]


@admin.register(TicketTier)
class TicketTierAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "event",
        "price",
        "currency",
        "payment_method",
        "total_quantity",
        "quantity_sold",
    ]
    readonly_fields = ["quantity_sold"]
    search_fields = ["name", "event__name"]


@admin.register(Ticket)
class TicketAdmin(ReadOnlyAdmin):
    list_display = ["user", "event", "tier", "status", "created_at"]
    list_filter = ["status"]
    search_fields = ["user__email", "event__name", "holder_name"]


@admin.register(StripeConnection)
class StripeConnectionAdmin(ReadOnlyAdmin):
    list_display = ["organization", "account_id", "charges_enabled", "created_at"]
    search_fields = ["organization__name", "account_id"]


@admin.register(Payment)
class PaymentAdmin(ReadOnlyAdmin):
    """Payments change only through Stripe's webhooks (ADR 0027): read-only here."""

    list_display = ["checkout_session_id", "event", "user", "status", "amount", "currency"]
    list_filter = ["status"]
    search_fields = ["checkout_session_id", "payment_intent_id", "user__email", "event__name"]


@admin.register(PaymentRefund)
class PaymentRefundAdmin(ReadOnlyAdmin):
    list_display = ["stripe_refund_id", "payment", "ticket", "amount", "status", "created_at"]
    list_filter = ["status"]


@admin.register(StripeEvent)
class StripeEventAdmin(ReadOnlyAdmin):
    list_display = ["stripe_id", "type", "account", "outcome", "created_at"]
    list_filter = ["type", "outcome"]
    search_fields = ["stripe_id"]


@admin.register(EventRSVP)
class EventRSVPAdmin(ReadOnlyAdmin):
    list_display = ["user", "event", "status", "created_at"]
    list_filter = ["status"]
    search_fields = ["user__email", "event__name"]


@admin.register(EventWaitList)
class EventWaitListAdmin(ReadOnlyAdmin):
    list_display = ["user", "event", "party_size", "tier", "created_at"]
    search_fields = ["user__email", "event__name"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["user", "event", "overrides_max_attendees", "created_at"]
    search_fields = ["user__email", "event__name"]


@admin.register(WaitlistOffer)
class WaitlistOfferAdmin(ReadOnlyAdmin):
    """Read-only; revoke and reactivate go through the services' locked capacity checks."""

    list_display = [
        "user",
        "event",
        "status",
        "expires_at",
        "is_cutoff_batch",
        "revoked_reason",
        "created_at",
    ]
    list_filter = ["status", "is_cutoff_batch", "revoked_reason"]
    search_fields = ["user__email", "event__name"]
    actions = ["revoke_offers", "reactivate_offers"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Revoke the selected pending offers")
    def revoke_offers(self, request: HttpRequest, queryset: QuerySet[WaitlistOffer]) -> None:
        self._apply(
            request, queryset, lambda offer: waitlist_service.revoke_offer(offer.event_id, offer.pk)
        )

    @admin.action(description="Reactivate the selected expired or revoked offers")
    def reactivate_offers(self, request: HttpRequest, queryset: QuerySet[WaitlistOffer]) -> None:
        self._apply(
            request,
            queryset,
            lambda offer: waitlist_service.reactivate_admin_offer(offer.event_id, offer.pk),
        )

    def _apply(
        self,
        request: HttpRequest,
        queryset: QuerySet[WaitlistOffer],
        action: Callable[[WaitlistOffer], object],
    ) -> None:
        done = 0
        for offer in list(queryset):
            try:
                action(offer)
                done += 1
            except EncoreError as error:
                self.message_user(request, f"{offer}: {error.detail}", level=messages.WARNING)
        self.message_user(request, f"{done} offer(s) updated.")


@admin.register(WaitlistDraw)
class WaitlistDrawAdmin(ReadOnlyAdmin):
    """A lottery batch's record: evidence, never edited (ADR 0018)."""

    list_display = ["event", "batch_id", "drawn_at", "algorithm"]
    search_fields = ["event__name", "batch_id"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WaitlistQueueSample)
class WaitlistQueueSampleAdmin(ReadOnlyAdmin):
    list_display = ["event", "at", "length"]
    search_fields = ["event__name"]
