"""c-rows of docs/spec/quality.md: generating a recurring series' occurrences (docs/spec/series-design.md).

One series, Mon/Wed/Fri at 10:00 UTC with its anchor in the past, a 52-week window and
a template carrying one ticket tier. Any 52-week window holds exactly 156 such
instants, so a pass from empty materialises 156 occurrences (and 156 tiers).

- c1: the first pass, from an empty series (each run rolled back to empty);
- c2: a second pass right after the first: the cursor is at the horizon, nothing to do;
- c3: a second pass after a cursor reset (as a cadence or window change does): the
  whole 52 weeks are rescanned and every occurrence already exists;
- c4: the preview of a cadence change to Tue/Thu on that series: every occurrence is
  stale and the Tuesdays and Thursdays of the window would be created; nothing written.
"""

from datetime import timedelta

from django.utils import timezone

from accounts.models import User
from bench.registry import Measured, scenario
from events.models import Event, EventSeries, Organization, RecurrenceRule, TicketTier
from events.series import services as recurrence_service

WEEKS = 52
EXPECTED = 3 * WEEKS
DATA = "Mon/Wed/Fri rule, 52-week window, template with 1 tier"


def build_series(tag: str) -> EventSeries:
    owner = User.objects.create(email=f"bench-series-{tag}@example.com")
    org = Organization.objects.create(
        name=f"Bench series {tag}", slug=f"bench-series-{tag}", owner=owner
    )
    anchor = (timezone.now() - timedelta(days=30)).replace(
        hour=10, minute=0, second=0, microsecond=0
    )
    anchor -= timedelta(days=anchor.weekday())  # a Monday
    rule = RecurrenceRule(frequency="weekly", weekdays=[0, 2, 4], dtstart=anchor, timezone="UTC")
    rule.full_clean()
    rule.save()
    series = EventSeries.objects.create(
        organization=org,
        name="Bench classes",
        slug="bench-classes",
        recurrence_rule=rule,
        generation_window_weeks=WEEKS,
        auto_publish=True,
    )
    template = Event(
        organization=org,
        name="Bench class",
        slug="bench-class",
        start=anchor,
        status=Event.Status.DRAFT,
        is_template=True,
        event_series=series,
        requires_ticket=True,
        max_attendees=20,
    )
    template.save()
    TicketTier.objects.get_or_create(event=template, defaults={"name": "General admission"})
    series.template_event = template
    series.save(update_fields=["template_event"])
    return series


def _check(created: list[Event], expected: int) -> list[Event]:
    assert len(created) == expected, f"expected {expected} occurrences, got {len(created)}"
    return created


@scenario("c1", "generate_series_events, first pass from empty", data=f"{DATA}; 156 created")
def first_pass() -> Measured:
    series = build_series("c1")

    def call() -> object:
        series.last_generated_until = None  # the previous run was rolled back
        return _check(recurrence_service.generate_series_events(series), EXPECTED)

    return call


@scenario("c2", "generate_series_events, second pass (nothing to do)", data=f"{DATA}; 0 created")
def second_pass() -> Measured:
    series = build_series("c2")
    _check(recurrence_service.generate_series_events(series), EXPECTED)

    def call() -> object:
        return _check(recurrence_service.generate_series_events(series), 0)

    return call


@scenario(
    "c3",
    "generate_series_events, pass after a cursor reset (all exist)",
    data=f"{DATA}; 52 weeks rescanned, 0 created",
)
def rescan_pass() -> Measured:
    series = build_series("c3")
    _check(recurrence_service.generate_series_events(series), EXPECTED)
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
    series.last_generated_until = None

    def call() -> object:
        return _check(recurrence_service.generate_series_events(series), 0)

    return call


@scenario(
    "c4",
    "preview_series_change, Mon/Wed/Fri → Tue/Thu",
    data=f"{DATA}; 156 occurrences, 156 stale, 104 created",
)
def change_preview() -> Measured:
    series = build_series("c4")
    _check(recurrence_service.generate_series_events(series), EXPECTED)
    change = recurrence_service.SeriesChange(rule_changes={"weekdays": [1, 3]})
    loaded = EventSeries.objects.select_related("recurrence_rule", "template_event").get(
        pk=series.pk
    )

    def call() -> object:
        plan = recurrence_service.preview_series_change(loaded, change)
        assert len(plan.stale) == EXPECTED, f"expected {EXPECTED} stale, got {len(plan.stale)}"
        assert len(plan.created) == 2 * WEEKS, f"expected {2 * WEEKS} created"
        return plan

    return call
