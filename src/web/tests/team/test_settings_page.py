"""`/manage/<org_slug>/settings`: the organisation's settings, saved through the service the
admin API's PATCH uses, with its permission (`edit_organization`)."""

from typing import Any

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org, make_staff
from events.models import Organization
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db

URL = "/manage/jazz-club/settings"
FILLED = {
    "name": "Jazz Club Berlin",
    "description": "Live jazz every week.",
    "contact_email": "hello@jazz.example",
    "timezone": "Europe/Berlin",
    "payment_instructions": "Pay by bank transfer to DE00 1234; quote the reference.",
}


@pytest.fixture
def club() -> Organization:
    return make_org(make_user(), name="Jazz Club", slug="jazz-club", timezone="UTC")


def test_the_form_shows_the_current_settings(club: Organization) -> None:
    Organization.objects.filter(pk=club.pk).update(
        contact_email="desk@jazz.example", payment_instructions="Cash at the bar."
    )
    page = body(signed_in_client(club.owner).get(URL))
    assert "<h1>Settings</h1>" in page
    assert 'value="Jazz Club"' in page
    assert 'value="desk@jazz.example"' in page
    assert "Cash at the bar.</textarea>" in page
    assert '<option value="UTC" selected>' in page
    for label in ("Name", "Description", "Contact e-mail", "Default time zone"):
        assert f">{label}</label>" in page
    assert ">Payment instructions</label>" in page
    assert ">Save</button>" in page


def test_save_changes_every_setting_and_keeps_the_slug(club: Organization) -> None:
    client = signed_in_client(club.owner)
    response = client.post(URL, FILLED)
    assert response.status_code == 302
    assert response["Location"] == URL
    club.refresh_from_db()
    assert club.name == "Jazz Club Berlin"
    assert club.slug == "jazz-club"
    assert club.description == "Live jazz every week."
    assert club.contact_email == "hello@jazz.example"
    assert club.timezone == "Europe/Berlin"
    assert club.payment_instructions.startswith("Pay by bank transfer")
    assert "The settings were saved." in body(client.get(URL))


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"name": "Taken Club"}, "name", "already exists"),
        ({"name": " "}, "name", "This field is required."),
        ({"contact_email": "not-an-address"}, "contact_email", "Enter a valid email address."),
        ({"timezone": "Mars/Olympus"}, "timezone", "Select a valid choice."),
        ({"payment_instructions": "x" * 2001}, "payment_instructions", "at most 2000"),
    ],
)
def test_refusals_stand_next_to_their_field_and_change_nothing(
    club: Organization, change: dict[str, str], field: str, message: str
) -> None:
    make_org(name="Taken Club", slug="taken-club")
    response = signed_in_client(club.owner).post(URL, {**FILLED, **change})
    assert response.status_code == 400
    page = body(response)
    assert f'id="id_{field}_error"' in page
    assert message in page
    club.refresh_from_db()
    assert (club.name, club.contact_email, club.timezone) == ("Jazz Club", "", "UTC")


def test_staff_with_edit_organization_may_save(club: Organization) -> None:
    editor = make_staff(club, edit_organization=True)
    assert signed_in_client(editor).post(URL, FILLED).status_code == 302
    club.refresh_from_db()
    assert club.contact_email == "hello@jazz.example"


def test_staff_without_edit_organization_read_the_settings_but_saving_is_403(
    club: Organization,
) -> None:
    Organization.objects.filter(pk=club.pk).update(payment_instructions="Cash at the bar.")
    client = signed_in_client(make_staff(club))  # the default map leaves it off
    page = body(client.get(URL))
    assert "Cash at the bar." in page
    assert "<form" not in page.split("<main", 1)[1].split("</main>")[0]
    assert ">Save</button>" not in page
    assert client.post(URL, FILLED).status_code == 403
    club.refresh_from_db()
    assert club.name == "Jazz Club"


def test_staff_without_view_organization_details_get_403(club: Organization) -> None:
    client = signed_in_client(make_staff(club, view_organization_details=False))
    assert client.get(URL).status_code == 403


def test_anonymous_visitors_go_to_the_log_in_page_and_back(club: Organization) -> None:
    client = Client()
    assert client.get(URL)["Location"] == "/login?next=%2Fmanage%2Fjazz-club%2Fsettings"
    assert client.post(URL, FILLED)["Location"].startswith("/login?next=")
    club.refresh_from_db()
    assert club.name == "Jazz Club"


def test_strangers_get_403_on_a_public_and_404_on_a_private_organisation(
    club: Organization,
) -> None:
    client = signed_in_client(make_user())
    assert client.get(URL).status_code == 403
    Organization.objects.filter(pk=club.pk).update(visibility=Organization.Visibility.PRIVATE)
    assert client.get(URL).status_code == 404
    assert client.post(URL, FILLED).status_code == 404
    club.refresh_from_db()
    assert club.name == "Jazz Club"


def test_the_organisation_page_links_team_and_settings_to_those_allowed(
    club: Organization,
) -> None:
    owner_page = body(signed_in_client(club.owner).get("/manage/jazz-club"))
    assert '<a class="manage-action" href="/manage/jazz-club/team">Team</a>' in owner_page
    assert 'href="/manage/jazz-club/settings">Settings</a>' in owner_page
    staff_page = body(signed_in_client(make_staff(club)).get("/manage/jazz-club"))
    assert 'href="/manage/jazz-club/team">Team</a>' in staff_page
    assert 'class="manage-action" href="/manage/jazz-club/settings"' not in staff_page


def test_the_settings_page_costs_a_fixed_number_of_queries(
    club: Organization, django_assert_num_queries: Any
) -> None:
    client = signed_in_client(club.owner)
    with django_assert_num_queries(4):
        assert client.get(URL).status_code == 200
