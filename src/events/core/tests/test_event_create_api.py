"""POST /organization-admin/{slug}/create-event: body, defaults, slugs, refusals."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from events.core.services import event_service
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_event, make_org, make_staff
from events.models import Event, TicketTier, Venue

START = datetime(2031, 3, 14, 18, 0, tzinfo=UTC)


def _url(org: Any) -> str:
    return f"/organization-admin/{org.slug}/create-event"


def _body(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": "Spring Concert", "start": START.isoformat()}
    body.update(fields)
    return body


@pytest.fixture
def org(db: None) -> Any:
    return make_org(timezone="Europe/Vienna")


@pytest.mark.django_db
class TestCreateEvent:
    def test_owner_creates_a_draft_with_the_model_defaults(self, api, org) -> None:
        response = api(org.owner).post(_url(org), _body(description="Bring a friend"))
        assert response.status_code == 201, response.content
        body = response.json()
        event = Event.objects.get(pk=body["id"])
        assert body["status"] == "draft" and event.status == Event.Status.DRAFT
        assert body["slug"] == "spring-concert"
        assert body["timezone"] == "Europe/Vienna"
        assert event.end == START + timedelta(days=1)
        assert event.check_in_starts_at == START - timedelta(hours=1)
        assert body["attendee_count"] == 0 and body["tiers"] == []
        assert event.description == "Bring a friend"

    def test_open_status_publishes_at_once(self, api, org) -> None:
        response = api(org.owner).post(_url(org), _body(status="open"))
        assert response.status_code == 201
        assert Event.objects.get(pk=response.json()["id"]).status == Event.Status.OPEN

    def test_staff_with_create_event_may_create(self, api, org) -> None:
        staff = make_staff(org, create_event=True)
        assert api(staff).post(_url(org), _body()).status_code == 201

    def test_every_setting_of_the_body_is_stored(self, api, org) -> None:
        venue = Venue.objects.create(organization=org, name="Hall", capacity=80)
        body = _body(
            end=(START + timedelta(hours=3)).isoformat(),
            visibility="unlisted",
            event_type="members_only",
            timezone="America/New_York",
            rsvp_before=(START - timedelta(days=1)).isoformat(),
            max_tickets_per_user=4,
            max_attendees=100,
            venue_id=str(venue.pk),
            visibility_settings={"show_capacity": False},
            waitlist_open=True,
            waitlist_time_window="PT2H",
            waitlist_batch_size=5,
            waitlist_cutoff_date=(START - timedelta(hours=6)).isoformat(),
            waitlist_lottery_mode=True,
        )
        response = api(org.owner).post(_url(org), body)
        assert response.status_code == 201, response.content
        event = Event.objects.get(pk=response.json()["id"])
        assert event.venue == venue and event.effective_capacity == 80
        assert event.visibility == "unlisted" and event.event_type == "members_only"
        assert event.timezone == "America/New_York"
        assert event.visibility_settings == {"show_capacity": False, "show_attendee_count": True}
        assert event.waitlist_time_window == timedelta(hours=2)
        assert event.waitlist_batch_size == 5 and event.waitlist_lottery_mode is True
        assert event.waitlist_cutoff_date == START - timedelta(hours=6)
        assert response.json()["effective_capacity"] == 80  # staff see hidden numbers

    def test_ticketed_event_gets_a_free_general_admission_tier(self, api, org) -> None:
        response = api(org.owner).post(_url(org), _body(requires_ticket=True))
        assert response.status_code == 201
        tiers = TicketTier.objects.filter(event_id=response.json()["id"])
        assert [(t.name, t.price, t.payment_method) for t in tiers] == [
            ("General admission", 0, TicketTier.PaymentMethod.FREE)
        ]
        assert [t["name"] for t in response.json()["tiers"]] == ["General admission"]

    def test_rsvp_event_gets_no_tier(self, api, org) -> None:
        response = api(org.owner).post(_url(org), _body())
        assert not TicketTier.objects.filter(event_id=response.json()["id"]).exists()


@pytest.mark.django_db
class TestSlugs:
    def test_second_event_with_the_name_gets_the_local_start_date(self, api, org) -> None:
        late = datetime(2031, 3, 14, 23, 30, tzinfo=UTC)  # already the 15th in Vienna
        api(org.owner).post(_url(org), _body())
        response = api(org.owner).post(_url(org), _body(start=late.isoformat()))
        assert response.json()["slug"] == "spring-concert-2031-03-15"

    def test_third_collision_adds_a_short_random_suffix(self, api, org) -> None:
        slugs = [api(org.owner).post(_url(org), _body()).json()["slug"] for _ in range(3)]
        assert slugs[:2] == ["spring-concert", "spring-concert-2031-03-14"]
        assert slugs[2].startswith("spring-concert-2031-03-14-")
        assert len(slugs[2]) == len("spring-concert-2031-03-14-") + 6
        assert len(set(slugs)) == 3

    def test_slugs_are_unique_per_organisation_only(self, api, org) -> None:
        other = make_org()
        make_event(other, slug="spring-concert")
        assert api(org.owner).post(_url(org), _body()).json()["slug"] == "spring-concert"

    def test_a_name_without_latin_letters_still_gets_a_slug(self, api, org) -> None:
        assert api(org.owner).post(_url(org), _body(name="音楽会")).json()["slug"] == "event"

    def test_a_taken_explicit_slug_is_refused(self, api, org) -> None:
        make_event(org, slug="mine")
        response = api(org.owner).post(_url(org), _body(slug="mine"))
        assert response.status_code == 400
        assert response.json()["code"] == "invalid"

    def test_a_concurrent_twin_slug_falls_back_to_a_suffix(self, org, monkeypatch) -> None:
        """The race window: the free slug was taken between the check and the insert."""
        make_event(org, slug="spring-concert-2031-03-14")
        monkeypatch.setattr(event_service, "_free_slug", lambda event: "spring-concert-2031-03-14")
        monkeypatch.setattr(Event, "validate_constraints", lambda self, exclude=None: None)
        event = event_service.create_event(org, {"name": "Spring Concert", "start": START})
        assert event.slug.startswith("spring-concert-2031-03-14-")


def _later(hours: float) -> str:
    return (START + timedelta(hours=hours)).isoformat()


BAD_BODIES_400 = [
    pytest.param({"end": _later(-1)}, "end", id="end-before-start"),
    pytest.param({"waitlist_time_window": "PT59M"}, "waitlist_time_window", id="window-under-1h"),
    pytest.param({"waitlist_time_window": "P7DT1S"}, "waitlist_time_window", id="window-over-7d"),
    pytest.param(
        {"waitlist_time_window": "PT2H", "waitlist_cutoff_date": _later(0)},
        "waitlist_cutoff_date",
        id="cutoff-at-start",
    ),
    pytest.param(
        {"waitlist_time_window": "PT2H", "waitlist_cutoff_date": _later(1)},
        "waitlist_cutoff_date",
        id="cutoff-after-start",
    ),
    pytest.param(
        {"waitlist_cutoff_date": _later(-2)}, "waitlist_cutoff_date", id="cutoff-without-window"
    ),
    pytest.param({"timezone": "Mars/Olympus"}, "timezone", id="unknown-timezone"),
    pytest.param({"status": "closed"}, "status", id="status-closed"),
    pytest.param({"status": "cancelled"}, "status", id="status-cancelled"),
    pytest.param({"status": "bogus"}, "status", id="status-unknown"),
    pytest.param(
        {"check_in_starts_at": _later(1), "check_in_ends_at": _later(0)},
        "check_in_ends_at",
        id="check-in-ends-before-it-starts",
    ),
    pytest.param({"slug": "not a slug!"}, "slug", id="invalid-slug"),
    pytest.param({"name": "   "}, "name", id="blank-name"),
]

BAD_BODIES_422 = [
    pytest.param({"max_attendees": -1}, id="negative-max-attendees"),
    pytest.param({"waitlist_batch_size": -3}, id="negative-batch-size"),
    pytest.param({"max_tickets_per_user": -1}, id="negative-tickets-per-user"),
    pytest.param({"max_attendees": "many"}, id="max-attendees-not-a-number"),
    pytest.param({"max_attendees": 2**40}, id="max-attendees-too-large"),
    pytest.param({"requires_ticket": "yes"}, id="requires-ticket-not-a-bool"),
    pytest.param({"start": "tomorrow"}, id="start-not-a-datetime"),
    pytest.param({"start": "2031-03-14T18:00:00"}, id="start-without-offset"),
    pytest.param({"start": "9999-12-31T23:00:00Z"}, id="start-at-the-end-of-time"),
    pytest.param({"name": ""}, id="empty-name"),
    pytest.param({"name": 5}, id="name-not-a-string"),
    pytest.param({"visibility": "everyone"}, id="unknown-visibility"),
    pytest.param({"event_type": "secret"}, id="unknown-event-type"),
    pytest.param({"venue_id": "not-a-uuid"}, id="venue-id-not-a-uuid"),
    pytest.param({"waitlist_time_window": "two hours"}, id="window-not-a-duration"),
    pytest.param({"visibility_settings": {"show_everything": True}}, id="unknown-setting"),
    pytest.param({"attendee_count": 5}, id="attendee-count-is-not-settable"),
    pytest.param({"event_series_id": "00000000-0000-0000-0000-000000000000"}, id="series-field"),
    pytest.param({"is_template": True}, id="template-flag"),
]


@pytest.mark.django_db
class TestRefusals:
    @pytest.mark.parametrize(("fields", "error_field"), BAD_BODIES_400)
    def test_invalid_values_are_400_with_field_errors_and_write_nothing(
        self, api, org, fields, error_field
    ) -> None:
        before = snapshot()
        response = api(org.owner).post(_url(org), _body(**fields))
        assert response.status_code == 400, response.content
        body = response.json()
        assert body["code"] == "invalid" and body["detail"]
        assert error_field in body["errors"]
        assert snapshot() == before

    @pytest.mark.parametrize("fields", BAD_BODIES_422)
    def test_wrong_shapes_are_422_and_write_nothing(self, api, org, fields) -> None:
        before = snapshot()
        response = api(org.owner).post(_url(org), _body(**fields))
        assert response.status_code == 422, response.content
        assert response.json()["code"] == "invalid" and response.json()["errors"]
        assert snapshot() == before

    @pytest.mark.parametrize("missing", ["name", "start"])
    def test_name_and_start_are_required(self, api, org, missing) -> None:
        body = _body()
        del body[missing]
        response = api(org.owner).post(_url(org), body)
        assert response.status_code == 422
        assert missing in response.json()["errors"]

    def test_a_venue_of_another_organisation_is_unknown(self, api, org) -> None:
        foreign = Venue.objects.create(organization=make_org(), name="Elsewhere", capacity=5)
        before = snapshot()
        response = api(org.owner).post(_url(org), _body(venue_id=str(foreign.pk)))
        assert response.status_code == 400
        assert "venue_id" in response.json()["errors"]
        assert snapshot() == before

    def test_staff_without_create_event_is_refused(self, api, org) -> None:
        staff = make_staff(org)  # create_event is off by default
        response = api(staff).post(_url(org), _body())
        assert response.status_code == 403
        assert not Event.objects.filter(organization=org).exists()

    def test_a_ticketed_event_refused_by_validation_leaves_no_tier(self, api, org) -> None:
        before = snapshot()
        response = api(org.owner).post(_url(org), _body(requires_ticket=True, end=_later(-1)))
        assert response.status_code == 400
        assert snapshot() == before


@pytest.mark.django_db
def test_service_refuses_fields_the_create_body_does_not_have(org) -> None:
    from common.errors import InvalidInput

    with pytest.raises(InvalidInput):
        event_service.create_event(org, {"name": "X", "start": timezone.now(), "attendee_count": 3})
    assert not Event.objects.filter(organization=org).exists()
