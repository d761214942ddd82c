-- encore_claim_rsvp: a new RSVP YES claimed in one statement (ADR 0022).
--
-- Why a function: the Python claim made about six round trips while it held the Event
-- row lock, and with many racers in one process each return from the database also
-- waited for the interpreter lock; every other claimer of the event waited for all of it.
-- Here the lock lives from the FOR UPDATE to the end of the calling statement (the caller
-- runs it in autocommit), and only the arithmetic and the writes run in between.
--
-- Three ways a claim ends, and what each costs the other claimers (a win writes in one
-- statement, so the holder runs one executor, not four):
--   1. Refused on a snapshot, without the lock. The first statement reads everything the
--      rule needs (the Event row, the venue, the seats held by other users' live offers,
--      the caller's own rows) in one consistent snapshot. A refusal is safe on any
--      committed state: it writes nothing and oversells nothing, and it answers as of a
--      moment inside the request (a seat freed after that moment is the next request's).
--      So when the snapshot already has no room, the claim ends here, holding nothing.
--   2. Refused under the lock. When the snapshot had room, the Event row is locked
--      (`SELECT ... FOR UPDATE` returns the row as the last holder committed it:
--      EvalPlanQual re-reads a row that changed while we waited) and the held seats are
--      read again in a statement of their own (a VOLATILE function's statements each take
--      a fresh snapshot under READ COMMITTED, so once the lock is held it sees every
--      earlier holder's commit; the sub-selects of the FOR UPDATE itself would not, see
--      events/selectors/locked_check.py). If there is no room now, the function RAISEs
--      `encore_claim_refused` with the numbers as JSON in the DETAIL: the statement's
--      transaction rolls back, and an abort, unlike a commit, does not wait for its WAL
--      to reach the disk, so the lock is released at once. The caller turns it into the
--      usual refusal.
--   3. Won: the writes, then the COMMIT releases the lock without waiting for its flush;
--      the caller waits for that before it answers (ADR 0029).
-- The caller's own rows are read once, before the lock: they change only by the caller's
-- own requests, or in ways the writes tolerate. A same-user request that registers
-- meanwhile makes the INSERT fail on the unique (event, user) pair, and the caller takes
-- the Python path, which sees that RSVP; the offer is claimed under the lock by
-- (event, user, live), so one revoked or lapsed meanwhile is not claimed and one issued
-- meanwhile is; a venue changed meanwhile is re-read under the lock.
--
-- The rule is the Python one (events/eligibility/capacity.py): attendee_count + seats
-- held by OTHER users' live non-cutoff offers + seats <= effective capacity (the smaller
-- positive of max_attendees and the venue's capacity; 0 = unlimited); an invitation with
-- overrides_max_attendees bypasses it. outcome: 'won', 'refused' (way 1), 'has_rsvp' (the
-- caller already has an RSVP: nothing done, the Python path handles changes) or
-- 'no_event'. (The bench measures the lock from outside: `bench/lock_tenure.py`.)
-- Dropped first: a new version may change the result type, which CREATE OR REPLACE refuses
-- (each migration that installs it carries its own frozen copy, migrations/sql/).
DROP FUNCTION IF EXISTS encore_claim_rsvp(uuid, uuid, uuid, integer, timestamptz);
CREATE FUNCTION encore_claim_rsvp(
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
    revoked integer
) LANGUAGE plpgsql VOLATILE
-- Every statement below looks rows up by key: the generic plan is the custom one, and
-- planning each anew for a session's first five calls is CPU every claimer waits for.
SET plan_cache_mode = force_generic_plan
AS $fn$
DECLARE
    v_seats integer := 1 + p_guests;
    v_max integer;
    v_venue_id uuid;
    v_venue_seen uuid;
    v_venue integer;
    v_cap integer;
    v_has_rsvp boolean;
    v_claimed uuid;
BEGIN
    claimed := false;
    revoked := 0;

    -- The snapshot: the numbers and the caller's own rows.
    SELECT e.attendee_count, e.max_attendees, e.venue_id, v.capacity,
           (SELECT COALESCE(SUM(o.seats), 0)::integer FROM events_waitlistoffer o
             WHERE o.event_id = p_event AND o.user_id <> p_user AND o.status = 'pending'
               AND o.expires_at > p_now AND NOT o.is_cutoff_batch),
           EXISTS (SELECT 1 FROM events_eventrsvp r
                    WHERE r.event_id = p_event AND r.user_id = p_user),
           EXISTS (SELECT 1 FROM events_invitation i
                    WHERE i.event_id = p_event AND i.user_id = p_user
                      AND i.overrides_max_attendees),
           EXISTS (SELECT 1 FROM events_eventwaitlist w
                    WHERE w.event_id = p_event AND w.user_id = p_user),
           (SELECT o.id FROM events_waitlistoffer o
             WHERE o.event_id = p_event AND o.user_id = p_user AND o.status = 'pending'
             LIMIT 1)
      INTO attendee_count, v_max, v_venue_seen, v_venue, held, v_has_rsvp, overrides,
           on_waitlist, pending_offer_id
      FROM events_event e LEFT JOIN events_venue v ON v.id = e.venue_id
     WHERE e.id = p_event;
    IF NOT FOUND THEN
        outcome := 'no_event';
        RETURN NEXT;
        RETURN;
    END IF;
    IF v_has_rsvp THEN
        outcome := 'has_rsvp';
        RETURN NEXT;
        RETURN;
    END IF;
    v_cap := encore_capacity_limit(v_max, v_venue);
    effective_capacity := v_cap;
    IF NOT overrides AND v_cap > 0 AND v_seats > GREATEST(v_cap - attendee_count - held, 0)
    THEN
        outcome := 'refused';  -- way 1: no lock taken
        RETURN NEXT;
        RETURN;
    END IF;

    -- The lock, and the numbers as of the lock.
    SELECT e.attendee_count, e.max_attendees, e.venue_id
      INTO attendee_count, v_max, v_venue_id
      FROM events_event e WHERE e.id = p_event FOR UPDATE;
    IF NOT FOUND THEN
        outcome := 'no_event';
        RETURN NEXT;
        RETURN;
    END IF;
    IF v_venue_id IS DISTINCT FROM v_venue_seen THEN
        SELECT v.capacity INTO v_venue FROM events_venue v WHERE v.id = v_venue_id;
    END IF;
    v_cap := encore_capacity_limit(v_max, v_venue);
    effective_capacity := v_cap;
    IF NOT overrides AND v_cap > 0 THEN
        SELECT COALESCE(SUM(o.seats), 0) INTO held
          FROM events_waitlistoffer o
         WHERE o.event_id = p_event AND o.user_id <> p_user AND o.status = 'pending'
           AND o.expires_at > p_now AND NOT o.is_cutoff_batch;
        IF v_seats > GREATEST(v_cap - attendee_count - held, 0) THEN
            -- way 2: roll back, so that the lock goes without a commit to flush
            RAISE EXCEPTION 'encore_claim_refused' USING DETAIL = json_build_object(
                'attendee_count', attendee_count, 'effective_capacity', v_cap,
                'held', held, 'on_waitlist', on_waitlist,
                'pending_offer_id', pending_offer_id)::text;
        END IF;
    END IF;

    -- Won. The commit need not reach the disk while the lock is held (ADR 0029): this
    -- transaction commits asynchronously, so the lock goes as soon as the commit record
    -- is in the WAL buffers, and the caller answers only after a synchronous commit of
    -- its own has flushed the WAL past it (`claim_function.DURABLE`). WAL is replayed as
    -- a prefix: whatever committed after this claim and reached the disk brings it along.
    PERFORM set_config('synchronous_commit', 'off', true);

    -- The writes. The caller's offer rows come before its queue row, the order of the
    -- expiry sweep (it writes offer rows, then their queue rows) and of every departure:
    -- one statement holding the queue row while it waits for an offer row the sweep holds
    -- would deadlock with it. The offer claimed is any live offer of the caller, also one
    -- a pass issued after the snapshot.
    IF on_waitlist OR pending_offer_id IS NOT NULL THEN
        UPDATE events_waitlistoffer
           SET status = 'claimed', claimed_at = p_now, updated_at = p_now
         WHERE event_id = p_event AND user_id = p_user AND status = 'pending'
           AND expires_at > p_now
        RETURNING id INTO v_claimed;
    END IF;
    claimed := v_claimed IS NOT NULL;
    IF claimed THEN
        pending_offer_id := v_claimed;
    ELSIF on_waitlist THEN
        -- A lapsed offer, not swept yet: revoked as the entry's post_delete would.
        UPDATE events_waitlistoffer
           SET status = 'revoked', revoked_reason = 'entry_deleted', updated_at = p_now
         WHERE event_id = p_event AND user_id = p_user AND status = 'pending';
        GET DIAGNOSTICS revoked = ROW_COUNT;
    END IF;
    -- The rest in one statement (one executor run under the lock, not three).
    WITH bump AS (
        UPDATE events_event SET attendee_count = events_event.attendee_count + v_seats
         WHERE id = p_event
    ), gone AS (
        DELETE FROM events_eventwaitlist w
         WHERE on_waitlist AND w.event_id = p_event AND w.user_id = p_user
    )
    INSERT INTO events_eventrsvp
           (id, event_id, user_id, status, guests, created_at, updated_at)
    VALUES (p_rsvp, p_event, p_user, 'yes', p_guests, p_now, p_now);
    outcome := 'won';
    attendee_count := attendee_count + v_seats;
    RETURN NEXT;
END;
$fn$;

-- The effective capacity of events/models/event.py `capacity_limit`: the smaller positive
-- of the event's and the venue's limits; 0 = unlimited.
CREATE OR REPLACE FUNCTION encore_capacity_limit(p_max integer, p_venue integer)
RETURNS integer LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE
        WHEN COALESCE(p_max, 0) > 0 AND COALESCE(p_venue, 0) > 0 THEN LEAST(p_max, p_venue)
        WHEN COALESCE(p_max, 0) > 0 THEN p_max
        WHEN COALESCE(p_venue, 0) > 0 THEN p_venue
        ELSE 0 END
$fn$;
