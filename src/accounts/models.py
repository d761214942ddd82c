"""The Encore user: e-mail is the login; every person has a language and a timezone."""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone as django_timezone

from common.models import TimeStampedModel
from common.timezones import validate_timezone


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> "User":
        if not email:
            raise ValueError("An e-mail address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> "User":
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class User(TimeStampedModel, AbstractBaseUser, PermissionsMixin):
    email = models.EmailField(unique=True)
    first_name = models.CharField(max_length=150, blank=True)
    last_name = models.CharField(max_length=150, blank=True)
    preferred_name = models.CharField(max_length=150, blank=True)
    language = models.CharField(max_length=8, default="en")
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(
        default=False, help_text="Platform operator: may use the Django admin."
    )
    date_joined = models.DateTimeField(default=django_timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = []

    class Meta:
        ordering = ["email"]

    def __str__(self) -> str:
        return self.email

    @property
    def display_name(self) -> str:
        """Preferred name, else full name, else e-mail (docs/spec/domain.md)."""
        if self.preferred_name:
            return self.preferred_name
        full = f"{self.first_name} {self.last_name}".strip()
        return full or self.email
