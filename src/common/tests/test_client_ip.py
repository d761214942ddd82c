"""The client's address: REMOTE_ADDR unless trusted proxies vouch for another."""

import pytest
from django.http import HttpRequest
from django.test import RequestFactory
from ninja.throttling import AnonRateThrottle as NinjaAnonThrottle
from ninja_extra.throttling import AnonRateThrottle as ExtraAnonThrottle

from common.api import WriteThrottle
from common.client_ip import client_ip, limit_key


def request(remote_addr: str = "192.0.2.1", xff: str | None = None) -> HttpRequest:
    made = RequestFactory().get("/", REMOTE_ADDR=remote_addr)
    if xff is not None:
        made.META["HTTP_X_FORWARDED_FOR"] = xff
    return made


def test_without_trusted_proxies_x_forwarded_for_is_ignored(settings):
    settings.TRUSTED_PROXY_COUNT = 0

    assert client_ip(request(xff="6.6.6.6")) == "192.0.2.1"


@pytest.mark.parametrize(
    ("proxies", "xff", "expected"),
    [
        (1, "6.6.6.6, 203.0.113.9", "203.0.113.9"),  # our proxy appended the client
        (2, "6.6.6.6, 203.0.113.9, 10.0.0.2", "203.0.113.9"),
        (2, "203.0.113.9", "203.0.113.9"),  # fewer hops than proxies: the leftmost
        (1, "  ", "192.0.2.1"),
        (1, "6.6.6.6, not-an-address", "192.0.2.1"),  # garbage from a proxy: the peer
        (1, "6.6.6.6, 2001:db8::1", "2001:db8::1"),
    ],
)
def test_with_n_trusted_proxies_the_nth_entry_from_the_right(settings, proxies, xff, expected):
    settings.TRUSTED_PROXY_COUNT = proxies

    assert client_ip(request(xff=xff)) == expected


def test_without_the_header_behind_proxies_remote_addr(settings):
    settings.TRUSTED_PROXY_COUNT = 1

    assert client_ip(request()) == "192.0.2.1"


def test_limits_count_ipv6_clients_per_64_network():
    assert limit_key("2001:db8:1:2:aaaa::1") == limit_key("2001:db8:1:2:ffff::9")
    assert limit_key("2001:db8:1:2::1") != limit_key("2001:db8:1:3::1")
    assert limit_key("::ffff:192.0.2.4") == "192.0.2.4"
    assert limit_key("192.0.2.4") == "192.0.2.4"


def test_every_throttle_class_sees_the_same_client():
    """ninja's and ninja-extra's throttles read NINJA_NUM_PROXIES / NINJA_EXTRA, set from
    TRUSTED_PROXY_COUNT (settings/throttling.py): none of them keys on the raw header."""
    spoofed = request(xff="6.6.6.6, 7.7.7.7")

    assert WriteThrottle().get_ident(spoofed) == "192.0.2.1"
    assert NinjaAnonThrottle("1/s").get_ident(spoofed) == "192.0.2.1"
    assert ExtraAnonThrottle("1/s").get_ident(spoofed) == "192.0.2.1"
