"""Prices in major units (12.50 EUR, as tiers store them) and Stripe's integer minor
units (1250): the one conversion, used by the checkout, refunds and every display."""

from decimal import Decimal

#: Currencies Stripe counts in whole units (no cents).
ZERO_DECIMAL = frozenset(
    [
        "BIF",
        "CLP",
        "DJF",
        "GNF",
        "JPY",
        "KMF",
        "KRW",
        "MGA",
        "PYG",
        "RWF",
        "UGX",
        "VND",
        "VUV",
        "XAF",
        "XOF",
        "XPF",
    ]
)


def to_minor(amount: Decimal, currency: str) -> int:
    factor = 1 if currency.upper() in ZERO_DECIMAL else 100
    return int((amount * factor).to_integral_value())


def to_major(amount: int, currency: str) -> Decimal:
    if currency.upper() in ZERO_DECIMAL:
        return Decimal(amount)
    return (Decimal(amount) / 100).quantize(Decimal("0.01"))
