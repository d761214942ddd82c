"""The waitlist design's paths of the RSVP writer (`manager.EventManager`, in
`events.core.services.event_manager`) and of the read side (the other modules, in
`events.core.eligibility`): thin re-exports."""
