"""The read side of notifications that is not the inbox service (e.g. the data export)."""
