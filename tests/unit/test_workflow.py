"""The CI workflow (.github/workflows/build.yml), which cannot run here: valid for GitHub's
schema, every step a command that also runs by hand, signing only with its secrets."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "build.yml"

# What a step may run: the Makefile, the packaging scripts, the build's own Python and pip, the
# system's package manager, Inno Setup, and the notices. Anything else would be a command that
# exists only in CI.
BY_HAND = re.compile(
    r"^(sudo (--preserve-env=\S+ )?)?(make( \S+)*"
    r"|\.venv/(bin|Scripts)/python (packaging/\S+\.py|-m pip install)\b.*"
    r"|python -m venv \.venv"
    r"|sh packaging/\S+\.sh\b.*"
    r"|apt-get (update|install -y)\b.*"
    r'|echo "::notice .*'
    r"|\$version = .*"
    r'|& "\$\{env:ProgramFiles\(x86\)\}\\Inno Setup 6\\iscc\.exe" '
    r".*packaging\\windows\\desktop-rag\.iss)$"
)


def _workflow() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _commands(run: str) -> list[str]:
    """The commands of a run block, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", run)
    return [line.strip() for line in joined.splitlines() if line.strip()]


def test_it_validates_against_the_workflow_schema_offline() -> None:
    checker = shutil.which("check-jsonschema") or str(
        Path(sys.executable).parent / "check-jsonschema"
    )
    if not Path(checker).exists():
        pytest.skip("check-jsonschema is not installed (make venv installs the dev extra)")
    done = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_step_runs_by_hand() -> None:
    strangers = [
        (name, command)
        for name, job in _workflow()["jobs"].items()
        for step in job["steps"]
        if "run" in step
        for command in _commands(step["run"])
        if not BY_HAND.match(command)
    ]
    assert strangers == []


def test_linux_builds_and_tests_with_make_targets_that_exist() -> None:
    linux = _workflow()["jobs"]["linux"]
    targets = [
        c.split()[1 if c.startswith("make") else -1]
        for step in linux["steps"]
        if "run" in step
        for c in _commands(step["run"])
        if re.match(r"^(sudo .*)?make ", c)
    ]
    assert targets == ["package", "deb", "package-test"]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in targets:
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), target


def test_each_platform_is_built_and_smoke_tested() -> None:
    jobs = _workflow()["jobs"]
    assert jobs["windows"]["runs-on"].startswith("windows")
    assert {m["arch"] for m in jobs["macos"]["strategy"]["matrix"]["include"]} == {
        "arm64",
        "x86_64",
    }
    for name in ("windows", "macos"):
        runs = " ".join(s.get("run", "") for s in jobs[name]["steps"])
        assert "packaging/llama.py --install" in runs, "llama.cpp from source, the lead's recipe"
        assert "packaging/make_bundle.py" in runs and "packaging/smoke.py" in runs
    assert "iscc.exe" in " ".join(s.get("run", "") for s in jobs["windows"]["steps"])


def test_signing_runs_only_with_its_secrets_and_says_so_when_skipped() -> None:
    steps = _workflow()["jobs"]["macos"]["steps"]
    for step in steps:
        run = step.get("run", "")
        if "sign.sh" in run:
            assert "HAVE_SIGNING == 'true'" in step.get("if", ""), step["name"]
            assert all("secrets." in v for v in step.get("env", {}).values())
    notices = [s for s in steps if "::notice" in s.get("run", "")]
    assert len(notices) == 2
    assert all("!= 'true'" in s["if"] for s in notices)
