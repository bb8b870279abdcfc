"""What the benchmarks (bench.py, bench_status.py) share."""

import socket


def free_port():
    """A loopback TCP port free now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
