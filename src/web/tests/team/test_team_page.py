"""`/manage/<org_slug>/team`: who is on the team with what permissions in words; the owner
adds staff (who get an e-mail), saves their boxes and removes them after confirming."""

from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts.tests.factories import make_user
from common import links
from events.core.tests.factories import make_org, make_staff
from events.models import Organization, OrganizationStaff, StaffPermission
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def club() -> Organization:
    owner = make_user("owner@example.com", first_name="Olga", last_name="Owner")
    return make_org(owner, name="Jazz Club", slug="jazz-club")


def _staff_row(organization: Organization, user: Any) -> OrganizationStaff:
    return OrganizationStaff.objects.get(organization=organization, user=user)


def test_the_owner_sees_owner_and_staff_with_their_permissions_as_checkboxes(
    club: Organization,
) -> None:
    ana = make_staff(club, make_user("ana@example.com", first_name="Ana"), close_event=False)
    page = body(signed_in_client(club.owner).get("/manage/jazz-club/team"))
    assert "<h1>Team</h1>" in page
    assert "owner@example.com" in page and "holds every permission" in page
    assert "ana@example.com" in page
    prefix = f"staff-{ana.pk}"
    assert f'name="{prefix}-close_event"' in page
    assert f'id="id_{prefix}-close_event"' in page
    assert "Close and cancel events</label>" in page
    assert f'name="{prefix}-check_in_attendees" id="id_{prefix}-check_in_attendees" checked' in page
    assert f'name="{prefix}-close_event" id="id_{prefix}-close_event">' in page
    assert ">Add staff member</button>" in page
    assert ">Save</button>" in page
    assert ">Remove</button>" in page
    assert "data-confirm" in page


def test_staff_see_the_team_in_words_without_any_form(club: Organization) -> None:
    viewer = make_staff(club)
    make_staff(club, make_user("ana@example.com"), check_in_attendees=False)
    page = body(signed_in_client(viewer).get("/manage/jazz-club/team"))
    assert "ana@example.com" in page
    assert "<li>Open events</li>" in page
    assert "<li>Check in attendees</li>" not in page.split("ana@example.com")[1]
    assert "<form" not in page.split("<main")[1]
    assert "Add staff member" not in page


def test_adding_a_known_address_makes_them_staff_with_defaults_and_mails_them(
    club: Organization, django_capture_on_commit_callbacks: Any
) -> None:
    ana = make_user("ana@example.com", first_name="Ana", last_name="Lopez")
    client = signed_in_client(club.owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/manage/jazz-club/team/add", {"email": " ANA@example.com "})
    assert response.status_code == 302
    assert response["Location"] == f"/manage/jazz-club/team#person-{ana.pk}"
    staff = _staff_row(club, ana)
    assert staff.has_permission(StaffPermission.CHECK_IN_ATTENDEES)
    assert not staff.has_permission(StaffPermission.MANAGE_MEMBERS)
    [message] = mail.outbox
    assert message.to == ["ana@example.com"]
    assert "Jazz Club" in message.subject
    assert f"{links.absolute_url('/manage/jazz-club')}\n" in message.body
    page = body(client.get(response["Location"]))
    assert "Ana Lopez is on the team now and was told by e-mail." in page


def test_an_unknown_address_is_said_plainly_and_nothing_is_added(club: Organization) -> None:
    response = signed_in_client(club.owner).post(
        "/manage/jazz-club/team/add", {"email": "nobody@example.com"}
    )
    assert response.status_code == 400
    page = body(response)
    assert 'id="id_email_error"' in page
    assert "No Encore account uses this address; ask them to sign up first." in page
    assert not OrganizationStaff.objects.exists()
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("email", "status", "message"),
    [
        ("not an address", 400, "Enter a valid email address."),
        ("owner@example.com", 400, "The owner holds every permission already"),
        ("ana@example.com", 409, "This person is already on the team."),
    ],
)
def test_adding_refusals_stand_next_to_the_field(
    club: Organization, email: str, status: int, message: str
) -> None:
    make_staff(club, make_user("ana@example.com"))
    response = signed_in_client(club.owner).post("/manage/jazz-club/team/add", {"email": email})
    assert response.status_code == status
    page = body(response)
    assert 'id="id_email_error"' in page
    assert message in page
    assert OrganizationStaff.objects.count() == 1


def test_save_stores_every_box_ticked_or_not(club: Organization) -> None:
    ana = make_staff(club, make_user("ana@example.com"))
    prefix = f"staff-{ana.pk}"
    ticked = {f"{prefix}-{name}": "on" for name in ("edit_event", "manage_members")}
    response = signed_in_client(club.owner).post(f"/manage/jazz-club/team/{ana.pk}", ticked)
    assert response.status_code == 302
    assert response["Location"] == f"/manage/jazz-club/team#person-{ana.pk}"
    staff = _staff_row(club, ana)
    held = {name for name in StaffPermission.values if staff.has_permission(name)}
    assert held == {"edit_event", "manage_members"}


def test_remove_asks_first_then_removes_on_yes(club: Organization) -> None:
    ana = make_staff(club, make_user("ana@example.com", first_name="Ana", last_name="Lopez"))
    client = signed_in_client(club.owner)
    asked = client.post(f"/manage/jazz-club/team/{ana.pk}/remove")
    assert asked.status_code == 200
    assert "Ana Lopez will lose access to the events of Jazz Club." in body(asked)
    assert ">Yes, remove</button>" in body(asked)
    assert OrganizationStaff.objects.filter(user=ana).exists()
    done = client.post(f"/manage/jazz-club/team/{ana.pk}/remove", {"confirmed": "yes"})
    assert done.status_code == 302
    assert not OrganizationStaff.objects.filter(user=ana).exists()
    assert "Ana Lopez was removed from the team." in body(client.get(done["Location"]))


def test_the_owner_has_no_staff_row_to_untick_or_remove(club: Organization) -> None:
    client = signed_in_client(club.owner)
    owner_id = club.owner.pk
    assert client.post(f"/manage/jazz-club/team/{owner_id}", {}).status_code == 404
    removing = client.post(f"/manage/jazz-club/team/{owner_id}/remove", {"confirmed": "yes"})
    assert removing.status_code == 404
    Organization.objects.get(pk=club.pk)  # still there, still owned


def _writes(staff_user_id: Any) -> list[tuple[str, dict[str, str]]]:
    return [
        ("/manage/jazz-club/team/add", {"email": "new@example.com"}),
        (f"/manage/jazz-club/team/{staff_user_id}", {}),
        (f"/manage/jazz-club/team/{staff_user_id}/remove", {"confirmed": "yes"}),
    ]


def test_anonymous_visitors_go_to_the_log_in_page_and_nothing_changes(club: Organization) -> None:
    ana = make_staff(club, make_user("ana@example.com"))
    make_user("new@example.com")
    client = Client()
    response = client.get("/manage/jazz-club/team")
    assert response["Location"] == "/login?next=%2Fmanage%2Fjazz-club%2Fteam"
    for url, data in _writes(ana.pk):
        response = client.post(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/login?next="), url
    assert _staff_row(club, ana).has_permission(StaffPermission.EDIT_EVENT)
    assert OrganizationStaff.objects.count() == 1


def test_staff_even_with_every_permission_may_not_change_the_team(club: Organization) -> None:
    """The admin API's staff writes are the owner's (`access_owner`): 403 for staff."""
    ana = make_staff(club, make_user("ana@example.com"))
    boss = make_staff(club, **dict.fromkeys(StaffPermission.values, True))
    make_user("new@example.com")
    client = signed_in_client(boss)
    for url, data in _writes(ana.pk):
        assert client.post(url, data).status_code == 403, url
    assert _staff_row(club, ana).has_permission(StaffPermission.EDIT_EVENT)
    assert OrganizationStaff.objects.count() == 2


def test_staff_without_view_organization_details_get_403(club: Organization) -> None:
    blind = make_staff(club, view_organization_details=False)
    assert signed_in_client(blind).get("/manage/jazz-club/team").status_code == 403


def test_strangers_get_403_on_a_public_and_404_on_a_private_organisation(
    club: Organization,
) -> None:
    ana = make_staff(club, make_user("ana@example.com"))
    make_user("new@example.com")
    client = signed_in_client(make_user())
    assert client.get("/manage/jazz-club/team").status_code == 403
    Organization.objects.filter(pk=club.pk).update(visibility=Organization.Visibility.PRIVATE)
    assert client.get("/manage/jazz-club/team").status_code == 404
    for url, data in _writes(ana.pk):
        assert client.post(url, data).status_code == 404, url
    assert client.get("/manage/no-such-club/team").status_code == 404
    assert OrganizationStaff.objects.count() == 1


def test_another_organisations_staff_member_is_404_here(club: Organization) -> None:
    elsewhere = make_staff(make_org(name="Other", slug="other"), make_user("x@example.com"))
    client = signed_in_client(club.owner)
    assert client.post(f"/manage/jazz-club/team/{elsewhere.pk}", {}).status_code == 404
    gone = client.post(f"/manage/jazz-club/team/{elsewhere.pk}/remove", {"confirmed": "yes"})
    assert gone.status_code == 404
    assert OrganizationStaff.objects.filter(user=elsewhere).exists()


@pytest.mark.parametrize("staff_count", [1, 8])
def test_the_team_page_costs_a_fixed_number_of_queries(
    club: Organization, staff_count: int, django_assert_num_queries: Any
) -> None:
    for _ in range(staff_count):
        make_staff(club)
    client = signed_in_client(club.owner)
    with django_assert_num_queries(6):
        assert client.get("/manage/jazz-club/team").status_code == 200
