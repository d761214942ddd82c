"""The organiser's waitlist page of ui.md (its routes are in `urls.py` here)."""
