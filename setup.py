"""Which packages the distribution installs, and from which folders.

The repository keeps the suite's tools in top-level folders (``agents/``, ``train/``,
``benchmarks/``, ``configs/``), where ``import agents`` and ``python -m train`` work from a
clone. Installed, they live inside the package: ``loco_envs.agents``, ``loco_envs.train``,
``loco_envs.benchmarks`` and the data folder ``loco_envs.configs``, so a wheel adds no generic
top-level module that would shadow, or be shadowed by, a user's own ``agents/`` folder (see the
README, "Install"). Everything else is in ``pyproject.toml``; the packages are listed here
because setuptools can only map folders to other package names from an explicit list, and
finding them keeps new subpackages from being forgotten.
"""

from setuptools import find_namespace_packages, find_packages, setup

#: Repository folder -> the package it is installed as.
INSIDE = {"agents": "loco_envs.agents", "train": "loco_envs.train",
          "benchmarks": "loco_envs.benchmarks", "configs": "loco_envs.configs"}


def packages_and_dirs() -> tuple[list[str], dict[str, str]]:
    """Every package, and the folder of each installed under another name.

    The mapped folders' subfolders are found as namespace packages, so that data folders
    (``benchmarks/baselines``, ``agents/pretrained``) are packages too, as setuptools asks.
    """
    packages = find_packages(include=["loco_envs", "loco_envs.*"])
    package_dir = {}
    for folder, name in INSIDE.items():
        package_dir[name] = folder
        subs = find_namespace_packages(where=folder, exclude=["*__pycache__*"])
        packages += [name] + [f"{name}.{sub}" for sub in subs]
    return packages, package_dir


PACKAGES, PACKAGE_DIR = packages_and_dirs()
#: Data files shipped with the packages: trained bots, rating baselines, training configs.
PACKAGE_DATA = {
    "loco_envs.agents.pretrained": ["*.npz", "*.json"],
    "loco_envs.benchmarks.baselines": ["*.json"],
    "loco_envs.configs": ["*.yaml"],
}

if __name__ == "__main__":  # setuptools runs this file as __main__; tests read the lists
    setup(packages=PACKAGES, package_dir=PACKAGE_DIR, package_data=PACKAGE_DATA)
