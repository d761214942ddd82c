"""The event pages of ui.md (owned by one area; its routes are in `urls.py` here)."""
