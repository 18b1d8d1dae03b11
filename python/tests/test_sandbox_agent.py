"""The Agents SDK's `SandboxAgent` with its local (unix) sandbox, driven by the official
`openai-agents` package against `vouch emulate`, unchanged: the emulator's model sees the
SDK's `exec_command` function tool and answers with `function_call`s the SDK runs in the
session's workspace (the playbook's paths are relative to the workspace root there), then a
plain message. The six files the run leaves in the workspace are verified with `vouch.verify`
and accepted; the session's workspace is gone after `client.delete`, and the emulator holds
nothing afterwards (the `emulator` fixture checks it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import SOURCE, run_async
from test_environments import ARTIFACTS, QUESTION, accepted, sdk

# The default playbook, written for any environment: its paths are where this one keeps its files.
pytestmark = pytest.mark.playbook("northstar")

# The name the Files API would give the statements after an upload: the playbook finds them by
# `*financial_statements.csv`, as a model would.
UPLOADED = "file-Ab12Cd-" + SOURCE.name


def recording(monkeypatch, url: str) -> list:
    """`sdk(...)`, with the default client's `/responses` request bodies kept in the list
    returned (the SDK's own transport, with an httpx event hook)."""
    sdk(monkeypatch, url)
    from agents import set_default_openai_client
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient

    bodies: list = []

    async def keep(request):
        if request.url.path.endswith("/responses"):
            bodies.append(json.loads(request.content))

    http = DefaultAsyncHttpxClient(event_hooks={"request": [keep]})
    set_default_openai_client(AsyncOpenAI(http_client=http), use_for_tracing=False)
    return bodies


async def in_sandbox(tmp_path: Path, run, *, model_settings=None):
    """`run(agent, run_config)` in a local sandbox session of the test's own, with the statements
    in its workspace; the six artifacts are copied to `tmp_path/out`, then the session is closed
    and deleted whatever happened, and its workspace must be gone. Returns what `run` returned."""
    from agents import ModelSettings, RunConfig
    from agents.sandbox import Manifest, SandboxAgent, SandboxRunConfig
    from agents.sandbox.entries import File
    from agents.sandbox.sandboxes import UnixLocalSandboxClient

    # Not the host's environment (it holds OPENAI_API_KEY): only PATH, so `python3` is found.
    client = UnixLocalSandboxClient(inherit_host_environment=False, host_environment_allowlist=("PATH",))
    session = await client.create(manifest=Manifest(entries={UPLOADED: File(content=SOURCE.read_bytes())}))
    root = Path(session.state.manifest.root)
    try:
        # Default capabilities: the request also carries the `custom` apply_patch tool,
        # `view_image`, `write_stdin` and `context_management` (compaction).
        agent = SandboxAgent(
            name="Financial analyst",
            instructions="Use the shell.",
            model="gpt-5.5",
            model_settings=model_settings or ModelSettings(),
        )
        # The SDK's defaults: it runs a response's function calls at once, which is why the
        # emulator's model sends one command a response (each needs the one before it).
        config = RunConfig(sandbox=SandboxRunConfig(session=session))
        ran = await run(agent, config)
        out = tmp_path / "out"
        out.mkdir()
        for name in ARTIFACTS:
            shutil.copy(root / name, out / name)
        # The SDK's own read agrees with the files on disk.
        assert (await session.read("analysis_run.json")).read() == (root / "analysis_run.json").read_bytes()
    finally:
        await session.aclose()
        await client.delete(session)
    # Nothing left behind: the SDK-owned temporary workspace is removed.
    assert not root.exists(), root
    return ran


def exec_calls(items) -> list:
    return [i for i in items if type(i).__name__ == "ToolCallItem"]


def test_sandbox_agent_in_a_local_sandbox(emulator, tmp_path, monkeypatch):
    bodies = recording(monkeypatch, emulator)
    from agents import Runner

    async def run(agent, config):
        return await Runner.run(agent, QUESTION, run_config=config, max_turns=10)

    result = run_async(in_sandbox(tmp_path, run))
    assert result.final_output
    assert "analyze_financials.py" in result.final_output
    # The model's commands went through the SDK's shell tool, each got its output back, and
    # each succeeded; the last one, listing the workspace, sees the six files.
    calls = exec_calls(result.new_items)
    outputs = [i for i in result.new_items if type(i).__name__ == "ToolCallOutputItem"]
    assert len(calls) == 4 and len(outputs) == 4, [type(i).__name__ for i in result.new_items]
    for item in calls:
        assert item.raw_item.name == "exec_command", item.raw_item
        assert json.loads(item.raw_item.arguments)["cmd"], item.raw_item
    for item in outputs:
        assert "Process exited with code 0" in str(item.output), item.output
    assert all(name in str(outputs[-1].output) for name in ARTIFACTS), outputs[-1].output

    # What the emulator's model was sent, and took: the SDK's default sandbox tools (among them
    # the freeform `custom` apply_patch tool), no hosted `shell` tool, and compaction's
    # `context_management`; one request per command, then one for the final message, each
    # replaying every earlier call with its output.
    assert len(bodies) == 5, [b.get("input") for b in bodies]
    for body in bodies:
        tools = {(t["type"], t.get("name")) for t in body["tools"]}
        assert {("function", "exec_command"), ("custom", "apply_patch")} <= tools, tools
        assert not any(t["type"] == "shell" for t in body["tools"]), tools
        assert body["context_management"][0]["type"] == "compaction", body["context_management"]
        assert body["model"] == "gpt-5.5"
    for earlier, later in zip(bodies, bodies[1:]):
        assert later["input"][: len(earlier["input"])] == earlier["input"]
    last = bodies[-1]["input"]
    made = [i["call_id"] for i in last if i.get("type") == "function_call"]
    answered = [i["call_id"] for i in last if i.get("type") == "function_call_output"]
    assert len(made) == 4 and sorted(made) == sorted(answered), last
    accepted(tmp_path / "out")


def test_sandbox_agent_streamed(emulator, tmp_path, monkeypatch):
    bodies = recording(monkeypatch, emulator)
    from agents import Runner

    async def run(agent, config):
        streamed = Runner.run_streamed(agent, QUESTION, run_config=config, max_turns=10)
        seen = [event.type async for event in streamed.stream_events()]
        return streamed, seen

    result, seen = run_async(in_sandbox(tmp_path, run))
    assert result.final_output
    assert "raw_response_event" in seen, seen
    assert "run_item_stream_event" in seen, seen
    assert len(exec_calls(result.new_items)) == 4
    assert [b.get("stream") for b in bodies] == [True] * 5
    accepted(tmp_path / "out")


# The SDK starts all of a response's function calls at once (agents/run_internal/
# tool_execution.py), so a model whose commands depend on each other sends one a response —
# with the SDK's defaults and with `parallel_tool_calls: false` alike.
@pytest.mark.parametrize("parallel", [None, False], ids=["default", "parallel_tool_calls_false"])
def test_a_response_holds_one_command_at_a_time(emulator, tmp_path, monkeypatch, parallel):
    bodies = recording(monkeypatch, emulator)
    from agents import ModelSettings, Runner

    async def run(agent, config):
        return await Runner.run(agent, QUESTION, run_config=config, max_turns=10)

    result = run_async(in_sandbox(
        tmp_path, run, model_settings=ModelSettings(parallel_tool_calls=parallel),
    ))
    assert result.final_output
    per_response = [
        sum(1 for item in r.output if getattr(item, "type", None) == "function_call")
        for r in result.raw_responses
    ]
    assert len(exec_calls(result.new_items)) == 4
    if parallel is False:
        assert bodies[0]["parallel_tool_calls"] is False, bodies[0]
    assert max(per_response) == 1, per_response
