"""The design's shared pieces: the favicon, the organiser's bar on every /manage page of
one organisation, and e-mails in the stylesheet's colours."""

import re
from pathlib import Path

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db

SRC = Path(__file__).resolve().parents[2]
STYLESHEET = SRC / "web" / "static" / "web" / "encore.css"
HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def test_every_page_links_the_svg_icon_and_favicon_ico_points_to_it(client: Client) -> None:
    assert 'rel="icon" href="/static/web/favicon.svg" type="image/svg+xml"' in body(client.get("/"))
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/web/favicon.svg")


def test_the_organisers_bar_is_on_the_organisation_and_its_event_pages() -> None:
    owner = make_user()
    event = make_event(make_org(owner, slug="choir", name="Choir"))
    client = signed_in_client(owner)
    for path, current in (
        ("/manage/choir", "/manage/choir"),
        (f"/manage/events/{event.pk}", "/manage/choir"),
        ("/manage/choir/team", "/manage/choir/team"),
    ):
        page = body(client.get(path))
        bar = page[page.index('<nav class="org-nav"') : page.index("</nav>", page.index("org-nav"))]
        assert 'aria-label="Organisation"' in bar and ">Choir</a>" in bar
        for href in ("/manage/choir", "/manage/choir#series-heading", "/manage/choir/team"):
            assert f'href="{href}"' in bar
        assert 'href="/manage/choir/settings"' in bar
        assert f'href="{current}" aria-current="page"' in bar


def test_pages_outside_manage_have_no_organisers_bar(client: Client) -> None:
    event = make_event()
    assert "org-nav" not in body(client.get(f"/events/{event.pk}"))
    assert "org-nav" not in body(signed_in_client(make_user()).get("/manage"))


def test_e_mails_use_the_colours_of_the_pages_light_scheme() -> None:
    light = STYLESHEET.read_text().split("@media (prefers-color-scheme: dark)")[0]
    tokens = {colour.lower() for colour in HEX.findall(light)}
    templates = [
        *(SRC / "notifications" / "templates").rglob("email/*.html"),
        *(SRC / "accounts" / "templates").rglob("email/*.html"),
    ]
    used = {colour.lower() for path in templates for colour in HEX.findall(path.read_text())}
    assert used and used <= tokens, used - tokens
