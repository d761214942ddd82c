"""Routes of the me pages (docs/spec/ui.md), included by `web.urls`.

`/password-reset/sent` and `/password-reset/done` (one path segment) never collide with
the link's `/password-reset/<uidb64>/<token>` (two).
"""

from django.urls import URLPattern, path

from web.views.me import dashboard, inbox, password_reset, settings

urlpatterns: list[URLPattern] = [
    path("me", dashboard.my_page, name="me"),
    path("me/notifications", inbox.notifications_page, name="me-notifications"),
    path("me/notifications/mark-all-read", inbox.mark_all_read, name="me-mark-all-read"),
    path("me/settings", settings.settings_page, name="me-settings"),
    path("me/settings/export", settings.export_data, name="me-export"),
    path("me/settings/delete", settings.delete_account, name="me-delete"),
    path("password-reset", password_reset.request_page, name="password-reset"),
    path("password-reset/sent", password_reset.sent_page, name="password-reset-sent"),
    path("password-reset/done", password_reset.done_page, name="password-reset-done"),
    path(
        "password-reset/<str:uidb64>/<str:token>",
        password_reset.confirm_page,
        name="password-reset-confirm",
    ),
]
