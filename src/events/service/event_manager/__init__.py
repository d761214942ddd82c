"""The RSVP writer (`manager.EventManager`); the other modules are seed 000's paths of
the read side, which lives in `events.eligibility`."""
