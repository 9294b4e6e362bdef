"""Nothing points outside the repository for the rules: a clone has ``docs/rules/`` only."""

from __future__ import annotations

from pathlib import Path

from tests.docs.test_links import PAGES, ROOT


def test_no_page_or_docstring_points_outside_the_repository_for_the_rules():
    stale = []
    for path in [*PAGES, *ROOT.glob("loco_envs/**/*.py"), *ROOT.glob("tests/**/*.py")]:
        if path == Path(__file__):
            continue
        if "shared/rules" in path.read_text():
            stale.append(path.relative_to(ROOT).as_posix())
    assert not stale, f"these still cite shared/rules/ instead of docs/rules/: {stale}"
