"""Pictures the organiser uploads (event covers, organisation logos), kept in the database.

The bytes live in their own table so that loading an `Event` or an `Organization` never
drags an image along, and in the database rather than on a disk so that every node of a
multi-machine stack serves the same picture without shared storage (ADR 0039).
"""

from django.db import models

from common.models import TimeStampedModel


class StoredImage(TimeStampedModel):
    """One picture as the application re-encoded it: never the uploaded file itself."""

    content_type = models.CharField(max_length=32)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"{self.content_type} {self.width}×{self.height}"
