"""The tutorial end to end, in Python: the notebook's hosted-sandbox run with the official
`openai` and `openai-agents` packages against `vouch emulate` (the wheel's command, its
scripted agent running the Northstar script under bubblewrap), the download of the six files
into financial_analysis_output/, then the three lines a notebook adds:

    import vouch
    report = vouch.verify("financial_analysis_output", "financial_data/northstar_cloud_financial_statements.csv")
    report                                  # display(report): the HTML report

The HTML report is written to target/python-tutorial-report.html.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import pytest

import vouch
from conftest import ROOT, SOURCE, missing, need_module, vouch_command

ARTIFACTS = [
    "analyze_financials.py",
    "calculated_metrics.csv",
    "unusual_movements.csv",
    "financial_trends.svg",
    "investment_analysis.md",
    "analysis_run.json",
]
INSTRUCTIONS = "You are a skeptical senior buy-side financial analyst."
QUESTION = "Analyze Northstar entirely inside the sandbox and produce every required artifact."


@pytest.fixture()
def emulator():
    """`vouch emulate` on a free port; yields its base URL, then stops it with Ctrl-C."""
    if not shutil.which("bwrap"):
        missing("bubblewrap (`bwrap`) is not installed: the emulator's agent cannot run commands")
    proc = subprocess.Popen(
        [vouch_command(), "emulate", "--addr", "127.0.0.1:0", "--playbook", "two-turns"],
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
        # Every upload and container was deleted by the notebook's cleanup.
        assert "0 file(s) and 0 container(s) held" in stopped, stopped


def test_the_tutorial_in_python_is_accepted(emulator, tmp_path, monkeypatch):
    need_module("openai")
    need_module("agents")
    monkeypatch.setenv("OPENAI_BASE_URL", emulator)
    monkeypatch.setenv("OPENAI_API_KEY", "emulator")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    from agents import Agent, ModelSettings, Runner, ShellTool, set_tracing_disabled
    from openai import OpenAI

    set_tracing_disabled(True)
    monkeypatch.chdir(tmp_path)
    data = Path("financial_data")
    data.mkdir()
    shutil.copy(SOURCE, data / SOURCE.name)

    # The notebook: upload, container, the agent's turns, the download cell, cleanup.
    client = OpenAI()
    with open(data / SOURCE.name, "rb") as f:
        uploaded = client.files.create(file=f, purpose="user_data")
    container = client.containers.create(
        name="financial-analyst",
        file_ids=[uploaded.id],
        memory_limit="4g",
        network_policy={"type": "disabled"},
    )
    try:
        agent = Agent(
            name="Financial analyst",
            instructions=INSTRUCTIONS,
            tools=[ShellTool(environment={"type": "container_reference", "container_id": container.id})],
            model_settings=ModelSettings(tool_choice="required"),
        )
        result = asyncio.run(Runner.run(agent, QUESTION, max_turns=5))
        assert result.final_output
        out = Path("financial_analysis_output")
        out.mkdir()
        for f in client.containers.files.list(container_id=container.id):
            name = f.path.rsplit("/", 1)[-1]
            if name in ARTIFACTS:
                content = client.containers.files.content.retrieve(f.id, container_id=container.id)
                (out / name).write_bytes(content.read())
    finally:
        client.containers.delete(container.id)
        client.files.delete(uploaded.id)
    assert sorted(os.listdir("financial_analysis_output")) == sorted(ARTIFACTS)

    # The three lines after the download cell.
    report = vouch.verify(
        "financial_analysis_output", "financial_data/northstar_cloud_financial_statements.csv"
    )
    assert report.accepted, report.to_text()
    shown = report._repr_html_()
    assert shown.startswith("<iframe") and "accept" in shown

    page = report.to_html()
    (ROOT / "target").mkdir(exist_ok=True)
    written = ROOT / "target" / "python-tutorial-report.html"
    written.write_text(page)
    assert written.read_text().lower().startswith("<!doctype html>")
