"""vouch.audit: the rows of `vouch audit --out x.jsonl` as a pyarrow Table."""

from __future__ import annotations

import json
import shutil
import tarfile

import pytest

import vouch
from conftest import BUNDLE, SOURCE, defect_bundle, missing, need_module, run_cli, run_dir

EXPECTED_TYPES = {
    "run_id": "string_view",
    "path": "string_view",
    "label": "string_view",
    "trial": "uint32",
    "model": "string_view",
    "source_file": "string_view",
    "source_sha256": "string_view",
    "verdict": "string_view",
    "check": "string_view",
    "family": "string_view",
    "status": "string_view",
    "findings": "uint32",
    "message": "string_view",
    "first_pass_verdict": "string_view",
    "repair_rounds": "uint32",
}


@pytest.fixture()
def runs(tmp_path):
    """Two run directories (one rejected), a bare bundle and an archive of a third run."""
    root = tmp_path / "runs"
    root.mkdir()
    run_dir(root, "run_a")
    run_dir(root, "run_b", bundle=defect_bundle("memo.kpi_value", tmp_path))
    shutil.copytree(defect_bundle("metrics.value", tmp_path), root / "bare")
    packed = run_dir(tmp_path, "run_c")
    with tarfile.open(root / "archived.tar.gz", "w:gz") as tar:
        tar.add(packed, arcname="run_c")
    return root


def cli_rows(*args):
    out = args[-1]
    done = run_cli("audit", *args[:-1], "--no-cache", "--out", out)
    return done, [json.loads(line) for line in open(out)]


def key(row):
    return (row["path"], row["check"])


def test_the_table_is_the_cli_results_file_row_for_row(runs, tmp_path):
    need_module("pyarrow")
    table = vouch.audit([runs], source=SOURCE)
    done, expected = cli_rows(runs, "--source", SOURCE, tmp_path / "out.jsonl")
    assert done.returncode == 1, done.stderr  # a run was rejected
    assert table.column_names == [c for c, _ in vouch.AUDIT_COLUMNS]
    assert {f.name: str(f.type) for f in table.schema} == EXPECTED_TYPES
    rows = table.to_pylist()
    assert len(rows) == len(expected) > 0
    assert sorted(rows, key=key) == sorted(expected, key=key)
    verdicts = {r["path"]: r["verdict"] for r in rows}
    assert verdicts[str(runs / "run_a")] == "accept"
    assert verdicts[str(runs / "run_b")] == "reject"
    assert verdicts[str(runs / "bare")] == "reject"
    assert verdicts[f"{runs / 'archived.tar.gz'}!run_c"] == "accept"
    assert {r["run_id"] for r in rows} >= {"run_a", "run_b", "run_c"}


def test_the_table_has_the_columns_and_types_of_the_cli_parquet_file(runs, tmp_path):
    need_module("pyarrow")
    import pyarrow.parquet as pq

    out = tmp_path / "out.parquet"
    done = run_cli("audit", runs, "--source", SOURCE, "--no-cache", "--out", out)
    if "without the `tables` feature" in done.stderr:
        missing("the wheel's `vouch` was built without the `tables` feature (python/build_wheel.sh builds it with)")
    assert done.returncode == 1, done.stderr
    written = pq.read_table(out)
    table = vouch.audit(runs, source=SOURCE)
    assert table.schema.equals(written.schema.remove_metadata())
    assert written.schema.remove_metadata().equals(vouch.audit_schema())
    assert sorted(table.to_pylist(), key=key) == sorted(written.to_pylist(), key=key)


def test_a_bundle_without_a_source_is_an_error_row(tmp_path):
    need_module("pyarrow")
    bare = defect_bundle("metrics.value", tmp_path)
    table = vouch.audit(bare)
    done, expected = cli_rows(bare, tmp_path / "out.jsonl")
    assert table.to_pylist() == expected
    assert [r["check"] for r in expected] == ["run.error"]
    assert expected[0]["message"] == "a bare bundle needs --source"


def test_as_polars(runs):
    polars = need_module("polars")
    frame = vouch.audit(runs, source=SOURCE, as_polars=True)
    assert isinstance(frame, polars.DataFrame)
    assert frame.columns == [c for c, _ in vouch.AUDIT_COLUMNS]
    assert frame.height == vouch.audit(runs, source=SOURCE).num_rows


def test_the_cache_gives_the_same_rows(runs, tmp_path):
    need_module("pyarrow")
    cache = tmp_path / "cache"
    first = vouch.audit(runs, source=SOURCE, cache=cache).to_pylist()
    again = vouch.audit(runs, source=SOURCE, cache=cache).to_pylist()
    assert any(cache.rglob("*"))
    assert sorted(first, key=key) == sorted(again, key=key)


def test_a_run_found_twice_is_counted_once_with_a_warning(tmp_path):
    need_module("pyarrow")
    root = tmp_path / "runs"
    root.mkdir()
    run = run_dir(root, "run_twice")
    with tarfile.open(root / "copy.tar.gz", "w:gz") as tar:
        tar.add(run, arcname="run_twice")
    with pytest.warns(UserWarning, match="run `run_twice` found twice"):
        table = vouch.audit(root)
    done, expected = cli_rows(root, tmp_path / "out.jsonl")
    assert "found twice" in done.stderr
    assert table.num_rows == len(expected)
    assert len({r["path"] for r in table.to_pylist()}) == 1


def test_audit_errors_carry_the_cli_messages(tmp_path):
    need_module("pyarrow")
    nowhere = tmp_path / "nowhere"
    with pytest.raises(vouch.VouchError) as raised:
        vouch.audit(nowhere)
    done = run_cli("audit", nowhere)
    assert done.returncode == 2
    assert done.stderr == f"vouch: error: {raised.value}\n"
    missing = tmp_path / "missing.csv"
    with pytest.raises(vouch.VouchError) as raised:
        vouch.audit(BUNDLE, source=missing)
    done = run_cli("audit", BUNDLE, "--source", missing)
    assert done.returncode == 2
    assert done.stderr == f"vouch: error: {raised.value}\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(vouch.VouchError) as raised:
        vouch.audit(empty)
    done = run_cli("audit", empty, "--no-cache")
    assert done.returncode == 2
    # The CLI says this one without `error: ` (it is its summary): the same words.
    assert done.stderr == f"vouch audit: {raised.value}\n"
