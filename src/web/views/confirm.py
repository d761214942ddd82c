"""Ask first: the confirmation step every destructive action of the pages shares.

A destructive POST view checks its permission, then calls `confirm_first`; it acts only
when that returns None, i.e. when the POST carries `confirmed=yes`. Otherwise the answer
is the confirmation itself, built by the server in both cases (docs/adr/0040):

- without JavaScript, a page of its own (`web/confirm.html`) whose form posts the same
  fields again with `confirmed=yes`;
- with JavaScript, `web/static/web/confirm.js` sends the form of a `data-confirm` form
  with the header `X-Encore-Confirm: dialog` and shows the answer, the same content
  without the page around it, in a modal `<dialog>`.

So what the confirmation says ("12 attendees will be told.") is written once, in the view
that knows it, and the first POST never changes anything.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language, gettext

#: The header confirm.js sends, and that the fragment answer carries back.
HEADER = "X-Encore-Confirm"
DIALOG = "dialog"
#: The field of the second POST that says the person said yes.
CONFIRMED = "confirmed"
#: The optional "Message to attendees" of a confirmation with `message_field=True`.
MESSAGE = "message"
#: Fields never carried over: the form brings its own token, and "confirmed" is the answer.
NOT_CARRIED = frozenset({"csrfmiddlewaretoken", CONFIRMED})


def confirm_first(
    request: HttpRequest,
    *,
    action: str,
    consequence: str,
    yes_label: str | None = None,
    keep_url: str,
    message_field: bool = False,
) -> HttpResponse | None:
    """None when the person already said yes; otherwise the confirmation to answer.

    `action` is the button's name ("Cancel event"), `consequence` one sentence on what
    happens and to whom, `keep_url` where "Keep it" leads without JavaScript (the page of
    the action). `message_field` adds an optional "Message to attendees" (field `message`).
    """
    if request.POST.get(CONFIRMED) == "yes":
        return None
    skipped = NOT_CARRIED | ({MESSAGE} if message_field else frozenset())
    carried = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in skipped
        for value in values
    ]
    in_dialog = request.headers.get(HEADER) == DIALOG
    context = {
        "action": action,
        "consequence": consequence,
        "yes_label": yes_label or default_yes_label(action),
        "keep_url": keep_url,
        "message_field": message_field,
        "message": request.POST.get(MESSAGE, ""),
        "carried": carried,
        "post_url": request.get_full_path(),
        "in_dialog": in_dialog,
    }
    template = "web/_confirm.html" if in_dialog else "web/confirm.html"
    response = render(request, template, context)
    if in_dialog:
        response[HEADER] = DIALOG
    response["Cache-Control"] = "no-store"
    return response


def default_yes_label(action: str) -> str:
    """ "Yes, " and the action, lower-cased in English ("Yes, revoke"); German keeps the
    action's capitals (its nouns are capitalised wherever they stand)."""
    if not (get_language() or "en").startswith("en"):
        return gettext("Yes, %(action)s") % {"action": action}
    lowered = action[:1].lower() + action[1:]
    return gettext("Yes, %(action)s") % {"action": lowered}
