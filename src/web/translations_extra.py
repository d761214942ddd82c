"""English texts that live outside `web` but that the pages translate when they show them.

`makemessages` (run in `src/web`) extracts only strings found in `src/web`, and the events
app has no catalogue of its own. The event page shows the eligibility reasons
(`events.core.eligibility.enums.Reasons`, `gettext_noop` there) through `{% translate %}`, and
the event, checkout and series views pass the services' refusals and the recurrence
validators' messages through `gettext()`. Listing them here with `gettext_noop` keeps them
in the web catalogue (`src/web/locale/de/LC_MESSAGES/django.po`) across regenerations.

Nothing imports this module; it only has to match the English of its sources exactly
(`web/tests/test_german_pages.py` checks the eligibility reasons).
"""

from django.utils.translation import gettext_noop

#: events.core.eligibility.enums.Reasons (the event page's "Your status" region).
ELIGIBILITY_REASONS = (
    gettext_noop("You cannot take part in this organisation's events."),
    gettext_noop("This event has already finished."),
    gettext_noop("This event is not open yet."),
    gettext_noop("The RSVP deadline has passed."),
    gettext_noop("This event requires an invitation."),
    gettext_noop("Only members of the organisation can take part in this event."),
    gettext_noop("Your membership is not active."),
    gettext_noop("This event is full."),
    gettext_noop("Spots are currently reserved for waitlist members."),
    gettext_noop("You are on the waitlist. Waiting for your turn."),
    gettext_noop("No tickets are on sale for this event right now."),
    gettext_noop("Tickets for this event are sold out."),
    gettext_noop("This event needs a ticket; RSVPs are not taken."),
    gettext_noop("This event takes RSVPs; no tickets are sold."),
)

#: default_detail of the errors the event page's actions and the checkout may refuse with
#: (events.waitlist.errors, events.ticketing.errors, common.errors).
EVENT_REFUSALS = (
    gettext_noop("The waitlist of this event is not open."),
    gettext_noop("You are already attending this event."),
    gettext_noop("There is room at this event: register instead of joining the waitlist."),
    gettext_noop("This ticket tier does not exist for this event."),
    gettext_noop("This ticket is already cancelled."),
    gettext_noop("A checked-in ticket cannot be cancelled."),
    gettext_noop("Not enough tickets are left in this tier."),
    gettext_noop("This ticket tier is not on sale right now."),
    gettext_noop("This would exceed the number of tickets one person may hold."),
    gettext_noop("The request conflicts with the current state."),
    gettext_noop("Invalid input."),
    # events.ticketing.errors (issue 14)
    gettext_noop("Online payment is not set up for this organisation."),
    gettext_noop("The payment provider could not be reached; nothing was charged."),
    gettext_noop("Tickets paid online are given back through a refund."),
)

#: The waitlist page (web.views.waitlist.actions) translates the admin offers' refusals:
#: events.waitlist.errors.
WAITLIST_REFUSALS = (
    gettext_noop("No seat is free: every seat is taken."),
    gettext_noop(
        "No seat is free: every seat is taken or held by a pending offer; "
        "revoke a pending offer first."
    ),
    gettext_noop("This user already holds a pending offer for this event."),
    gettext_noop("The user is no longer on the waitlist of this event."),
    gettext_noop(
        "Offers are issued only for open, future events with a capacity and an open waitlist."
    ),
)

#: The series pages (web.views.series.errors/manage, web.forms.series) translate these:
#: events.series.errors, events.series.services, events.utils.recurrence_validators.
SERIES_REFUSALS = (
    gettext_noop("This date is neither an occurrence of the series' rule nor a scheduled event."),
    gettext_noop("This series has no recurrence rule or template."),
    gettext_noop("A series with this name was just created."),
    gettext_noop("Give the time with its UTC offset."),
    gettext_noop("The end date must be after the start."),
    gettext_noop("The interval must be a whole number of at least 1."),
    gettext_noop("The count must be a whole number of at least 1."),
    gettext_noop("The series needs a start date and time."),
    gettext_noop("A weekday is a number from 0 (Monday) to 6 (Sunday)."),
    gettext_noop("Weekdays must be a list of numbers from 0 (Monday) to 6 (Sunday)."),
    gettext_noop("The day of the month must be between 1 and 31."),
    gettext_noop("The week of the month must be 1, 2, 3, 4 or -1 (the last)."),
    gettext_noop("Give either an end date ('until') or a count, not both."),
    gettext_noop("The series has no upcoming draft dates to publish."),
    gettext_noop("A split starts in the future; the past stays as it is."),
    gettext_noop("The series starts on or after this date: edit it."),
)

#: accounts.admin_login.NOT_SITE_STAFF (gettext_lazy there; the admin's log-in form shows it).
ADMIN_LOGIN = (
    gettext_noop(
        "This sign-in is for Encore's site administrators. Organisers run their events, "
        "waitlists and series at /manage."
    ),
)
