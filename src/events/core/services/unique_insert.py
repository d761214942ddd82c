"""Insert a row that a unique constraint guards, turning a lost race into a 409.

Services first look for the twin row themselves (the friendly, common case); this
helper covers the narrow window in which a concurrent request inserted it first.
"""

from django.db import IntegrityError, models, transaction

from common.errors import Conflict


def insert_or_conflict(instance: models.Model, conflict: Conflict) -> None:
    """Save `instance` as a new row inside a savepoint; a unique violation raises `conflict`."""
    try:
        with transaction.atomic():
            instance.save(force_insert=True)
    except IntegrityError as exc:
        raise conflict from exc
