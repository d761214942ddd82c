"""The party rule of a batch: strict waits for the head's party, fill lets smaller ones in."""

import pytest

from events.waitlist.services.party_fit import FILL, STRICT, fit_batch

QUEUE = [("ana", 4), ("ben", 1), ("cem", 2), ("dia", 1)]


@pytest.mark.parametrize(
    ("policy", "seats", "expected"),
    [
        (STRICT, 3, []),  # the head's party of four waits; nobody overtakes it
        (FILL, 3, ["ben", "cem"]),  # smaller parties behind take the three seats
        (STRICT, 5, ["ana", "ben"]),
        (FILL, 5, ["ana", "ben"]),  # five seats: four and one, nothing left for cem
        (FILL, 6, ["ana", "ben", "dia"]),  # cem's two do not fit the last seat; dia's one does
        (STRICT, 6, ["ana", "ben"]),
    ],
)
def test_policy_decides_what_happens_at_a_party_that_does_not_fit(policy, seats, expected):
    assert fit_batch(QUEUE, seats=seats, batch_size=None, policy=policy) == expected


def test_batch_size_counts_offers_not_seats():
    assert fit_batch(QUEUE, seats=100, batch_size=2, policy=STRICT) == ["ana", "ben"]


def test_unlimited_capacity_offers_up_to_the_batch_size():
    assert fit_batch(QUEUE, seats=None, batch_size=3, policy=FILL) == ["ana", "ben", "cem"]
    assert fit_batch(QUEUE, seats=None, batch_size=None, policy=FILL) == [k for k, _ in QUEUE]


def test_no_seat_no_offer():
    assert fit_batch(QUEUE, seats=0, batch_size=None, policy=FILL) == []
