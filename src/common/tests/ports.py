"""A free TCP port for a server a test starts: the kernel picks one nobody listens on.

A fixed port collides with whatever else the machine runs (another suite's server, a
CI neighbour); a port the kernel handed out a moment ago is free unless something
binds it in between, which is what "ephemeral" makes unlikely.
"""

import socket


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
