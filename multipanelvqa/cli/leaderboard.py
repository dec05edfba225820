"""`multipanelvqa leaderboard RESULTS... --out DIR`: a thin layer over `multipanelvqa.leaderboard`
(multipanelvqa.leaderboards)."""

from __future__ import annotations

from dicobench.kit.cli.leaderboard import make_register
from dicobench.kit.registry import Ref

register = make_register(Ref("multipanelvqa.leaderboards:leaderboard"))
