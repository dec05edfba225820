"""Reports: leaderboards, charts and contact sheets."""
