"""Which members of a batch's candidates fit the free seats: the party rule, as one function.

A batch walks its candidates in the draw's order (the queue's head for FIFO, the ring
order for a lottery) and offers each one whose whole party still fits. The organiser's
`waitlist_party_policy` says what happens at the first party that does not fit:

- `strict`: the batch stops there. The head keeps its claim on the next seats to free,
  so a party of four is never overtaken by ones behind it (fair, but seats may idle);
- `fill`: the batch skips it and goes on, so smaller parties behind take the seats the
  head cannot use; the skipped party keeps its place and is first for the next batch.

Pure (no database), so the processing pass, the lottery's replay and the ETA's
simulation all apply the same rule and cannot drift apart.
"""

from collections.abc import Hashable, Iterable
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)

STRICT = "strict"
FILL = "fill"


def fit_batch(
    candidates: Iterable[tuple[Key, int]],
    *,
    seats: int | None,
    batch_size: int | None,
    policy: str,
) -> list[Key]:
    """The keys offered, in order: each candidate is (key, party size).

    `seats` is what the batch may hold (None: unlimited capacity); `batch_size` counts
    offers, not seats (None or 0: no limit but the seats). A party larger than the seats
    left is skipped under `fill` and ends the batch under `strict`.
    """
    chosen: list[Key] = []
    left = seats
    for key, party in candidates:
        if batch_size and len(chosen) >= batch_size:
            break
        if left is not None and left <= 0:
            break
        if left is not None and party > left:
            if policy == STRICT:
                break
            continue
        chosen.append(key)
        if left is not None:
            left -= party
    return chosen
