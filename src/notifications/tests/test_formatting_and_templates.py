"""Sender helpers ("in 23 hours", event-local times) and the templates of every type."""

import gettext
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import translation

from accounts.models import User
from notifications import rendering
from notifications.models import NotificationType
from notifications.service.formatting import format_in_zone, humanize_time_remaining
from notifications.service.notification import normalise_context
from notifications.tests.contexts import context_for, offer_context

APP_DIR = Path(__file__).resolve().parents[1]
TEMPLATE_FILES = {
    "in_app": (".title.txt", ".txt"),
    "email": (".subject.txt", ".txt", ".html"),
    "telegram": (".txt",),
}


class TestHumanizeTimeRemaining:
    @pytest.mark.parametrize(
        ("delta", "expected"),
        [
            (timedelta(hours=23, minutes=59), "in 23 hours"),
            (timedelta(hours=1), "in 1 hour"),
            (timedelta(minutes=59, seconds=59), "in 59 minutes"),
            (timedelta(minutes=1), "in 1 minute"),
            (timedelta(seconds=30), "in less than a minute"),
            (timedelta(hours=47), "in 47 hours"),
            (timedelta(days=3, hours=5), "in 3 days"),
            (timedelta(0), "now"),
            (timedelta(minutes=-5), "now"),
        ],
    )
    def test_english(self, delta: timedelta, expected: str) -> None:
        with translation.override("en"):
            assert humanize_time_remaining(delta) == expected

    def test_german(self) -> None:
        with translation.override("de"):
            assert humanize_time_remaining(timedelta(hours=23)) == "in 23 Stunden"


def test_format_in_zone_shows_the_events_wall_clock_and_zone() -> None:
    start = datetime(2026, 3, 3, 18, 0, tzinfo=UTC)

    assert format_in_zone(start, "Europe/Vienna") == "Tue 3 Mar 2026, 19:00 CET"
    assert format_in_zone(start + timedelta(days=120), "Europe/Vienna").endswith("20:00 CEST")


@pytest.mark.parametrize("notification_type", NotificationType.values)
def test_every_type_has_every_channel_template(notification_type: str) -> None:
    for channel, suffixes in TEMPLATE_FILES.items():
        for suffix in suffixes:
            path = (
                APP_DIR / "templates" / "notifications" / channel / f"{notification_type}{suffix}"
            )
            assert path.is_file(), path


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("notification_type", NotificationType.values)
def test_every_template_renders_the_events_times_and_no_html_in_plain_text(
    notification_type: str, language: str
) -> None:
    user = User(email="r@example.com", first_name="Rosa", language=language)
    context = normalise_context(context_for(notification_type))

    in_app = rendering.render_in_app(notification_type, context, user)
    email = rendering.render_email(notification_type, context, user)
    telegram = rendering.render_telegram(notification_type, context, user)

    for text in (in_app.title + in_app.body, email.subject, email.text, telegram):
        assert "&amp;" not in text and "&quot;" not in text and "<" not in text
    for text in (email.text, email.html, telegram, in_app.title + " " + in_app.body):
        assert "19:00 CET" in text, (notification_type, text)
    assert f'<html lang="{language}">' in email.html


def test_plain_text_is_not_escaped_but_html_is() -> None:
    user = User(email="r@example.com", language="en")
    context = normalise_context(offer_context(event_name='<Tom & "Jerry">'))

    email = rendering.render_email("waitlist_spot_available", context, user)

    assert '<Tom & "Jerry">' in email.text
    assert "&lt;Tom &amp; &quot;Jerry&quot;&gt;" in email.html


def test_german_catalogue_is_compiled_from_the_current_po_file() -> None:
    locale = APP_DIR / "locale" / "de" / "LC_MESSAGES"
    po_ids = (locale / "django.po").read_text().count("\nmsgid ") - 1  # minus the header
    with (locale / "django.mo").open("rb") as mo_file:
        catalogue = gettext.GNUTranslations(mo_file)
    assert catalogue.gettext("Claim your spot") == "Platz sichern"
    compiled = {key for key in catalogue._catalog if key}  # type: ignore[attr-defined]
    singular = {key[0] if isinstance(key, tuple) else key for key in compiled}
    assert len(singular) == po_ids
