"""The iCalendar writer (RFC 5545 escaping, folding, UTC) and `GET /events/{id}/calendar.ics`."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from events.core.tests.factories import make_event, make_org
from events.models import Event, Venue
from events.utils import ical

VIENNA = ZoneInfo("Europe/Vienna")


def unfold(text: str) -> list[str]:
    """Undo RFC 5545 folding: a CRLF followed by one space joins the lines."""
    return text.replace("\r\n ", "").split("\r\n")


class TestEscaping:
    @pytest.mark.parametrize(
        ("raw", "escaped"),
        [
            ("plain", "plain"),
            ("a,b;c", "a\\,b\\;c"),
            ("back\\slash", "back\\\\slash"),
            ("two\nlines", "two\\nlines"),
            ("windows\r\nbreak", "windows\\nbreak"),
            ("old mac\rbreak", "old mac\\nbreak"),
            ("colon: stays", "colon: stays"),
        ],
    )
    def test_text_values_are_escaped(self, raw, escaped):
        assert ical.escape_text(raw) == escaped

    def test_a_backslash_is_escaped_before_the_others(self):
        assert ical.escape_text("\\,") == "\\\\\\,"


class TestFolding:
    def test_a_short_line_is_left_alone(self):
        line = "SUMMARY:" + "x" * 67  # exactly 75 octets

        assert ical.fold(line) == line

    def test_a_long_line_is_folded_at_75_octets(self):
        line = "DESCRIPTION:" + "y" * 200

        folded = ical.fold(line)

        parts = folded.split("\r\n")
        assert all(len(part.encode()) <= 75 for part in parts)
        assert all(part.startswith(" ") for part in parts[1:])
        assert folded.replace("\r\n ", "") == line

    def test_a_multibyte_character_is_never_split(self):
        line = "SUMMARY:" + "ü€😀" * 40

        folded = ical.fold(line)

        for part in folded.split("\r\n"):
            assert len(part.encode("utf-8")) <= 75
            part.encode("utf-8").decode("utf-8")  # each piece is valid UTF-8 on its own
        assert folded.replace("\r\n ", "") == line


class TestTimes:
    def test_times_are_written_in_utc(self):
        assert ical.format_utc(datetime(2031, 7, 1, 20, 30, tzinfo=VIENNA)) == "20310701T183000Z"

    def test_a_naive_time_is_refused(self):
        with pytest.raises(ValueError, match="timezone-aware"):
            ical.format_utc(datetime(2031, 7, 1, 20, 30))


class TestCalendar:
    def test_a_calendar_has_crlf_lines_and_the_required_properties(self):
        start = datetime(2031, 1, 2, 18, tzinfo=UTC)
        text = ical.calendar(
            [
                ical.VEvent(
                    uid="x@encore",
                    start=start,
                    end=start + timedelta(hours=2),
                    summary="Jam, session; live",
                    stamp=start,
                )
            ]
        )

        assert text.endswith("\r\n")
        assert "\n" not in text.replace("\r\n", "")
        lines = unfold(text)
        assert lines[:2] == ["BEGIN:VCALENDAR", "VERSION:2.0"]
        assert any(line.startswith("PRODID:") for line in lines)
        assert "SUMMARY:Jam\\, session\\; live" in lines
        assert "DTSTART:20310102T180000Z" in lines
        assert "DTEND:20310102T200000Z" in lines
        assert lines.count("BEGIN:VEVENT") == lines.count("END:VEVENT") == 1
        assert lines[-2] == "END:VCALENDAR"


@pytest.mark.django_db
class TestEventCalendarRoute:
    def _get(self, api, event, user=None):
        return api(user).get(f"/events/{event.pk}/calendar.ics")

    def test_the_event_as_a_vevent(self, api):
        org = make_org()
        venue = Venue.objects.create(organization=org, name="Hall, east", address="Ring 1")
        start = datetime(2031, 3, 4, 19, tzinfo=VIENNA)
        event = make_event(
            org,
            name="Spring concert",
            description="Line one\nLine two, with a comma; and a semicolon " + "long " * 30,
            start=start,
            end=start + timedelta(hours=3),
            venue=venue,
        )

        response = self._get(api, event)

        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/calendar")
        assert f'filename="{event.slug}.ics"' in response["Content-Disposition"]
        text = response.content.decode()
        lines = unfold(text)
        assert f"UID:{event.pk}@encore" in lines
        assert "DTSTART:20310304T180000Z" in lines
        assert "DTEND:20310304T210000Z" in lines
        assert "SUMMARY:Spring concert" in lines
        [description] = [line for line in lines if line.startswith("DESCRIPTION:")]
        assert description.startswith(
            "DESCRIPTION:Line one\\nLine two\\, with a comma\\; and a semicolon long"
        )
        assert "LOCATION:Hall\\, east\\, Ring 1" in lines
        assert "STATUS:CONFIRMED" in lines
        assert any(line.startswith("DTSTAMP:") and line.endswith("Z") for line in lines)
        assert all(len(raw.encode()) <= 75 for raw in text.split("\r\n"))

    def test_the_uid_is_stable_across_exports_and_edits(self, api):
        event = make_event(name="Before")
        first = unfold(self._get(api, event).content.decode())
        Event.objects.filter(pk=event.pk).update(name="After")

        second = unfold(self._get(api, event).content.decode())

        uid = [line for line in first if line.startswith("UID:")]
        assert uid == [line for line in second if line.startswith("UID:")]
        assert "SUMMARY:After" in second

    def test_a_cancelled_event_is_status_cancelled(self, api):
        event = make_event(status=Event.Status.CANCELLED)

        assert "STATUS:CANCELLED" in unfold(self._get(api, event).content.decode())

    def test_an_invisible_event_is_404(self, api):
        event = make_event(status=Event.Status.DRAFT)

        response = self._get(api, event)

        assert response.status_code == 404
        assert response.json()["code"] == "not_found"

    def test_the_owner_may_export_a_draft_as_tentative(self, api):
        org = make_org()
        event = make_event(org, status=Event.Status.DRAFT)

        response = self._get(api, event, user=org.owner)

        assert "STATUS:TENTATIVE" in unfold(response.content.decode())
