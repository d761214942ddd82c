"""Every absolute link Encore sends starts with ENCORE_PUBLIC_URL (docs/spec/ui.md "Links sent by
Encore"), and a recipient reads an e-mail's times in their own language."""

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives

from accounts.service.password_reset import send_password_reset
from accounts.tests.factories import make_user
from events.core.selectors.event_calendar import events_calendar
from events.core.services.notification_context import series_digest_context
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventSeries, WaitlistOffer
from events.waitlist.services.notifications import offer_context
from notifications.rendering import render_email

pytestmark = pytest.mark.django_db

SRC_DIR = Path(__file__).resolve().parents[3]
ORIGIN = "https://encore.example"
#: A Tuesday in December, 19:00 in Vienna; the offer runs out 23 minutes after "now".
START = datetime(2031, 12, 2, 18, 0, tzinfo=UTC)
NOW = datetime(2031, 11, 30, 9, 0, tzinfo=UTC)
EXPIRES = NOW + timedelta(minutes=23, seconds=30)
LINK = re.compile(r"https?://[^\s\"'<>]+")
ENGLISH_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ENGLISH_SHORT_DAYS = ("Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun ")


def vienna_event() -> Event:
    org = make_org(timezone="UTC", slug="choir")
    return make_event(org, start=START, end=START + timedelta(hours=2), timezone="Europe/Vienna")


def offer_mail(event: Event, language: str) -> Any:
    offer = WaitlistOffer(event=event, expires_at=EXPIRES, is_cutoff_batch=False)
    user = make_user(f"{language}@example.com", language=language)
    return render_email("waitlist_spot_available", offer_context(offer, NOW), user)


def links_in(*texts: str) -> list[str]:
    found = [link for text in texts for link in LINK.findall(text)]
    assert found
    return found


class TestPublicOrigin:
    @pytest.fixture(autouse=True)
    def _origin(self, settings: Any) -> None:
        settings.ENCORE_PUBLIC_URL = ORIGIN

    def test_an_offer_mail_links_the_event_page_and_the_settings(self) -> None:
        event = vienna_event()
        content = offer_mail(event, "en")

        assert all(link.startswith(ORIGIN + "/") for link in links_in(content.text, content.html))
        assert f"{ORIGIN}/events/{event.pk}" in content.text
        assert f"{ORIGIN}/me/settings" in content.text
        assert f'href="{ORIGIN}/me/settings"' in content.html

    def test_the_series_digest_links_the_public_series_page(self) -> None:
        event = vienna_event()
        series = EventSeries(organization=event.organization, name="Weekly", slug="weekly")
        context = series_digest_context(series, [event])
        content = render_email("series_events_generated", context, make_user("d@example.com"))

        assert context["series_url"] == f"{ORIGIN}/events/choir/series/weekly"
        assert all(link.startswith(ORIGIN + "/") for link in links_in(content.text, content.html))
        assert f"{ORIGIN}/me/settings" in content.text

    def test_the_reset_mail_links_the_reset_page_and_the_settings(self) -> None:
        make_user("forgot@example.com")

        assert send_password_reset("forgot@example.com")

        message = mail.outbox[0]
        assert isinstance(message, EmailMultiAlternatives)
        body, html = str(message.body), str(message.alternatives[0][0])
        assert re.search(rf"{re.escape(ORIGIN)}/password-reset/[\w-]+/[\w-]+", body)
        assert all(link.startswith(ORIGIN + "/") for link in links_in(body, html))
        assert f"{ORIGIN}/me/settings" in body

    def test_the_calendar_entry_links_the_event_page(self) -> None:
        event = vienna_event()
        feed = events_calendar([Event.objects.select_related("venue").get(pk=event.pk)])

        assert f"URL:{ORIGIN}/events/{event.pk}" in feed.replace("\r\n ", "")


def settings_origin(**env: str) -> str:
    """ENCORE_PUBLIC_URL as a fresh process reads it from the environment."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"ENCORE_PUBLIC_URL", "FRONTEND_BASE_URL", "ENCORE_HOST", "ENCORE_PORT"}
    }
    code = (
        "import django; django.setup(); from django.conf import settings;"
        " print(settings.ENCORE_PUBLIC_URL)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=SRC_DIR,
        env={**base, "DJANGO_SETTINGS_MODULE": "encore.settings", **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout.strip().splitlines()[-1]


@pytest.mark.own_processes
class TestOriginFromTheEnvironment:
    def test_the_default_is_what_make_run_serves(self) -> None:
        assert settings_origin() == "http://127.0.0.1:8000"

    def test_encore_host_and_port_move_the_default(self) -> None:
        assert settings_origin(ENCORE_PORT="8123") == "http://127.0.0.1:8123"
        assert settings_origin(ENCORE_HOST="0.0.0.0", ENCORE_PORT="9000") == "http://0.0.0.0:9000"

    def test_encore_public_url_wins_and_loses_its_trailing_slash(self) -> None:
        assert settings_origin(ENCORE_PUBLIC_URL=f"{ORIGIN}/", ENCORE_PORT="8123") == ORIGIN

    def test_the_old_name_is_still_read(self) -> None:
        assert settings_origin(FRONTEND_BASE_URL=ORIGIN) == ORIGIN


class TestLanguage:
    def test_a_german_offer_mail_names_days_and_months_in_german(self) -> None:
        content = offer_mail(vienna_event(), "de")

        for part in (content.text, content.html, content.subject):
            assert not any(day in part for day in ENGLISH_DAYS + ENGLISH_SHORT_DAYS)
        assert "Dienstag, 2. Dezember 2031, 19:00 CET" in content.text
        assert "in 23 Minuten" in content.text
        assert "Dienstag" in content.html and "Dezember" in content.html

    def test_an_english_offer_mail_is_unchanged(self) -> None:
        content = offer_mail(vienna_event(), "en")

        assert "Tue 2 Dec 2031, 19:00 CET" in content.text
        assert "in 23 minutes" in content.text
        assert "Dienstag" not in content.text

    def test_a_german_digest_lists_the_dates_in_german(self) -> None:
        event = vienna_event()
        series = EventSeries(organization=event.organization, name="Weekly", slug="weekly")
        user = make_user("de-digest@example.com", language="de")
        content = render_email(
            "series_events_generated", series_digest_context(series, [event]), user
        )

        assert "Dienstag, 2. Dezember 2031, 19:00 CET" in content.text
