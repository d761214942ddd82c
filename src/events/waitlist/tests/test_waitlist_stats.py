"""The organiser's waitlist statistics (issue 12 item 8): each bucket as docs/spec/api.md defines it,
the claim rate and median, the queue-length samples written by joins and leaves, and a
fixed number of queries. Permission denials are in test_admin_permission_matrix.py.
"""

import uuid
from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from events.models import EventWaitList, WaitlistOffer, WaitlistQueueSample
from events.waitlist import services as waitlist_service
from events.waitlist.services.queue_samples import record_queue_length
from events.waitlist.tests.waitlist_builders import T0, active_event, queue_in_order

pytestmark = pytest.mark.django_db

Status = WaitlistOffer.WaitlistOfferStatus


def offer(event, user, status, *, minutes_to_claim=None, declined=False, cutoff=False):
    made = WaitlistOffer.objects.create(
        event=event,
        user=user,
        expires_at=T0 + timedelta(hours=2),
        batch_id=uuid.uuid4(),
        status=status,
        is_cutoff_batch=cutoff,
        declined_at=T0 + timedelta(minutes=5) if declined else None,
    )
    WaitlistOffer.objects.filter(pk=made.pk).update(created_at=T0)
    if minutes_to_claim is not None:
        WaitlistOffer.objects.filter(pk=made.pk).update(
            claimed_at=T0 + timedelta(minutes=minutes_to_claim)
        )
    return made


def stats(api, event):
    response = api(event.organization.owner).get(f"/event-admin/{event.pk}/waitlist/stats")
    assert response.status_code == 200, response.content
    return response.json()


def test_before_any_offer_there_is_no_rate_and_no_median(api):
    event = active_event(5, attendees=5)

    body = stats(api, event)

    assert body == {
        "offers": {"sent": 0, "claimed": 0, "declined": 0, "lapsed": 0, "revoked": 0},
        "claim_rate": None,
        "median_time_to_claim": None,
        "queue_length": [],
    }


def test_every_bucket_the_rate_and_the_median(api):
    event = active_event(10, attendees=10)
    people = [make_user() for _ in range(9)]
    offer(event, people[0], Status.CLAIMED, minutes_to_claim=10)
    offer(event, people[1], Status.CLAIMED, minutes_to_claim=30)
    offer(event, people[2], Status.CLAIMED, minutes_to_claim=90, cutoff=True)
    offer(event, people[3], Status.EXPIRED, declined=True)
    offer(event, people[4], Status.EXPIRED)  # lapsed
    offer(event, people[5], Status.EXPIRED)  # left the queue while holding it: lapsed too
    offer(event, people[6], Status.REVOKED)
    offer(event, people[7], Status.PENDING)  # live: sent, no outcome yet
    other = active_event(10, attendees=10)
    offer(other, people[8], Status.CLAIMED, minutes_to_claim=1)  # another event's

    body = stats(api, event)

    assert body["offers"] == {"sent": 8, "claimed": 3, "declined": 1, "lapsed": 2, "revoked": 1}
    assert body["claim_rate"] == pytest.approx(3 / 6)
    assert body["median_time_to_claim"] == "PT30M"


def test_a_leave_while_holding_counts_as_lapsed_through_the_service(api):
    event = active_event(10, attendees=9)
    (holder,) = queue_in_order(event, 1)
    waitlist_service.process_waitlist_for_event(event.pk)

    waitlist_service.leave_waitlist(holder, event)

    assert stats(api, event)["offers"] == {
        "sent": 1,
        "claimed": 0,
        "declined": 0,
        "lapsed": 1,
        "revoked": 0,
    }
    assert stats(api, event)["claim_rate"] == 0.0


def test_joins_and_leaves_draw_the_queue_length(api, django_capture_on_commit_callbacks):
    with time_machine.travel(T0, tick=False):
        event = active_event(3, attendees=3)
        first, second = make_user(), make_user()
    for minutes, (user, action) in enumerate(
        [(first, "join"), (second, "join"), (first, "leave")], start=1
    ):
        with time_machine.travel(T0 + timedelta(minutes=minutes), tick=False):
            if action == "join":
                response = api(user).post(f"/events/{event.pk}/waitlist/join")
                assert response.status_code in (200, 201), response.content
            else:
                assert api(user).delete(f"/events/{event.pk}/waitlist/leave").status_code == 204

    points = stats(api, event)["queue_length"]

    assert [p["length"] for p in points] == [1, 2, 1]
    assert [p["at"][11:16] for p in points] == ["12:01", "12:02", "12:03"]


def test_a_claim_and_a_staff_removal_sample_the_queue_too(django_capture_on_commit_callbacks):
    event = active_event(3, attendees=2)
    a, b = queue_in_order(event, 2)
    waitlist_service.process_waitlist_for_event(event.pk)
    entry_b = EventWaitList.objects.get(event=event, user=b)

    # The claim's sample is written after the commit (it is not worth the lock's time).
    with django_capture_on_commit_callbacks(execute=True):
        waitlist_service.claim_offer_for_registration(event, a.pk)
    waitlist_service.remove_entry(entry_b)

    assert list(
        WaitlistQueueSample.objects.filter(event=event).values_list("length", flat=True)
    ) == [1, 0]


def test_the_series_is_bounded_to_the_newest_points(api):
    event = active_event(3, attendees=3)
    for minute in range(205):
        record_queue_length(event.pk, T0 + timedelta(minutes=minute))

    points = stats(api, event)["queue_length"]

    assert len(points) == 200
    assert points[0]["at"] < points[-1]["at"]
    assert points[-1]["at"].startswith("2031-05-01T15:24")


def test_stats_cost_a_fixed_number_of_queries(api, django_assert_num_queries):
    event = active_event(10, attendees=10)
    client = api(event.organization.owner)
    for many in (False, True):
        people = [make_user() for _ in range(20 if many else 2)]
        for person in people:
            offer(event, person, Status.CLAIMED, minutes_to_claim=3)
            record_queue_length(event.pk, T0)
        # JWT user, the event with its access check, then the three reads.
        with django_assert_num_queries(5):
            assert client.get(f"/event-admin/{event.pk}/waitlist/stats").status_code == 200
