"""Every relative link in the README and the docs resolves, and the rules pages are there.

A clone (or a reader on the repository's web page) has only what is in the repository: a link
to a file that moved, or a rule id the tests cite that no rules page defines, is a broken spec.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The Markdown pages of the repository: the README, docs/ and the READMEs of the top folders.
PAGES = sorted({ROOT / "README.md", *ROOT.glob("docs/**/*.md"),
                *(p for p in ROOT.glob("*/README.md") if not p.parent.name.startswith("."))})
#: ``[text](target)`` and ``![alt](target)``, the target up to the first space or ``)``.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
GAMES = {"loco": "L", "moco": "M", "momo": "K", "mampfos": "P"}


def links(page: Path) -> list[str]:
    """The link targets of a page, outside code blocks and inline code."""
    text = INLINE_CODE.sub("", FENCE.sub("", page.read_text()))
    return LINK.findall(text)


def is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and not target.startswith("//")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a page (lower case, punctuation dropped, - for space)."""
    out = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        if match := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line):
            slug = re.sub(r"[^\w\- ]", "", match.group(1).lower().replace("`", ""))
            out.add(slug.replace(" ", "-"))
    return out


def test_the_pages_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/GAME_PATTERN.md", "docs/rules/loco.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    broken = []
    for target in filter(is_relative, links(page)):
        path_part, _, anchor = target.partition("#")
        file = (page.parent / path_part).resolve() if path_part else page
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor.lower() not in anchors(file):
            broken.append(f"{target} (no heading #{anchor} in {file.name})")
    assert not broken, f"{page.relative_to(ROOT)}: broken links {broken}"


def test_the_link_finder_sees_links_and_skips_code():
    page = ROOT / "README.md"
    assert "docs/rules/loco.md" in links(page)
    assert not LINK.findall(INLINE_CODE.sub("", "`[a](nowhere.md)`"))


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_id_a_test_cites_is_on_its_rules_page(game):
    letter = GAMES[game]
    page = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    defined = set(re.findall(rf"\b{letter}-(\d\d)\b", page))
    cited = set()
    for test_file in (ROOT / "tests" / game).glob("test_*.py"):
        cited |= set(re.findall(rf"def test_{letter}(\d\d)_", test_file.read_text()))
    assert cited, f"no test of tests/{game} cites a rule id"
    assert cited <= defined, f"ids cited by tests but not on the page: {sorted(cited - defined)}"
