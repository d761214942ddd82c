"""`/me/notifications`: the in-app inbox (`notifications.service.inbox`, as the API).

Newest first, 20 a page (Django's paginator: one count and one page query, plus the
unread count, plus one query for the offers on the page: fixed whatever the inbox
holds); "Mark all as read" is a POST that redirects back, so it works without
JavaScript (htmx swaps only the list when it is on).

A seat offer's notification says "claim it before …" as it was sent; once the offer is
claimed, declined, lapsed or withdrawn, the inbox says that instead, so an old offer
never reads as one still waiting.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_POST

from events.waitlist.selectors import offers as offer_selectors
from notifications.models import Notification, NotificationType
from notifications.service import inbox
from web.views.access import signed_in, viewer_zone
from web.views.me.links import notification_link

PAGE_SIZE = 20
#: What became of an offer, in a word and a sentence (a live one: the notification's own).
OFFER_OUTCOMES: dict[str, tuple[Promise, Promise]] = {
    offer_selectors.CLAIMED: (gettext_lazy("Claimed"), gettext_lazy("You claimed this seat.")),
    offer_selectors.DECLINED: (
        gettext_lazy("Declined"),
        gettext_lazy("You declined this offer; the seat went to the next person."),
    ),
    offer_selectors.EXPIRED: (
        gettext_lazy("Expired"),
        gettext_lazy("This offer lapsed before it was claimed."),
    ),
    offer_selectors.REVOKED: (gettext_lazy("Revoked"), gettext_lazy("This offer was withdrawn.")),
}


@dataclass(frozen=True)
class InboxRow:
    notification: Notification
    link: str
    #: A seat offer no longer open: its state and what that means ("" otherwise).
    offer_state: str = ""
    offer_note: str = ""

    @property
    def unread(self) -> bool:
        return self.notification.read_at is None


@require_GET
@signed_in
def notifications_page(request: HttpRequest) -> HttpResponse:
    paginator = Paginator(inbox.notifications_for(request.user), PAGE_SIZE)  # type: ignore[arg-type]
    page = paginator.get_page(request.GET.get("page"))
    rows = inbox_rows(request, list(page.object_list))
    context = {
        "page": page,
        "rows": rows,
        "unread_count": inbox.unread_count(request.user),  # type: ignore[arg-type]
        "zone": viewer_zone(request),
    }
    return render(request, "web/me/notifications.html", context)


def inbox_rows(request: HttpRequest, notifications: Sequence[Notification]) -> list[InboxRow]:
    offers = [
        row.context.get("offer_id")
        for row in notifications
        if row.notification_type == NotificationType.WAITLIST_SPOT_AVAILABLE
        and isinstance(row.context, dict)
    ]
    outcomes = offer_selectors.outcomes_of_offers(
        request.user.pk,  # type: ignore[arg-type]
        [str(offer_id) for offer_id in offers if offer_id],
        timezone.now(),
    )
    rows = []
    for row in notifications:
        outcome = (
            outcomes.get(str(row.context.get("offer_id")), "")
            if row.notification_type == NotificationType.WAITLIST_SPOT_AVAILABLE
            and isinstance(row.context, dict)
            else ""
        )
        state, note = OFFER_OUTCOMES.get(outcome, ("", ""))
        rows.append(InboxRow(row, notification_link(row.context), str(state), str(note)))
    return rows


@require_POST
@signed_in
def mark_all_read(request: HttpRequest) -> HttpResponse:
    count = inbox.mark_all_read(request.user)  # type: ignore[arg-type]
    if count:
        text = ngettext(
            "%(count)d notification marked as read.",
            "%(count)d notifications marked as read.",
            count,
        )
        messages.success(request, text % {"count": count})
    else:
        messages.info(request, _("Nothing was unread."))
    return redirect("/me/notifications")
