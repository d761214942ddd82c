"""Who may open the waitlist page and press its buttons: exactly the admin API routes'
doors (`invite_to_event` for the lists and "Remove", `manage_event` for the settings and
the offers), anonymous visitors to the log-in page and back."""

from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org, make_staff
from events.models import Event, EventWaitList, WaitlistOffer
from web.tests.waitlist.support import Status, active_event, offer, queue, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def event() -> Event:
    event = active_event()
    queue(event, 1)
    offer(event)
    return event


def _actions(event: Event) -> list[str]:
    entry = EventWaitList.objects.filter(event=event).order_by("created_at")[0]
    held = WaitlistOffer.objects.get(event=event)
    return [
        url(event),
        url(event, f"/entries/{entry.pk}/offer"),
        url(event, f"/entries/{entry.pk}/remove"),
        url(event, f"/offers/{held.pk}/revoke"),
        url(event, f"/offers/{held.pk}/reactivate"),
    ]


def _state(event: Event) -> list[Any]:
    return [
        list(EventWaitList.objects.order_by("pk").values()),
        list(WaitlistOffer.objects.order_by("pk").values()),
        list(Event.objects.filter(pk=event.pk).values()),
    ]


def test_anonymous_visitors_go_to_the_log_in_page_and_back(client: Client, event: Event) -> None:
    response = client.get(url(event, "?queue_page=2"))
    assert response.status_code == 302
    assert response["Location"] == f"/login?next={quote(url(event, '?queue_page=2'), safe='')}"
    before = _state(event)
    for action in _actions(event):
        posted = client.post(action, {"waitlist_open": "on", "waitlist_batch_size": "0"})
        assert posted.status_code == 302 and posted["Location"].startswith("/login?next=")
    assert _state(event) == before


@pytest.mark.parametrize(
    ("who", "private", "status"),
    [
        ("a stranger", True, 404),  # cannot even see the event: 404, like the API
        ("a stranger", False, 403),  # sees the public event, may not manage it
        ("staff of another organisation", True, 404),
        ("staff without invite_to_event or manage_event", True, 403),
    ],
)
def test_people_the_api_refuses_are_refused_every_door(
    client: Client, api: Any, event: Event, who: str, private: bool, *, status: int
) -> None:
    if who == "a stranger":
        user = make_user()
    elif who == "staff of another organisation":
        user = make_staff(make_org())
    else:
        user = make_staff(event.organization, invite_to_event=False, manage_event=False)
    if private:
        event.visibility = Event.Visibility.PRIVATE
        event.save()
    assert api(user).get(f"/event-admin/{event.pk}/waitlist").status_code == status
    client.force_login(user)
    before = _state(event)
    for action in _actions(event):
        method = client.get if action == url(event) else client.post
        assert method(action).status_code == status, action
    assert client.post(url(event), {"waitlist_batch_size": "3"}).status_code == status
    assert _state(event) == before


def test_staff_with_invite_to_event_only_see_the_lists_and_may_remove(
    client: Client, api: Any, event: Event
) -> None:
    user = make_staff(event.organization, invite_to_event=True, manage_event=False)
    assert api(user).get(f"/event-admin/{event.pk}/waitlist-settings").status_code == 403
    client.force_login(user)
    body = client.get(url(event)).content.decode()
    assert "Offer window" not in body and ">Save</button>" not in body
    assert ">Offer a seat</button>" not in body and ">Revoke</button>" not in body
    assert ">Remove</button>" in body
    page, offer_seat, remove, revoke, reactivate = _actions(event)
    before = _state(event)
    assert client.post(page, {"waitlist_batch_size": "3"}).status_code == 403
    for action in (offer_seat, revoke, reactivate):
        assert client.post(action).status_code == 403
    assert _state(event) == before
    assert client.post(remove, {"confirmed": "yes"}).status_code == 302
    assert EventWaitList.objects.filter(event=event).count() == 1


def test_staff_with_manage_event_but_not_invite_to_event_are_refused_the_page(
    client: Client, api: Any, event: Event
) -> None:
    """The lists are `invite_to_event` routes: without it the page (which is those lists)
    is a 403, as `GET .../waitlist` is."""
    user = make_staff(event.organization, invite_to_event=False, manage_event=True)
    assert api(user).get(f"/event-admin/{event.pk}/waitlist").status_code == 403
    client.force_login(user)
    assert client.get(url(event)).status_code == 403


def test_the_owner_and_full_staff_get_every_button(client: Client, event: Event) -> None:
    staff = make_staff(event.organization)
    WaitlistOffer.objects.update(status=Status.PENDING)
    for user in (event.organization.owner, staff):
        client.force_login(user)
        body = client.get(url(event)).content.decode()
        for name in ("Save", "Offer a seat", "Remove", "Revoke"):
            assert f">{name}</button>" in body, (user, name)
