"""The distribution installs one top-level package, ``loco_envs``, with its tools and data inside.

The repository's ``agents/``, ``train/``, ``benchmarks/`` and ``configs/`` are installed as
``loco_envs.agents`` and so on (``setup.py``), so a user's own ``agents/`` folder neither breaks
the suite nor is shadowed by it. The slow test builds the real wheel and runs the commands a
wheel user runs, from a folder that has its own ``agents/``.
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHORT_IMPORT = re.compile(r"^\s*(import|from) (agents|train|benchmarks)(\.|\s|$)")


def setup_config() -> dict:
    return runpy.run_path(str(ROOT / "setup.py"), run_name="packaging_test")


def test_every_package_is_inside_loco_envs():
    packages = setup_config()["PACKAGES"]
    assert all(p == "loco_envs" or p.startswith("loco_envs.") for p in packages)
    for name in ("loco_envs.agents", "loco_envs.train", "loco_envs.benchmarks",
                 "loco_envs.configs", "loco_envs.core", "loco_envs.loco"):
        assert name in packages


def test_every_code_folder_of_the_tools_is_installed():
    config = setup_config()
    packages, package_dir = set(config["PACKAGES"]), config["PACKAGE_DIR"]
    for name, folder in package_dir.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            assert ".".join((name, *rel)) in packages, f"{init} would not be installed"


def test_the_code_imports_no_short_top_level_name():
    """Installed, ``import agents`` would find a user's folder (or nothing): the long names."""
    offenders = []
    for folder in ("loco_envs", "agents", "train", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if SHORT_IMPORT.match(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.slow
def test_wheel_installs_only_loco_envs_and_runs_beside_a_users_agents_folder(tmp_path):
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v",
         "-w", str(wheels), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    # setuptools' warnings are classes (SetuptoolsDeprecationWarning, BuildBackendWarning, ...)
    warnings = [line for line in (built.stdout + built.stderr).splitlines() if "Warning" in line]
    assert not warnings, warnings
    (wheel,) = wheels.glob("loco_envs-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    version = wheel.name.split("-")[1]
    assert {n.split("/")[0] for n in names} == {"loco_envs", f"loco_envs-{version}.dist-info"}
    for data in ("loco_envs/configs/loco_quick.yaml", "loco_envs/benchmarks/baselines/loco_2p.json",
                 "loco_envs/agents/__init__.py", "loco_envs/train/__main__.py"):
        assert data in names
    metadata = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: MIT" in metadata
    assert "Project-URL: Source, https://github.com/loco-envs/loco-envs" in metadata

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    user = tmp_path / "project"
    (user / "agents").mkdir(parents=True)
    (user / "agents" / "__init__.py").write_text("raise ImportError('the user agents package')\n")
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run([sys.executable, "-c", "import loco_envs; print(loco_envs.__file__)"],
                           cwd=user, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.strip().startswith(str(target))
    for command in (["-m", "loco_envs.play", "--help"],
                    ["-m", "loco_envs.demo", "--players", "2", "--rounds", "1", "--seed", "1"]):
        done = subprocess.run([sys.executable, *command], cwd=user, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
