"""Every kind of link Encore sends (`common.links`) opens a page of this app, for its reader.

`events/core/tests/test_sent_links.py` proves that e-mails, notifications and feeds carry these
links; this proves each one answers with a page, not a 404.
"""

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.tests.factories import make_user
from common import links
from events.core.tests.factories import make_event, make_org
from web.tests.series.support import weekly_series

pytestmark = pytest.mark.django_db

ORIGIN = "https://encore.example"


@pytest.fixture(autouse=True)
def _origin(settings) -> None:
    settings.ENCORE_PUBLIC_URL = ORIGIN


def _path(url: str) -> str:
    assert url.startswith(ORIGIN + "/"), url
    return url[len(ORIGIN) :]


def test_the_event_link_opens_the_event_page(client: Client) -> None:
    event = make_event(name="Linked event")
    response = client.get(_path(links.event_url(event.pk)))
    assert response.status_code == 200
    assert "<h1>Linked event</h1>" in response.content.decode()


def test_the_series_link_opens_the_public_series_page(client: Client) -> None:
    organization = make_org()
    series = weekly_series(organization, name="Linked series")
    response = client.get(_path(links.series_url(organization.slug, series.slug)))
    assert response.status_code == 200
    assert "Linked series" in response.content.decode()


def test_the_reset_link_opens_the_new_password_form(client: Client) -> None:
    user = make_user()
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    url = links.password_reset_url(uid, default_token_generator.make_token(user))
    response = client.get(_path(url))
    assert response.status_code == 200
    assert 'type="password"' in response.content.decode()


def test_the_settings_and_home_links_open_their_pages(client: Client) -> None:
    assert client.get(_path(links.home_url())).status_code == 200
    settings_path = _path(links.settings_url())
    assert client.get(settings_path)["Location"].startswith("/login?next=")
    client.force_login(make_user())
    assert client.get(settings_path).status_code == 200
