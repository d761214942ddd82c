"""Every link `load_demo` prints (what `make run` shows) opens a page, for the right person."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

BASE = "http://demo.test:8123"


def _printed_links() -> list[str]:
    out = StringIO()
    call_command("load_demo", base_url=BASE, stdout=out)
    return re.findall(rf"{re.escape(BASE)}(/[^\s)]*)", out.getvalue())


def test_every_printed_link_opens_a_page_for_the_organiser() -> None:
    paths = _printed_links()
    assert any(p.startswith("/events/") and "/series/" in p for p in paths)
    assert any(p.startswith("/manage/series/") for p in paths)
    assert sum(1 for p in paths if re.fullmatch(r"/events/[0-9a-f-]{36}", p)) >= 5
    client = Client()
    client.force_login(User.objects.get(email="owner@encore.test"))
    for path in paths:
        response = client.get(path, follow=True)
        assert response.status_code == 200, path


def test_ada_sees_her_live_offer_on_the_printed_full_house_link() -> None:
    paths = _printed_links()
    client = Client()
    assert client.login(email="ada@encore.test", password="encore-ada")
    pages = [client.get(p).content.decode() for p in paths if re.fullmatch(r"/events/\S{36}", p)]
    full_house = next(page for page in pages if "Full House" in page)
    assert "A seat is held for you until" in full_house
    assert "Claim my seat" in full_house
