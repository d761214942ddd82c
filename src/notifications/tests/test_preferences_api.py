"""HTTP tests of GET/PATCH /notification-preferences."""

import pytest
from django.core.cache import cache

from accounts.tests.factories import make_user
from common.api import WriteThrottle
from notifications.models import NotificationPreference
from notifications.service import preferences

pytestmark = pytest.mark.django_db

PATH = "/notification-preferences"
DEFAULTS = {
    "silence_all": False,
    "enabled_channels": ["in_app", "email"],
    "type_settings": {},
    "telegram_chat_id": "",
}


def stored(user) -> dict:
    row = NotificationPreference.objects.get(user=user)
    return {field: getattr(row, field) for field in DEFAULTS}


@pytest.mark.parametrize("method", ["get", "patch"])
def test_anonymous_callers_get_401(api, method):
    response = getattr(api(None), method)(
        PATH, {"silence_all": True} if method == "patch" else None
    )

    assert response.status_code == 401


def test_first_get_creates_preferences_with_defaults(api, user):
    assert not NotificationPreference.objects.filter(user=user).exists()

    response = api(user).get(PATH)

    assert response.status_code == 200
    assert response.json() == DEFAULTS
    assert stored(user) == DEFAULTS


def test_repeated_gets_keep_one_row(api, user):
    client = api(user)

    client.get(PATH)
    client.get(PATH)

    assert NotificationPreference.objects.filter(user=user).count() == 1


def test_patch_changes_the_fields_sent_and_returns_the_preferences(api, user):
    client = api(user)
    client.patch(PATH, {"telegram_chat_id": "42"})

    response = client.patch(
        PATH,
        {
            "silence_all": True,
            "enabled_channels": ["email", "telegram"],
            "type_settings": {"event_open": {"enabled": False}},
        },
    )

    assert response.status_code == 200
    expected = {
        "silence_all": True,
        "enabled_channels": ["email", "telegram"],
        "type_settings": {"event_open": {"enabled": False}},
        "telegram_chat_id": "42",
    }
    assert response.json() == expected
    assert stored(user) == expected
    assert client.get(PATH).json() == expected


def test_patch_merges_type_settings_and_null_resets_a_type(api, user):
    client = api(user)
    client.patch(
        PATH,
        {
            "type_settings": {
                "event_open": {"enabled": False},
                "ticket_created": {"channels": ["email"]},
            }
        },
    )

    response = client.patch(PATH, {"type_settings": {"event_open": None}})

    assert response.json()["type_settings"] == {
        "ticket_created": {"enabled": True, "channels": ["email"]}
    }


def test_patch_changes_only_the_callers_preferences(api, user):
    other = make_user()
    preferences.get_preferences(other)

    api(user).patch(PATH, {"silence_all": True})

    assert stored(other) == DEFAULTS
    assert stored(user)["silence_all"] is True


@pytest.mark.parametrize(
    ("body", "field", "name"),
    [
        ({"enabled_channels": ["in_app", "sms"]}, "enabled_channels", "sms"),
        ({"type_settings": {"birthday": {"enabled": False}}}, "type_settings", "birthday"),
        (
            {"type_settings": {"event_open": {"channels": ["email", "pigeon"]}}},
            "type_settings.event_open.channels",
            "pigeon",
        ),
    ],
)
def test_unknown_channel_or_type_is_400_and_nothing_changes(api, user, body, field, name):
    client = api(user)
    client.patch(PATH, {"telegram_chat_id": "42"})
    before = stored(user)

    response = client.patch(PATH, {"silence_all": True, **body})

    assert response.status_code == 400
    payload = response.json()
    assert payload["code"] == "invalid"
    assert payload["detail"]
    assert list(payload["errors"]) == [field]
    assert name in payload["errors"][field][0]
    assert stored(user) == before


def test_refused_first_patch_creates_no_preferences(api, user):
    response = api(user).patch(PATH, {"enabled_channels": ["sms"]})

    assert response.status_code == 400
    assert not NotificationPreference.objects.filter(user=user).exists()


@pytest.mark.parametrize(
    "body",
    [
        {"colour": "blue"},
        {"silence_all": "loud"},
        {"enabled_channels": "email"},
        {"type_settings": {"event_open": {"enabled": True, "extra": 1}}},
        {"telegram_chat_id": "x" * 65},
    ],
)
def test_malformed_body_is_422(api, user, body):
    response = api(user).patch(PATH, body)

    assert response.status_code == 422
    assert response.json()["code"] == "invalid"
    assert not NotificationPreference.objects.filter(user=user).exists()


def test_patch_is_throttled(api, user, settings):
    settings.THROTTLE_ENABLED = True
    allowed = WriteThrottle().num_requests
    assert allowed is not None
    cache.clear()
    client = api(user)

    statuses = [client.patch(PATH, {"silence_all": True}).status_code for _ in range(allowed + 1)]

    assert 429 not in statuses[:allowed]
    assert statuses[allowed] == 429
    cache.clear()
