"""An audit on a Dask cluster: ``vouch.dask.audit(paths, client, out="results/")``.

The client finds the runs (run directories, bare bundles, archives: what ``vouch audit`` finds),
splits them into batches and submits one task per batch; each worker imports ``vouch``, audits
its batch in-process and writes one Parquet file of the results table (the columns of
``vouch audit --out``, one row per run and check) into ``out``. ``out`` is then a Parquet
dataset (``pyarrow.dataset.dataset(out)``, ``pandas.read_parquet(out)``, DuckDB's
``read_parquet('out/*.parquet')``). The workers must be able to read the runs and write ``out``
(one machine, or a shared file system).
"""

from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _audit_native, _native, _opt_path, _path, _pyarrow, audit_schema
from ._errors import VouchError

__all__ = ["audit", "AuditSummary"]

StrPath = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class AuditSummary:
    """What :func:`audit` did: runs verified (each counted once), their verdicts, the rows and
    files of the results dataset, and how long it took."""

    runs: int
    accepted: int
    rejected: int
    errors: int
    rows: int
    files: Tuple[str, ...]
    batches: int
    seconds: float

    @property
    def runs_per_second(self) -> float:
        return self.runs / self.seconds if self.seconds > 0 else float("inf")


def _audit_batch(
    index: int,
    units: List[str],
    source: Optional[str],
    spec: Optional[str],
    out: str,
) -> Dict[str, Any]:
    """One task: audit `units` and write `out/part-<index>.parquet` (runs on a worker)."""
    pa = _pyarrow()
    import pyarrow.parquet as pq

    result = _audit_native(units, source, spec, False)
    cols = result["columns"]
    table = pa.Table.from_pydict(cols, schema=audit_schema())
    path = os.path.join(out, f"part-{index:05d}.parquet")
    pq.write_table(table, path)
    # (run_id, path, verdict) per run, in the order of its rows, so that the client can count
    # a run found in two batches once.
    runs: List[Tuple[str, str, str]] = []
    last = None
    for run_id, where, verdict in zip(cols["run_id"], cols["path"], cols["verdict"]):
        if (run_id, where) != last:
            runs.append((run_id, where, verdict))
            last = (run_id, where)
    return {"file": path, "rows": table.num_rows, "runs": runs}


def audit(
    paths: Union[StrPath, Sequence[StrPath]],
    client: Any,
    *,
    out: StrPath,
    source: Optional[StrPath] = None,
    spec: Optional[StrPath] = None,
    batch_size: Optional[int] = None,
) -> AuditSummary:
    """Audit ``paths`` on the cluster behind ``client`` (a ``distributed.Client``) and write the
    results dataset to the directory ``out`` (created; it must be empty or absent).

    ``source`` is the CSV for bare bundles and runs without a source copy, as for
    ``vouch audit --source``. ``batch_size`` is the number of runs (directories or archives) per
    task; by default about four tasks per worker thread. A run found twice (a folder and an
    archive of it) is counted once, as ``vouch audit`` counts it: the later batch's rows of it
    are dropped from its file. Finding nothing raises :class:`vouch.VouchError`, as the CLI
    exits 2."""
    started = time.perf_counter()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [_path(p) for p in paths]
    source, spec = _opt_path(source), _opt_path(spec)
    out = os.path.abspath(_path(out))
    units = [os.fspath(u) for u in _native.discover_units(paths, spec)]
    if not units:
        raise VouchError(
            "nothing to verify: no run directory, bundle or archive holding one was found in "
            + ", ".join(f"`{p}`" for p in paths)
        )
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise VouchError(f"`{out}`: the results dataset directory must be empty or absent")
    os.makedirs(out, exist_ok=True)

    if batch_size is None:
        threads = sum(client.nthreads().values()) or 1
        batch_size = max(1, math.ceil(len(units) / (4 * threads)))
    batches = [units[i : i + batch_size] for i in range(0, len(units), batch_size)]
    futures = [
        client.submit(_audit_batch, i, batch, source, spec, out, pure=False)
        for i, batch in enumerate(batches)
    ]
    results = client.gather(futures)

    seen: Dict[str, str] = {}
    accepted = rejected = errors = rows = 0
    for result in results:
        dropped = set()
        for run_id, where, verdict in result["runs"]:
            if run_id != where:
                if run_id in seen:
                    dropped.add(where)
                    first, second = sorted((seen[run_id], where))
                    warnings.warn(
                        f"run `{run_id}` found twice, at `{first}` and `{second}`; counted once",
                        stacklevel=2,
                    )
                    continue
                seen[run_id] = where
            accepted += verdict == "accept"
            rejected += verdict == "reject"
            errors += verdict == "error"
        rows += result["rows"] - _drop_paths(result["file"], dropped)
    return AuditSummary(
        runs=accepted + rejected + errors,
        accepted=accepted,
        rejected=rejected,
        errors=errors,
        rows=rows,
        files=tuple(r["file"] for r in results),
        batches=len(batches),
        seconds=time.perf_counter() - started,
    )


def _drop_paths(file: str, dropped: set) -> int:
    """Rewrites `file` without the rows of the runs found at `dropped`; the rows removed."""
    if not dropped:
        return 0
    pa = _pyarrow()
    import pyarrow.parquet as pq

    table = pq.read_table(file, schema=audit_schema())
    # (pyarrow's `is_in` has no string_view kernel.)
    keep = pa.array([p not in dropped for p in table["path"].to_pylist()], pa.bool_())
    kept = table.filter(keep)
    pq.write_table(kept, file)
    return table.num_rows - kept.num_rows
