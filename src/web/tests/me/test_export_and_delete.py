"""`/me/settings`: "Download my data" (everything Encore holds, only mine) and
"Delete my account" (the password, then the deletion path that releases seats)."""

import json

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from accounts.models import User
from accounts.tests.factories import PASSWORD, make_user
from events.core.tests.factories import make_event, make_member, make_org, make_staff
from events.core.tests.user_deletion_support import rsvp_yes
from events.models import (
    EventSeries,
    EventSeriesFollow,
    OrganizationFollow,
    OrganizationMembershipRequest,
)
from events.waitlist.tests.waitlist_builders import (
    active_event,
    offered_ids,
    passes,
    queue_in_order,
    reload,
)
from notifications.service import preferences
from web.tests.me.support import live_offer, notify, queue, rsvp, signed_in_client, ticket

__all__ = ["passes"]  # a fixture, imported for pytest

pytestmark = pytest.mark.django_db


def everything_of(user: User) -> None:
    """One row of every kind Encore keeps about a person."""
    org = make_org(name=f"Choir of {user.email}")
    rsvp(make_event(organization=org, name=f"Picnic of {user.email}"), user)
    ticket(make_event(organization=org, name=f"Gala of {user.email}", requires_ticket=True), user)
    crowded = make_event(organization=org, name=f"Opera of {user.email}", waitlist_open=True)
    queue(crowded, user)
    live_offer(crowded, user)
    make_staff(org, user)
    make_member(make_org(name=f"Club of {user.email}"), user)
    OrganizationFollow.objects.create(user=user, organization=org)
    OrganizationMembershipRequest.objects.create(
        user=user, organization=make_org(), message=f"let {user.email} in"
    )
    series = EventSeries.objects.create(
        organization=org, name=f"Tuesdays of {user.email}", slug=f"t-{user.pk}"
    )
    EventSeriesFollow.objects.create(user=user, event_series=series)
    notify(user, f"News for {user.email}")
    preferences.update_preferences(user, {"silence_all": True})


def test_the_export_is_a_json_download_of_everything_and_only_mine() -> None:
    me = make_user("me@example.com", first_name="Ada", timezone="Europe/Berlin")
    other = make_user("other@example.com")
    everything_of(me)
    everything_of(other)

    response = signed_in_client(me).get("/me/settings/export")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="encore-my-data-')
    assert "no-store" in response["Cache-Control"]
    data = json.loads(response.content)
    assert data["profile"]["email"] == "me@example.com"
    assert data["profile"]["timezone"] == "Europe/Berlin"
    assert "password" not in json.dumps(data["profile"])
    assert [row["event"]["name"] for row in data["rsvps"]] == ["Picnic of me@example.com"]
    assert [row["event"]["name"] for row in data["tickets"]] == ["Gala of me@example.com"]
    assert [row["event"]["name"] for row in data["waitlist_entries"]] == ["Opera of me@example.com"]
    assert [row["status"] for row in data["waitlist_offers"]] == ["pending"]
    assert [row["organization"]["name"] for row in data["staff_roles"]] == [
        "Choir of me@example.com"
    ]
    assert [row["organization"]["name"] for row in data["memberships"]] == [
        "Club of me@example.com"
    ]
    assert [row["message"] for row in data["membership_requests"]] == ["let me@example.com in"]
    assert [row["organization"]["name"] for row in data["organization_follows"]] == [
        "Choir of me@example.com"
    ]
    assert [row["series"]["name"] for row in data["series_follows"]] == [
        "Tuesdays of me@example.com"
    ]
    assert [row["title"] for row in data["notifications"]] == ["News for me@example.com"]
    assert data["notification_preferences"]["silence_all"] is True
    assert "other@example.com" not in response.content.decode()


def test_the_export_needs_a_signed_in_user(client: Client) -> None:
    assert client.get("/me/settings/export")["Location"].startswith("/login?next=")


def test_delete_asks_for_the_password_first() -> None:
    user = make_user()
    client = signed_in_client(user)
    body = client.get("/me/settings/delete").content.decode()
    assert '<label for="id_password">Password</label>' in body
    assert "Delete my account</button>" in body

    response = client.post("/me/settings/delete", {"password": "not-it"})

    assert response.status_code == 400
    assert "That is not your password." in response.content.decode()
    assert User.objects.filter(pk=user.pk).exists()


def test_deleting_releases_the_seat_logs_out_and_goes_home(
    passes, django_capture_on_commit_callbacks
) -> None:
    event = active_event(capacity=1)
    leaving = rsvp_yes(event)
    [next_in_line] = queue_in_order(event, 1)
    client = signed_in_client(leaving)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/me/settings/delete", {"password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Your account has been deleted."
    ]
    assert not User.objects.filter(pk=leaving.pk).exists()
    assert reload(event).attendee_count == 0
    assert offered_ids(event) == {next_in_line.pk}
    assert "_auth_user_id" not in client.session
    home = client.get("/").content.decode()
    assert 'role="status"' in home and "Your account has been deleted." in home
    assert client.get("/me")["Location"].startswith("/login")


def test_deleting_gives_the_seat_of_a_held_offer_to_the_next_in_line(
    passes, django_capture_on_commit_callbacks
) -> None:
    event = active_event(capacity=2, attendees=1)
    holder, next_in_line = queue_in_order(event, 2)
    live_offer(event, holder)  # holds the one free seat

    with django_capture_on_commit_callbacks(execute=True):
        signed_in_client(holder).post("/me/settings/delete", {"password": PASSWORD})

    assert not User.objects.filter(pk=holder.pk).exists()
    assert offered_ids(event) == {next_in_line.pk}


def test_an_owner_of_an_organisation_is_refused_and_nothing_changes() -> None:
    owner = make_user()
    make_org(owner=owner, name="My club")

    response = signed_in_client(owner).post("/me/settings/delete", {"password": PASSWORD})

    assert response.status_code == 409
    assert "You own an organisation" in response.content.decode()
    assert User.objects.filter(pk=owner.pk).exists()
