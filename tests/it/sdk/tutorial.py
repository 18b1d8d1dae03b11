"""The tutorial's hosted-sandbox run, written with the official `openai` and `openai-agents`
packages, pointed at vouch's emulator through OPENAI_BASE_URL (used by tests/it/run.rs).

argv: SOURCE_CSV OUT_DIR. Prints one JSON line: what the SDK saw.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from openai import OpenAI  # noqa: E402
from agents import Agent, ModelSettings, Runner, ShellTool, set_tracing_disabled  # noqa: E402

set_tracing_disabled(True)

ARTIFACTS = [
    "analyze_financials.py",
    "calculated_metrics.csv",
    "unusual_movements.csv",
    "financial_trends.svg",
    "investment_analysis.md",
    "analysis_run.json",
]


async def main(source, out_dir):
    client = OpenAI()
    with open(source, "rb") as f:
        uploaded = client.files.create(file=f, purpose="user_data")
    container = client.containers.create(
        name="sandbox",
        file_ids=[uploaded.id],
        memory_limit="4g",
        network_policy={"type": "disabled"},
    )
    try:
        agent = Agent(
            name="analyst",
            instructions="Use the shell.",
            tools=[ShellTool(environment={"type": "container_reference", "container_id": container.id})],
            model_settings=ModelSettings(tool_choice="required"),
        )
        result = await Runner.run(agent, "Analyse the statements in /mnt/data.", max_turns=5)
        usage = result.context_wrapper.usage
        downloaded = []
        for f in client.containers.files.list(container_id=container.id):
            name = f.path.rsplit("/", 1)[-1]
            if name in ARTIFACTS:
                data = client.containers.files.content.retrieve(f.id, container_id=container.id).read()
                Path(out_dir, name).write_bytes(data)
                downloaded.append(name)
        print(json.dumps({
            "final_output": result.final_output,
            "requests": usage.requests,
            "total_tokens": usage.total_tokens,
            "downloaded": sorted(downloaded),
        }))
    finally:
        client.containers.delete(container.id)
        client.files.delete(uploaded.id)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
