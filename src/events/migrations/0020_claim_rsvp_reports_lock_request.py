"""`encore_claim_rsvp` also reports when it asked for the lock (`requested_at`).

The bench (docs/spec/quality.md e1) takes a holder's tenure from its successor's grant, which is
only the holder's release when the successor was already blocked on the lock: the moment
it asked for it says so. The result type changes, so the function is dropped and created
again from the frozen `sql/0020_claim_rsvp.sql`. PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0019_queue_unique_user_first")]

    operations = [install("0020_claim_rsvp.sql", previous="0018_claim_rsvp.sql")]
