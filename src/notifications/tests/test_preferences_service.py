"""notifications.service.preferences: first-read creation, the channel rule, validated updates."""

import threading

import pytest
from django.db import connection, transaction

from accounts.tests.factories import make_user
from common.errors import InvalidInput
from common.tests.racing import a_backend_waits_on_a_lock
from notifications.models import NotificationPreference
from notifications.service import preferences

pytestmark = pytest.mark.django_db

TYPE = "event_open"


@pytest.fixture
def telegram_token(settings):
    settings.TELEGRAM_BOT_TOKEN = "123:abc"


def pref(**fields) -> NotificationPreference:
    return NotificationPreference(**fields)


# -- get_preferences ---------------------------------------------------------------------


def test_first_read_creates_preferences_with_defaults(user):
    assert not NotificationPreference.objects.filter(user=user).exists()

    preference = preferences.get_preferences(user)

    assert preference.user_id == user.pk
    assert preference.silence_all is False
    assert preference.enabled_channels == ["in_app", "email"]
    assert preference.type_settings == {}
    assert preference.telegram_chat_id == ""


def test_later_reads_return_the_same_row(user):
    first = preferences.get_preferences(user)
    first.silence_all = True
    first.save(update_fields=["silence_all"])

    again = preferences.get_preferences(user)

    assert again.pk == first.pk
    assert again.silence_all is True
    assert NotificationPreference.objects.filter(user=user).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_first_reads_share_one_row_without_integrity_error():
    """The second reader's INSERT waits on the first's uncommitted row, then must recover."""
    user = make_user()
    first_inserted, release_first = threading.Event(), threading.Event()
    results: dict[str, object] = {}

    def first() -> None:
        try:
            with transaction.atomic():
                results["first"] = preferences.get_preferences(user).pk
                first_inserted.set()
                release_first.wait(10)
        except Exception as exc:  # reported through `results`
            results["first"] = exc
        finally:
            connection.close()

    def second() -> None:
        try:
            first_inserted.wait(10)
            results["second"] = preferences.get_preferences(user).pk
        except Exception as exc:
            results["second"] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    waited = a_backend_waits_on_a_lock(timeout=5.0)
    release_first.set()
    for thread in threads:
        thread.join(15)

    assert waited, "the second reader never blocked on the first's insert: no race exercised"
    assert results["first"] == results["second"]
    assert NotificationPreference.objects.filter(user=user).count() == 1


# -- resolve_channels --------------------------------------------------------------------


def test_defaults_deliver_in_app_and_email():
    assert preferences.resolve_channels(pref(), TYPE) == ["in_app", "email"]


def test_silence_all_delivers_nowhere(telegram_token):
    preference = pref(
        silence_all=True,
        telegram_chat_id="42",
        type_settings={TYPE: {"enabled": True, "channels": ["email"]}},
    )

    assert preferences.resolve_channels(preference, TYPE) == []


def test_disabled_type_delivers_nowhere_but_other_types_still_do():
    preference = pref(type_settings={TYPE: {"enabled": False, "channels": ["email"]}})

    assert preferences.resolve_channels(preference, TYPE) == []
    assert preferences.resolve_channels(preference, "ticket_created") == ["in_app", "email"]


def test_type_channels_replace_the_enabled_channels():
    preference = pref(
        enabled_channels=["in_app"], type_settings={TYPE: {"enabled": True, "channels": ["email"]}}
    )

    assert preferences.resolve_channels(preference, TYPE) == ["email"]


def test_type_without_channels_falls_back_to_enabled_channels():
    preference = pref(enabled_channels=["email"], type_settings={TYPE: {"enabled": True}})

    assert preferences.resolve_channels(preference, TYPE) == ["email"]


def test_type_with_an_empty_channel_list_delivers_nowhere():
    preference = pref(type_settings={TYPE: {"enabled": True, "channels": []}})

    assert preferences.resolve_channels(preference, TYPE) == []


def test_telegram_kept_with_chat_id_and_bot_token(telegram_token):
    preference = pref(enabled_channels=["telegram", "in_app"], telegram_chat_id="42")

    assert preferences.resolve_channels(preference, TYPE) == ["telegram", "in_app"]


def test_telegram_dropped_without_chat_id(telegram_token):
    preference = pref(enabled_channels=["in_app", "telegram"], telegram_chat_id="")

    assert preferences.resolve_channels(preference, TYPE) == ["in_app"]


def test_telegram_dropped_with_empty_bot_token(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    preference = pref(enabled_channels=["in_app", "telegram"], telegram_chat_id="42")

    assert preferences.resolve_channels(preference, TYPE) == ["in_app"]


def test_telegram_dropped_when_bot_token_setting_is_missing(settings):
    settings.TELEGRAM_BOT_TOKEN = "123:abc"
    del settings.TELEGRAM_BOT_TOKEN
    preference = pref(enabled_channels=["in_app", "telegram"], telegram_chat_id="42")

    assert preferences.resolve_channels(preference, TYPE) == ["in_app"]


def test_telegram_rule_applies_to_type_channels_too(settings):
    settings.TELEGRAM_BOT_TOKEN = ""
    preference = pref(
        telegram_chat_id="42",
        type_settings={TYPE: {"enabled": True, "channels": ["telegram", "email"]}},
    )

    assert preferences.resolve_channels(preference, TYPE) == ["email"]


def test_order_is_kept_and_duplicates_dropped(telegram_token):
    preference = pref(
        enabled_channels=["email", "telegram", "email", "in_app", "telegram"],
        telegram_chat_id="42",
    )

    assert preferences.resolve_channels(preference, TYPE) == ["email", "telegram", "in_app"]


def test_unknown_stored_channel_names_are_ignored():
    """Stored through the admin, say: the delivery code must never meet them."""
    preference = pref(enabled_channels=["sms", "email"], type_settings={TYPE: "garbage"})

    assert preferences.resolve_channels(preference, TYPE) == ["email"]


# -- update_preferences ------------------------------------------------------------------


def test_update_changes_only_the_fields_sent(user):
    preferences.update_preferences(user, {"telegram_chat_id": "42"})

    preference = preferences.update_preferences(
        user, {"silence_all": True, "enabled_channels": ["email", "email", "in_app"]}
    )

    preference.refresh_from_db()
    assert preference.silence_all is True
    assert preference.enabled_channels == ["email", "in_app"]
    assert preference.telegram_chat_id == "42"


def test_update_merges_type_settings_per_type_and_null_resets_a_type(user):
    preferences.update_preferences(
        user,
        {
            "type_settings": {
                "event_open": {"enabled": False},
                "ticket_created": {"channels": ["email"]},
            }
        },
    )

    preferences.update_preferences(
        user, {"type_settings": {"event_open": None, "event_updated": {"enabled": False}}}
    )

    stored = NotificationPreference.objects.get(user=user).type_settings
    assert stored == {
        "ticket_created": {"enabled": True, "channels": ["email"]},
        "event_updated": {"enabled": False},
    }


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"enabled_channels": ["in_app", "sms"]}, "enabled_channels"),
        ({"type_settings": {"no_such_type": {"enabled": False}}}, "type_settings"),
        (
            {"type_settings": {"event_open": {"channels": ["pigeon"]}}},
            "type_settings.event_open.channels",
        ),
    ],
)
def test_unknown_names_are_refused_and_nothing_is_written(user, data, field):
    before = preferences.update_preferences(user, {"telegram_chat_id": "42"})

    with pytest.raises(InvalidInput) as refused:
        preferences.update_preferences(user, {"silence_all": True, **data})

    assert list(refused.value.payload()["errors"]) == [field]
    after = NotificationPreference.objects.get(user=user)
    assert (after.silence_all, after.enabled_channels, after.type_settings) == (
        before.silence_all,
        before.enabled_channels,
        before.type_settings,
    )


def test_refused_first_update_creates_no_row(user):
    with pytest.raises(InvalidInput):
        preferences.update_preferences(user, {"enabled_channels": ["sms"]})

    assert not NotificationPreference.objects.filter(user=user).exists()


def test_every_problem_is_reported_at_once(user):
    with pytest.raises(InvalidInput) as refused:
        preferences.update_preferences(
            user,
            {
                "enabled_channels": ["sms", "fax"],
                "type_settings": {"nope": {}, "event_open": {"enabled": "yes"}},
                "colour": "blue",
            },
        )

    errors = refused.value.payload()["errors"]
    assert set(errors) == {
        "enabled_channels",
        "type_settings",
        "type_settings.event_open.enabled",
        "colour",
    }
    assert len(errors["enabled_channels"]) == 2
    assert "'sms'" in errors["enabled_channels"][0]
