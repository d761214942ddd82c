"""`/me/notifications`: the in-app inbox (`notifications.service.inbox`, as the API).

Newest first, 20 a page (Django's paginator: one count and one page query, plus the
unread count: fixed whatever the inbox holds); "Mark all as
read" is a POST that redirects back, so it works without JavaScript (htmx swaps only the
list when it is on).
"""

from dataclasses import dataclass

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from notifications.models import Notification
from notifications.service import inbox
from web.views.access import signed_in, viewer_zone
from web.views.me.links import notification_link

PAGE_SIZE = 20


@dataclass(frozen=True)
class InboxRow:
    notification: Notification
    link: str

    @property
    def unread(self) -> bool:
        return self.notification.read_at is None


@require_GET
@signed_in
def notifications_page(request: HttpRequest) -> HttpResponse:
    paginator = Paginator(inbox.notifications_for(request.user), PAGE_SIZE)  # type: ignore[arg-type]
    page = paginator.get_page(request.GET.get("page"))
    rows = [InboxRow(row, notification_link(row.context)) for row in page.object_list]
    context = {
        "page": page,
        "rows": rows,
        "unread_count": inbox.unread_count(request.user),  # type: ignore[arg-type]
        "zone": viewer_zone(request),
    }
    return render(request, "web/me/notifications.html", context)


@require_POST
@signed_in
def mark_all_read(request: HttpRequest) -> HttpResponse:
    count = inbox.mark_all_read(request.user)  # type: ignore[arg-type]
    if count:
        text = ngettext(
            "%(count)d notification marked as read.",
            "%(count)d notifications marked as read.",
            count,
        )
        messages.success(request, text % {"count": count})
    else:
        messages.info(request, _("Nothing was unread."))
    return redirect("/me/notifications")
