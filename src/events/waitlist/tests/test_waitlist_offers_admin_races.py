"""Racing admin offers (PostgreSQL row locks): concurrent POSTs to
/event-admin/{event_id}/waitlist-offers never overcommit the event nor leave two pending
offers for one entry.
"""

from collections import Counter
from typing import Any

import pytest

from accounts.service.tokens import issue_token_pair
from common.tests.racing import post_together
from events.core.tests.factories import fill_with_rsvps
from events.models import WaitlistOffer
from events.waitlist.tests.waitlist_offers_admin_support import Status, _entry, _event, _url


# -- races (PostgreSQL row locks) -------------------------------------------------------------
def _race_posts(token: str, path: str, bodies: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """POST every body from its own thread and connection, all released at once."""
    return [
        (status, code or "") for status, code in post_together([(path, token, b) for b in bodies])
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_admin_offers_never_overcommit() -> None:
    event = _event(max_attendees=5)
    fill_with_rsvps(event, 2)  # three seats free
    entries = [_entry(event) for _ in range(8)]
    token = issue_token_pair(event.organization.owner).access
    bodies = [{"waitlist_entry_id": str(entry.pk)} for entry in entries]

    outcomes = _race_posts(token, f"/api{_url(event)}", bodies)

    assert Counter(outcomes) == {(201, ""): 3, (409, "capacity"): 5}, outcomes
    held = WaitlistOffer.objects.filter(event=event, status=Status.PENDING)
    assert held.count() == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_offers_for_one_entry_leave_one_pending_offer() -> None:
    event = _event()
    entry = _entry(event)
    token = issue_token_pair(event.organization.owner).access

    outcomes = _race_posts(token, f"/api{_url(event)}", [{"waitlist_entry_id": str(entry.pk)}] * 5)

    assert Counter(outcomes) == {(201, ""): 1, (409, "pending_offer_exists"): 4}, outcomes
    assert WaitlistOffer.objects.filter(event=event, user=entry.user).count() == 1
