"""Organisations and the people around them: staff, members, followers, blacklist."""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from common.models import TimeStampedModel
from common.timezones import validate_timezone


class StaffPermission(models.TextChoices):
    """Keys of `OrganizationStaff.permissions`; the owner holds every one."""

    VIEW_ORGANIZATION_DETAILS = "view_organization_details"
    EDIT_EVENT = "edit_event"
    OPEN_EVENT = "open_event"
    CLOSE_EVENT = "close_event"
    MANAGE_EVENT = "manage_event"
    MANAGE_TICKETS = "manage_tickets"
    CHECK_IN_ATTENDEES = "check_in_attendees"
    INVITE_TO_EVENT = "invite_to_event"
    CREATE_EVENT = "create_event"
    CREATE_EVENT_SERIES = "create_event_series"
    EDIT_EVENT_SERIES = "edit_event_series"
    DELETE_EVENT_SERIES = "delete_event_series"
    DELETE_EVENT = "delete_event"
    EDIT_ORGANIZATION = "edit_organization"
    MANAGE_MEMBERS = "manage_members"


STAFF_DEFAULT_PERMISSIONS: dict[str, bool] = {
    StaffPermission.VIEW_ORGANIZATION_DETAILS: True,
    StaffPermission.EDIT_EVENT: True,
    StaffPermission.OPEN_EVENT: True,
    StaffPermission.CLOSE_EVENT: True,
    StaffPermission.MANAGE_EVENT: True,
    StaffPermission.MANAGE_TICKETS: True,
    StaffPermission.CHECK_IN_ATTENDEES: True,
    StaffPermission.INVITE_TO_EVENT: True,
    StaffPermission.CREATE_EVENT: False,
    StaffPermission.CREATE_EVENT_SERIES: False,
    StaffPermission.EDIT_EVENT_SERIES: False,
    StaffPermission.DELETE_EVENT_SERIES: False,
    StaffPermission.DELETE_EVENT: False,
    StaffPermission.EDIT_ORGANIZATION: False,
    StaffPermission.MANAGE_MEMBERS: False,
}


def default_staff_permissions() -> dict[str, bool]:
    return {str(key): value for key, value in STAFF_DEFAULT_PERMISSIONS.items()}


class Organization(TimeStampedModel):
    class Visibility(models.TextChoices):
        PUBLIC = "public"
        PRIVATE = "private"

    name = models.CharField(max_length=150, unique=True)
    slug = models.SlugField(max_length=160, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_organizations"
    )
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    accept_membership_requests = models.BooleanField(default=False)
    contact_email = models.EmailField(blank=True)
    #: Shown with the amount and the reference to a buyer of an offline ticket.
    payment_instructions = models.TextField(blank=True, max_length=2000)
    logo = models.ForeignKey(
        "events.StoredImage", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class OrganizationStaff(TimeStampedModel):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="staff")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_memberships"
    )
    permissions = models.JSONField(default=default_staff_permissions)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "user"], name="unique_organization_staff"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.organization}"

    def has_permission(self, permission: str) -> bool:
        return bool(
            self.permissions.get(permission, STAFF_DEFAULT_PERMISSIONS.get(permission, False))
        )


class OrganizationMember(TimeStampedModel):
    class Status(models.TextChoices):
        ACTIVE = "active"
        PAUSED = "paused"
        CANCELLED = "cancelled"
        BANNED = "banned"

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organization_memberships"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "user"], name="unique_organization_member"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} ({self.status})"


class OrganizationMembershipRequest(TimeStampedModel):
    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="membership_requests"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership_requests"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    message = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "user"],
                condition=models.Q(status="pending"),
                name="unique_pending_membership_request",
            )
        ]


class OrganizationFollow(TimeStampedModel):
    """Following an organisation; unfollowing archives the row instead of deleting it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organization_follows"
    )
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="followers"
    )
    notify_new_events = models.BooleanField(default=True)
    is_archived = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "organization"], name="unique_organization_follow"
            )
        ]


class Blacklist(TimeStampedModel):
    """A hard match by user or e-mail (case-insensitive) shuts a person out of the organisation."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="blacklist"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    email = models.EmailField(blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(user__isnull=True, email=""), name="blacklist_user_or_email"
            ),
        ]
        indexes = [models.Index(Lower("email"), "organization", name="blacklist_email_ci")]

    def save(self, *args: object, **kwargs: object) -> None:
        self.email = self.email.strip().lower()
        super().save(*args, **kwargs)  # type: ignore[arg-type]
