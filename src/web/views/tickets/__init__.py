"""The organiser's tickets page `/manage/events/{event_id}/tickets` (docs/spec/ui.md): ticket
types, the tickets sold, and what staff do with them (mark as paid, refund, cancel, sell
at the door).

Every view is `@signed_in` first, then fetches the event through `access_event_admin` with
`manage_tickets`, the permission of every admin API route under
`/event-admin/{id}/ticket-tiers`, `/tickets` and `/box-office`; the writes are those
routes' services. A refusal (400 / 409) shows next to its field or row and changes
nothing; the destructive actions ask first (`web.views.confirm`).
"""
