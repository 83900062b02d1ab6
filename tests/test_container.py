"""The container as people run it, checked without a Docker engine: the image's user and group, no apt cache
left in it, and the stop timeout a run needs in every place that stops it (Dockerfile, deploy/, docs)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.service.serve import SHUTDOWN_TIMEOUT_SECONDS

ROOT = Path(__file__).resolve().parents[1]
#: What a stop must allow: the run in progress's SHUTDOWN_TIMEOUT_SECONDS and 30 s to write its last files.
STOP_SECONDS = int(SHUTDOWN_TIMEOUT_SECONDS) + 30


def instructions() -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` of the Dockerfile's final stage, continuation lines joined."""
    text = re.sub(r" *\\\n\s*", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    last = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    return [tuple(line.split(" ", 1)) for line in lines[last:]]  # type: ignore[misc]


def test_the_user_and_its_group_are_10001_and_made_explicitly():
    runs = [args for op, args in instructions() if op == "RUN"]
    (users,) = [r for r in runs if "useradd" in r]
    assert re.search(r"groupadd --system --gid 10001 kep-sync && useradd --system --uid 10001 --gid 10001 ", users)
    assert "--user-group" not in users  # it would make the group 999
    assert ("USER", "10001:10001") in instructions()


def test_the_apt_cache_is_removed_in_the_layer_that_fills_it():
    (apt,) = [args for op, args in instructions() if op == "RUN" and "apt-get install" in args]
    assert apt.endswith("&& apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*")


def test_every_way_of_stopping_the_service_allows_a_run_to_finish():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text(encoding="utf-8"))
    service = compose["services"]["kep-sync"]
    assert (service["stop_grace_period"], service["user"], service["command"]) == (
        f"{STOP_SECONDS}s",
        "10001:10001",
        ["serve"],
    )
    assert f"docker stop -t {STOP_SECONDS}" in (ROOT / "Dockerfile").read_text(encoding="utf-8")
    ops = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for said in (
        f"docker stop -t {STOP_SECONDS}",
        f"stop_grace_period: {STOP_SECONDS}s",
        f"terminationGracePeriodSeconds: {STOP_SECONDS}",
    ):
        assert said in ops, said
    assert f"up to {int(SHUTDOWN_TIMEOUT_SECONDS)} s" in ops


def test_the_kubernetes_pods_run_as_the_images_user_and_group():
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / "cronjob.yaml").read_text(encoding="utf-8")))
    pod = docs[0]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["securityContext"]
    assert (pod["runAsUser"], pod["runAsGroup"], pod["fsGroup"]) == (10001, 10001, 10001)


def all_instructions() -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` of every stage of the Dockerfile, continuation lines joined."""
    text = re.sub(r" *\\\n\s*", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [tuple(line.split(" ", 1)) for line in lines]  # type: ignore[misc]


def test_the_dockerfile_header_points_at_sections_that_exist():
    header = " ".join(line.lstrip("# ") for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()[:10])
    pointers = re.findall(r"See ([\w/.-]+\.md), \"([^\"]+)\"", header)
    assert pointers == [("docs/operations.md", "In a container")]
    for path, section in pointers:
        headings = [line.lstrip("#").strip() for line in (ROOT / path).read_text().splitlines() if line.startswith("#")]
        assert section in headings


def test_every_pip_install_takes_pinned_versions_from_a_lock_without_resolving():
    installs = [args for op, args in all_instructions() if op == "RUN" and "pip install" in args]
    assert installs == [
        "pip install --no-cache-dir --no-deps -r /tmp/requirements-build.lock",
        "pip install --no-cache-dir --no-deps -r /tmp/requirements.lock && rm /tmp/requirements.lock",
        "pip install --no-cache-dir --no-deps /tmp/dist/*.whl && rm -rf /tmp/dist",
    ]
    lines = [line for line in (ROOT / "requirements-build.lock").read_text().splitlines() if not line.startswith("#")]
    pins = dict(line.split("==") for line in lines)
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*", line) for line in lines)
    assert "hatchling" in pins and "tomlkit" in pins  # the build backend and what it pulls in
    from importlib.metadata import PackageNotFoundError, requires, version

    try:
        needed = requires("hatchling") or []
        installed = version("hatchling")
    except PackageNotFoundError:
        return  # installed with the lint extra only; the pins above still hold
    names = {
        re.split(r"[ ;<>=!~\[]", r, maxsplit=1)[0].lower()
        for r in needed
        if "extra ==" not in r and "python_version" not in r
    }
    assert names <= {name.lower() for name in pins}, names - {name.lower() for name in pins}
    assert pins["hatchling"] == installed  # the same hatchling .ci/run builds the wheel with


def test_the_image_logs_json_lines_as_operations_md_says():
    envs = " ".join(args for op, args in instructions() if op == "ENV")
    assert "KEP_SYNC_LOG_FORMAT=json" in envs.split()
    assert "`KEP_SYNC_LOG_FORMAT=json`" in (ROOT / "docs" / "operations.md").read_text()
