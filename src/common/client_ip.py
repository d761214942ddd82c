"""Who is calling, as far as the network can tell: the one definition every limit uses.

`X-Forwarded-For` is a header like any other: a client can send any value. It is only
believed as far as our own proxies wrote it. With `TRUSTED_PROXY_COUNT = n` proxies in
front of the app, each appends the address it got the request from, so the n-th entry
from the right is the address our outermost proxy saw; everything further left came from
the client and is ignored. With n = 0 (the default) the header is ignored entirely.
"""

import ipaddress

from django.conf import settings
from django.http import HttpRequest

# IPv6 clients usually get a whole /64 each: counting per address would let one client
# rotate through 2**64 of them, so limits count per /64 network instead.
IPV6_LIMIT_PREFIX = 64


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the entry our trusted proxies vouch for."""
    remote_addr = str(request.META.get("REMOTE_ADDR") or "")
    proxies = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote_addr
    hops = [hop.strip() for hop in str(forwarded).split(",") if hop.strip()]
    if not hops:
        return remote_addr
    # Fewer entries than proxies: the request skipped an outer proxy; the leftmost entry
    # was then written by the first of ours it met, which is still one of ours.
    candidate = hops[-min(proxies, len(hops))]
    return candidate if _is_ip(candidate) else remote_addr


def limit_key(ip: str) -> str:
    """The part of an address a per-client limit counts on: the IPv4 address, or the
    IPv6 /64 network (see IPV6_LIMIT_PREFIX)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip or "unknown"
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_LIMIT_PREFIX}", strict=False))
    return str(address)


def client_limit_key(request: HttpRequest) -> str:
    return limit_key(client_ip(request))


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
