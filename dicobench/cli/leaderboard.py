"""`dicobench leaderboard RESULTS... --out DIR`: a thin layer over `dicobench.leaderboard`
(dicobench.leaderboards)."""

from __future__ import annotations

from dicobench.kit.cli.leaderboard import make_register

register = make_register("dicobench.leaderboards")
