"""Every recipe of ``docs/integrations.md`` runs as written, with its library's release.

The recipes are read from the page itself (the code block after each ``<!-- recipe: NAME;
needs: MODULE -->`` marker), so the documentation cannot drift from what is tested. Each runs in
a fresh interpreter in an empty folder; a recipe whose library is not installed is skipped with
the install command (``make test-integrations`` installs them all). Slow: each imports a large
library and trains for a few hundred steps.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
RECIPE = re.compile(r"<!-- recipe: (\w+); needs: ([\w.]+) -->\s*```python\n(.*?)```", re.S)
#: What PettingZoo's TerminateIllegalWrapper logs when a policy ignores the mask.
ILLEGAL = "Illegal move made"


def recipes() -> dict[str, tuple[str, str]]:
    """Recipe name -> (module it needs, its code)."""
    return {name: (module, code) for name, module, code in RECIPE.findall(PAGE.read_text())}


def test_the_page_has_the_four_recipes():
    assert set(recipes()) == {"tianshou", "torchrl", "rllib", "sb3"}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tianshou", "torchrl", "rllib", "sb3"])
def test_recipe_runs(name, tmp_path):
    module, code = recipes()[name]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"the {name} recipe needs {module}: pip install -e '.[integrations]'")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=1200)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert ILLEGAL not in output, f"the {name} recipe played an illegal move"
    last = done.stdout.strip().splitlines()[-1]
    assert re.search(r"\d", last), f"the {name} recipe printed no result: {last!r}"
