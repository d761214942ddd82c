"""The organiser's waitlist page of docs/spec/ui.md (its routes are in `urls.py` here)."""
