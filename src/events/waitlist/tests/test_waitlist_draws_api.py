"""GET /events/{event_id}/waitlist/draws[/{batch_id}]: who may read a lottery's records.

Readers (docs/spec/api.md "Second round: precise points"): a queue member now, a past holder of
an offer from one of the event's lottery batches, `invite_to_event` staff. Everyone
else, anonymous callers included, gets the 404 an unknown event gets.
"""

import uuid

import pytest

from accounts.tests.factories import make_user
from events.core.tests.factories import make_staff
from events.models import Event, EventWaitList, WaitlistDraw, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import active_event, queue_in_order

pytestmark = pytest.mark.django_db

FIELDS = {
    "batch_id",
    "drawn_at",
    "seed",
    "algorithm",
    "eligible",
    "selected",
    "party_sizes",
    "seats",
    "batch_size",
    "policy",
    "tier_id",
}


def drawn_event(passes: int = 1) -> tuple[Event, list[WaitlistDraw]]:
    """A lottery event with `passes` recorded draws (offers cleared in between)."""
    event = active_event(10, attendees=7, waitlist_batch_size=5, waitlist_lottery_mode=True)
    queue_in_order(event, 12)
    for _ in range(passes):
        waitlist_service.process_waitlist_for_event(event.pk)
        WaitlistOffer.objects.filter(event=event).update(status="expired")
    return event, list(WaitlistDraw.objects.filter(event=event).order_by("-drawn_at"))


def paths(event: Event, draw: WaitlistDraw) -> list[str]:
    return [
        f"/events/{event.pk}/waitlist/draws",
        f"/events/{event.pk}/waitlist/draws/{draw.batch_id}",
    ]


class TestWhoMayRead:
    def test_anonymous_callers_and_strangers_get_a_404(self, api):
        event, [draw] = drawn_event()
        for caller in (api(None), api(make_user())):
            for path in paths(event, draw):
                response = caller.get(path)
                assert response.status_code == 404, path
                assert response.json()["code"] == "not_found"

    def test_a_queue_member_reads_every_draw_newest_first_and_finds_their_ticket(self, api):
        event, draws = drawn_event(passes=2)
        member = make_user()
        entry = EventWaitList.objects.create(event=event, user=member)

        listed = api(member).get(f"/events/{event.pk}/waitlist/draws")

        assert listed.status_code == 200
        body = listed.json()
        assert [d["batch_id"] for d in body] == [str(d.batch_id) for d in draws]
        assert len(body) == 2 and set(body[0]) == FIELDS
        assert body[0]["algorithm"] == "encore-ring-v1"
        assert all(len(token) == 16 for token in body[0]["eligible"] + body[0]["selected"])
        # No user ids anywhere: tickets only (the member's own is in their my-status).
        assert str(member.pk) not in listed.content.decode()
        assert len(format(entry.token, "016x")) == 16

    def test_one_draw_by_its_batch_id(self, api):
        event, [draw] = drawn_event()
        member = EventWaitList.objects.filter(event=event)[0].user

        response = api(member).get(f"/events/{event.pk}/waitlist/draws/{draw.batch_id}")

        assert response.status_code == 200
        assert response.json()["seed"] == draw.seed
        assert response.json()["selected"] == draw.selected

    def test_a_past_offer_holder_may_still_read_after_leaving_the_queue(self, api):
        event, [draw] = drawn_event()
        offer = WaitlistOffer.objects.filter(batch_id=draw.batch_id)[0]
        EventWaitList.objects.filter(event=event, user_id=offer.user_id).delete()

        response = api(offer.user).get(f"/events/{event.pk}/waitlist/draws")

        assert response.status_code == 200 and len(response.json()) == 1

    def test_staff_with_invite_to_event_read_and_other_staff_do_not(self, api):
        event, [draw] = drawn_event()
        inviter = make_staff(event.organization, invite_to_event=True)
        other = make_staff(event.organization, invite_to_event=False)

        for path in paths(event, draw):
            assert api(inviter).get(path).status_code == 200
            assert api(event.organization.owner).get(path).status_code == 200
            assert api(other).get(path).status_code == 404

    def test_another_events_batch_and_an_unknown_event_are_404(self, api):
        event, [draw] = drawn_event()
        elsewhere, [other_draw] = drawn_event()
        member = EventWaitList.objects.filter(event=event)[0].user

        assert (
            api(member)
            .get(f"/events/{event.pk}/waitlist/draws/{other_draw.batch_id}")
            .json()["code"]
            == "not_found"
        )
        assert api(member).get(f"/events/{uuid.uuid4()}/waitlist/draws").status_code == 404
        assert api(member).get(f"/events/{event.pk}/waitlist/draws/not-a-uuid").status_code in (
            400,
            422,
        )
        assert elsewhere.pk != event.pk and draw.batch_id != other_draw.batch_id
