"""An organiser revokes a held seat: the member is told (`waitlist_offer_revoked`), in the
app and by e-mail, as their preferences allow, after the revoke commits and never when it
rolls back; and an offer that can no longer be made says why no seat is free."""

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction

from accounts.models import User
from events.models import WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.errors import OfferWouldOvercommit
from events.waitlist.services import notifications as waitlist_notifications
from events.waitlist.tests.waitlist_builders import (
    Status,
    active_event,
    give_offer,
    queue_in_order,
)
from notifications.models import Notification, NotificationPreference, NotificationType
from notifications.tests.servers import SmtpServer, smtp_backend

pytestmark = pytest.mark.django_db

REVOKED = NotificationType.WAITLIST_OFFER_REVOKED


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpServer]:
    with smtp_backend(settings) as server:
        yield server


def held_offer(name: str = "Jazz Night") -> tuple[WaitlistOffer, User]:
    event = active_event(3, attendees=2, name=name)
    [member] = queue_in_order(event, 1)
    return give_offer(event, member), member


def revoke(offer: WaitlistOffer, capture: Any) -> None:
    with capture(execute=True):
        waitlist_service.revoke_offer(offer.event_id, offer.pk)


def test_the_member_is_told_in_the_app_and_by_e_mail(
    smtp: SmtpServer, django_capture_on_commit_callbacks: Any
) -> None:
    offer, member = held_offer()
    revoke(offer, django_capture_on_commit_callbacks)

    notice = Notification.objects.get(user=member, notification_type=REVOKED)
    assert notice.in_app
    assert notice.title == "The spot held for you at Jazz Night was withdrawn"
    assert "can no longer be claimed" in notice.body
    assert notice.context["offer_id"] == str(offer.pk)
    (message,) = smtp.messages
    assert message["To"] == member.email
    assert message["Subject"] == "The spot held for you at Jazz Night was withdrawn"
    text = message.get_body(("plain",))
    assert text is not None and "You are still on the waitlist" in text.get_content()


def test_a_member_who_turned_the_type_off_by_e_mail_gets_it_in_the_app_only(
    smtp: SmtpServer, django_capture_on_commit_callbacks: Any
) -> None:
    offer, member = held_offer()
    NotificationPreference.objects.create(
        user=member, type_settings={REVOKED.value: {"enabled": True, "channels": ["in_app"]}}
    )
    revoke(offer, django_capture_on_commit_callbacks)

    assert Notification.objects.get(user=member, notification_type=REVOKED).in_app
    assert smtp.messages == []


def test_a_member_who_turned_the_type_off_is_not_told(
    smtp: SmtpServer, django_capture_on_commit_callbacks: Any
) -> None:
    offer, member = held_offer()
    NotificationPreference.objects.create(
        user=member, type_settings={REVOKED.value: {"enabled": False, "channels": []}}
    )
    revoke(offer, django_capture_on_commit_callbacks)

    assert not Notification.objects.filter(user=member, notification_type=REVOKED, in_app=True)
    assert smtp.messages == []


def test_a_revoke_that_rolls_back_tells_nobody(django_capture_on_commit_callbacks: Any) -> None:
    offer, member = held_offer()
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        waitlist_service.revoke_offer(offer.event_id, offer.pk)
        transaction.set_rollback(True)
    assert not Notification.objects.filter(user=member, notification_type=REVOKED).exists()
    offer.refresh_from_db()
    assert offer.status == Status.PENDING


def test_an_offer_reactivated_before_the_notice_ran_sends_nothing() -> None:
    offer, member = held_offer()
    WaitlistOffer.objects.filter(pk=offer.pk).update(status=Status.REVOKED, revoked_reason="")
    assert not waitlist_notifications.send_offer_revoked_notification(offer.pk)
    assert not Notification.objects.filter(user=member).exists()


def test_system_revocations_send_no_revoked_notice(
    django_capture_on_commit_callbacks: Any,
) -> None:
    offer, member = held_offer()
    with django_capture_on_commit_callbacks(execute=True):
        waitlist_service.remove_entry(offer.event.waitlist.get(user=member))
    assert not Notification.objects.filter(user=member, notification_type=REVOKED).exists()


class TestNoFreeSeat:
    def test_a_full_event_without_pending_offers_says_every_seat_is_taken(self) -> None:
        event = active_event(2, attendees=2)
        [member] = queue_in_order(event, 1)
        entry = event.waitlist.get(user=member)
        with pytest.raises(OfferWouldOvercommit) as refused:
            waitlist_service.create_admin_offer(event.pk, entry.pk)
        assert refused.value.detail == "No seat is free: every seat is taken."
        assert "revoke" not in refused.value.detail
        assert refused.value.extra == {"held_seats": 0}

    def test_seats_held_by_pending_offers_suggest_revoking_one(self) -> None:
        event = active_event(3, attendees=2)
        holder, member = queue_in_order(event, 2)
        give_offer(event, holder)
        entry = event.waitlist.get(user=member)
        with pytest.raises(OfferWouldOvercommit) as refused:
            waitlist_service.create_admin_offer(event.pk, entry.pk)
        assert "revoke a pending offer first" in refused.value.detail
        assert refused.value.extra == {"held_seats": 1}


def test_reactivating_a_declined_offer_clears_the_decline(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Offered again, a lapse of it is a lapse: the stats and the page read `declined_at`."""
    offer, _member = held_offer()
    WaitlistOffer.objects.filter(pk=offer.pk).update(
        status=Status.EXPIRED, declined_at=offer.created_at
    )
    with django_capture_on_commit_callbacks(execute=True):
        waitlist_service.reactivate_admin_offer(offer.event_id, offer.pk)
    offer.refresh_from_db()
    assert (offer.status, offer.declined_at) == (Status.PENDING, None)
