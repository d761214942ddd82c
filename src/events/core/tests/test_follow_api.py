"""Following organisations and event series: unfollow archives, following again revives."""

import uuid
from typing import Any

import pytest

from accounts.models import User
from events.core.tests.factories import make_member, make_org
from events.models import (
    Blacklist,
    EventSeries,
    EventSeriesFollow,
    Organization,
    OrganizationFollow,
)

pytestmark = pytest.mark.django_db


def make_series(organization: Organization, **fields: Any) -> EventSeries:
    fields.setdefault("name", f"Series {uuid.uuid4().hex[:6]}")
    fields.setdefault("slug", f"series-{uuid.uuid4().hex[:6]}")
    return EventSeries.objects.create(organization=organization, **fields)


def org_url(org: Organization) -> str:
    return f"/organizations/{org.slug}/follow"


def series_url(series: EventSeries | uuid.UUID) -> str:
    series_id = series.pk if isinstance(series, EventSeries) else series
    return f"/event-series/{series_id}/follow"


class TestFollowOrganization:
    def test_follow_creates_a_live_row_notifying_by_default(
        self, api: Any, user: User, org: Organization
    ) -> None:
        response = api(user).post(org_url(org))
        assert response.status_code == 200, response.content
        assert response.json()["notify_new_events"] is True
        assert response.json()["is_archived"] is False
        follow = OrganizationFollow.objects.get(user=user, organization=org)
        assert (follow.notify_new_events, follow.is_archived) == (True, False)

    def test_notify_new_events_can_be_switched_off(
        self, api: Any, user: User, org: Organization
    ) -> None:
        response = api(user).post(org_url(org), {"notify_new_events": False})
        assert response.status_code == 200
        assert OrganizationFollow.objects.get(user=user).notify_new_events is False

    def test_unfollow_archives_the_row(self, api: Any, user: User, org: Organization) -> None:
        api(user).post(org_url(org))
        response = api(user).delete(org_url(org))
        assert response.status_code == 204
        follow = OrganizationFollow.objects.get(user=user, organization=org)
        assert follow.is_archived is True

    def test_following_again_revives_the_same_row_and_keeps_the_choice(
        self, api: Any, user: User, org: Organization
    ) -> None:
        first = api(user).post(org_url(org), {"notify_new_events": False}).json()
        api(user).delete(org_url(org))
        again = api(user).post(org_url(org))
        assert again.status_code == 200
        assert again.json() == {**first, "is_archived": False}
        follows = OrganizationFollow.objects.filter(user=user, organization=org)
        assert [(f.is_archived, f.notify_new_events) for f in follows] == [(False, False)]

    def test_following_again_with_a_choice_changes_it(
        self, api: Any, user: User, org: Organization
    ) -> None:
        api(user).post(org_url(org))
        response = api(user).post(org_url(org), {"notify_new_events": False})
        assert response.json()["notify_new_events"] is False
        assert OrganizationFollow.objects.get(user=user).notify_new_events is False

    def test_unfollow_without_following_is_a_harmless_204(
        self, api: Any, user: User, org: Organization
    ) -> None:
        assert api(user).delete(org_url(org)).status_code == 204
        assert not OrganizationFollow.objects.exists()

    def test_an_invisible_organisation_cannot_be_followed(self, api: Any, user: User) -> None:
        private = make_org(visibility="private")
        assert api(user).post(org_url(private)).status_code == 404
        assert api(user).delete(org_url(private)).status_code == 404
        assert not OrganizationFollow.objects.exists()

    def test_a_member_follows_a_private_organisation(self, api: Any) -> None:
        private = make_org(visibility="private")
        member = make_member(private)
        assert api(member).post(org_url(private)).status_code == 200

    def test_a_user_blacklisted_after_following_can_still_unfollow(
        self, api: Any, user: User, org: Organization
    ) -> None:
        api(user).post(org_url(org))
        Blacklist.objects.create(organization=org, user=user)
        assert api(user).post(org_url(org)).status_code == 404
        assert api(user).delete(org_url(org)).status_code == 204
        assert OrganizationFollow.objects.get(user=user).is_archived is True

    def test_unknown_slug_is_404(self, api: Any, user: User) -> None:
        assert api(user).post("/organizations/nobody/follow").status_code == 404

    @pytest.mark.parametrize("method", ["post", "delete"])
    def test_anonymous_is_401(self, api: Any, org: Organization, method: str) -> None:
        assert getattr(api(None), method)(org_url(org)).status_code == 401
        assert not OrganizationFollow.objects.exists()

    @pytest.mark.parametrize("body", [{"notify_new_events": "sometimes"}, {"mute": True}])
    def test_bad_bodies_are_422_and_write_nothing(
        self, api: Any, user: User, org: Organization, body: dict[str, Any]
    ) -> None:
        response = api(user).post(org_url(org), body)
        assert response.status_code == 422
        assert response.json()["code"] == "invalid"
        assert not OrganizationFollow.objects.exists()

    def test_follows_of_other_users_are_untouched(
        self, api: Any, user: User, org: Organization
    ) -> None:
        other = make_member(org)
        api(other).post(org_url(org))
        api(user).post(org_url(org))
        api(user).delete(org_url(org))
        assert OrganizationFollow.objects.get(user=other).is_archived is False


class TestFollowSeries:
    def test_follow_unfollow_and_follow_again(
        self, api: Any, user: User, org: Organization
    ) -> None:
        series = make_series(org)
        response = api(user).post(series_url(series), {"notify_new_events": False})
        assert response.status_code == 200, response.content
        assert response.json()["notify_new_events"] is False
        assert api(user).delete(series_url(series)).status_code == 204
        assert EventSeriesFollow.objects.get(user=user, event_series=series).is_archived is True
        again = api(user).post(series_url(series))
        assert (again.json()["is_archived"], again.json()["notify_new_events"]) == (False, False)
        assert EventSeriesFollow.objects.filter(user=user).count() == 1

    def test_following_a_series_does_not_follow_its_organisation(
        self, api: Any, user: User, org: Organization
    ) -> None:
        api(user).post(series_url(make_series(org)))
        assert not OrganizationFollow.objects.exists()

    def test_a_series_of_an_invisible_organisation_is_404(self, api: Any, user: User) -> None:
        series = make_series(make_org(visibility="private"))
        assert api(user).post(series_url(series)).status_code == 404
        assert api(user).delete(series_url(series)).status_code == 404
        assert not EventSeriesFollow.objects.exists()

    def test_unknown_series_is_404(self, api: Any, user: User) -> None:
        assert api(user).post(series_url(uuid.uuid4())).status_code == 404

    def test_unfollow_without_following_is_a_harmless_204(
        self, api: Any, user: User, org: Organization
    ) -> None:
        assert api(user).delete(series_url(make_series(org))).status_code == 204
        assert not EventSeriesFollow.objects.exists()

    @pytest.mark.parametrize("method", ["post", "delete"])
    def test_anonymous_is_401(self, api: Any, org: Organization, method: str) -> None:
        assert getattr(api(None), method)(series_url(make_series(org))).status_code == 401

    def test_bad_body_is_422(self, api: Any, user: User, org: Organization) -> None:
        response = api(user).post(series_url(make_series(org)), {"notify_new_events": 3})
        assert response.status_code == 422
        assert not EventSeriesFollow.objects.exists()
