"""`/me/notifications`: an old seat offer says what became of it ("Claimed", "Declined",
"Expired", "Revoked") instead of "claim it before …"; a live one keeps its own words; the
page costs the same queries however many offers it shows."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from events.models import WaitlistOffer
from notifications.models import Notification
from web.tests.me.support import live_offer, notify, queue, signed_in_client

pytestmark = pytest.mark.django_db

Status = WaitlistOffer.WaitlistOfferStatus
CLAIM_BY = "Claim it before the deadline."


def offer_notice(user: User, title: str, **offer_fields: object) -> WaitlistOffer:
    """A seat offer to `user` in the given state, and its in-app notification."""
    event = make_event(name=title, waitlist_open=True, max_attendees=1)
    queue(event, user)
    offer = live_offer(event, user)
    if offer_fields:
        WaitlistOffer.objects.filter(pk=offer.pk).update(**offer_fields)
    sent = notify(
        user,
        title,
        event,
        notification_type="waitlist_spot_available",
        context={"event_id": str(event.pk), "offer_id": str(offer.pk)},
    )
    Notification.objects.filter(pk=sent.pk).update(body=f"A spot for you. {CLAIM_BY}")
    return offer


def item(body: str, title: str) -> str:
    start = body.index(title)
    return body[start : body.index("</li>", start)]


def test_each_offer_says_what_became_of_it() -> None:
    user = make_user()
    past = timezone.now() - timedelta(hours=1)
    offer_notice(user, "Live Gig")
    offer_notice(user, "Claimed Gig", status=Status.CLAIMED, claimed_at=past)
    offer_notice(user, "Declined Gig", status=Status.EXPIRED, declined_at=past)
    offer_notice(user, "Lapsed Gig", status=Status.EXPIRED, expires_at=past)
    offer_notice(user, "Unswept Gig", expires_at=past)  # PENDING, deadline gone
    offer_notice(user, "Revoked Gig", status=Status.REVOKED, revoked_reason="organizer")

    body = signed_in_client(user).get("/me/notifications").content.decode()

    assert CLAIM_BY in item(body, "Live Gig")
    expected = {
        "Claimed Gig": ("Claimed", "You claimed this seat."),
        "Declined Gig": ("Declined", "You declined this offer"),
        "Lapsed Gig": ("Expired", "This offer lapsed before it was claimed."),
        "Unswept Gig": ("Expired", "This offer lapsed before it was claimed."),
        "Revoked Gig": ("Revoked", "This offer was withdrawn."),
    }
    for title, (state, note) in expected.items():
        shown = item(body, title)
        assert f'<strong class="me-offer-state">{state}</strong>' in shown, title
        assert note in shown and CLAIM_BY not in shown, title


def test_another_persons_offer_id_changes_nothing() -> None:
    user, stranger = make_user(), make_user()
    theirs = offer_notice(stranger, "Their Gig", status=Status.CLAIMED)
    forged = notify(
        user,
        "Forged Gig",
        notification_type="waitlist_spot_available",
        context={"offer_id": str(theirs.pk)},
    )
    Notification.objects.filter(pk=forged.pk).update(body=CLAIM_BY)
    body = signed_in_client(user).get("/me/notifications").content.decode()
    assert CLAIM_BY in item(body, "Forged Gig")
    assert "me-offer-state" not in body


def _queries(user: User) -> int:
    client = signed_in_client(user)
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/me/notifications").status_code == 200
    return len(captured)


def test_the_inbox_costs_the_same_queries_for_one_offer_or_many() -> None:
    user = make_user()
    offer_notice(user, "Gig 0", status=Status.CLAIMED)
    one = _queries(user)
    for n in range(1, 12):
        offer_notice(user, f"Gig {n}", status=(Status.CLAIMED, Status.REVOKED)[n % 2])
    assert _queries(user) == one
    # session, user, count, page, unread count, the page's offers (+ messages/savepoints)
    assert one <= 7
    assert Notification.objects.filter(user=user).count() == 12
