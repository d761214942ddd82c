"""The organiser's tickets page (docs/spec/ui.md `/manage/events/{event_id}/tickets`)."""
