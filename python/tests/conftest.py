"""Shared fixtures of the Python package's tests (run against the installed wheel: .ci/run).

Under VOUCH_CI=1 a missing tool (a package, the `vouch` command, cargo, bubblewrap) fails the
test instead of skipping it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NORTHSTAR = ROOT / "fixtures" / "northstar"
BUNDLE = NORTHSTAR / "bundle"
SOURCE = NORTHSTAR / "northstar_cloud_financial_statements.csv"
DEFECTS = ROOT / "fixtures" / "defects"
IN_CI = os.environ.get("VOUCH_CI") == "1"


def missing(why: str):
    """Skip for `why`, or fail under VOUCH_CI=1."""
    if IN_CI:
        pytest.fail(f"VOUCH_CI=1 and {why}")
    pytest.skip(why)


def need_module(name: str):
    try:
        return __import__(name)
    except ImportError:
        missing(f"the Python package `{name}` is not installed")


def vouch_command() -> str:
    """The `vouch` command the wheel installed beside this interpreter."""
    here = Path(sys.executable).parent / "vouch"
    found = str(here) if here.is_file() else shutil.which("vouch")
    if not found:
        missing("the `vouch` command is not installed (pip install the wheel)")
    return found


@pytest.fixture(scope="session")
def cli() -> str:
    return vouch_command()


def run_cli(*args, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(
        [vouch_command(), *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        **kwargs,
    )


def defect_bundle(name: str, into: Path) -> Path:
    """`fixtures/defects/<name>/` over a copy of the Northstar bundle, as tests/it/defects.rs
    builds it (only fixtures that change artifacts, not the source)."""
    fixture = DEFECTS / name
    assert fixture.is_dir(), fixture
    out = into / name
    shutil.copytree(BUNDLE, out)
    for f in fixture.iterdir():
        if f.name in ("expect.txt", "README.md", "report.txt"):
            continue
        assert f.name not in ("source.csv", "source_name.txt"), "fixture changes the source"
        if f.name == "remove.txt":
            for n in f.read_text().split():
                (out / n).unlink()
        else:
            shutil.copy(f, out / f.name)
    return out


def run_dir(into: Path, run_id: str, bundle: Path = BUNDLE, sha256: str | None = None) -> Path:
    """A run directory (docs/runs.md): run.json, bundle/, source/<name>."""
    out = into / run_id
    shutil.copytree(bundle, out / "bundle")
    (out / "source").mkdir()
    shutil.copy(SOURCE, out / "source" / SOURCE.name)
    digest = sha256 or hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    record = {
        "schema": "vouch.run",
        "schema_version": 1,
        "run_id": run_id,
        "label": "tests",
        "trial": 0,
        "model": "none",
        "source": {"file_name": SOURCE.name, "sha256": digest},
    }
    (out / "run.json").write_text(json.dumps(record))
    return out


@pytest.fixture()
def emulator(request):
    """`vouch emulate` on a free port (playbook `two-turns`, or the test's `playbook` mark);
    yields its base URL, then stops it with Ctrl-C and checks nothing was left behind."""
    mark = request.node.get_closest_marker("playbook")
    playbook = mark.args[0] if mark else "two-turns"
    if not shutil.which("bwrap"):
        missing("bubblewrap (`bwrap`) is not installed: the emulator's agent cannot run commands")
    proc = subprocess.Popen(
        [vouch_command(), "emulate", "--addr", "127.0.0.1:0", "--playbook", playbook],
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    found = threading.Event()

    def read():
        for line in proc.stderr:
            lines.append(line)
            if "listening on" in line:
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(30), "".join(lines)
        url = re.search(r"listening on (\S+)", "".join(lines)).group(1)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
        reader.join(5)
        assert code == 0, "".join(lines)
        stopped = "".join(lines)
        # Every upload, container and session was deleted by the notebook's cleanup.
        assert "0 file(s), 0 container(s) and 0 session(s) held" in stopped, stopped


def pytest_configure(config):
    config.addinivalue_line("markers", "playbook(name): the emulator fixture's playbook")


def run_async(coro):
    """Run a coroutine to its end on a fresh event loop in a thread of its own: Playwright's sync
    API (the browser tests' session fixture) keeps a loop running in the main thread, where
    `asyncio.run` refuses to start."""
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
