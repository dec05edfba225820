"""argparse types (counts, ports, endpoint URLs), in a module of their own: runner options
(`kit.eval.runners.options`) declare their flags' types without importing the command line that reads them."""

from __future__ import annotations

import argparse

from dicobench.kit.errors import UserError
from dicobench.kit.eval.endpoint import check_endpoint


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def port(text: str) -> int:
    """argparse type: a TCP port, 0 (any free one) to 65535."""
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, got {value}")
    return value


def http_url(text: str) -> str:
    """argparse type: an http(s) endpoint URL, e.g. http://127.0.0.1:8000/v1 (`check_endpoint`)."""
    try:
        return check_endpoint(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None
