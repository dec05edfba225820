"""`multipanelvqa leaderboard RESULTS... --out DIR`: a thin layer over `multipanelvqa.leaderboard`
(multipanelvqa.leaderboards)."""

from __future__ import annotations

from dicobench.kit.cli.leaderboard import make_register

register = make_register("multipanelvqa.leaderboards")
