"""IANA timezone validation and formatting shared by every app."""

from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.core.exceptions import ValidationError

#: Names the system's zone database holds that are no place: the machine's own zone
#: (`localtime`), the tz database's placeholder for "no zone set" (`Factory`) and its
#: rules file. A person's or an event's zone is a place (issue 34).
NOT_PLACES = frozenset({"localtime", "Factory", "posixrules"})


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones()) - NOT_PLACES


def is_valid_timezone(name: str) -> bool:
    return name in _known_zones() or name == "UTC"


def validate_timezone(name: str) -> None:
    """Model/schema validator: refuse anything that is not an IANA zone name of a place."""
    if not is_valid_timezone(name):
        raise ValidationError(f"'{name}' is not a valid IANA timezone.", code="invalid_timezone")


def get_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def format_in_zone(moment: datetime, zone_name: str) -> str:
    """Human wall-clock time with the zone's abbreviation, e.g. 'Tue 3 Mar 2026, 19:00 CET'."""
    local = moment.astimezone(get_zone(zone_name))
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {local.tzname()}"
