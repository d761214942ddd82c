"""The checkout form of the event page: a quantity per ticket tier on sale.

It checks only the shape (whole numbers from 0, at least one ticket); the sale rules
(windows, per-user limits, capacity, what is left) stay in `BatchTicketService`, which
the view calls with the cart.
"""

import uuid
from collections.abc import Sequence

from django import forms
from django.utils.translation import gettext

from events.models import TicketTier

#: The service refuses bigger carts anyway; the field says so before a round trip.
MAX_PER_TIER = 100


def field_name(tier: TicketTier) -> str:
    return f"tier_{tier.pk.hex}"


class CheckoutForm(forms.Form):
    def __init__(self, tiers: Sequence[TicketTier], *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.tiers = list(tiers)
        for tier in self.tiers:
            name = field_name(tier)
            self.fields[name] = forms.IntegerField(
                label=tier.name,
                min_value=0,
                max_value=MAX_PER_TIER,
                initial=0,
                required=False,
                widget=forms.NumberInput(
                    attrs={"inputmode": "numeric", "aria-describedby": f"id_{name}-about"}
                ),
            )

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if not self.errors and not self.cart():
            raise forms.ValidationError(gettext("Choose at least one ticket."))
        return cleaned

    def cart(self) -> list[dict[str, object]]:
        """The items for `BatchTicketService.create_batch`: tiers with a quantity over 0."""
        items: list[dict[str, object]] = []
        for tier in self.tiers:
            count = self.cleaned_data.get(field_name(tier)) or 0
            if count > 0:
                items.append({"tier_id": uuid.UUID(str(tier.pk)), "count": count})
        return items
