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

import os
import shutil
from pathlib import Path

import pytest

import vouch
from conftest import ROOT, SOURCE, need_module, run_async

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


def test_the_tutorial_in_python_is_accepted(emulator, tmp_path, monkeypatch):
    need_module("openai")
    need_module("agents")
    monkeypatch.setenv("OPENAI_BASE_URL", emulator)
    monkeypatch.setenv("OPENAI_API_KEY", "emulator")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    from agents import Agent, ModelSettings, Runner, ShellTool, set_default_openai_client, set_tracing_disabled
    from openai import AsyncOpenAI, OpenAI

    set_tracing_disabled(True)
    # A client of this test's own: one cached by an earlier test is bound to a closed loop.
    set_default_openai_client(AsyncOpenAI(), use_for_tracing=False)
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
        result = run_async(Runner.run(agent, QUESTION, max_turns=5))
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
