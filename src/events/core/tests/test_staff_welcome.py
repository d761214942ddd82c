"""A new staff member is told by e-mail after commit, whichever door added them; a row
removed before the task ran mails no one."""

from typing import Any

import pytest
from django.core import mail

from accounts.tests.factories import make_user
from events.core.services import staff_service
from events.core.tests.factories import make_org

pytestmark = pytest.mark.django_db


def test_adding_staff_mails_the_person_after_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    organization = make_org(name="Film Club", slug="film-club")
    ana = make_user("ana@example.com")
    with django_capture_on_commit_callbacks() as callbacks:
        staff_service.add_staff(organization, user=ana)
    assert mail.outbox == []
    for callback in callbacks:
        callback()
    [message] = mail.outbox
    assert message.to == ["ana@example.com"]
    assert message.subject == "You were added to the team of Film Club on Encore"
    assert "/manage/film-club" in message.body
    [(html, kind)] = message.alternatives  # type: ignore[attr-defined]
    assert kind == "text/html" and "/manage/film-club" in str(html)


def test_nobody_is_mailed_when_the_row_is_gone_before_the_task_runs() -> None:
    staff = staff_service.add_staff(make_org(), user=make_user())
    staff_id = str(staff.pk)
    staff_service.remove_staff(staff)
    assert staff_service.send_staff_welcome(staff_id) is False
    assert mail.outbox == []
