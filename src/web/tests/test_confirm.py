"""`confirm_first`: the first POST of a destructive action asks; only the second acts.

Driven through a request of its own (the pages that use it test their own wording and
what "yes" does: manage/test_cancel_event.py, event/test_event_confirmations.py).
"""

import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.test import RequestFactory
from django.utils import translation

from web.views.confirm import confirm_first, default_yes_label

pytestmark = pytest.mark.django_db

PATH = "/manage/things/7/remove?page=2"


def _post(data: dict[str, Any], **headers: str) -> HttpRequest:
    request = RequestFactory().post(PATH, data, headers=headers)
    request.user = AnonymousUser()
    return request


def _ask(request: HttpRequest, **options: Any) -> Any:
    options.setdefault("action", "Remove")
    options.setdefault("consequence", "Ada loses her access to the organisation.")
    options.setdefault("keep_url", "/manage/things")
    return confirm_first(request, **options)


def _hidden(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', html)


def test_the_first_post_asks_on_a_page_of_its_own_and_names_the_action() -> None:
    response = _ask(_post({"person": "ada", "csrfmiddlewaretoken": "old"}))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html  # a whole page: the answer without JavaScript
    assert '<h1 id="confirm-heading">Remove?</h1>' in html
    assert "Ada loses her access to the organisation." in html
    assert f'<form method="post" action="{PATH}"' in html
    assert re.search(r'<button type="submit" class="danger">Yes, remove</button>', html)
    assert '<a class="confirm-keep" href="/manage/things" data-confirm-keep>Keep it</a>' in html
    assert "textarea" not in html
    assert response["Cache-Control"] == "no-store"


def test_every_field_goes_round_again_with_the_answer_yes() -> None:
    request = _post({"person": "ada & bob", "tags": ["a", "b"], "csrfmiddlewaretoken": "old"})
    hidden = _hidden(_ask(request).content.decode())
    # The form's own token is fresh (never the old one) and comes once.
    assert [name for name, _ in hidden].count("csrfmiddlewaretoken") == 1
    assert ("csrfmiddlewaretoken", "old") not in hidden
    carried = [field for field in hidden if field[0] != "csrfmiddlewaretoken"]
    assert carried == [
        ("person", "ada &amp; bob"),
        ("tags", "a"),
        ("tags", "b"),
        ("confirmed", "yes"),
    ]


def test_the_answer_yes_lets_the_view_act() -> None:
    assert _ask(_post({"person": "ada", "confirmed": "yes"})) is None


def test_an_answer_other_than_yes_asks_again_and_is_not_carried() -> None:
    hidden = _hidden(_ask(_post({"confirmed": "maybe"})).content.decode())
    assert [field for field in hidden if field[0] == "confirmed"] == [("confirmed", "yes")]


def test_the_dialog_gets_the_same_confirmation_without_the_page() -> None:
    response = _ask(_post({"person": "ada"}, **{"X-Encore-Confirm": "dialog"}))
    html = response.content.decode()
    assert response["X-Encore-Confirm"] == "dialog"
    assert "<html" not in html and "site-header" not in html
    assert '<h2 id="confirm-heading">Remove?</h2>' in html
    assert "Ada loses her access to the organisation." in html
    assert ("person", "ada") in _hidden(html)
    assert ">Keep it</a>" in html


def test_a_named_yes_button_and_an_optional_message() -> None:
    request = _post({"message": "Sorry!", "why": "rain"})
    html = _ask(
        request, action="Cancel event", yes_label="Yes, cancel the event", message_field=True
    ).content.decode()
    assert ">Yes, cancel the event</button>" in html
    assert '<label for="confirm-message">Message to attendees</label>' in html
    assert re.search(r'<textarea id="confirm-message" name="message"[^>]*>Sorry!</textarea>', html)
    hidden = _hidden(html)
    assert ("why", "rain") in hidden
    assert all(name != "message" for name, _ in hidden)  # the textarea carries it


def test_the_yes_button_lowers_the_action_in_english_only() -> None:
    assert default_yes_label("Cancel my RSVP") == "Yes, cancel my RSVP"
    with translation.override("de"):
        assert default_yes_label("Ticket stornieren").endswith("Ticket stornieren")
