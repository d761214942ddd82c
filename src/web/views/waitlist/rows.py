"""The two tables of the waitlist page, one page of rows each, in a fixed number of queries.

The queue comes from `waitlist_page` (the admin API queue list's selection order and
positions, without its per-row count: see that module), the offers from
`waitlist_offers.admin_offers` (the offers list: newest first, with the user). Each
table is paginated on its own (`?queue_page=` / `?offers_page=`).
"""

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from events.models import Event, EventWaitList, WaitlistOffer
from events.waitlist.selectors import offers as offer_selectors
from events.waitlist.selectors import page as queue_selectors

PAGE_SIZE = 50
Status = WaitlistOffer.WaitlistOfferStatus

STATUS_LABELS: dict[str, Promise] = {
    Status.PENDING: _("Pending"),
    Status.CLAIMED: _("Claimed"),
    Status.EXPIRED: _("Expired"),
    Status.REVOKED: _("Revoked"),
}
DECLINED_LABEL = _("Declined")
REASON_LABELS = {
    WaitlistOffer.RevokedReason.ORGANIZER: _("by an organiser"),
    WaitlistOffer.RevokedReason.EVENT_CANCELLED: _("the event was cancelled"),
    WaitlistOffer.RevokedReason.WAITLIST_CLOSED: _("the waitlist was closed"),
    WaitlistOffer.RevokedReason.ENTRY_DELETED: _("removed from the queue"),
}


@dataclass(frozen=True)
class Refusal:
    """An action the services refused, shown in the row it was asked from."""

    target: str  # "entry:<id>" or "offer:<id>"
    message: str


@dataclass(frozen=True)
class QueueRow:
    entry: EventWaitList
    position: int | None
    live_offer_until: datetime | None
    refusal: str


@dataclass(frozen=True)
class OfferRow:
    offer: WaitlistOffer
    status_label: str
    reason_label: str
    can_revoke: bool
    can_reactivate: bool
    refusal: str


def page_number(request: HttpRequest, name: str) -> str:
    value = request.GET.get(name) or request.POST.get(name) or "1"
    return value if value.isdigit() else "1"


def queue_page(
    event: Event, number: str, now: datetime, refusal: Refusal | None
) -> tuple[Page[EventWaitList], list[QueueRow]]:
    page = Paginator(queue_selectors.queue_in_order(event), PAGE_SIZE).get_page(number)
    entries = list(page.object_list)
    placed = queue_selectors.queue_rows(event, entries, page.start_index() - 1, now)
    rows = [
        QueueRow(
            row.entry, row.position, row.live_offer_until, _message(refusal, "entry", row.entry)
        )
        for row in placed
    ]
    return page, rows


def offers_page(
    event: Event, number: str, refusal: Refusal | None, now: datetime
) -> tuple[Page[WaitlistOffer], list[OfferRow]]:
    page = Paginator(offer_selectors.admin_offers(event.pk), PAGE_SIZE).get_page(number)
    rows = [
        OfferRow(
            offer,
            status_label(offer, now),
            str(REASON_LABELS.get(offer.revoked_reason, "")) if offer.revoked_reason else "",
            offer.status == Status.PENDING,
            # What `reactivate_admin_offer` accepts: lapsed, declined or revoked offers.
            offer.status in (Status.EXPIRED, Status.REVOKED),
            _message(refusal, "offer", offer),
        )
        for offer in page.object_list
    ]
    return page, rows


def status_label(offer: WaitlistOffer, now: datetime) -> str:
    """The offer's status, "Declined" for an EXPIRED offer its holder handed back (as the
    statistics and the holder's inbox tell them apart)."""
    if offer_selectors.offer_outcome(offer, now) == offer_selectors.DECLINED:
        return str(DECLINED_LABEL)
    return str(STATUS_LABELS.get(offer.status, offer.status))


def _message(refusal: Refusal | None, kind: str, row: EventWaitList | WaitlistOffer) -> str:
    if refusal is None or refusal.target != f"{kind}:{row.pk}":
        return ""
    return refusal.message
