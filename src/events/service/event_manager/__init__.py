"""The RSVP writer (`manager.EventManager`); the other modules are the waitlist design's paths of
the read side, which lives in `events.eligibility`."""
