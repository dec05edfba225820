"""The one rule for OpenAI-compatible endpoints (models, judges, LLM backends): an http(s) URL.

Everything that talks to an endpoint goes through `dicobench.kit.eval.chat.ChatClient`, which checks
its base URL here, and the command lines check their `--*base-url` options with the same rule
(`dicobench.kit.cli.argtypes.http_url`), so no command takes an endpoint another refuses.
"""

from __future__ import annotations

import re

from dicobench.kit.errors import UserError


def check_endpoint(url: str | None, what: str = "base URL") -> str | None:
    """`url` when it is None (the provider's default) or an http:// or https:// URL; else a UserError."""
    if url is not None and not (isinstance(url, str) and re.match(r"https?://[^/\s]+", url)):
        raise UserError(f"{what}: expected an http:// or https:// URL, got {url!r}")
    return url
