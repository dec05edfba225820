"""`dicobench leaderboard RESULTS... --out DIR`: a thin layer over `dicobench.leaderboard`
(dicobench.leaderboards)."""

from __future__ import annotations

from dicobench.kit.cli.leaderboard import make_register
from dicobench.kit.registry import Ref

register = make_register(Ref("dicobench.leaderboards:leaderboard"))
