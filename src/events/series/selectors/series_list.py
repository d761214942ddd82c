"""The organisation's series as its staff list them (`GET .../event-series`).

Series details, active ones first, then by name: the rule and the template come in the
same query, so a page costs the same queries whatever the number of series or of their
occurrences (the occurrences are not part of a detail).
"""

from django.db.models import QuerySet

from events.models import EventSeries, Organization


def organization_series(organization: Organization) -> QuerySet[EventSeries]:
    return (
        EventSeries.objects.filter(organization=organization)
        .select_related("organization", "recurrence_rule", "template_event")
        .order_by("-is_active", "name", "pk")
    )
