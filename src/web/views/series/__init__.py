"""The series pages of docs/spec/ui.md (owned by one area; its routes are in `urls.py` here)."""
