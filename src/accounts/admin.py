from collections.abc import Sequence
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as confirm_and_delete_selected
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db import router, transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from accounts.admin_login import limit_admin_login
from accounts.errors import UserDeletionRefused
from accounts.models import User
from accounts.service import user_deletion


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Deleting a user, one or in bulk, goes through `accounts.service.user_deletion`.

    So the admin frees the user's seats, offers and queue places like every other path,
    and a refused deletion (paid tickets, owned organisations) is an error message on
    the page, before and after the confirmation, and deletes nothing.
    """

    ordering = ["email"]
    list_display = ["email", "first_name", "last_name", "timezone", "is_staff", "is_active"]
    search_fields = ["email", "first_name", "last_name", "preferred_name"]
    actions = ["delete_selected"]
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        (
            "Profile",
            {"fields": ("first_name", "last_name", "preferred_name", "language", "timezone")},
        ),
        (
            "Access",
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)

    def get_deleted_objects(
        self, objs: Sequence[User] | QuerySet[User], request: HttpRequest
    ) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
        """The confirmation lists every row that cascades, but asks no delete permission
        for them: those permissions keep operators from deleting an offer or a ticket on
        its own (which would skip the services); here the service releases each first.
        Protected rows (an owned organisation) still block."""
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    # -- one user: the object's delete page ---------------------------------------------
    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Refuse up front (the confirmation page is never shown for a refused user), and
        again if a refusal comes up while deleting: Django runs the POST in a transaction,
        so its log entry and every release roll back with it."""
        user = self.get_object(request, unquote(object_id))
        try:
            if user is not None and self.has_delete_permission(request, user):
                user_deletion.check_deletable([user])
            return super().delete_view(request, object_id, extra_context)
        except UserDeletionRefused as refusal:
            self.message_user(request, refusal.detail, messages.ERROR)
            return HttpResponseRedirect(
                reverse(
                    "admin:accounts_user_change", args=[object_id], current_app=self.admin_site.name
                )
            )

    def delete_model(self, request: HttpRequest, obj: User) -> None:
        user_deletion.delete_user(obj)

    # -- several users: the changelist's "Delete selected users" --------------------------
    @admin.action(permissions=["delete"], description="Delete selected users")
    def delete_selected(
        self, request: HttpRequest, queryset: QuerySet[User]
    ) -> HttpResponse | None:
        """Django's own action (confirmation page, log entries, message), checked first and
        run in one transaction, so a refusal anywhere logs and deletes nothing."""
        try:
            user_deletion.check_deletable(queryset)
            with transaction.atomic(using=router.db_for_write(User)):
                return confirm_and_delete_selected(self, request, queryset)
        except UserDeletionRefused as refusal:
            self.message_user(request, refusal.detail, messages.ERROR)
            return None

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        user_deletion.delete_users(queryset)


limit_admin_login(admin.site)
