"""`encore_claim_rsvp` also reports when it asked for the lock (`requested_at`).

The bench (docs/spec/quality.md e1) takes a holder's tenure from its successor's grant, which is
only the holder's release when the successor was already blocked on the lock: the moment
it asked for it says so. The result type changes, so the function is dropped and created
again (`events/sql/claim_rsvp.sql` drops it first). PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import replace_function


class Migration(migrations.Migration):
    dependencies = [("events", "0019_queue_unique_user_first")]

    operations = [
        migrations.RunPython(replace_function, migrations.RunPython.noop, elidable=False)
    ]
