"""LOCO: a 112-card shedding game for 2–10 players (``docs/rules/loco.md``)."""
