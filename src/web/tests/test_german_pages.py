"""German pages: a German viewer (language "de", zone Europe/Berlin) reads every main page
in German, with the informal "du" of the notifications; a visitor whose browser asks for
German gets it too; and the web catalogue has every message translated and compiled."""

import ast
import gettext
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.eligibility.enums import Reasons
from events.core.tests.factories import make_event, make_org, make_tier
from events.models import Event
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import occurrences
from events.waitlist.tests.waitlist_builders import active_event, queue_in_order
from web.tests.event.support import status_region, text_of
from web.tests.series.support import weekly_series

LOCALE = Path(__file__).resolve().parents[1] / "locale" / "de" / "LC_MESSAGES"
START = datetime(2031, 3, 4, 18, 0, tzinfo=UTC)  # a Tuesday; 19:00 in Berlin


def german(user: User | None = None) -> User:
    user = user or make_user()
    user.language, user.timezone = "de", "Europe/Berlin"
    user.save(update_fields=["language", "timezone"])
    return user


def page_text(user: User, path: str) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get(path)
    assert response.status_code == 200, response.content[:500]
    assert '<html lang="de">' in response.content.decode()
    return text_of(response.content.decode())


@pytest.mark.django_db
class TestAGermanViewer:
    def test_the_home_page(self) -> None:
        make_event(name="Konzert", start=START, end=START + timedelta(hours=2))
        text = page_text(german(), "/")
        assert "Kommende Veranstaltungen" in text and "Abmelden" in text
        assert "Dienstag, 4. März 2031, 19:00" in text

    def test_the_event_page_with_their_place_in_the_queue(self) -> None:
        event = active_event(1, attendees=1, start=START, end=START + timedelta(hours=2))
        *_, me = queue_in_order(event, 3)
        text = page_text(german(me), f"/events/{event.pk}")
        assert "Du bist Nummer 3 auf der Warteliste." in text
        assert "Warteliste verlassen" in text
        assert "Beginn Dienstag, 4. März 2031, 19:00" in text
        assert "Ort" in text and "Veranstalter" in text and "Dein Status" in text

    def test_the_event_page_explains_a_refusal_and_a_free_ticket(self) -> None:
        organization = make_org()
        members_only = make_event(organization, event_type=Event.EventType.MEMBERS_ONLY)
        client = Client()
        client.force_login(german())
        text = text_of(status_region(client, members_only))
        assert "Nur Mitglieder der Organisation können an dieser Veranstaltung teilnehmen." in text
        assert f"Bitte {organization.name}, dich als Mitglied aufzunehmen." in text

        ticketed = make_event(requires_ticket=True)
        make_tier(ticketed, price=0, total_quantity=5)
        assert "Kostenlos · noch 5" in text_of(status_region(client, ticketed))

    def test_the_public_series_page_says_the_rule_in_german(self) -> None:
        series = weekly_series(make_org(), weekdays=[1, 3], name="Abendlauf")
        dates = occurrences(series)
        recurrence_service.cancel_occurrence(series, dates[1].start)
        text = page_text(german(), f"/events/{series.organization.slug}/series/{series.slug}")
        assert "Jeden Dienstag und Donnerstag um 18:00" in text
        assert "Kommende Termine" in text and "Abonnieren" in text
        assert "Abgesagt" in text and "Cancelled" not in text

    def test_my_page(self) -> None:
        event = active_event(1, attendees=1, start=START, end=START + timedelta(hours=2))
        *_, me = queue_in_order(event, 2)
        text = page_text(german(me), "/me")
        assert "Meine Antworten" in text and "Meine Tickets" in text
        assert "Meine Wartelistenplätze" in text
        assert "Du bist Nummer 2 auf der Warteliste" in text

    def test_my_settings(self) -> None:
        text = page_text(german(), "/me/settings")
        for words in ("Einstellungen", "Profil", "Sprache", "Zeitzone", "Deine Daten"):
            assert words in text
        assert "Meine Daten herunterladen" in text and "Mein Konto löschen" in text

    def test_the_organisation_page(self) -> None:
        organization = make_org(german())
        make_event(organization, name="Probe", start=START, end=START + timedelta(hours=2))
        text = page_text(organization.owner, f"/manage/{organization.slug}")
        assert "Kommende Veranstaltungen" in text and "Neue Veranstaltung" in text
        assert "Serien" in text and "Neue Serie" in text
        form = page_text(organization.owner, f"/manage/{organization.slug}/events/new")
        assert "Sichtbarkeit Öffentlich Nicht gelistet Privat Nur für Mitglieder" in form

    def test_the_event_overview_names_the_state_and_the_action_apart(self) -> None:
        organization = make_org(german())
        draft = make_event(organization, status=Event.Status.DRAFT, max_attendees=20)
        text = page_text(organization.owner, f"/manage/events/{draft.pk}")
        assert "Status: Entwurf" in text
        assert re.search(r"<button[^>]*>Öffnen</button>", self._html(organization.owner, draft))
        assert "Frei 20" in text and "Kapazität 20" in text
        assert "Veranstaltung absagen" in text and "Teilnehmende (Zusagen)" in text

        opened = make_event(organization, status=Event.Status.OPEN)
        assert "Status: Offen" in page_text(organization.owner, f"/manage/events/{opened.pk}")

    @staticmethod
    def _html(user: User, event: Event) -> str:
        client = Client()
        client.force_login(user)
        return client.get(f"/manage/events/{event.pk}").content.decode()

    def test_the_waitlist_page_says_its_settings_in_german(self) -> None:
        organization = make_org(german())
        event = active_event(5, organization=organization, waitlist_time_window=timedelta(hours=2))
        text = page_text(organization.owner, f"/manage/events/{event.pk}/waitlist")
        assert (
            "Wenn Plätze frei werden, bekommt pro freiem Platz eine Person in der "
            "Reihenfolge der Anmeldung ein Angebot und hat 2 Stunden Zeit, es anzunehmen."
        ) in text
        assert "Warteschlange" in text and "Angebote" in text and "Niemand wartet." in text
        assert "Speichern" in text and "Sichern" not in text  # not the admin's "Save"

    def test_the_series_management_page(self) -> None:
        organization = make_org(german())
        series = weekly_series(organization, auto_publish=False, name="Abendlauf")
        text = page_text(organization.owner, f"/manage/series/{series.pk}")
        assert "Jeden Dienstag um 18:00" in text
        assert "Jetzt erzeugen" in text and "Serie pausieren" in text
        assert "Entwurf" in text and "Diesen Termin absagen" in text


@pytest.mark.django_db
def test_an_anonymous_visitor_asking_for_german_gets_german(client: Client) -> None:
    response = client.get("/", headers={"accept-language": "de-DE,de;q=0.9,en;q=0.5"})
    body = response.content.decode()
    assert '<html lang="de">' in body
    assert "Kommende Veranstaltungen" in body and "Anmelden" in body and "Registrieren" in body
    login = text_of(client.get("/login", headers={"accept-language": "de"}).content.decode())
    assert "E-Mail-Adresse" in login and "Passwort vergessen?" in login


# The catalogue --------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    context: str | None
    msgid: str
    msgstr: tuple[str, ...]  # one translation, or one per plural form
    fuzzy: bool
    obsolete: bool


def catalogue() -> list[Entry]:
    """The messages of the web's German .po (the header left out), parsed by hand."""
    text = (LOCALE / "django.po").read_text(encoding="utf-8")
    entries = []
    for block in re.split(r"\n\s*\n", text.strip()):
        fields: dict[str, list[str]] = {}
        field, fuzzy, obsolete = "", False, False
        for line in block.splitlines():
            fuzzy = fuzzy or (line.startswith("#,") and "fuzzy" in line)
            obsolete = obsolete or line.startswith("#~")
            if match := re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (".*")$', line):
                field = match.group(1)
                fields[field] = [match.group(2)]
            elif line.startswith('"'):
                fields[field].append(line)
        strings = {
            key: "".join(ast.literal_eval(part) for part in parts) for key, parts in fields.items()
        }
        if strings.get("msgid"):
            translations = tuple(
                value for key, value in strings.items() if key.startswith("msgstr")
            )
            entries.append(
                Entry(strings.get("msgctxt"), strings["msgid"], translations, fuzzy, obsolete)
            )
    return entries


def test_every_message_of_the_web_catalogue_is_translated_and_none_is_fuzzy() -> None:
    entries = catalogue()
    assert len(entries) > 300
    assert [entry.msgid for entry in entries if not all(entry.msgstr)] == []
    assert [entry.msgid for entry in entries if entry.fuzzy or entry.obsolete] == []


def test_the_catalogue_says_du_never_sie() -> None:
    formal = re.compile(r"\b(Sie|Ihnen|Ihr|Ihre|Ihrem|Ihren|Ihrer|Ihres)\b")
    assert [text for entry in catalogue() for text in entry.msgstr if formal.search(text)] == []


def test_the_eligibility_reasons_are_in_the_web_catalogue() -> None:
    assert {reason.value for reason in Reasons} <= {entry.msgid for entry in catalogue()}


def test_the_compiled_catalogue_matches_the_po() -> None:
    with (LOCALE / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for entry in catalogue():
        if len(entry.msgstr) == 1:
            found = (
                compiled.pgettext(entry.context, entry.msgid)
                if entry.context
                else compiled.gettext(entry.msgid)
            )
            assert found == entry.msgstr[0], entry.msgid


def test_django_answers_every_message_as_the_catalogue_says() -> None:
    """Django merges the catalogues of all apps, the ones listed first winning: a web text
    that another catalogue (the admin's "Save" = "Sichern") also has needs a context."""
    differing = []
    with translation.override("de"):
        for entry in catalogue():
            if len(entry.msgstr) != 1:
                continue
            found = (
                translation.pgettext(entry.context, entry.msgid)
                if entry.context
                else translation.gettext(entry.msgid)
            )
            if found != entry.msgstr[0]:
                differing.append((entry.context, entry.msgid, found))
    assert differing == []
