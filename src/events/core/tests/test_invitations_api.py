"""/event-admin/{event_id}/invitations: idempotent invite, list, withdraw."""

from typing import Any

import pytest

from accounts.tests.factories import make_user
from events.core.services import invitation_service
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_event
from events.models import Event, Invitation


def _url(event: Event, invitation_id: Any = None) -> str:
    base = f"/event-admin/{event.pk}/invitations"
    return base if invitation_id is None else f"{base}/{invitation_id}"


@pytest.fixture
def event(db: None) -> Event:
    return make_event(visibility="private", event_type="private")


def _owner(api: Any, event: Event) -> Any:
    return api(event.organization.owner)


@pytest.mark.django_db
class TestInvitations:
    def test_inviting_creates_one_invitation(self, api, event) -> None:
        guest = make_user()
        response = _owner(api, event).post(_url(event), {"user_id": str(guest.pk)})
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["user"]["id"] == str(guest.pk) and body["event_id"] == str(event.pk)
        assert body["overrides_max_attendees"] is False
        assert Invitation.objects.filter(event=event, user=guest).count() == 1

    def test_inviting_again_is_idempotent_and_updates_the_override(self, api, event) -> None:
        guest = make_user()
        first = _owner(api, event).post(_url(event), {"user_id": str(guest.pk)})
        again = _owner(api, event).post(
            _url(event), {"user_id": str(guest.pk), "overrides_max_attendees": True}
        )
        assert again.status_code == 201
        assert again.json()["id"] == first.json()["id"]
        assert again.json()["overrides_max_attendees"] is True
        assert Invitation.objects.filter(event=event, user=guest).count() == 1

    def test_the_invited_user_can_see_the_private_event(self, api, event) -> None:
        guest = make_user()
        assert api(guest).get(f"/events/{event.pk}").status_code == 404
        _owner(api, event).post(_url(event), {"user_id": str(guest.pk)})
        assert api(guest).get(f"/events/{event.pk}").status_code == 200

    def test_list_shows_this_events_invitations_paginated(self, api, event) -> None:
        for _ in range(3):
            Invitation.objects.create(event=event, user=make_user())
        Invitation.objects.create(event=make_event(event.organization), user=make_user())
        listed = _owner(api, event).get(_url(event), page_size=2).json()
        assert listed["count"] == 3 and len(listed["results"]) == 2 and listed["next"]

    def test_withdrawing_deletes_the_invitation(self, api, event) -> None:
        invitation = Invitation.objects.create(event=event, user=make_user())
        assert _owner(api, event).delete(_url(event, invitation.pk)).status_code == 204
        assert not Invitation.objects.filter(pk=invitation.pk).exists()

    def test_an_invitation_of_another_event_is_404(self, api, event) -> None:
        foreign = Invitation.objects.create(event=make_event(event.organization), user=make_user())
        before = snapshot()
        assert _owner(api, event).delete(_url(event, foreign.pk)).status_code == 404
        assert snapshot() == before

    def test_an_unknown_user_is_400(self, api, event) -> None:
        before = snapshot()
        body = {"user_id": "00000000-0000-0000-0000-00000000000a"}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 400 and "user_id" in response.json()["errors"]
        assert snapshot() == before

    @pytest.mark.parametrize(
        "body",
        [{}, {"user_id": "x"}, {"user_id": None}, {"overrides_max_attendees": "yes"}],
        ids=["empty", "bad-uuid", "null-user", "override-not-a-bool"],
    )
    def test_malformed_bodies_are_422(self, api, event, body) -> None:
        before = snapshot()
        assert _owner(api, event).post(_url(event), body).status_code == 422
        assert snapshot() == before


@pytest.mark.django_db
def test_service_is_idempotent_on_event_and_user(event) -> None:
    guest = make_user()
    first = invitation_service.create_invitation(event, guest)
    second = invitation_service.create_invitation(event, guest)
    assert first.pk == second.pk
    assert Invitation.objects.filter(event=event).count() == 1
