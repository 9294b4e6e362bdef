"""MkDocs hook: a link from a page to a repository file outside ``docs/`` (the README, a
module, a config) points at that file on the repository's web page, as it does on GitHub.

The pages are also read on GitHub, where such relative links work; on the site they would be
broken. ``tests/docs/test_links.py`` checks that every one of them resolves in the repository.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"(\]\()(\s*<?)([^)\s>#]+)(#[^)\s>]*)?")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)


def _rewrite(text: str, page_dir: str, repo: str) -> str:
    def link(match: re.Match) -> str:
        target = match.group(3)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("/"):
            return match.group(0)
        path = posixpath.normpath(posixpath.join("docs", page_dir, target))
        if path.startswith("docs/") and not path.startswith("docs/../"):
            return match.group(0)  # a page or a file of the site
        file = ROOT / path
        if not file.exists():
            return match.group(0)  # left for mkdocs to report
        kind = "tree" if file.is_dir() else "blob"
        return f"{match.group(1)}{match.group(2)}{repo}/{kind}/main/{path}{match.group(4) or ''}"

    out, last = [], 0
    for fence in FENCE.finditer(text):
        out.append(LINK.sub(link, text[last:fence.start()]))
        out.append(fence.group(0))
        last = fence.end()
    out.append(LINK.sub(link, text[last:]))
    return "".join(out)


def on_page_markdown(markdown: str, page, config, files) -> str:
    repo = config["repo_url"].rstrip("/")
    return _rewrite(markdown, posixpath.dirname(page.file.src_uri), repo)
