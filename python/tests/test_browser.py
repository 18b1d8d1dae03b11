"""Every HTML report vouch writes, opened in a real browser (headless Chromium via Playwright).

Each test makes its page with the `vouch` command line (found as `VOUCH_BIN`, else `vouch` on
PATH, else `target/debug/vouch`; nothing is built here except the seeded runs' generator, see
`runs`), opens it over `file://`, writes a full-page screenshot to
`target/screenshots/<name>.png`, and asserts:

- no console error and no uncaught page error;
- no network request but the page's own file URL (and, after following a link, the linked
  report's) and `data:` URLs, and no failed request at all (docs/decisions.md, "Browser tests:
  what counts as a network request");
- the page's key elements (the `SELECTORS` table below) are present and visible, and what they
  show agrees with vouch's own JSON report of the same input.

Chromium is Debian's (`/usr/bin/chromium`, or `VOUCH_CHROMIUM`); Playwright never downloads a
browser here. Without Chromium, Playwright or a `vouch` binary the tests skip with the reason,
except under `VOUCH_CI=1`, where they fail.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# --- What the pages must show: the one place to adjust when a page renames something. ---------
SELECTORS = {
    # vouch verify --format html
    "verdict": "#verdict",
    "verdict_word": "#verdict .word",
    "coverage": "#coverage",
    "findings": "#findings",
    "chart_image": "#chart img",
    "chart_overlay": "#chart svg.overlay",
    "overlay_fail_mark": "#chart svg.overlay .mark[data-status=fail]",
    "memo": "#memo",
    # Marks on the memo's lines (the legend above the memo shows its counts in `mark.key`s).
    "memo_contradicted": "#memo .ln mark.fail",
    "metrics": "#metrics",
    "metrics_failing_cell": "#metrics td.fail",
    "movements": "#movements",
    # vouch audit --format html
    "accept_rate": "#accept-rate",
    "failing_checks": "#failing-checks",
    "worst_run_link": "#worst-runs a.run-report",
    # vouch compare --format html
    "forest": "#forest",
    "decision": "#decision",
}
# The attribute of an overlay mark that names its fiscal year.
MARK_YEAR_ATTRIBUTE = "data-year"
# Every verify page shows these.
VERIFY_SECTIONS = [
    "verdict",
    "coverage",
    "findings",
    "chart_image",
    "chart_overlay",
    "memo",
    "metrics",
    "movements",
]
# -----------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
NORTHSTAR_BUNDLE = FIXTURES / "northstar" / "bundle"
NORTHSTAR_SOURCE = FIXTURES / "northstar" / "northstar_cloud_financial_statements.csv"
SCREENSHOTS = ROOT / "target" / "screenshots"
CHROMIUM = Path(os.environ.get("VOUCH_CHROMIUM", "/usr/bin/chromium"))
# Headless, and with Chromium's own connections (component updates, sync, field trials, QUIC
# probes) turned off: on this closed network they would be refused and look like page requests.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IN_CI = os.environ.get("VOUCH_CI") == "1"


def unavailable(reason: str):
    """Skip outside CI; under VOUCH_CI=1 a missing tool is a failure."""
    if IN_CI:
        pytest.fail(f"{reason} (VOUCH_CI=1: browser tests may not skip)", pytrace=False)
    pytest.skip(reason)


# --- The vouch binary and the pages it writes ---------------------------------------------------


def find_vouch() -> Path | None:
    env = os.environ.get("VOUCH_BIN")
    if env:
        return Path(env)
    on_path = shutil.which("vouch")
    if on_path:
        return Path(on_path)
    local = ROOT / "target" / "debug" / "vouch"
    return local if local.is_file() else None


@pytest.fixture(scope="session")
def vouch_bin() -> Path:
    found = find_vouch()
    if found is None or not found.is_file():
        unavailable(
            f"no vouch binary (VOUCH_BIN={os.environ.get('VOUCH_BIN')!r}, none on PATH, "
            f"no {ROOT / 'target/debug/vouch'}): build it with `cargo build`"
        )
    return found.resolve()


@pytest.fixture(scope="session")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("browser")


def run_vouch(
    vouch_bin: Path, work: Path, args: list[str], ok=(0, 1), cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """Runs vouch; exit codes in `ok` are its verdicts (0 accept / not worse, 1 reject / worse,
    3 inconclusive for compare); anything else is a failure that shows vouch's stderr. HOME and
    XDG_CACHE_HOME point into the session's temp dir so no user cache is read or written."""
    env = dict(os.environ, NO_COLOR="1", HOME=str(work), XDG_CACHE_HOME=str(work / "cache"))
    done = subprocess.run(
        [str(vouch_bin), *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )
    if done.returncode not in ok:
        pytest.fail(
            f"vouch {' '.join(args)} exited {done.returncode}:\n{done.stderr}{done.stdout[:2000]}",
            pytrace=False,
        )
    return done


def overlay_defect(bundle: Path, defect: str) -> None:
    """Applies `fixtures/defects/<defect>/` to `bundle` as tests/it/defects.rs does: its files
    replace the bundle's, `remove.txt` lists artifacts to drop. Fixtures that also replace the
    source are not used here."""
    directory = FIXTURES / "defects" / defect
    for item in sorted(directory.iterdir()):
        if item.name in ("expect.txt", "README.md", "report.txt"):
            continue
        if item.name in ("source.csv", "source_name.txt"):
            raise AssertionError(f"{defect} replaces the source; pick a bundle-only defect")
        if item.name == "remove.txt":
            for name in item.read_text().split():
                (bundle / name).unlink()
            continue
        shutil.copyfile(item, bundle / item.name)


def make_bundle(work: Path, name: str, defects: list[str]) -> Path:
    bundle = work / "bundles" / name
    shutil.rmtree(bundle, ignore_errors=True)
    shutil.copytree(NORTHSTAR_BUNDLE, bundle)
    for defect in defects:
        overlay_defect(bundle, defect)
    return bundle


def verify_page(vouch_bin: Path, work: Path, bundle: Path, name: str) -> tuple[Path, dict]:
    """The HTML report of `bundle` (under `work`) against the Northstar source, and vouch's JSON
    report of it. vouch runs in `work` with relative paths, so the page names the bundle and the
    source as a user's would (`bundles/NAME`, the source's own file name)."""
    page = work / "pages" / f"{name}.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    source = work / NORTHSTAR_SOURCE.name
    if not source.exists():
        shutil.copyfile(NORTHSTAR_SOURCE, source)
    common = ["verify", str(bundle.relative_to(work)), "--source", source.name]
    run_vouch(vouch_bin, work, [*common, "--format", "html", "--output", str(page)], cwd=work)
    report = json.loads(run_vouch(vouch_bin, work, [*common, "--format", "json"], cwd=work).stdout)
    return page, report


def failing(report: dict, check_id: str) -> list[dict]:
    return [c for c in report["checks"] if c["id"] == check_id and c["status"] == "fail"]


# --- Seeded runs for audit and compare -----------------------------------------------------------

# Two labelled groups of runs: (label, runs, seed, percent of runs given a defect).
RUN_GROUPS = [("v1", 30, 1, 20), ("v2", 30, 2, 70)]


def cargo_target_of(binary: Path) -> tuple[Path, str] | None:
    """(target dir, profile) when `binary` is this checkout's cargo build (`…/target/debug/vouch`
    or `…/target/release/vouch` beside a Cargo.toml naming the workspace)."""
    profile_dir = binary.parent
    target = profile_dir.parent
    if profile_dir.name not in ("debug", "release") or not (target / "CACHEDIR.TAG").exists():
        return None
    if not (ROOT / "Cargo.toml").is_file() or shutil.which("cargo") is None:
        return None
    return target, profile_dir.name


def generate_with_cargo(target: Path, profile: str, root: Path) -> None:
    """`cargo run --example generate_runs -- DIR N SEED LABEL RATE` per group, once per session."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    for label, runs, seed, rate in RUN_GROUPS:
        cmd = ["cargo", "run", "--quiet", "--example", "generate_runs"]
        if profile == "release":
            cmd.append("--release")
        cmd += ["--", str(root / label), str(runs), str(seed), label, str(rate)]
        done = subprocess.run(
            cmd, check=False, cwd=ROOT, capture_output=True, text=True, env=env, timeout=1200
        )
        if done.returncode != 0:
            pytest.fail(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}", pytrace=False)


# Bundle-only defects for runs made without cargo (fixtures/ holds no committed runs).
RUN_DEFECTS = [
    "metrics.value",
    "memo.contradicted_number",
    "movements.change",
    "manifest.row_count",
    "svg.fidelity-bar-too-tall",
]


def generate_from_fixtures(root: Path) -> None:
    """The same layout as `generate_runs` (docs/runs.md: run.json, bundle/, source/), made from
    the committed Northstar bundle and defect fixtures, for a `vouch` that is not this checkout's
    cargo build (an installed wheel, say), where no generator binary is at hand."""
    source_sha = hashlib.sha256(NORTHSTAR_SOURCE.read_bytes()).hexdigest()
    for label, runs, seed, rate in RUN_GROUPS:
        for i in range(runs):
            run_id = f"run_{label}_{i:06}"
            run = root / label / run_id
            (run / "source").mkdir(parents=True)
            shutil.copytree(NORTHSTAR_BUNDLE, run / "bundle")
            shutil.copyfile(NORTHSTAR_SOURCE, run / "source" / NORTHSTAR_SOURCE.name)
            # Deterministic: run i is defective when its slot in 100 falls under the rate.
            defect = None
            if (i * 37 + seed * 11) % 100 < rate:
                defect = RUN_DEFECTS[(i + seed) % len(RUN_DEFECTS)]
                overlay_defect(run / "bundle", defect)
            record = {
                "schema": "vouch.run",
                "schema_version": 1,
                "run_id": run_id,
                "label": label,
                "trial": i,
                "model": "fixtures",
                "prompt_sha256": f"{seed:064x}",
                "source": {"file_name": NORTHSTAR_SOURCE.name, "sha256": source_sha},
                "started_at": "2026-11-30T00:00:00Z",
                "finished_at": "2026-11-30T00:01:00Z",
                "status": "completed",
                "usage": {"input_tokens": 1000, "output_tokens": 500, "total_tokens": 1500},
                "defect": defect,
            }
            (run / "run.json").write_text(json.dumps(record, indent=2))


@pytest.fixture(scope="session")
def runs(vouch_bin: Path, work: Path) -> Path:
    """A runs root holding one directory per group of RUN_GROUPS (`v1/`, `v2/`)."""
    root = work / "runs"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    cargo = cargo_target_of(vouch_bin)
    if cargo is not None:
        generate_with_cargo(*cargo, root)
    else:
        generate_from_fixtures(root)
    return root


# --- The browser -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session, with a fresh user-data dir."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed (pip install playwright)")
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="vouch-chromium-")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@dataclass
class Visit:
    """One page opened in the browser, with everything it asked of the network and the console."""

    page: object
    allowed: set[str]
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def listen(self):
        ctx = self.page.context

        def on_request(request):
            self.requests.append(request.url)

        def on_failed(request):
            self.failed.append(f"{request.url}: {request.failure}")

        def on_console(message):
            if message.type == "error":
                self.errors.append(f"console: {message.text}")

        def on_pageerror(error):
            self.errors.append(f"page error: {error}")

        # Requests on the context: every page, frame and worker of the visit, not just the tab.
        ctx.on("request", on_request)
        ctx.on("requestfailed", on_failed)
        self.page.on("console", on_console)
        self.page.on("pageerror", on_pageerror)

        def off():
            ctx.remove_listener("request", on_request)
            ctx.remove_listener("requestfailed", on_failed)

        self._off = off

    def close(self):
        self._off()
        self.page.close()

    def assert_clean(self):
        """No console or page error, no request but `allowed` file URLs and data: URLs, none
        failed."""
        assert not self.errors, "\n".join(self.errors)
        foreign = [u for u in self.requests if not (u in self.allowed or u.startswith("data:"))]
        assert not foreign, f"requests other than the page itself: {foreign}"
        assert not self.failed, f"failed requests: {self.failed}"


@pytest.fixture
def visit(browser):
    opened = []

    def open_page(path: Path, name: str) -> Visit:
        v = Visit(page=browser.new_page(), allowed={path.resolve().as_uri()})
        opened.append(v)
        v.listen()
        response = v.page.goto(path.resolve().as_uri(), wait_until="networkidle")
        assert response is not None and response.ok, f"{path}: {response and response.status}"
        screenshot(v.page, name)
        return v

    yield open_page
    for v in opened:
        v.close()


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


# --- What every page must and must not hold -----------------------------------------------------


def shown(page, key: str):
    """The first element of SELECTORS[key], asserted present and visible."""
    selector = SELECTORS[key]
    found = page.locator(selector)
    assert found.count() > 0, f"{key}: no element matches `{selector}`"
    assert found.first.is_visible(), f"{key}: `{selector}` is present but not visible"
    return found.first


# Attributes that make a browser fetch or navigate.
URL_ATTRIBUTES = ["href", "xlink:href", "src", "srcset", "action", "formaction", "poster", "data"]


def assert_inert(page) -> None:
    """No script element, no `on*` handler attribute, no URL attribute that leaves the page but
    for `data:` and relative links (the audit's run reports), no `javascript:`."""
    assert page.evaluate("document.scripts.length") == 0, "the page holds a <script> element"
    handlers = page.evaluate(
        """() => [...document.querySelectorAll('*')].flatMap(e =>
              [...e.attributes].filter(a => /^on/i.test(a.name))
                               .map(a => `<${e.localName} ${a.name}="${a.value}">`))"""
    )
    assert handlers == [], f"event-handler attributes: {handlers}"
    urls = page.evaluate(
        """(names) => [...document.querySelectorAll('*')].flatMap(e =>
              [...e.attributes].filter(a => names.includes(a.name))
                               .map(a => [e.localName, a.name, a.value]))""",
        URL_ATTRIBUTES,
    )

    def stays(value: str) -> bool:
        parts = urllib.parse.urlsplit(value.strip())
        return value.startswith(("data:", "#")) or (parts.scheme == "" and parts.netloc == "")

    leaving = [u for u in urls if not stays(u[2])]
    assert leaving == [], f"URL attributes that leave the page: {leaving}"


def assert_chart_decoded(page) -> str:
    """The chart image is a base64 SVG data: URL that the browser decoded; returns the SVG."""
    image = shown(page, "chart_image")
    src = image.get_attribute("src") or ""
    prefix = "data:image/svg+xml;base64,"
    assert src.startswith(prefix), f"chart image src starts {src[:60]!r}"
    assert image.evaluate("img => img.complete && img.naturalWidth > 0"), "chart image not decoded"
    return base64.b64decode(src[len(prefix) :]).decode("utf-8")


def assert_verify_page(page, report: dict) -> None:
    for key in VERIFY_SECTIONS:
        shown(page, key)
    word = (shown(page, "verdict").text_content() or "").lower()
    other = {"accept": "reject", "reject": "accept"}[report["verdict"]]
    assert report["verdict"] in word and other not in word, f"#verdict says {word!r}"
    assert_chart_decoded(page)
    assert_inert(page)


# --- The pages -----------------------------------------------------------------------------------


def test_verify_accepted_bundle(vouch_bin, work, visit):
    bundle = make_bundle(work, "northstar", [])
    page_file, report = verify_page(vouch_bin, work, bundle, "verify-accepted")
    assert report["verdict"] == "accept"
    v = visit(page_file, "verify-accepted")
    assert_verify_page(v.page, report)
    fails = v.page.locator(
        ", ".join(
            SELECTORS[k] for k in ("overlay_fail_mark", "memo_contradicted", "metrics_failing_cell")
        )
    )
    assert fails.count() == 0, "an accepted bundle's page marks a failure"
    v.assert_clean()


def test_verify_chart_that_misstates_one_bar(vouch_bin, work, visit):
    bundle = make_bundle(work, "misstated-bar", ["svg.fidelity-bar-too-tall"])
    page_file, report = verify_page(vouch_bin, work, bundle, "verify-misstated-bar")
    misstated = failing(report, "svg.fidelity")
    assert report["verdict"] == "reject" and len(misstated) == 1, report["checks"]
    year = misstated[0]["location"]["year"]
    v = visit(page_file, "verify-misstated-bar")
    assert_verify_page(v.page, report)
    shown(v.page, "overlay_fail_mark")
    marks = v.page.locator(SELECTORS["overlay_fail_mark"])
    years = [marks.nth(i).get_attribute(MARK_YEAR_ATTRIBUTE) for i in range(marks.count())]
    assert years == [str(year)], f"fail marks at years {years}, vouch's JSON names {year}"
    # The chart section on its own, where the one misstated bar is seen at a glance.
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    v.page.locator("#chart .chart").screenshot(path=str(SCREENSHOTS / "verify-misstated-bar-chart.png"))
    v.assert_clean()


def test_verify_contradicted_memo_number_and_wrong_metrics_cell(vouch_bin, work, visit):
    bundle = make_bundle(work, "memo-metrics", ["memo.contradicted_number", "metrics.value"])
    page_file, report = verify_page(vouch_bin, work, bundle, "verify-memo-metrics")
    assert failing(report, "memo.contradicted_number"), report["checks"]
    assert failing(report, "metrics.value"), report["checks"]
    v = visit(page_file, "verify-memo-metrics")
    assert_verify_page(v.page, report)
    # The memo says 2.96 % where the data's net margin is 2.69 %; the metrics file prints 0.7166
    # for a gross margin of 0.7156 (fixtures/defects/*/expect.txt).
    shown(v.page, "memo_contradicted")
    marked = v.page.locator(SELECTORS["memo_contradicted"]).all_text_contents()
    assert any("2.96" in m for m in marked), f"memo fail marks: {marked}"
    shown(v.page, "metrics_failing_cell")
    cells = v.page.locator(SELECTORS["metrics_failing_cell"]).all_text_contents()
    assert any("0.7166" in c for c in cells), f"metrics fail cells: {cells}"
    v.assert_clean()


HOSTILE_MEMO = """
<script>alert("memo")</script> <img src="https://example.com/pixel.png" onerror="alert(2)">
<a href="https://example.com/phish" onclick="alert(3)">details</a> <svg onload="alert(4)"></svg>
[the full report](https://example.com/report) ![logo](http://example.com/logo.png)
<iframe src="javascript:alert(5)"></iframe> <link rel="stylesheet" href="//example.com/x.css">
"""


def make_hostile_bundle(work: Path) -> Path:
    """The chart with a <script>, an onload= and an external image (the svg.script,
    svg.event_attribute and svg.external_href fixtures at once), the memo with markup that would
    run, fetch or navigate if it were not escaped."""
    bundle = make_bundle(work, "hostile", ["svg.script"])
    chart = bundle / "financial_trends.svg"
    text = chart.read_text()
    assert "<script>" in text
    text = text.replace("<svg ", '<svg onload="alert(1)" ', 1)
    external = (FIXTURES / "defects" / "svg.external_href" / "financial_trends.svg").read_text()
    image = next(line for line in external.splitlines() if "https://" in line and "<image" in line)
    text = text.replace("</svg>", image + "\n</svg>")
    chart.write_text(text)
    memo = bundle / "investment_analysis.md"
    lines = memo.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("## ")) + 2
    memo.write_text("".join(lines[:at]) + HOSTILE_MEMO + "".join(lines[at:]))
    return bundle


def test_verify_hostile_bundle_is_shown_inert(vouch_bin, work, visit):
    bundle = make_hostile_bundle(work)
    page_file, report = verify_page(vouch_bin, work, bundle, "verify-hostile")
    for check in ("svg.script", "svg.event_attribute", "svg.external_href"):
        assert failing(report, check), f"{check} did not fail: {report['checks']}"
    v = visit(page_file, "verify-hostile")
    assert_verify_page(v.page, report)
    chart = assert_chart_decoded(v.page)
    assert not re.search(r"<script|\son\w+\s*=|https?://example", chart), (
        "the chart's data: copy keeps the script, handler or external reference"
    )
    # The memo's markup is shown as text, not dropped and not live.
    memo = shown(v.page, "memo").text_content() or ""
    assert '<script>alert("memo")</script>' in memo, "the memo's <script> text is not shown"
    assert "https://example.com/phish" in memo
    v.assert_clean()


def test_audit_page_and_a_worst_run_report(vouch_bin, work, runs, visit):
    page_file = work / "pages" / "audit.html"
    page_file.parent.mkdir(parents=True, exist_ok=True)
    # --summary: the page (and its worst runs' reports in audit-reports/ beside it); --output
    # stays the results table.
    # Run from the runs root: the page names runs by short relative paths (`v1/run_v1_000003`).
    args = ["audit", *(label for label, *_ in RUN_GROUPS), "--no-cache"]
    args += ["--format", "html", "--summary", str(page_file)]
    run_vouch(vouch_bin, work, args, cwd=runs)
    v = visit(page_file, "audit")
    for key in ("accept_rate", "failing_checks", "worst_run_link"):
        shown(v.page, key)
    assert_inert(v.page)
    v.assert_clean()
    # Follow the first worst run's link: that run's own report opens, as cleanly.
    link = v.page.locator(SELECTORS["worst_run_link"]).first
    target = urllib.parse.urljoin(v.page.url, link.get_attribute("href") or "")
    assert target.startswith(page_file.parent.resolve().as_uri() + "/"), target
    v.allowed.add(target.split("#", 1)[0])
    with v.page.expect_navigation(wait_until="networkidle"):
        link.click()
    assert v.page.url == target, v.page.url
    screenshot(v.page, "audit-run-report")
    # A worst run failed checks: its full verify report, rejecting it.
    for key in VERIFY_SECTIONS:
        shown(v.page, key)
    word = (shown(v.page, "verdict").text_content() or "").lower()
    assert "reject" in word, f"the worst run's report says {word!r}"
    assert_inert(v.page)
    v.assert_clean()


def test_compare_page(vouch_bin, work, runs, visit):
    page_file = work / "pages" / "compare.html"
    page_file.parent.mkdir(parents=True, exist_ok=True)
    # Run from the runs root so the sides are named by their labels (`v1`, `v2`).
    args = ["compare", *(label for label, *_ in RUN_GROUPS)]
    args += ["--format", "html", "--output", str(page_file)]
    run_vouch(vouch_bin, work, args, ok=(0, 1, 3), cwd=runs)
    v = visit(page_file, "compare")
    shown(v.page, "forest")
    decision = (shown(v.page, "decision").text_content() or "").strip()
    assert decision, "#decision is empty"
    assert_inert(v.page)
    v.assert_clean()
