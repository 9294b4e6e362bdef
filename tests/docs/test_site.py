"""The documentation site builds with ``mkdocs build --strict``: no warning, so no broken link,
no missing page and no reference mkdocstrings cannot resolve. Offline: nothing is fetched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mkdocs", reason="the docs extra (`make test` installs it)")
pytest.importorskip("mkdocstrings", reason="the docs extra (`make test` installs it)")
pytest.importorskip("material", reason="the docs extra (`make test` installs it)")


def test_the_site_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    games = tmp_path / "games"
    for game in ("loco", "moco", "momo", "mampfos"):
        page = (games / game / "index.html").read_text()
        # the env's module docstring is the page: its action table is there
        assert "<table>" in page and "Creation arguments" in page, game
    assert (tmp_path / "pictures" / "loco_game.gif").stat().st_size > 10_000
    assert "total_timesteps" in (tmp_path / "api" / "index.html").read_text()


def test_the_hook_points_repository_files_at_the_repository(tmp_path):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.pop(0)
    repo = "https://example.org/r"
    text = ("[a](../README.md) [b](rules/loco.md) [c](https://x.org/y) "
            "[d](../loco_envs/loco/env.py#L3)\n```\n[e](../README.md)\n```\n")
    out = hooks._rewrite(text, "", repo)
    assert f"[a]({repo}/blob/main/README.md)" in out
    assert "[b](rules/loco.md)" in out and "[c](https://x.org/y)" in out
    assert f"[d]({repo}/blob/main/loco_envs/loco/env.py#L3)" in out
    assert "```\n[e](../README.md)\n```" in out  # code is left alone
