"""The container image: hadolint clean, one entrypoint, non-root, everything it copies in
its build context, and third-party versions pinned compatibly with what the code asks for."""

from __future__ import annotations

import fnmatch
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from deploy_facts import DEPLOY, DEV_ONLY, ROOT, distributions, normalized, tool
from packaging.requirements import Requirement

DOCKERFILES = sorted(DEPLOY.rglob("Dockerfile*"))
DOCKERFILES = [p for p in DOCKERFILES if not p.name.endswith(".dockerignore")]
IMAGE = DEPLOY / "image"


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line.strip() else "")
        for line in (raw.strip() for raw in text.splitlines())
        if line and not line.startswith("#")
    ]


def test_there_is_a_dockerfile() -> None:
    assert IMAGE / "Dockerfile" in DOCKERFILES


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_hadolint_finds_nothing(dockerfile: Path) -> None:
    done = subprocess.run(
        [tool("hadolint"), "--no-color", "--failure-threshold", "info", str(dockerfile)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_image_runs_parlor_serve_as_an_unprivileged_user() -> None:
    steps = instructions(IMAGE / "Dockerfile")
    last_stage = steps[max(i for i, (op, _) in enumerate(steps) if op == "FROM") :]
    ops = dict(last_stage)
    assert ops["ENTRYPOINT"] == '["parlor-serve"]'
    user = ops["USER"].split(":")[0]
    assert user.isdigit()
    assert int(user) != 0
    assert "PYTHONDONTWRITEBYTECODE=1" in ops["ENV"]  # nothing written on a read-only root


def test_build_context_keeps_what_the_dockerfile_copies() -> None:
    """Dockerfile.dockerignore (BuildKit) ignores everything except what COPY needs."""
    patterns = [
        line.strip()
        for line in (IMAGE / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def kept(path: str) -> bool:
        keep = True
        for pattern in patterns:
            negated = pattern.startswith("!")
            bare = pattern.lstrip("!").rstrip("/")
            if fnmatch.fnmatch(path, bare) or fnmatch.fnmatch(path, bare + "/*"):
                keep = negated
        return keep

    sources = [
        src
        for op, args in instructions(IMAGE / "Dockerfile")
        if op == "COPY" and "--from" not in args
        for src in args.split()[:-1]
    ]
    assert sources
    for src in sources:
        assert kept(src.rstrip("/") + ("/x" if src.endswith("/") else "")), src
        assert (ROOT / src).exists(), src
    assert not kept(".venv/bin/python")
    assert not kept(".git/config")
    assert not kept(".parlor/pg")


def test_every_local_dependency_of_the_image_is_in_the_repository() -> None:
    """pip would otherwise look a missing parlor-* package up on a public index."""
    known = distributions()
    for dist in known.values():
        if dist.name in DEV_ONLY:
            continue
        missing = [r for r in dist.local_requires if r not in known]
        assert not missing, f"{dist.name} needs {missing}, which are not in libs/ or services/"


def test_pins_satisfy_what_the_packages_require() -> None:
    pins: dict[str, str] = {}
    for line in (IMAGE / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt pins exactly: {line}"
            pins[normalized(name)] = version
    for dist in distributions().values():
        if dist.name in DEV_ONLY:
            continue
        project = tomllib.loads((dist.path / "pyproject.toml").read_text())["project"]
        for text in project.get("dependencies", ()):
            req = Requirement(text)
            name = normalized(req.name)
            if name.startswith("parlor"):
                continue
            assert name in pins, f"{dist.name} needs {name}; regenerate constraints.txt (freeze.py)"
            assert req.specifier.contains(pins[name], prereleases=True), (
                f"{name}=={pins[name]} vs {req}"
            )
