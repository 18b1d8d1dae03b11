"""The `vouch` command installed by the wheel is the real CLI (the binary in the wheel's
`.data/scripts`), with its exit codes."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import vouch
from conftest import BUNDLE, SOURCE, defect_bundle, run_cli, vouch_command


def test_the_command_is_the_cli_binary_installed_on_the_scripts_path():
    command = Path(vouch_command())
    assert os.path.samefile(command.parent, sysconfig.get_path("scripts"))
    assert command.read_bytes()[:4] == b"\x7fELF"  # the Rust binary, not a Python launcher


def test_version():
    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout == f"vouch {vouch.__version__}\n"


def test_exit_codes_accept_reject_error(tmp_path):
    assert run_cli("verify", BUNDLE, "--source", SOURCE, "--quiet").returncode == 0
    bad = defect_bundle("metrics.value", tmp_path)
    rejected = run_cli("verify", bad, "--source", SOURCE)
    assert rejected.returncode == 1
    assert "error[metrics.value]" in rejected.stdout
    assert run_cli("verify", BUNDLE).returncode == 2
    assert run_cli("explain", "metrics.value").returncode == 0
    assert run_cli("no-such-command").returncode == 2
