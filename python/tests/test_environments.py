"""The tutorial's other ways of giving the agent a sandbox, driven by the official `openai` and
`openai-agents` packages against `vouch emulate`, unchanged: the shell tool's `container_auto`,
its `local` environment (the SDK's executor runs the commands), and streaming (`stream: true`,
`Runner.run_streamed`). Each run's six files are verified with `vouch.verify` and accepted, and
the emulator holds nothing afterwards (the `emulator` fixture checks it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import vouch
from conftest import SOURCE, need_module, run_async

ARTIFACTS = [
    "analyze_financials.py",
    "calculated_metrics.csv",
    "unusual_movements.csv",
    "financial_trends.svg",
    "investment_analysis.md",
    "analysis_run.json",
]
QUESTION = "Analyze Northstar entirely inside the sandbox and produce every required artifact."


def sdk(monkeypatch, url: str):
    need_module("openai")
    need_module("agents")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "emulator")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    from agents import set_default_openai_client, set_tracing_disabled
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    # A client of this test's own: one cached by an earlier test is bound to a closed loop.
    set_default_openai_client(AsyncOpenAI(), use_for_tracing=False)


def download(client, container_id: str, out: Path) -> None:
    out.mkdir()
    for f in client.containers.files.list(container_id=container_id):
        name = f.path.rsplit("/", 1)[-1]
        if name in ARTIFACTS:
            content = client.containers.files.content.retrieve(f.id, container_id=container_id)
            (out / name).write_bytes(content.read())


def accepted(out: Path) -> None:
    assert sorted(os.listdir(out)) == sorted(ARTIFACTS)
    report = vouch.verify(str(out), str(SOURCE))
    assert report.accepted, report.to_text()


def test_container_auto_with_the_agents_sdk(emulator, tmp_path, monkeypatch):
    sdk(monkeypatch, emulator)
    from agents import Agent, ModelSettings, Runner, ShellTool
    from openai import OpenAI

    client = OpenAI()
    with open(SOURCE, "rb") as f:
        uploaded = client.files.create(file=f, purpose="user_data")
    container_id = None
    try:
        tool = ShellTool(
            environment={
                "type": "container_auto",
                "file_ids": [uploaded.id],
                "memory_limit": "4g",
                "network_policy": {"type": "disabled"},
            }
        )
        agent = Agent(
            name="Financial analyst",
            instructions="Use the shell.",
            tools=[tool],
            model_settings=ModelSettings(tool_choice="required"),
        )
        result = run_async(Runner.run(agent, QUESTION, max_turns=5))
        assert result.final_output
        # The container the API made is named by the shell calls it ran.
        for item in result.new_items:
            raw = getattr(item, "raw_item", None)
            env = raw.get("environment") if isinstance(raw, dict) else getattr(raw, "environment", None)
            cid = env.get("container_id") if isinstance(env, dict) else getattr(env, "container_id", None)
            if cid:
                container_id = cid
                break
        assert container_id, [type(i).__name__ for i in result.new_items]
        download(client, container_id, tmp_path / "out")
    finally:
        if container_id:
            client.containers.delete(container_id)
        client.files.delete(uploaded.id)
    accepted(tmp_path / "out")


def test_local_environment_with_the_agents_sdk_executor(emulator, tmp_path, monkeypatch):
    """The SDK's local shell: its executor runs each command (here under bubblewrap, with a
    private /mnt/data holding the source, as a careful user would) and the emulator's model sees
    only the outputs."""
    sdk(monkeypatch, emulator)
    from agents import Agent, ModelSettings, Runner, ShellTool
    from agents.tool import ShellCallOutcome, ShellCommandOutput, ShellResult

    data = tmp_path / "mnt-data"
    data.mkdir()
    shutil.copy(SOURCE, data / SOURCE.name)
    bwrap = shutil.which("bwrap")

    def executor(request):
        outputs = []
        for command in request.data.action.commands:
            ran = subprocess.run(
                [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                 "--tmpfs", "/tmp", "--tmpfs", "/mnt", "--bind", str(data), "/mnt/data",
                 "--chdir", "/mnt/data",
                 "--unshare-all", "--die-with-parent", "/bin/sh", "-c", command],
                capture_output=True, text=True, timeout=120,
            )
            outputs.append(ShellCommandOutput(
                stdout=ran.stdout, stderr=ran.stderr,
                outcome=ShellCallOutcome(type="exit", exit_code=ran.returncode),
            ))
        return ShellResult(output=outputs)

    agent = Agent(
        name="Financial analyst",
        instructions="Use the shell.",
        tools=[ShellTool(executor=executor, environment={"type": "local"})],
        model_settings=ModelSettings(tool_choice="required"),
    )
    result = run_async(Runner.run(agent, QUESTION, max_turns=6))
    assert result.final_output
    out = tmp_path / "out"
    out.mkdir()
    for name in ARTIFACTS:
        shutil.copy(data / name, out / name)
    accepted(out)


def test_streaming_with_the_sdk_and_the_agents_runner(emulator, tmp_path, monkeypatch):
    sdk(monkeypatch, emulator)
    from agents import Agent, ModelSettings, Runner, ShellTool
    from openai import OpenAI

    client = OpenAI()
    with open(SOURCE, "rb") as f:
        uploaded = client.files.create(file=f, purpose="user_data")
    container = client.containers.create(name="streamed", file_ids=[uploaded.id])
    try:
        # The raw stream: created, in_progress, the items, completed — numbered in order.
        shell = {"type": "shell", "environment": {"type": "container_reference", "container_id": container.id}}
        events = list(client.responses.create(
            model="gpt-5.6-luna", input="list the files", tools=[shell], tool_choice="none", stream=True,
        ))
        kinds = [e.type for e in events]
        assert kinds[:2] == ["response.created", "response.in_progress"], kinds
        assert kinds[-1] == "response.completed", kinds
        assert [e.sequence_number for e in events] == list(range(len(events)))
        assert events[-1].response.output_text

        agent = Agent(
            name="Financial analyst",
            instructions="Use the shell.",
            tools=[ShellTool(environment={"type": "container_reference", "container_id": container.id})],
            model_settings=ModelSettings(tool_choice="required"),
        )

        async def streamed():
            run = Runner.run_streamed(agent, QUESTION, max_turns=5)
            seen = [event.type async for event in run.stream_events()]
            return run, seen

        run, seen = run_async(streamed())
        assert run.final_output
        assert "raw_response_event" in seen, seen
        download(client, container.id, tmp_path / "out")
    finally:
        client.containers.delete(container.id)
        client.files.delete(uploaded.id)
    accepted(tmp_path / "out")
