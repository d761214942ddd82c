"""`encore_claim_rsvp` writes the caller's offer rows before its queue row, and keeps no
clock.

The expiry sweep writes offer rows, then their queue rows; the claim of a member whose
offer had lapsed deleted the queue row and then revoked the offer, so the two could
deadlock (seen in `test_waitlist_races_sweeper`). The frozen `sql/0022_claim_rsvp.sql`
takes the sweep's order. It also drops the four clock columns (`arrived_at`,
`requested_at`, `locked_at`, `finished_at`) that only the bench read: the bench clocks a
twin of its own (`bench/lock_tenure.py`). The result type changes, so the function is
dropped and created again. PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0021_waitlist_tier_indexes")]

    operations = [install("0022_claim_rsvp.sql", previous="0020_claim_rsvp.sql")]
