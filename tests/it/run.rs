//! `vouch run` end to end against the emulator started in-process on 127.0.0.1:0, and the
//! emulator's own contract (error bodies, validation, pagination, the SDK's exact requests).
//! After every run the emulator must hold no container and no file (checked through the list
//! endpoints). Tests that execute the agent need bubblewrap and are skipped, saying so, without it.

use crate::support::{northstar_source_path, root};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use vouch::emulator::agent::Playbook;
use vouch::emulator::fault::Fault;
use vouch::emulator::{Config, Emulator, Running};
use vouch::run::client::{Client, ClientConfig};

/// An emulator serving on its own runtime for the duration of a test.
struct Emu {
    rt: tokio::runtime::Runtime,
    running: Option<Running>,
    out: tempfile::TempDir,
}

impl Emu {
    fn start(playbook: &str, faults: &[&str]) -> Emu {
        Emu::with(playbook, faults, Duration::from_secs(5))
    }

    fn with(playbook: &str, faults: &[&str], slow: Duration) -> Emu {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let mut config = Config::new(Playbook::load(playbook).unwrap());
        config.faults = faults.iter().map(|f| Fault::parse(f).unwrap()).collect();
        config.slow = slow;
        config.retry_after = Duration::from_millis(20);
        let running = rt
            .block_on(Emulator::new(config).unwrap().start("127.0.0.1:0"))
            .unwrap();
        Emu {
            rt,
            running: Some(running),
            out: tempfile::tempdir().unwrap(),
        }
    }

    fn base_url(&self) -> String {
        self.running.as_ref().unwrap().base_url()
    }

    fn emulator(&self) -> &Emulator {
        &self.running.as_ref().unwrap().emulator
    }

    fn client(&self) -> Client {
        let mut config = ClientConfig::new(self.base_url(), "test-key");
        config.request_timeout = Duration::from_secs(120);
        Client::new(config).unwrap()
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vouch"));
        cmd.arg("run")
            .arg("--source")
            .arg(northstar_source_path())
            .arg("--out")
            .arg(self.out.path())
            .args(extra)
            .env("OPENAI_BASE_URL", self.base_url())
            .env("OPENAI_API_KEY", "test-key")
            .env("NO_COLOR", "1");
        cmd
    }

    /// `vouch run` with the fast retry settings tests use.
    fn vouch_run(&self, extra: &[&str]) -> Output {
        self.command(extra).output().unwrap()
    }

    /// GET a list endpoint (one page) through the list API.
    fn list(&self, path: &str) -> Vec<Value> {
        let client = self.client();
        let page = self.rt.block_on(client.get_json(path)).unwrap();
        page["data"].as_array().cloned().unwrap_or_default()
    }

    /// The leak check: no container, file or session left, as the list endpoints say.
    fn assert_nothing_left(&self) {
        let containers = self.list("/containers?limit=100");
        let files = self.list("/files");
        let sessions = self.list("/agents/sessions?limit=100");
        assert!(
            containers.is_empty() && files.is_empty() && sessions.is_empty(),
            "left behind: containers {containers:?}, files {files:?}, sessions {sessions:?}"
        );
        assert_eq!(self.emulator().counts(), (0, 0));
        assert_eq!(self.emulator().session_count(), 0);
    }

    /// Every run directory written under the test's runs root, oldest first.
    fn runs(&self) -> Vec<(PathBuf, Value)> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.out.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        dirs.sort();
        dirs.into_iter()
            .map(|d| {
                let record = serde_json::from_slice(&std::fs::read(d.join("run.json")).unwrap())
                    .unwrap_or_else(|e| panic!("{}: {e}", d.display()));
                (d, record)
            })
            .collect()
    }

    fn only_run(&self) -> (PathBuf, Value) {
        let mut runs = self.runs();
        assert_eq!(runs.len(), 1, "{runs:?}");
        runs.remove(0)
    }
}

impl Drop for Emu {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

/// Whether bubblewrap is installed and can create its sandbox here (probed once).
fn bwrap_available() -> bool {
    static PROBE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let probe = PROBE.get_or_init(|| {
        vouch::sandbox::Sandbox::locate_working()
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    match probe {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: {why}; the emulator's agent runs commands only under bubblewrap (apt-get install -y bubblewrap)");
            false
        }
    }
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Ctrl-C to a running `vouch run`: its output, once it has cleaned up (within 20 s).
fn interrupt(child: std::process::Child) -> Output {
    // SAFETY: signalling our own child process by its id.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "clean-up took too long"
    );
    out
}

fn request_ids(record: &Value) -> usize {
    record["request_ids"].as_array().unwrap().len()
}

fn assert_cleaned(record: &Value) {
    assert_eq!(
        record["cleanup"]["container_deleted"],
        json!(true),
        "{record}"
    );
    assert_eq!(record["cleanup"]["file_deleted"], json!(true), "{record}");
    assert_eq!(record["cleanup"]["errors"], json!([]), "{record}");
}

fn sha256_file(path: &Path) -> String {
    vouch::bundle::sha256_hex(&std::fs::read(path).unwrap())
}

#[test]
fn a_good_run_is_accepted_writes_the_runs_layout_and_leaves_nothing_behind() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("northstar", &[]);
    let out = emu.vouch_run(&["--trials", "2", "--concurrency", "2", "--label", "v1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let runs = emu.runs();
    assert_eq!(runs.len(), 2);
    let mut trials: Vec<u64> = Vec::new();
    for (dir, r) in &runs {
        assert_eq!(r["schema"], "vouch.run");
        assert_eq!(r["schema_version"], 1);
        assert_eq!(r["run_id"].as_str(), dir.file_name().unwrap().to_str());
        assert!(r["run_id"].as_str().unwrap().starts_with("run_"));
        assert_eq!(r["label"], "v1");
        assert_eq!(r["status"], "completed");
        assert_eq!(r["verdict"], "accept");
        assert_eq!(r["turns"], 1);
        assert_eq!(r["error"], Value::Null);
        assert_eq!(
            r["prompt_sha256"],
            vouch::bundle::sha256_hex(vouch::spec::DEFAULT_PROMPT.as_bytes())
        );
        let name = "northstar_cloud_financial_statements.csv";
        assert_eq!(r["source"]["file_name"], name);
        assert_eq!(
            r["source"]["sha256"].as_str().unwrap(),
            sha256_file(&dir.join("source").join(name))
        );
        assert_eq!(
            r["source"]["sha256"].as_str().unwrap(),
            sha256_file(&northstar_source_path())
        );
        assert!(r["ids"]["file_id"].as_str().unwrap().starts_with("file-"));
        assert!(r["ids"]["container_id"]
            .as_str()
            .unwrap()
            .starts_with("cntr_"));
        assert!(r["ids"]["response_ids"][0]
            .as_str()
            .unwrap()
            .starts_with("resp_"));
        assert!(r["usage"]["total_tokens"].as_u64().unwrap() > 0);
        // upload, container, response, list, six downloads, two deletions
        assert_eq!(request_ids(r), 12, "{r}");
        assert_cleaned(r);
        let mut bundle: Vec<String> = std::fs::read_dir(dir.join("bundle"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        bundle.sort();
        assert_eq!(
            bundle,
            [
                "analysis_run.json",
                "analyze_financials.py",
                "calculated_metrics.csv",
                "financial_trends.svg",
                "investment_analysis.md",
                "unusual_movements.csv"
            ]
        );
        // The agent ran the Northstar script on the upload: the metrics are the fixture's.
        assert_eq!(
            sha256_file(&dir.join("bundle/calculated_metrics.csv")),
            sha256_file(&root().join("fixtures/northstar/bundle/calculated_metrics.csv"))
        );
        trials.push(r["trial"].as_u64().unwrap());
    }
    trials.sort();
    assert_eq!(trials, [0, 1]);
    emu.assert_nothing_left();
}

#[test]
fn a_hand_edited_number_is_rejected_and_cleaned_up() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("edited-number", &[]);
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("error[metrics.value]"),
        "{}",
        text(&out)
    );
    let (_, r) = emu.only_run();
    assert_eq!(r["status"], "completed");
    assert_eq!(r["verdict"], "reject");
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn a_skipped_artifact_is_rejected() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("skipped-file", &[]);
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("financial_trends.svg"),
        "{}",
        text(&out)
    );
    let (dir, r) = emu.only_run();
    assert_eq!(r["verdict"], "reject");
    assert!(!dir.join("bundle/financial_trends.svg").exists());
    emu.assert_nothing_left();
}

#[test]
fn a_second_turn_replays_the_history_without_tool_choice() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("two-turns", &[]);
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["turns"], 2);
    assert_eq!(r["verdict"], "accept");
    // The responses are gone with nothing else; their echoes show what each turn sent.
    let client = emu.client();
    let ids = r["ids"]["response_ids"].as_array().unwrap();
    let first = emu
        .rt
        .block_on(client.get_json(&format!("/responses/{}", ids[0].as_str().unwrap())))
        .unwrap();
    let second = emu
        .rt
        .block_on(client.get_json(&format!("/responses/{}", ids[1].as_str().unwrap())))
        .unwrap();
    assert_eq!(first["tool_choice"], "required");
    assert_eq!(second["tool_choice"], "auto", "omitted on the second turn");
    emu.assert_nothing_left();
}

#[test]
fn no_final_message_within_max_turns_is_recorded_as_incomplete() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("no-message", &[]);
    let out = emu.vouch_run(&["--max-turns", "2"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["status"], "incomplete");
    assert_eq!(r["turns"], 2);
    assert_eq!(r["ids"]["response_ids"].as_array().unwrap().len(), 2);
    assert!(r["error"].as_str().unwrap().contains("max turns (2)"));
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn container_auto_runs_learn_the_container_from_the_first_shell_call_and_delete_it() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("two-turns", &[]);
    let out = emu.vouch_run(&[
        "--environment",
        "auto",
        "--trials",
        "2",
        "--concurrency",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let runs = emu.runs();
    assert_eq!(runs.len(), 2);
    let client = emu.client();
    for (_, r) in &runs {
        assert_eq!(r["environment"], "auto", "{r}");
        assert_eq!(r["verdict"], "accept", "{r}");
        assert_eq!(r["turns"], 2);
        let cid = r["ids"]["container_id"].as_str().unwrap();
        assert!(cid.starts_with("cntr_"), "{r}");
        // upload, two responses, list, six downloads, two deletions: no container creation.
        assert_eq!(request_ids(r), 12, "{r}");
        assert_cleaned(r);
        // The first turn asked for a container; the second named the one the first ran in.
        let ids = r["ids"]["response_ids"].as_array().unwrap();
        let turn = |i: usize| {
            emu.rt
                .block_on(client.get_json(&format!("/responses/{}", ids[i].as_str().unwrap())))
                .unwrap()
        };
        let (first, second) = (turn(0), turn(1));
        let env = &first["tools"][0]["environment"];
        assert_eq!(env["type"], "container_auto", "{first}");
        assert_eq!(env["file_ids"][0], r["ids"]["file_id"]);
        assert_eq!(env["network_policy"]["type"], "disabled");
        assert_eq!(
            second["tools"][0]["environment"],
            json!({"type": "container_reference", "container_id": cid})
        );
    }
    emu.assert_nothing_left();
}

#[test]
fn container_auto_runs_survive_retried_faults_and_leave_nothing_behind() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start(
        "two-turns",
        &["429@files", "429@responses", "500@container-files", "drop"],
    );
    let out = emu.vouch_run(&["--environment", "auto"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["verdict"], "accept", "{r}");
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn a_container_auto_request_the_emulator_cannot_place_is_refused_in_the_api_shape() {
    let emu = Emu::start("northstar", &[]);
    let body = json!({
        "model": "m",
        "input": "hi",
        "tools": [{"type": "shell", "environment": {"type": "container_auto", "file_ids": ["file-nope"]}}],
    });
    let (s, _, b) = raw(&emu, reqwest::Method::POST, "/responses", Some(body), true);
    assert_error(s, &b, 400, Some("file_ids"));
    let body = json!({
        "model": "m",
        "input": "hi",
        "tools": [{"type": "shell", "environment": {"type": "container_auto", "memory_limit": "3g"}}],
    });
    let (s, _, b) = raw(&emu, reqwest::Method::POST, "/responses", Some(body), true);
    assert_error(s, &b, 400, Some("tools[0].environment.memory_limit"));
    emu.assert_nothing_left();
}

#[test]
fn local_runs_execute_the_models_shell_calls_in_the_jail_and_collect_the_six_files() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("two-turns", &["429@responses", "drop"]);
    // A private temporary directory, so that the leak check below sees this run's directories
    // only (other runs on the machine stage theirs in the shared /tmp).
    let tmp = tempfile::tempdir().unwrap();
    let out = emu
        .command(&[
            "--environment",
            "local",
            "--trials",
            "3",
            "--concurrency",
            "2",
        ])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let runs = emu.runs();
    assert_eq!(runs.len(), 3);
    let client = emu.client();
    for (dir, r) in &runs {
        assert_eq!(r["environment"], "local", "{r}");
        assert_eq!(r["verdict"], "accept", "{r}");
        // Nothing is uploaded and no container exists: the API saw only the model calls.
        assert_eq!(r["ids"]["file_id"], Value::Null);
        assert_eq!(r["ids"]["container_id"], Value::Null);
        assert_cleaned(r);
        assert_eq!(
            sha256_file(&dir.join("bundle/calculated_metrics.csv")),
            sha256_file(&root().join("fixtures/northstar/bundle/calculated_metrics.csv"))
        );
        let ids = r["ids"]["response_ids"].as_array().unwrap();
        let first = emu
            .rt
            .block_on(client.get_json(&format!("/responses/{}", ids[0].as_str().unwrap())))
            .unwrap();
        assert_eq!(
            first["tools"][0]["environment"],
            json!({"type": "local"}),
            "{first}"
        );
        // The emulator ran nothing itself: its first answer holds calls without outputs.
        let kinds: Vec<&str> = first["output"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["type"].as_str().unwrap())
            .collect();
        assert!(kinds.iter().all(|k| *k == "shell_call"), "{kinds:?}");
    }
    emu.assert_nothing_left();
    // The private /mnt/data directories are gone.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("vouch-local-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_local_shell_call_sees_only_the_source_no_network_and_a_cleared_environment() {
    if !bwrap_available() || vouch::reexecute::jail::Jail::locate().is_err() {
        return;
    }
    // The agent records what its sandbox shows it in the files vouch collects.
    let playbook = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        playbook.path(),
        r#"
[[turn]]
message = "done"
[[turn.call]]
commands = [
  "ls -A /mnt/data > /mnt/data/calculated_metrics.csv",
  "env | sort > /mnt/data/unusual_movements.csv",
  "(cat /etc/passwd; ls /root; ls /home) > /mnt/data/investment_analysis.md 2>&1; true",
  "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 80), timeout=3)' > /mnt/data/analysis_run.json 2>&1; echo exit=$? >> /mnt/data/analysis_run.json",
]
"#,
    )
    .unwrap();
    let emu = Emu::start(playbook.path().to_str().unwrap(), &[]);
    emu.vouch_run(&["--environment", "local"]);
    let (dir, r) = emu.only_run();
    assert_eq!(r["environment"], "local", "{r}");
    let read = |name: &str| std::fs::read_to_string(dir.join("bundle").join(name)).unwrap();
    assert_eq!(
        read("calculated_metrics.csv"),
        "calculated_metrics.csv\nnorthstar_cloud_financial_statements.csv\n",
        "/mnt/data holds only the source (and what the call is writing)"
    );
    let env = read("unusual_movements.csv");
    for var in env.lines().map(|l| l.split('=').next().unwrap()) {
        assert!(
            [
                "HOME",
                "LANG",
                "LC_ALL",
                "PATH",
                "PWD",
                "PYTHONDONTWRITEBYTECODE",
                "PYTHONHASHSEED",
                "PYTHONIOENCODING",
                "SHLVL",
                "TZ",
                "_",
                "OLDPWD"
            ]
            .contains(&var),
            "a variable from outside the sandbox: {var}\n{env}"
        );
    }
    assert!(!env.contains("OPENAI_API_KEY"));
    let seen = read("investment_analysis.md");
    assert!(
        !seen.contains("root:x:0:0"),
        "/etc/passwd is visible: {seen}"
    );
    let net = read("analysis_run.json");
    assert!(!net.contains("exit=0"), "the network is reachable: {net}");
    emu.assert_nothing_left();
}

#[test]
fn a_streamed_response_is_the_apis_event_sequence_ending_in_the_whole_response() {
    let emu = Emu::start("northstar", &[]);
    let body = json!({"model": "m", "input": "hi", "stream": true});
    let url = format!("{}/responses", emu.base_url());
    let (content_type, text) = emu.rt.block_on(async {
        let resp = reqwest::Client::new()
            .post(url)
            .bearer_auth("test-key")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
        (ct, resp.text().await.unwrap())
    });
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let events: Vec<(String, Value)> = text
        .split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let kind = block
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .unwrap();
            let data = block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap();
            (kind.to_string(), serde_json::from_str(data).unwrap())
        })
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.output_item.done",
            "response.completed"
        ]
    );
    for (n, (kind, data)) in events.iter().enumerate() {
        assert_eq!(data["type"], kind.as_str());
        assert_eq!(data["sequence_number"], n);
    }
    assert_eq!(events[0].1["response"]["status"], "in_progress");
    assert_eq!(events[0].1["response"]["output"], json!([]));
    let done = &events[4].1["response"];
    assert_eq!(done["status"], "completed");
    assert_eq!(done["output"][0], events[3].1["item"]);
    // The streamed response is stored like any other.
    let id = done["id"].as_str().unwrap();
    let (s, _, stored) = raw(
        &emu,
        reqwest::Method::GET,
        &format!("/responses/{id}"),
        None,
        true,
    );
    assert_eq!(s, 200);
    assert_eq!(&stored, done);
}

#[test]
fn the_emulator_refuses_a_local_turn_that_leaves_a_shell_call_unanswered() {
    let emu = Emu::start("northstar", &[]);
    let body = json!({"model": "m", "input": "go", "tools": [{"type": "shell", "environment": {"type": "local"}}]});
    let (s, _, first) = raw(&emu, reqwest::Method::POST, "/responses", Some(body), true);
    assert_eq!(s, 200, "{first}");
    let call = first["output"][0].clone();
    assert_eq!(call["type"], "shell_call");
    assert_eq!(call["environment"], json!({"type": "local"}));
    let body = json!({
        "model": "m",
        "input": [{"role": "user", "content": "go"}, call],
        "tools": [{"type": "shell", "environment": {"type": "local"}}],
    });
    let (s, _, b) = raw(&emu, reqwest::Method::POST, "/responses", Some(body), true);
    assert_error(s, &b, 400, Some("input"));
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .contains("No tool output found"),
        "{b}"
    );
}

#[test]
fn rate_limits_and_server_errors_on_every_first_attempt_are_retried() {
    if !bwrap_available() {
        return;
    }
    // Each call meets exactly one of them on its first attempt: uploads and model calls a 429,
    // container calls and container-file calls a 500.
    let emu = Emu::start(
        "northstar",
        &[
            "429@files",
            "429@responses",
            "500@containers",
            "500@container-files",
        ],
    );
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["verdict"], "accept");
    // Every call failed once, then succeeded: twice the ids of a clean run.
    assert_eq!(request_ids(&r), 24, "{r}");
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn dropped_connections_are_retried() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("northstar", &["drop"]);
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["verdict"], "accept");
    emu.assert_nothing_left();
}

#[test]
fn permanent_server_errors_fail_cleanly_with_the_request_id() {
    // No agent command runs here: /responses fails before the agent acts.
    let emu = Emu::start("northstar", &["500@responses:always"]);
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["status"], "error");
    assert_eq!(r["verdict"], Value::Null);
    let error = r["error"].as_str().unwrap();
    assert!(error.contains("HTTP 500"), "{error}");
    assert!(error.contains("request id req_"), "{error}");
    assert!(error.contains("after 3 attempt(s)"), "{error}");
    assert!(text(&out).contains("request id req_"), "{}", text(&out));
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn an_incomplete_response_is_recorded_not_lost() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("northstar", &["incomplete"]);
    let out = emu.vouch_run(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["status"], "incomplete");
    assert_eq!(r["turns"], 1);
    assert!(r["usage"]["total_tokens"].as_u64().unwrap() > 0);
    assert!(r["error"].as_str().unwrap().contains("max_output_tokens"));
    // What the agent left was still downloaded and verified.
    assert_eq!(r["verdict"], "reject");
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn a_failing_delete_is_reported_and_recorded() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("northstar", &["delete-fails"]);
    let out = emu.vouch_run(&[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a leak is an error\n{}",
        text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("clean-up failed"),
        "{}",
        text(&out)
    );
    let (_, r) = emu.only_run();
    assert_eq!(r["verdict"], "accept");
    assert_eq!(r["cleanup"]["container_deleted"], false);
    assert_eq!(r["cleanup"]["file_deleted"], false);
    let errors = r["cleanup"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{r}");
    assert!(errors[0].as_str().unwrap().contains("container"));
    // The emulator tells the truth: both are still there until deleted for real.
    assert_eq!(emu.list("/containers").len(), 1);
    assert_eq!(emu.list("/files").len(), 1);
    emu.emulator().set_faults(Vec::new());
    let client = emu.client();
    emu.rt
        .block_on(client.delete_container(r["ids"]["container_id"].as_str().unwrap()))
        .unwrap();
    emu.rt
        .block_on(client.delete_file(r["ids"]["file_id"].as_str().unwrap()))
        .unwrap();
    emu.assert_nothing_left();
}

#[test]
fn ctrl_c_mid_run_still_deletes_the_container_and_the_file() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::with("northstar", &["slow"], Duration::from_secs(60));
    let child = emu
        .command(&[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run is inside its (slow) model call: the container exists.
    let deadline = Instant::now() + Duration::from_secs(30);
    while emu.emulator().counts() != (1, 1) {
        assert!(
            Instant::now() < deadline,
            "the run never created its container"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let out = interrupt(child);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["status"], "error");
    assert!(r["error"].as_str().unwrap().contains("interrupted"));
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn ctrl_c_mid_local_run_removes_its_private_mnt_data() {
    if !bwrap_available() || vouch::reexecute::jail::Jail::locate().is_err() {
        return;
    }
    let emu = Emu::with("northstar", &["slow"], Duration::from_secs(60));
    // The run's temporary directory is this test's own, so what is left there is the run's.
    let tmp = tempfile::tempdir().unwrap();
    let child = emu
        .command(&["--environment", "local"])
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let scratch = || {
        std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("vouch-local-"))
            .count()
    };
    // Wait until the run is inside its (slow) model call: its /mnt/data exists.
    let deadline = Instant::now() + Duration::from_secs(30);
    while scratch() != 1 {
        assert!(
            Instant::now() < deadline,
            "the run never made its /mnt/data"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let out = interrupt(child);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["environment"], "local");
    assert!(r["error"].as_str().unwrap().contains("interrupted"), "{r}");
    assert_cleaned(&r);
    assert_eq!(scratch(), 0, "the private /mnt/data was left behind");
    emu.assert_nothing_left();
}

#[test]
fn ctrl_c_mid_container_auto_run_deletes_the_container_it_learned() {
    if !bwrap_available() {
        return;
    }
    // Turn 1 runs at once (the API makes the container); turn 2's command outlasts the test.
    let dir = tempfile::tempdir().unwrap();
    let playbook = dir.path().join("slow-second-turn.toml");
    std::fs::write(
        &playbook,
        "[[turn]]\n[[turn.call]]\ncommands = [\"ls /mnt/data\"]\n\
         [[turn]]\nmessage = \"done\"\n[[turn.call]]\ncommands = [\"sleep 60\"]\ntimeout_ms = 90000\n",
    )
    .unwrap();
    let emu = Emu::start(playbook.to_str().unwrap(), &[]);
    let child = emu
        .command(&["--environment", "auto"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first turn has been answered: the container exists and a shell call named it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while emu.emulator().response_count() < 1 || emu.emulator().counts() != (1, 1) {
        assert!(Instant::now() < deadline, "the first turn never finished");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let out = interrupt(child);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["environment"], "auto");
    assert!(r["error"].as_str().unwrap().contains("interrupted"), "{r}");
    assert!(
        r["ids"]["container_id"]
            .as_str()
            .unwrap()
            .starts_with("cntr_"),
        "{r}"
    );
    assert_cleaned(&r);
    emu.assert_nothing_left();
}

fn assert_session_cleaned(record: &Value) {
    assert_eq!(record["environment"], "agents-api", "{record}");
    assert!(
        record["ids"]["session_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("sess_")),
        "{record}"
    );
    assert_eq!(
        record["cleanup"]["session_deleted"],
        json!(true),
        "{record}"
    );
    assert_cleaned(record);
}

#[test]
fn agents_api_runs_follow_the_session_stream_and_download_what_the_turn_published() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("northstar", &[]);
    let out = emu.vouch_run(&[
        "--environment",
        "agents-api",
        "--trials",
        "2",
        "--concurrency",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let runs = emu.runs();
    assert_eq!(runs.len(), 2);
    for (dir, r) in &runs {
        assert_eq!(r["verdict"], "accept", "{r}");
        assert_eq!(r["status"], "completed", "{r}");
        assert_eq!(r["turns"], 1);
        assert!(r["usage"]["total_tokens"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(r["ids"]["container_id"], Value::Null);
        assert_eq!(r["ids"]["response_ids"], json!([]));
        // upload, the streamed create, the artifact list, six downloads, two deletions.
        assert_eq!(request_ids(r), 11, "{r}");
        let artifacts = r["artifacts"].as_array().unwrap();
        assert_eq!(artifacts.len(), 6, "{r}");
        for a in artifacts {
            let name = a["name"].as_str().unwrap();
            assert_eq!(a["path"], format!("/workspace/outputs/{name}"));
            assert_eq!(
                a["sha256"].as_str().unwrap(),
                sha256_file(&dir.join("bundle").join(name))
            );
        }
        assert_session_cleaned(r);
    }
    // What the agent was told: where the statements are and where the artifacts belong.
    emu.assert_nothing_left();
}

#[test]
fn agents_api_runs_survive_retried_faults_and_a_cut_stream() {
    if !bwrap_available() {
        return;
    }
    // Every first attempt fails somewhere, and the session's stream is cut after its first
    // event: vouch polls the session until its turn is over instead of creating another.
    let emu = Emu::start(
        "northstar",
        &["429@files", "500@sessions", "drop", "cut@sessions:once"],
    );
    let out = emu.vouch_run(&["--environment", "agents-api"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["verdict"], "accept", "{r}");
    assert_eq!(r["status"], "completed", "{r}");
    assert!(r["usage"]["total_tokens"].as_u64().unwrap() > 0, "{r}");
    assert_session_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn ctrl_c_mid_agents_api_run_cancels_the_turn_and_deletes_the_session() {
    if !bwrap_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let playbook = dir.path().join("slow-session.toml");
    std::fs::write(
        &playbook,
        "[[turn]]\nmessage = \"done\"\n[[turn.call]]\ncommands = [\"sleep 60\"]\ntimeout_ms = 90000\n",
    )
    .unwrap();
    let emu = Emu::start(playbook.to_str().unwrap(), &[]);
    let child = emu
        .command(&["--environment", "agents-api"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while emu.emulator().session_count() != 1 {
        assert!(Instant::now() < deadline, "the run never made its session");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let out = interrupt(child);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert!(r["error"].as_str().unwrap().contains("interrupted"), "{r}");
    assert_session_cleaned(&r);
    emu.assert_nothing_left();
}

#[test]
fn the_agents_api_wants_its_beta_header_and_a_hosted_environment() {
    let emu = Emu::start("northstar", &[]);
    let call = |method: reqwest::Method, path: &str, body: Option<Value>, beta: bool| {
        let url = format!("{}{path}", emu.base_url());
        emu.rt.block_on(async {
            let mut req = reqwest::Client::new().request(method, url).bearer_auth("k");
            if beta {
                req = req.header("OpenAI-Beta", "agents=v1");
            }
            if let Some(b) = body {
                req = req.json(&b);
            }
            let r = req.send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        })
    };
    let post =
        |body: Value, beta: bool| call(reqwest::Method::POST, "/agents/sessions", Some(body), beta);
    let hosted = json!({"agent": {"model": "m"}, "environment": {"type": "openai_hosted"}});
    let (s, b) = post(hosted.clone(), false);
    assert_error(s, &b, 400, Some("OpenAI-Beta"));
    let (s, b) = post(json!({"agent": {"model": "m"}}), true);
    assert_error(s, &b, 400, Some("environment"));
    let (s, b) = post(
        json!({"agent": {"model": "m"}, "environment": {"type": "openai_hosted", "files": [{"type": "file_id", "file_id": "file-nope", "path": "/workspace/a.csv"}]}}),
        true,
    );
    assert_error(s, &b, 400, Some("environment.files[0].file_id"));
    let (s, b) = post(
        json!({"agent": {"model": "m"}, "environment": {"type": "openai_hosted", "files": [{"type": "inline", "data": "aGk=", "path": "/workspace/../etc/passwd"}]}}),
        true,
    );
    assert_error(s, &b, 400, Some("environment.files[0].path"));
    // A session without input is idle, and can be deleted at once.
    let (s, b) = post(hosted, true);
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["status"], "idle");
    assert_eq!(b["object"], "agent.session");
    let id = b["id"].as_str().unwrap();
    let (s, b) = call(
        reqwest::Method::DELETE,
        &format!("/agents/sessions/{id}"),
        None,
        true,
    );
    assert_eq!(s, 200);
    assert_eq!(
        b,
        json!({"id": id, "object": "agent.session.deleted", "deleted": true})
    );
    emu.assert_nothing_left();
}

/// The rounds `run.json` records: (verdict, failing check ids, source intact).
fn rounds(record: &Value) -> Vec<(String, Vec<String>, Value)> {
    record["rounds"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    let failing = r["failing"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f.as_str().unwrap().to_string())
                        .collect();
                    (
                        r["verdict"].as_str().unwrap().to_string(),
                        failing,
                        r["source_intact"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn without_repair_the_planted_defects_reject_the_run_and_no_round_is_recorded() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("repair", &[]);
    let out = emu.vouch_run(&["--repair", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["verdict"], "reject", "{r}");
    assert!(r.get("rounds").is_none(), "{r}");
    assert!(emu.emulator().repair_prompts().is_empty());
    emu.assert_nothing_left();
}

#[test]
fn one_repair_round_fixes_the_planted_defects_in_every_environment() {
    if !bwrap_available() || vouch::reexecute::jail::Jail::locate().is_err() {
        return;
    }
    for environment in ["reference", "auto", "local", "agents-api"] {
        let emu = Emu::start("repair", &[]);
        let out = emu.vouch_run(&["--repair", "1", "--environment", environment]);
        assert_eq!(out.status.code(), Some(0), "{environment}: {}", text(&out));
        let (dir, r) = emu.only_run();
        assert_eq!(r["verdict"], "accept", "{environment}: {r}");
        let rs = rounds(&r);
        assert_eq!(rs.len(), 2, "{environment}: {r}");
        assert_eq!(rs[0].0, "reject");
        for check in ["metrics.value", "movements.missing"] {
            assert!(rs[0].1.iter().any(|c| c == check), "{environment}: {rs:?}");
        }
        assert_eq!(rs[1].0, "accept");
        assert!(rs[1].1.is_empty());
        // The source is checked where vouch can read it: not in a session's workspace.
        let intact = if environment == "agents-api" {
            Value::Null
        } else {
            json!(true)
        };
        assert_eq!((&rs[0].2, &rs[1].2), (&intact, &intact), "{environment}");
        let round = &r["rounds"][1];
        assert!(round["turns"].as_u64().unwrap() >= 1, "{round}");
        assert!(
            round["usage"]["total_tokens"].as_u64().unwrap() > 0,
            "{round}"
        );
        // The repair prompt names both findings, with the file, the check and the numbers.
        let prompts = emu.emulator().repair_prompts();
        assert_eq!(prompts.len(), 1, "{environment}: {prompts:?}");
        let p = &prompts[0];
        assert!(
            p.contains("calculated_metrics.csv (") && p.contains("[metrics.value]"),
            "{p}"
        );
        assert!(p.contains("recomputed"), "{p}");
        assert!(
            p.contains("unusual_movements.csv") && p.contains("[movements.missing]"),
            "{p}"
        );
        assert!(p.contains("Do not modify the source"), "{p}");
        // The bundle on disk is the repaired one, and verifies on its own.
        let verify = Command::new(env!("CARGO_BIN_EXE_vouch"))
            .arg("verify")
            .arg(dir.join("bundle"))
            .arg("--source")
            .arg(northstar_source_path())
            .output()
            .unwrap();
        assert_eq!(verify.status.code(), Some(0), "{}", text(&verify));
        emu.assert_nothing_left();
    }
}

#[test]
fn an_agent_that_edits_the_source_during_repair_is_rejected_for_it() {
    if !bwrap_available() || vouch::reexecute::jail::Jail::locate().is_err() {
        return;
    }
    // The agent "fixes" its findings by rewriting the statements, then re-runs its script.
    let dir = tempfile::tempdir().unwrap();
    let playbook = dir.path().join("edits-source.toml");
    let base = std::fs::read_to_string(root().join("fixtures/playbooks/repair.toml")).unwrap();
    let cut = base.find("[[repair]]").unwrap();
    let edit = r##"[[repair]]
message = "I adjusted the statements so that they agree with my figures."

[[repair.call]]
commands = [
  '''f=$(ls {{input_dir}}/*financial_statements.csv | head -n 1) && echo "# adjusted" >> "$f"''',
  '''python3 {{output_dir}}/analyze_financials.py --input "$(ls {{input_dir}}/*financial_statements.csv | head -n 1)" --outdir {{output_dir}}''',
]
"##;
    std::fs::write(&playbook, format!("{}{edit}", &base[..cut])).unwrap();
    for environment in ["reference", "local"] {
        let emu = Emu::start(playbook.to_str().unwrap(), &[]);
        let out = emu.vouch_run(&["--repair", "2", "--environment", environment]);
        assert_eq!(out.status.code(), Some(1), "{environment}: {}", text(&out));
        let (_, r) = emu.only_run();
        assert_eq!(r["verdict"], "reject", "{r}");
        let rs = rounds(&r);
        // Rejected at the round after the edit, and no further repair was asked for.
        assert_eq!(rs.len(), 2, "{environment}: {r}");
        assert_eq!(rs[0].2, json!(true), "{environment}: {r}");
        assert_eq!(rs[1].2, json!(false), "{environment}: {r}");
        assert_eq!(rs[1].0, "reject");
        assert!(
            r["error"].as_str().unwrap().contains("changed the source"),
            "{r}"
        );
        assert_eq!(emu.emulator().repair_prompts().len(), 1);
        emu.assert_nothing_left();
    }
}

#[test]
fn keep_leaves_the_container_and_file_and_says_so() {
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("northstar", &[]);
    let out = emu.vouch_run(&["--keep"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, r) = emu.only_run();
    assert_eq!(r["cleanup"]["kept"], true);
    assert_eq!(r["cleanup"]["container_deleted"], false);
    assert_eq!(emu.list("/containers").len(), 1);
    let client = emu.client();
    emu.rt
        .block_on(client.delete_container(r["ids"]["container_id"].as_str().unwrap()))
        .unwrap();
    emu.rt
        .block_on(client.delete_file(r["ids"]["file_id"].as_str().unwrap()))
        .unwrap();
    emu.assert_nothing_left();
}

#[test]
fn the_offline_demo_runs_the_emulator_in_process() {
    if !bwrap_available() {
        return;
    }
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vouch"))
        .args(["run", "--emulator", "--trials", "2", "--concurrency", "2"])
        .arg("--source")
        .arg(northstar_source_path())
        .arg("--out")
        .arg(out_dir.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("still holds"));
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 2);
}

#[test]
fn the_offline_demo_runs_three_local_trials_end_to_end() {
    if !bwrap_available() || vouch::reexecute::jail::Jail::locate().is_err() {
        return;
    }
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vouch"))
        .args([
            "run",
            "--emulator",
            "--environment",
            "local",
            "--trials",
            "3",
        ])
        .arg("--source")
        .arg(northstar_source_path())
        .arg("--out")
        .arg(out_dir.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("3 of 3 trial(s) accepted"), "{stdout}");
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 3);
}

#[test]
fn run_without_an_api_key_is_bad_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_vouch"))
        .arg("run")
        .arg("--source")
        .arg(northstar_source_path())
        .arg("--out")
        .arg(tempfile::tempdir().unwrap().path())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}

// ---------------------------------------------------------------------------------------------
// The emulator's contract

/// A raw request to the emulator: (status, headers, JSON body).
fn raw(
    emu: &Emu,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
    auth: bool,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let url = format!("{}{}", emu.base_url(), path);
    emu.rt.block_on(async {
        let http = reqwest::Client::new();
        let mut req = http.request(method, url);
        if auth {
            req = req.bearer_auth("test-key");
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let bytes = resp.bytes().await.unwrap();
        (
            status,
            headers,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    })
}

fn upload(emu: &Emu, name: &str, bytes: &[u8]) -> String {
    emu.rt
        .block_on(emu.client().upload_file(name, bytes))
        .unwrap()
        .id
}

fn assert_error(status: u16, body: &Value, want_status: u16, param: Option<&str>) {
    assert_eq!(status, want_status, "{body}");
    let e = &body["error"];
    assert!(e["message"].is_string(), "{body}");
    assert!(e["type"].is_string(), "{body}");
    assert!(
        e.get("param").is_some() && e.get("code").is_some(),
        "{body}"
    );
    if let Some(p) = param {
        assert_eq!(e["param"], p, "{body}");
    }
}

#[test]
fn the_emulator_answers_errors_in_the_api_shape_with_a_request_id() {
    use reqwest::Method;
    let emu = Emu::start("northstar", &[]);
    let (s, h, b) = raw(&emu, Method::GET, "/files", None, false);
    assert_error(s, &b, 401, None);
    assert!(h["x-request-id"].to_str().unwrap().starts_with("req_"));
    // A fault asked for in the header: a 429 with the delay to wait, as the API sends it.
    let url = format!("{}/files", emu.base_url());
    let (s, h, b) = emu.rt.block_on(async {
        let r = reqwest::Client::new()
            .get(url)
            .bearer_auth("k")
            .header("x-vouch-fault", "429")
            .send()
            .await
            .unwrap();
        let (s, h) = (r.status().as_u16(), r.headers().clone());
        (s, h, r.json::<Value>().await.unwrap())
    });
    assert_error(s, &b, 429, None);
    assert_eq!(b["error"]["type"], "rate_limit_error");
    assert_eq!(h["retry-after-ms"], "20");
    assert_eq!(h["retry-after"], "1");
    let (s, _, b) = raw(&emu, Method::GET, "/files/file-nope", None, true);
    assert_error(s, &b, 404, None);
    assert_eq!(b["error"]["message"], "No such File object: file-nope");
    let (s, _, b) = raw(&emu, Method::DELETE, "/containers/cntr_nope", None, true);
    assert_error(s, &b, 404, None);
    let (s, _, b) = raw(&emu, Method::GET, "/nowhere", None, true);
    assert_error(s, &b, 404, None);
    let (s, _, b) = raw(&emu, Method::POST, "/containers", Some(json!({})), true);
    assert_error(s, &b, 400, Some("name"));
    let bad = [
        (json!({"name": "x", "memory_limit": "2g"}), "memory_limit"),
        (
            json!({"name": "x", "network_policy": {"type": "open"}}),
            "network_policy.type",
        ),
        (
            json!({"name": "x", "network_policy": {"type": "allowlist", "allowed_domains": []}}),
            "network_policy.allowed_domains",
        ),
        (json!({"name": "x", "file_ids": ["file-nope"]}), "file_ids"),
    ];
    for (body, param) in bad {
        let (s, _, b) = raw(&emu, Method::POST, "/containers", Some(body), true);
        assert_error(s, &b, 400, Some(param));
    }
    let (s, _, b) = raw(
        &emu,
        Method::POST,
        "/responses",
        Some(
            json!({"model": "m", "input": "hi", "tools": [{"type": "shell",
            "environment": {"type": "container_reference", "container_id": "cntr_nope"}}]}),
        ),
        true,
    );
    assert_error(s, &b, 400, Some("tools[0].environment.container_id"));
    let (s, _, b) = raw(
        &emu,
        Method::POST,
        "/responses",
        Some(json!({"input": "hi"})),
        true,
    );
    assert_error(s, &b, 400, Some("model"));
    emu.assert_nothing_left();
}

#[test]
fn the_emulator_creates_containers_as_the_tutorial_does_and_echoes_the_policy() {
    use reqwest::Method;
    let emu = Emu::start("northstar", &[]);
    let fid = upload(&emu, "data.csv", b"a,b\n1,2\n");
    assert!(fid.starts_with("file-"));
    let (s, _, c) = raw(
        &emu,
        Method::POST,
        "/containers",
        Some(
            json!({"name":"sandbox","file_ids":[fid],"memory_limit":"4g","network_policy":{"type":"disabled"}}),
        ),
        true,
    );
    assert_eq!(s, 200, "{c}");
    let cid = c["id"].as_str().unwrap().to_string();
    assert!(cid.starts_with("cntr_"));
    assert_eq!(c["object"], "container");
    assert_eq!(c["memory_limit"], "4g");
    assert_eq!(c["network_policy"], json!({"type": "disabled"}));
    assert_eq!(c["status"], "running");
    // The upload is inside under a hex prefix, as a `user` file.
    let files = emu.list(&format!("/containers/{cid}/files"));
    assert_eq!(files.len(), 1);
    let path = files[0]["path"].as_str().unwrap();
    let (prefix, rest) = path
        .strip_prefix("/mnt/data/")
        .unwrap()
        .split_once('-')
        .unwrap();
    assert!(prefix.bytes().all(|b| b.is_ascii_hexdigit()), "{path}");
    assert_eq!(rest, "data.csv");
    assert_eq!(files[0]["source"], "user");
    assert!(files[0]["id"].as_str().unwrap().starts_with("cfile_"));
    let bytes = emu
        .rt
        .block_on(emu.client().download_container_file(
            &cid,
            files[0]["id"].as_str().unwrap(),
            1 << 20,
        ))
        .unwrap();
    assert_eq!(bytes, b"a,b\n1,2\n");
    // A download over the cap is refused, not truncated.
    let too_big = emu.rt.block_on(emu.client().download_container_file(
        &cid,
        files[0]["id"].as_str().unwrap(),
        4,
    ));
    assert!(matches!(
        too_big,
        Err(vouch::run::client::ApiError::TooLarge { .. })
    ));
    let (s, _, d) = raw(
        &emu,
        Method::DELETE,
        &format!("/containers/{cid}"),
        None,
        true,
    );
    assert_eq!(s, 200);
    assert_eq!(
        d,
        json!({"id": cid, "object": "container.deleted", "deleted": true})
    );
    let (s, _, d) = raw(&emu, Method::DELETE, &format!("/files/{fid}"), None, true);
    assert_eq!(s, 200);
    assert_eq!(d, json!({"id": fid, "object": "file", "deleted": true}));
    emu.assert_nothing_left();
}

#[test]
fn file_lists_paginate_with_an_exclusive_after_cursor() {
    let emu = Emu::start("northstar", &[]);
    let ids: Vec<String> = (0..5)
        .map(|i| upload(&emu, &format!("f{i}.csv"), b"x"))
        .collect();
    // Walk pages of two, oldest first, as the SDK does (after = the last item's id).
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let client = emu.client();
        let mut path = "/files?limit=2&order=asc".to_string();
        if let Some(a) = &after {
            path.push_str(&format!("&after={a}"));
        }
        let page = emu.rt.block_on(client.get_json(&path)).unwrap();
        pages += 1;
        let data = page["data"].as_array().unwrap();
        assert_eq!(page["first_id"], data[0]["id"]);
        assert_eq!(page["last_id"], data[data.len() - 1]["id"]);
        seen.extend(data.iter().map(|f| f["id"].as_str().unwrap().to_string()));
        if page["has_more"] == false {
            break;
        }
        after = Some(data.last().unwrap()["id"].as_str().unwrap().to_string());
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, ids);
    // The default order is newest first.
    let newest = emu.list("/files?limit=1");
    assert_eq!(newest[0]["id"], ids[4].as_str());
    // A bad limit is a 400 naming the parameter.
    let (s, _, b) = raw(&emu, reqwest::Method::GET, "/files?limit=0", None, true);
    assert_error(s, &b, 400, Some("limit"));
    let client = emu.client();
    for id in &ids {
        emu.rt.block_on(client.delete_file(id)).unwrap();
    }
    emu.assert_nothing_left();
}

#[test]
fn container_file_lists_are_walked_across_pages() {
    if !bwrap_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let playbook = dir.path().join("many.toml");
    std::fs::write(
        &playbook,
        "[[turn]]\nmessage = \"made files\"\n[[turn.call]]\ncommands = [\"for i in $(seq 1 230); do echo $i > f$i.txt; done\"]\n",
    )
    .unwrap();
    let emu = Emu::start(playbook.to_str().unwrap(), &[]);
    let client = emu.client();
    let fid = upload(&emu, "data.csv", b"a\n");
    let (s, _, c) = raw(
        &emu,
        reqwest::Method::POST,
        "/containers",
        Some(json!({"name": "many", "file_ids": [fid]})),
        true,
    );
    assert_eq!(s, 200, "{c}");
    let cid = c["id"].as_str().unwrap().to_string();
    let body = json!({"model": "m", "input": "go", "tools": [{"type": "shell",
        "environment": {"type": "container_reference", "container_id": cid}}]});
    let r = emu.rt.block_on(client.create_response(&body)).unwrap();
    assert_eq!(r.status.as_deref(), Some("completed"));
    let files = emu.rt.block_on(client.list_container_files(&cid)).unwrap();
    assert_eq!(
        files.len(),
        231,
        "the upload and 230 files, over three pages"
    );
    let mut ids: Vec<&str> = files.iter().map(|f| f.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 231, "no file is listed twice");
    emu.rt.block_on(client.delete_container(&cid)).unwrap();
    emu.rt.block_on(client.delete_file(&fid)).unwrap();
    emu.assert_nothing_left();
}

#[test]
fn the_emulator_accepts_the_agents_sdk_requests_verbatim() {
    use reqwest::Method;
    if !bwrap_available() {
        return;
    }
    let emu = Emu::start("two-turns", &[]);
    let fid = upload(
        &emu,
        "northstar_cloud_financial_statements.csv",
        &std::fs::read(northstar_source_path()).unwrap(),
    );
    let (_, _, c) = raw(
        &emu,
        Method::POST,
        "/containers",
        Some(
            json!({"name":"sandbox","file_ids":[fid],"memory_limit":"4g","network_policy":{"type":"disabled"}}),
        ),
        true,
    );
    let cid = c["id"].as_str().unwrap().to_string();
    // The first turn exactly as captured from the Agents SDK.
    let user = json!({"content": "list files", "role": "user"});
    let tools =
        json!([{"type":"shell","environment":{"type":"container_reference","container_id":cid}}]);
    let (s, h, first) = raw(
        &emu,
        Method::POST,
        "/responses",
        Some(json!({"model":"gpt-5.6-luna","include":[],"input":[user],
            "instructions":"Use the shell.","tool_choice":"required","tools":tools})),
        true,
    );
    assert_eq!(s, 200, "{first}");
    assert!(h.contains_key("x-request-id"));
    for key in [
        "id",
        "object",
        "created_at",
        "model",
        "output",
        "parallel_tool_calls",
        "tool_choice",
        "tools",
        "status",
        "error",
        "incomplete_details",
        "usage",
    ] {
        assert!(first.get(key).is_some(), "missing `{key}` in {first}");
    }
    assert!(first["id"].as_str().unwrap().starts_with("resp_"));
    let output = first["output"].as_array().unwrap();
    let kinds: Vec<&str> = output.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["shell_call", "shell_call_output"], "no message yet");
    assert_eq!(output[0]["call_id"], output[1]["call_id"]);
    assert_eq!(
        output[1]["output"][0]["outcome"],
        json!({"type": "exit", "exit_code": 0})
    );
    // The second turn as the SDK sends it: the history with status and created_by stripped, no
    // tool_choice, no previous_response_id.
    let mut input = vec![user.clone()];
    input.extend(output.iter().map(vouch::run::wire::replayable));
    assert!(input[1].get("status").is_none());
    let (s, _, second) = raw(
        &emu,
        Method::POST,
        "/responses",
        Some(json!({"model":"gpt-5.6-luna","include":[],"input":input,
            "instructions":"Use the shell.","tools":tools})),
        true,
    );
    assert_eq!(s, 200, "{second}");
    let kinds: Vec<&str> = second["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["shell_call", "shell_call_output", "message"]);
    assert_eq!(second["status"], "completed");
    // An unpaired output in a replayed history is refused.
    let orphan = json!({"type":"shell_call_output","call_id":"call_nope","output":[]});
    let (s, _, b) = raw(
        &emu,
        Method::POST,
        "/responses",
        Some(json!({"model":"m","input":[user, orphan],"tools":tools})),
        true,
    );
    assert_error(s, &b, 400, Some("input[1]"));
    let client = emu.client();
    emu.rt.block_on(client.delete_container(&cid)).unwrap();
    emu.rt.block_on(client.delete_file(&fid)).unwrap();
    emu.assert_nothing_left();
}

/// Whether the official Python SDKs (`openai`, `openai-agents`) are importable.
fn python_sdks_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import openai, agents"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: the Python packages `openai` and `openai-agents` are not installed (pip install openai openai-agents)");
    }
    ok
}

#[test]
fn the_official_python_sdks_drive_the_emulator_through_the_tutorial() {
    if !bwrap_available() || !python_sdks_available() {
        return;
    }
    let emu = Emu::start("two-turns", &[]);
    let bundle = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(root().join("tests/it/sdk/tutorial.py"))
        .arg(northstar_source_path())
        .arg(bundle.path())
        .env("OPENAI_BASE_URL", emu.base_url())
        .env("OPENAI_API_KEY", "test-key")
        .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let seen: Value = serde_json::from_slice(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(seen["requests"], 2, "{seen}");
    assert_eq!(seen["downloaded"].as_array().unwrap().len(), 6, "{seen}");
    assert_eq!(
        seen["final_output"],
        "Done: the six artifacts are in /mnt/data."
    );
    let verify = Command::new(env!("CARGO_BIN_EXE_vouch"))
        .arg("verify")
        .arg(bundle.path())
        .arg("--source")
        .arg(northstar_source_path())
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify));
    emu.assert_nothing_left();
}
