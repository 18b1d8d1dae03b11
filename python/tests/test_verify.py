"""vouch.verify and its Report against the CLI of the same wheel."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

import vouch
from conftest import BUNDLE, SOURCE, defect_bundle, run_cli, run_dir

FINDING_STATUSES = ("fail", "warn", "info")


def cli_json(*args) -> tuple[int, str]:
    done = run_cli("verify", *args, "--format", "json")
    return done.returncode, done.stdout


def test_the_northstar_bundle_is_accepted_as_the_cli_accepts_it():
    report = vouch.verify(str(BUNDLE), str(SOURCE))
    assert report.verdict == "accept"
    assert report.accepted is True
    code, text = cli_json(BUNDLE, "--source", SOURCE)
    assert code == 0
    assert report.to_json() == text
    assert report.to_dict() == json.loads(text)
    assert report.coverage == json.loads(text)["coverage"]
    assert report.coverage["investment_analysis.md"]["contradicted"] == 0
    assert all(f.status == "info" for f in report.findings)
    assert "accept" in repr(report)


def test_paths_may_be_pathlike():
    assert vouch.verify(BUNDLE, SOURCE).to_json() == vouch.verify(str(BUNDLE), str(SOURCE)).to_json()


def test_a_defect_is_rejected_with_the_findings_of_the_cli_json(tmp_path):
    bundle = defect_bundle("metrics.value", tmp_path)
    report = vouch.verify(bundle, SOURCE)
    assert report.verdict == "reject"
    assert not report.accepted
    code, text = cli_json(bundle, "--source", SOURCE)
    assert code == 1
    assert report.to_json() == text
    expected = [e for e in json.loads(text)["checks"] if e["status"] in FINDING_STATUSES]
    assert [f.to_dict() for f in report.findings] == expected
    value = next(f for f in report.findings if f.id == "metrics.value")
    assert value.status == "fail"
    assert value.artifact == "calculated_metrics.csv"
    assert value.location == {"column": "gross_margin", "line": 3, "row": 2, "year": 2022}
    assert value.printed == "0.7166"
    assert value.interval == (0.71655, 0.71665)
    assert value.recomputed == pytest.approx(0.7156202)
    assert value.formula == "gross_profit / revenue"


def test_a_removed_artifact_is_rejected(tmp_path):
    bundle = defect_bundle("bundle.missing", tmp_path)
    report = vouch.verify(bundle, SOURCE)
    assert report.verdict == "reject"
    assert any(f.id == "bundle.missing" and f.status == "fail" for f in report.findings)
    assert report.to_json() == cli_json(bundle, "--source", SOURCE)[1]


def test_source_name_renames_the_source_as_the_cli_does(tmp_path):
    copy = tmp_path / "my-copy.csv"
    copy.write_bytes(SOURCE.read_bytes())
    wrong = vouch.verify(BUNDLE, copy)
    right = vouch.verify(BUNDLE, copy, source_name=SOURCE.name)
    assert not wrong.accepted
    assert right.accepted
    assert wrong.to_json() == cli_json(BUNDLE, "--source", copy)[1]
    assert right.to_json() == cli_json(BUNDLE, "--source", copy, "--source-name", SOURCE.name)[1]


def test_a_run_directory_is_verified_against_its_own_source_copy(tmp_path):
    run = run_dir(tmp_path, "run_20261201T000000Z_0000abcd")
    report = vouch.verify(run)
    assert report.accepted
    code, text = cli_json(run)
    assert code == 0
    assert report.to_json() == text


def test_the_html_report_is_the_cli_page_and_displays_in_an_iframe(tmp_path):
    bundle = defect_bundle("metrics.value", tmp_path)
    report = vouch.verify(bundle, SOURCE)
    page = report.to_html()
    done = run_cli("verify", bundle, "--source", SOURCE, "--format", "html")
    assert done.returncode == 1
    assert page == done.stdout
    assert page.lstrip().lower().startswith("<!doctype html>")
    shown = report._repr_html_()
    m = re.fullmatch(r'<iframe [^>]*srcdoc="([^"]*)"></iframe>', shown, re.S)
    assert m, shown[:200]
    # The whole page, escaped into the attribute: nothing of it is markup of the notebook.
    assert html.unescape(m.group(1)) == page
    assert "<style" not in shown and "<script" not in shown.lower()
    assert 'sandbox=""' in shown


def test_text_and_markdown_are_the_cli_formats(tmp_path):
    bundle = defect_bundle("metrics.value", tmp_path)
    report = vouch.verify(bundle, SOURCE)
    assert report.to_text() == run_cli("verify", bundle, "--source", SOURCE).stdout
    assert report.to_text(verbose=True) == run_cli("verify", bundle, "--source", SOURCE, "--verbose").stdout
    assert report.to_markdown() == run_cli("verify", bundle, "--source", SOURCE, "-f", "markdown").stdout
    assert str(report) == report.to_text()


def _same_error(api_call, *cli_args):
    """The API raises VouchError with exactly the message the CLI prints (exit 2)."""
    with pytest.raises(vouch.VouchError) as raised:
        api_call()
    done = run_cli(*cli_args)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"vouch: error: {raised.value}\n"
    return str(raised.value)


def test_errors_carry_the_cli_messages_byte_for_byte(tmp_path):
    msg = _same_error(lambda: vouch.verify(BUNDLE), "verify", BUNDLE)
    assert "is a bundle, not a run directory" in msg
    missing = tmp_path / "missing.csv"
    msg = _same_error(lambda: vouch.verify(BUNDLE, missing), "verify", BUNDLE, "--source", missing)
    assert msg.startswith(f"cannot read source `{missing}`")
    nowhere = tmp_path / "nowhere"
    msg = _same_error(lambda: vouch.verify(nowhere, SOURCE), "verify", nowhere, "--source", SOURCE)
    assert msg == f"bundle directory `{nowhere}` does not exist"
    _same_error(
        lambda: vouch.verify(BUNDLE, SOURCE, source_name="../x.csv"),
        "verify", BUNDLE, "--source", SOURCE, "--source-name", "../x.csv",
    )
    no_spec = tmp_path / "spec.toml"
    msg = _same_error(
        lambda: vouch.verify(BUNDLE, SOURCE, spec=no_spec),
        "verify", BUNDLE, "--source", SOURCE, "--spec", no_spec,
    )
    assert msg.startswith(f"cannot read spec `{no_spec}`")
    bad_spec = tmp_path / "bad.toml"
    bad_spec.write_text("this is = = not toml\n")
    msg = _same_error(
        lambda: vouch.verify(BUNDLE, SOURCE, spec=bad_spec),
        "verify", BUNDLE, "--source", SOURCE, "--spec", bad_spec,
    )
    assert msg.startswith(f"invalid spec `{bad_spec}`")
    tampered = run_dir(tmp_path, "run_tampered", sha256="0" * 64)
    msg = _same_error(lambda: vouch.verify(tampered), "verify", tampered)
    assert "does not match the sha256 recorded in run.json" in msg


def test_vouch_error_is_an_exception_and_pickles():
    import pickle

    assert issubclass(vouch.VouchError, Exception)
    e = pickle.loads(pickle.dumps(vouch.VouchError("x")))
    assert type(e) is vouch.VouchError and str(e) == "x"
