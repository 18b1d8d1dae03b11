"""The beta Agents API's sessions (`client.beta.agents.sessions`), driven by the official `openai`
package against `vouch emulate`, unchanged: the tutorial's flow (upload the statements, create a
session with an `openai_hosted` environment holding them under /workspace, stream its first
turn, download the artifacts the turn published from /workspace/outputs), a later turn with the
SDK's `sessions.stream` helper, the session's status, turns and items, injected faults the SDK
retries through, and the beta header every request needs. Each run's six files are verified
with `vouch.verify` and accepted, and the emulator holds nothing afterwards (the `emulator`
fixture checks it).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import SOURCE
from test_environments import ARTIFACTS, QUESTION, accepted, sdk

# The default playbook, written for any environment: its paths are where this one keeps its files.
pytestmark = pytest.mark.playbook("northstar")

# Where the environment puts the upload: the name the Files API would give it.
INPUT = "/workspace/file-Ab12Cd-" + SOURCE.name
OUTPUTS = "/workspace/outputs/"
INSTRUCTIONS = (
    "The financial statements are under /workspace. Write every artifact to /workspace/outputs."
)


def client_of(monkeypatch, url: str):
    sdk(monkeypatch, url)
    from openai import OpenAI

    return OpenAI()


def upload(client, **options):
    with open(SOURCE, "rb") as f:
        return client.files.create(file=f, purpose="user_data", **options)


def environment(file_id: str) -> dict:
    return {
        "type": "openai_hosted",
        "files": [{"type": "file_id", "file_id": file_id, "path": INPUT}],
        "network": {"access": "disabled"},
    }


AGENT = {"model": "gpt-5.5", "instructions": INSTRUCTIONS}


def first_turn(client, file_id: str, sessions: list, **options):
    """Create a session with the statements and stream its first turn to the end (`play`)."""
    stream = client.beta.agents.sessions.create(
        agent=AGENT, environment=environment(file_id), input=QUESTION, stream=True, **options
    )
    return play(stream, sessions)


def play(stream, sessions: list):
    """A streaming create's events to the end; the session's id goes into `sessions` as soon as
    the stream names it (for the test's cleanup). Returns the events and the SDK's result of the
    turn (`AgentSessionEventStream.get_final_result()`)."""
    # Keep the final messages while iterating, so `get_final_result()` can answer afterwards.
    stream.with_result_collection()
    events = []
    for event in stream:
        if event.type == "agent.session.created":
            sessions.append(event.session.id)
        events.append(event)
    return events, stream.get_final_result()


def final_answer(events) -> str:
    """The playbook's closing message as the turn streamed it (the emulator embeds the
    playbook, so the text is taken from the wire, not from fixtures/playbooks/)."""
    return "".join(e.delta for e in events if e.type == "agent.session.turn.output_text.delta")


def check_turn_events(events, first: bool) -> None:
    kinds = [e.type for e in events]
    if first:
        assert kinds[0] == "agent.session.created", kinds
    assert kinds[-1] == "agent.session.idle", kinds
    assert "agent.session.turn.completed" in kinds, kinds
    assert kinds.index("agent.session.turn.created") < kinds.index("agent.session.turn.completed"), kinds
    assert kinds.index("agent.session.turn.completed") < len(kinds) - 1, kinds
    ids = [e.event_id for e in events]
    assert all(ids) and len(set(ids)) == len(ids), ids


def commands_of(events) -> list:
    done = [e.item for e in events if e.type == "agent.session.turn.item.done"]
    return [i for i in done if i.type == "command_execution"]


def download(client, session_id: str, out: Path, **options) -> list:
    """Every artifact of the session (all pages, two a page), the six written to `out` by their
    base names. Returns the artifacts."""
    out.mkdir()
    artifacts = list(client.beta.agents.sessions.artifacts.list(session_id, limit=2, **options))
    for a in artifacts:
        name = a.path.rsplit("/", 1)[-1]
        if name in ARTIFACTS:
            content = client.beta.agents.sessions.artifacts.content(a.id, session_id=session_id, **options)
            (out / name).write_bytes(content.read())
    return artifacts


def cleanup(client, sessions: list, file_ids: list, **options) -> None:
    """Delete what the test made: a session still running is cancelled first (a running one
    cannot be deleted)."""
    for sid in sessions:
        if client.beta.agents.sessions.retrieve(sid).status == "in_progress":
            client.beta.agents.sessions.events.create(sid, events=[{"type": "agent.session.input.cancel"}])
        deleted = client.beta.agents.sessions.delete(sid, **options)
        assert deleted.deleted and deleted.id == sid, deleted
    for fid in file_ids:
        client.files.delete(fid, **options)


def removed_file(client, file_id: str) -> bool:
    return file_id not in {f.id for f in client.files.list()}


def test_tutorial_flow_with_a_streamed_session(emulator, tmp_path, monkeypatch):
    client = client_of(monkeypatch, emulator)
    up = upload(client)
    sessions: list = []
    try:
        events, result = first_turn(client, up.id, sessions)
        check_turn_events(events, first=True)
        kinds = [e.type for e in events]
        # The environment comes up before the turn does.
        assert kinds.index("agent.session.environment.ready") < kinds.index("agent.session.turn.created"), kinds
        sid = sessions[0]
        assert len(sessions) == 1

        # The upload is where it was asked to be.
        files = events[0].session.environment.files
        assert [(f.file_id, f.path) for f in files] == [(up.id, INPUT)], files

        # Every command ran in /workspace and succeeded, its output streamed on the way.
        commands = commands_of(events)
        assert len(commands) >= 4, commands
        for c in commands:
            assert (c.status, c.exit_code, c.cwd) == ("completed", 0, "/workspace"), c
        streamed = {e.item_id for e in events if e.type == "agent.output.command_execution_output.delta"}
        assert streamed == {c.id for c in commands}

        # The SDK's result helper: the turn, completed, and the playbook's final answer.
        assert result.session_id == sid
        assert result.turn.status == "completed"
        message = final_answer(events)
        assert result.output_text == message
        assert all(name in message for name in ARTIFACTS), message
        [done] = [e.item for e in events if e.type == "agent.session.turn.item.done" and e.item.type == "message"]
        assert (done.role, done.phase, done.content[0].text) == ("assistant", "final_answer", message), done

        # The artifacts: one per file written under /workspace/outputs, published by the turn.
        artifacts = download(client, sid, tmp_path / "out")
        assert sorted(a.path for a in artifacts) == sorted(OUTPUTS + n for n in ARTIFACTS)
        for a in artifacts:
            assert (a.session_id, a.turn_id) == (sid, result.turn_id), a
            assert a.size_bytes == (tmp_path / "out" / a.path.rsplit("/", 1)[-1]).stat().st_size, a
        one = client.beta.agents.sessions.artifacts.retrieve(artifacts[0].id, session_id=sid)
        assert one.path == artifacts[0].path and one.size_bytes == artifacts[0].size_bytes
        # The SDK's per-result lookup finds the same bytes by exact path.
        found = client.beta.agents.sessions.artifacts.for_result(result)
        report = found.content(OUTPUTS + "analysis_run.json").read()
        assert report == (tmp_path / "out" / "analysis_run.json").read_bytes()

        # The session's history: one completed turn; the user's question, then the commands.
        turns = list(client.beta.agents.sessions.turns.list(sid))
        assert [(t.id, t.status) for t in turns] == [(result.turn_id, "completed")], turns
        assert client.beta.agents.sessions.turns.retrieve(result.turn_id, session_id=sid).status == "completed"
        items = list(client.beta.agents.sessions.items.list(sid, order="asc"))
        assert items[0].type == "message" and items[0].role == "user", items[0]
        assert items[0].content[0].text == QUESTION
        assert [i.id for i in items if i.type == "command_execution"] == [c.id for c in commands]
        assert items[-1].type == "message" and items[-1].role == "assistant", items[-1]
        assert items[-1].content[0].text == message

        # An artifact deleted is gone from the list.
        gone = client.beta.agents.sessions.artifacts.delete(artifacts[0].id, session_id=sid)
        assert gone.deleted and gone.id == artifacts[0].id
        left = list(client.beta.agents.sessions.artifacts.list(sid))
        assert artifacts[0].id not in {a.id for a in left} and len(left) == len(artifacts) - 1
    finally:
        cleanup(client, sessions, [up.id])
    accepted(tmp_path / "out")
    # The session is gone.
    from openai import NotFoundError

    with pytest.raises(NotFoundError):
        client.beta.agents.sessions.retrieve(sessions[0])


def test_a_later_turn_with_the_stream_helper(emulator, tmp_path, monkeypatch):
    client = client_of(monkeypatch, emulator)
    up = upload(client)
    sessions: list = []
    try:
        # Without input a hosted session is created idle, and stays so.
        idle = client.beta.agents.sessions.create(agent=AGENT, environment=environment(up.id))
        sessions.append(idle.id)
        assert idle.status == "idle", idle
        assert client.beta.agents.sessions.retrieve(idle.id).status == "idle"
        assert list(client.beta.agents.sessions.turns.list(idle.id)) == []

        # A non-streaming create with input: the turn runs; the session is in progress, then idle.
        busy = client.beta.agents.sessions.create(agent=AGENT, environment=environment(up.id), input=QUESTION)
        sessions.append(busy.id)
        assert busy.status == "in_progress", busy
        seen = {busy.status}
        deadline = time.monotonic() + 30
        while (status := client.beta.agents.sessions.retrieve(busy.id).status) == "in_progress":
            assert time.monotonic() < deadline, "the turn did not end in 30 s"
            time.sleep(0.05)
        seen.add(status)
        assert seen == {"in_progress", "idle"}, seen
        [turn] = client.beta.agents.sessions.turns.list(busy.id, order="desc", limit=1)
        assert turn.status == "completed", turn
        download(client, busy.id, tmp_path / "out")
        accepted(tmp_path / "out")
        before = list(client.beta.agents.sessions.artifacts.list(busy.id))

        # The next turn with the SDK's helper: it subscribes, posts the input, and stops at idle.
        with client.beta.agents.sessions.stream(busy.id, input="Anything else?") as stream:
            stream.with_result_collection()
            events = list(stream)
            result = stream.get_final_result()
        check_turn_events(events, first=False)
        assert result.turn.status == "completed" and result.turn_id != turn.id
        # Past the playbook's last turn the emulator's agent has nothing more to do, and says so.
        assert result.output_text and result.output_text == final_answer(events)
        assert commands_of(events) == []
        assert client.beta.agents.sessions.retrieve(busy.id).status == "idle"
        turns = list(client.beta.agents.sessions.turns.list(busy.id, order="asc"))
        assert [t.id for t in turns] == [turn.id, result.turn_id]
        # Nothing changed under /workspace/outputs, so nothing new was published.
        assert [a.id for a in client.beta.agents.sessions.artifacts.list(busy.id)] == [a.id for a in before]

        # The session list holds both sessions.
        listed = {s.id for s in client.beta.agents.sessions.list()}
        assert set(sessions) <= listed, listed
    finally:
        cleanup(client, sessions, [up.id])


@pytest.mark.parametrize("fault", ["429", "500"])
def test_injected_faults_are_retried(emulator, tmp_path, monkeypatch, fault):
    """The first attempt of each request answers `fault`; the SDK retries it and the run is
    still accepted."""
    client = client_of(monkeypatch, emulator)
    faulty = {"extra_headers": {"x-vouch-fault": fault}}
    up = upload(client, **faulty)
    sessions: list = []
    try:
        # The streaming create's first attempt fails before any stream: one retry, one session.
        raw = client.beta.agents.sessions.with_raw_response.create(
            agent=AGENT, environment=environment(up.id), input=QUESTION, stream=True, **faulty
        )
        assert raw.retries_taken == 1
        events, result = play(raw.parse(), sessions)
        check_turn_events(events, first=True)
        assert result.output_text == final_answer(events)
        assert len({s.id for s in client.beta.agents.sessions.list()}) == 1

        sid = sessions[0]
        listed = client.beta.agents.sessions.artifacts.with_raw_response.list(sid, **faulty)
        assert listed.retries_taken == 1
        content = client.beta.agents.sessions.artifacts.with_raw_response.content(
            listed.parse().data[0].id, session_id=sid, **faulty
        )
        assert content.retries_taken == 1 and content.parse().read()
        download(client, sid, tmp_path / "out", **faulty)

        # The deletions' first attempts fail too; each is retried once and done.
        deleted = client.beta.agents.sessions.with_raw_response.delete(sid, **faulty)
        assert deleted.retries_taken == 1 and deleted.parse().deleted
        sessions.remove(sid)
        removed = client.files.with_raw_response.delete(up.id, **faulty)
        assert removed.retries_taken == 1 and removed.parse().deleted
    finally:
        cleanup(client, sessions, [] if removed_file(client, up.id) else [up.id], **faulty)
    accepted(tmp_path / "out")
    # Nothing is left behind: the retried create made a single session, and it is deleted.
    assert list(client.beta.agents.sessions.list()) == []
    assert [f.id for f in client.files.list()] == []


def test_a_request_without_the_beta_header_is_refused(emulator, monkeypatch):
    client = client_of(monkeypatch, emulator)
    from openai import BadRequestError

    # The client's own `post` and `get`, which add no `OpenAI-Beta` header (the resources do).
    refused = [
        lambda: client.post(
            "/agents/sessions",
            body={"agent": AGENT, "environment": {"type": "none"}, "input": "hello"},
            cast_to=object,
        ),
        lambda: client.get("/agents/sessions", cast_to=object),
    ]
    for request in refused:
        with pytest.raises(BadRequestError) as caught:
            request()
        error = caught.value
        assert error.status_code == 400
        body = error.response.json()
        assert set(body) == {"error"}, body
        assert "OpenAI-Beta" in body["error"]["message"], body
        assert body["error"]["param"] == "OpenAI-Beta", body
    # Nothing was made.
    assert list(client.beta.agents.sessions.list()) == []
