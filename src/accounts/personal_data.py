"""What accounts holds about one person, as plain JSON values (the export's first part).

The composition of every app's part is `events.core.selectors.personal_data` (the only app
that may import the others); each app answers for its own rows. The password hash is
deliberately left out: it is a secret of the login, not information about the person.
"""

from typing import Any

from accounts.models import User


def profile_of(user: User) -> dict[str, Any]:
    return {
        "id": str(user.pk),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "preferred_name": user.preferred_name,
        "language": user.language,
        "timezone": user.timezone,
        "date_joined": _iso(user.date_joined),
        "last_login": _iso(user.last_login),
        "is_staff": user.is_staff,
    }


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment is not None else None
