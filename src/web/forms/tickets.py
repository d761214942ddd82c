"""The organiser's ticket forms: a ticket type, a refund, a box-office sale.

They check the shape of the input; the rules (a price above 0 online, sales ending after
they start, not fewer tickets than sold, what is left to refund) stay in the model and
the services, whose refusals `add_tier_errors` puts next to the field they name. Times
are typed in the event's own zone, like the event form's.
"""

import re
import uuid
import zoneinfo
from datetime import datetime
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from events.models import Event, TicketTier
from web.forms.manage import LocalDateTimeField

Method = TicketTier.PaymentMethod

#: The tier model's own messages (`TicketTier.clean`), shown through `gettext`.
MODEL_MESSAGES = (
    gettext_noop("Sales must end after they start."),
    gettext_noop("Cannot be below the tickets already sold."),
    gettext_noop("A tier paid online needs a price above 0."),
)
#: The model's field names → the form's.
FORM_FIELDS = {
    "total_quantity": "quantity",
    "sales_start_at": "sales_start",
    "sales_end_at": "sales_end",
    "refund_deadline": "refunds_until",
}
#: Django's codes for the unique (event, name) constraint.
UNIQUE_CODES = frozenset({"unique", "unique_together"})
CURRENCY = re.compile(r"^[A-Za-z]{3}$")


def method_choices(online_ready: bool, current: str | None = None) -> list[tuple[str, Any]]:
    """The payment methods a tier may take; "Online" only where payments are set up (or
    the tier is online already, so editing it does not silently change it)."""
    choices: list[tuple[str, Any]] = [
        (Method.FREE, _("Free")),
        (Method.OFFLINE, _("Offline")),
        (Method.AT_THE_DOOR, _("At the door")),
    ]
    if online_ready or current == Method.ONLINE:
        choices.append((Method.ONLINE, _("Online")))
    return choices


class TierForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    price = forms.DecimalField(
        label=_("Price"), min_value=Decimal("0"), max_digits=10, decimal_places=2, required=False
    )
    currency = forms.CharField(
        label=_("Currency"),
        max_length=3,
        initial="EUR",
        help_text=_("Three letters, e.g. EUR."),
    )
    quantity = forms.IntegerField(
        label=_("Quantity"), min_value=0, required=False, help_text=_("Empty: no limit.")
    )
    sales_start = LocalDateTimeField(label=_("Sales start"), required=False)
    sales_end = LocalDateTimeField(label=_("Sales end"), required=False)
    payment_method = forms.ChoiceField(
        label=_("Payment method"),
        help_text=_(
            "Offline: buyers pay you as your payment instructions say, and you mark their "
            "tickets as paid. Online: buyers pay by card."
        ),
    )
    refunds_until = LocalDateTimeField(
        label=_("Refunds until"),
        required=False,
        help_text=_("Until then, buyers who paid online may refund their tickets themselves."),
    )

    def __init__(
        self,
        *args: Any,
        event: Event,
        online_ready: bool,
        current_method: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.zone = zoneinfo.ZoneInfo(event.timezone or "UTC")
        choices = method_choices(online_ready, current_method)
        self.fields["payment_method"].choices = choices  # type: ignore[attr-defined]
        self.fields["payment_method"].initial = Method.ONLINE if online_ready else Method.OFFLINE

    def clean_currency(self) -> str:
        value = str(self.cleaned_data["currency"]).strip()
        if not CURRENCY.match(value):
            raise ValidationError(gettext("Enter a currency code of three letters, e.g. EUR."))
        return value.upper()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for field in ("sales_start", "sales_end", "refunds_until"):
            if isinstance(data.get(field), datetime):
                data[field] = data[field].replace(tzinfo=self.zone)
        price = data.get("price") or Decimal("0")
        data["price"] = price
        if data.get("payment_method") == Method.FREE and price > 0:
            self.add_error(
                "price", gettext("A free ticket type has no price: set 0 or choose how to pay.")
            )
        elif data.get("payment_method") in (Method.OFFLINE, Method.AT_THE_DOOR) and price <= 0:
            self.add_error("price", gettext("A ticket type that is paid for needs a price."))
        return data

    def service_data(self) -> dict[str, Any]:
        """The fields as `tiers.create_tier` / `update_tier` take them."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "price": data["price"],
            "currency": data["currency"],
            "total_quantity": data.get("quantity"),
            "sales_start_at": data.get("sales_start"),
            "sales_end_at": data.get("sales_end"),
            "payment_method": data["payment_method"],
            "refund_deadline": data.get("refunds_until"),
        }


def tier_initial(tier: TicketTier, zone_name: str) -> dict[str, Any]:
    """The edit form's values, its times in the event's own zone."""
    zone = zoneinfo.ZoneInfo(zone_name or "UTC")

    def local(moment: datetime | None) -> datetime | None:
        return moment.astimezone(zone).replace(tzinfo=None) if moment else None

    return {
        "name": tier.name,
        "price": tier.price,
        "currency": tier.currency,
        "quantity": tier.total_quantity,
        "sales_start": local(tier.sales_start_at),
        "sales_end": local(tier.sales_end_at),
        "payment_method": tier.payment_method,
        "refunds_until": local(tier.refund_deadline),
    }


def add_tier_errors(form: forms.Form, error: ValidationError) -> None:
    """The tier model's refusal next to its field; the unique name under "Name"."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, [gettext(m) for m in error.messages])
        return
    for name, errors in error.error_dict.items():
        if name == NON_FIELD_ERRORS and any(e.code in UNIQUE_CODES for e in errors):
            form.add_error("name", gettext("This event has a ticket type of this name already."))
            continue
        field = FORM_FIELDS.get(name, name)
        messages = [gettext(message) for e in errors for message in e.messages]
        form.add_error(field if field in form.fields else None, messages)


class RefundForm(forms.Form):
    amount = forms.DecimalField(
        label=_("Amount"), min_value=Decimal("0.01"), max_digits=10, decimal_places=2
    )


class BoxOfficeForm(forms.Form):
    email = forms.EmailField(label=_("Email"))
    ticket_type = forms.ChoiceField(label=_("Ticket type"))

    def __init__(self, *args: Any, tiers: list[TicketTier], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ticket_type"].choices = [(str(t.pk), t.name) for t in tiers]  # type: ignore[attr-defined]

    def tier_id(self) -> uuid.UUID:
        return uuid.UUID(self.cleaned_data["ticket_type"])
