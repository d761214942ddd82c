"""Turn a stored context into the words of each channel, in the recipient's language.

Templates: `notifications/{in_app,email,telegram}/<type>.*` (see `notifications.types`).
Every template gets `context` (the stored context, its human times in the recipient's
language: `notifications.localized`), `recipient_name`, `language` and `settings_url`
(the e-mail footer's link to the recipient's settings).
Plain-text templates (in-app, Telegram, the text part and subject of an e-mail) render
on an engine without HTML autoescaping, so "Rock & Roll" stays "Rock & Roll" there; the
HTML part of an e-mail renders on the project engine, escaped as usual.

Pure (a stored notification in, words out), so it sits below both the services (which
render the in-app row when it is stored) and the channels (which render at send time):
the channels need nothing from `notifications.service`.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template import Context, Engine
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import User
from common import links
from notifications.localized import localized
from notifications.types import get_spec

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
TITLE_MAX_LENGTH = 255
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class InAppContent:
    title: str
    body: str


@dataclass(frozen=True)
class EmailContent:
    subject: str
    text: str
    html: str


def render_in_app(notification_type: str, context: Mapping[str, Any], user: User) -> InAppContent:
    name = get_spec(notification_type).template_name
    with translation.override(user_language(user)):
        data = _template_data(context, user)
        title = _one_line(_render_text(f"notifications/in_app/{name}.title.txt", data))
        body = _paragraphs(_render_text(f"notifications/in_app/{name}.txt", data))
    return InAppContent(title=title[:TITLE_MAX_LENGTH], body=body)


def render_email(notification_type: str, context: Mapping[str, Any], user: User) -> EmailContent:
    name = get_spec(notification_type).template_name
    with translation.override(user_language(user)):
        data = _template_data(context, user)
        return EmailContent(
            subject=_one_line(_render_text(f"notifications/email/{name}.subject.txt", data)),
            text=_paragraphs(_render_text(f"notifications/email/{name}.txt", data)),
            html=render_to_string(f"notifications/email/{name}.html", data),
        )


def render_telegram(notification_type: str, context: Mapping[str, Any], user: User) -> str:
    name = get_spec(notification_type).template_name
    with translation.override(user_language(user)):
        return _paragraphs(
            _render_text(f"notifications/telegram/{name}.txt", _template_data(context, user))
        )


def user_language(user: User) -> str:
    """The user's language when Encore speaks it ("de-at" → "de"), else the site default."""
    try:
        return translation.get_supported_language_variant(user.language or "")
    except LookupError:
        return str(settings.LANGUAGE_CODE)


@lru_cache(maxsize=1)
def _text_engine() -> Engine:
    return Engine(
        dirs=[str(TEMPLATES_DIR)],
        autoescape=False,
        libraries={"i18n": "django.templatetags.i18n"},
    )


def _render_text(template_name: str, data: dict[str, Any]) -> str:
    return _text_engine().get_template(template_name).render(Context(data, autoescape=False))


def _template_data(context: Mapping[str, Any], user: User) -> dict[str, Any]:
    return {
        "context": localized(context),
        "recipient_name": user.display_name,
        "language": translation.get_language(),
        "settings_url": links.settings_url(),
    }


def _one_line(text: str) -> str:
    """Subjects and titles: one line (a newline in a mail header is refused)."""
    return " ".join(text.split())


def _paragraphs(text: str) -> str:
    """Template tags leave blank runs behind; keep at most one empty line between blocks."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines))
