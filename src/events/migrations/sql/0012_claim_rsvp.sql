-- encore_claim_rsvp: a new RSVP YES claimed in one statement (ADR 0022).
--
-- Why a function: the Python claim made about six round trips while it held the Event
-- row lock, and with many racers in one process each return from the database also
-- waited for the interpreter lock; every other claimer of the event waited for all of it.
-- Here the lock lives from the FOR UPDATE to the end of the calling statement (the caller
-- runs it in autocommit), and only the arithmetic runs in between.
--
-- Why the reads come after the lock, as separate statements: a VOLATILE function's
-- statements each take a fresh snapshot under READ COMMITTED, so once the lock is held
-- they see every earlier holder's commit (the sub-selects of the FOR UPDATE itself would
-- not; see events/selectors/locked_check.py).
--
-- The rule is the Python one (events/eligibility/capacity.py): attendee_count + seats
-- held by OTHER users' live non-cutoff offers + seats <= effective capacity (the smaller
-- positive of max_attendees and the venue's capacity; 0 = unlimited); an invitation with
-- overrides_max_attendees bypasses it. outcome: 'won', 'refused', 'has_rsvp' (the caller
-- already has an RSVP: nothing done, the Python path handles changes) or 'no_event'.
CREATE OR REPLACE FUNCTION encore_claim_rsvp(
    p_event uuid, p_user uuid, p_rsvp uuid, p_guests integer, p_now timestamptz
) RETURNS TABLE (
    outcome text,
    attendee_count integer,
    effective_capacity integer,
    held integer,
    overrides boolean,
    on_waitlist boolean,
    pending_offer_id uuid,
    claimed boolean,
    revoked integer,
    locked_at timestamptz,
    finished_at timestamptz
) LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
    v_found uuid;
    v_seats integer := 1 + p_guests;
    v_max integer;
    v_venue integer;
    v_cap integer;
BEGIN
    claimed := false;
    revoked := 0;
    SELECT e.id INTO v_found FROM events_event e WHERE e.id = p_event FOR UPDATE;
    locked_at := clock_timestamp();
    IF v_found IS NULL THEN
        outcome := 'no_event';
        finished_at := clock_timestamp();
        RETURN NEXT;
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM events_eventrsvp r WHERE r.event_id = p_event AND r.user_id = p_user)
    THEN
        outcome := 'has_rsvp';
        finished_at := clock_timestamp();
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT e.attendee_count, e.max_attendees, v.capacity
      INTO attendee_count, v_max, v_venue
      FROM events_event e LEFT JOIN events_venue v ON v.id = e.venue_id
     WHERE e.id = p_event;
    v_cap := CASE
        WHEN COALESCE(v_max, 0) > 0 AND COALESCE(v_venue, 0) > 0 THEN LEAST(v_max, v_venue)
        WHEN COALESCE(v_max, 0) > 0 THEN v_max
        WHEN COALESCE(v_venue, 0) > 0 THEN v_venue
        ELSE 0 END;
    effective_capacity := v_cap;
    SELECT COALESCE(SUM(o.seats), 0) INTO held
      FROM events_waitlistoffer o
     WHERE o.event_id = p_event AND o.user_id <> p_user AND o.status = 'pending'
       AND o.expires_at > p_now AND NOT o.is_cutoff_batch;
    overrides := EXISTS (
        SELECT 1 FROM events_invitation i
         WHERE i.event_id = p_event AND i.user_id = p_user AND i.overrides_max_attendees);
    on_waitlist := EXISTS (
        SELECT 1 FROM events_eventwaitlist w WHERE w.event_id = p_event AND w.user_id = p_user);
    SELECT o.id INTO pending_offer_id FROM events_waitlistoffer o
     WHERE o.event_id = p_event AND o.user_id = p_user AND o.status = 'pending' LIMIT 1;

    IF NOT overrides AND v_cap > 0 AND v_seats > GREATEST(v_cap - attendee_count - held, 0) THEN
        outcome := 'refused';
        finished_at := clock_timestamp();
        RETURN NEXT;
        RETURN;
    END IF;

    INSERT INTO events_eventrsvp (id, event_id, user_id, status, guests, created_at, updated_at)
    VALUES (p_rsvp, p_event, p_user, 'yes', p_guests, p_now, p_now);
    UPDATE events_event SET attendee_count = events_event.attendee_count + v_seats
     WHERE id = p_event;
    IF pending_offer_id IS NOT NULL THEN
        UPDATE events_waitlistoffer
           SET status = 'claimed', claimed_at = p_now, updated_at = p_now
         WHERE id = pending_offer_id AND status = 'pending' AND expires_at > p_now;
        claimed := FOUND;
    END IF;
    IF on_waitlist THEN
        IF pending_offer_id IS NOT NULL AND NOT claimed THEN
            -- Lapsed, not swept yet: revoked as the entry's post_delete would (offers first).
            UPDATE events_waitlistoffer
               SET status = 'revoked', revoked_reason = 'entry_deleted', updated_at = p_now
             WHERE event_id = p_event AND user_id = p_user AND status = 'pending';
            GET DIAGNOSTICS revoked = ROW_COUNT;
        END IF;
        DELETE FROM events_eventwaitlist w WHERE w.event_id = p_event AND w.user_id = p_user;
    END IF;
    outcome := 'won';
    attendee_count := attendee_count + v_seats;
    finished_at := clock_timestamp();
    RETURN NEXT;
END;
$fn$;
