"""vouch: independently verify what an AI financial-analyst agent produced.

    import vouch
    report = vouch.verify("financial_analysis_output", "financial_data/statements.csv")
    report.accepted        # True / False
    report                 # in Jupyter: the HTML report

``verify`` decides exactly as ``vouch verify BUNDLE --source FILE`` (or ``vouch verify RUN_DIR``)
does, with the same library code; ``audit`` gives the rows of ``vouch audit --out`` as a pyarrow
Table; ``vouch.dask.audit`` runs an audit on a Dask cluster. Errors raise ``VouchError`` with the
message the CLI prints after ``vouch: error: ``.
"""

from __future__ import annotations

import html as _html
import json as _json
import os
import warnings as _warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import VouchError

__all__ = ["verify", "audit", "Report", "Finding", "VouchError", "AUDIT_COLUMNS", "__version__"]
__version__: str = _native.__version__

StrPath = Union[str, "os.PathLike[str]"]

# The statuses of the report's entries that are findings (the others are `pass` and `skipped`).
_FINDING_STATUSES = ("fail", "warn", "info")


@dataclass(frozen=True)
class Finding:
    """One finding of a report: an entry of the JSON report's ``checks`` whose status is
    ``fail``, ``warn`` or ``info``, with its number details when it has them."""

    id: str
    status: str
    message: str
    artifact: Optional[str] = None
    location: Optional[Dict[str, Any]] = None
    printed: Optional[str] = None
    interval: Optional[Tuple[float, float]] = None
    interval_text: Optional[Tuple[str, str]] = None
    recomputed: Optional[float] = None
    recomputed_interval: Optional[Tuple[float, float]] = None
    recomputed_text: Optional[str] = None
    k: Optional[float] = None
    formula: Optional[str] = None
    variant: Optional[str] = None
    scale: Optional[str] = None
    reason: Optional[str] = None
    #: Any field a later report version adds.
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, entry: Dict[str, Any]) -> "Finding":
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        kwargs = {k: v for k, v in entry.items() if k in known}
        for pair in ("interval", "interval_text", "recomputed_interval"):
            if isinstance(kwargs.get(pair), list):
                kwargs[pair] = tuple(kwargs[pair])
        extra = {k: v for k, v in entry.items() if k not in known}
        return cls(**kwargs, extra=extra)

    def to_dict(self) -> Dict[str, Any]:
        """The entry as the JSON report has it (fields that are not set are left out)."""
        out: Dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            if name == "extra":
                continue
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        out.update(self.extra)
        return dict(sorted(out.items()))


class Report:
    """The result of :func:`verify`. ``to_json()`` is the CLI's ``--format json`` text,
    ``to_html()`` its ``--format html`` page; in Jupyter the report displays as that page."""

    __slots__ = ("_native", "_dict")

    def __init__(self, native: "_native.NativeReport") -> None:
        self._native = native
        self._dict: Optional[Dict[str, Any]] = None

    @property
    def verdict(self) -> str:
        """``"accept"`` or ``"reject"``."""
        return self._native.verdict()

    @property
    def accepted(self) -> bool:
        return self.verdict == "accept"

    @property
    def findings(self) -> List[Finding]:
        """The fail, warn and info findings, in the report's order."""
        return [
            Finding.from_dict(e)
            for e in self.to_dict()["checks"]
            if e.get("status") in _FINDING_STATUSES
        ]

    @property
    def checks(self) -> List[Dict[str, Any]]:
        """Every entry of the JSON report's ``checks``: the findings, then one entry per check
        that passed or was skipped."""
        return self.to_dict()["checks"]

    @property
    def coverage(self) -> Dict[str, Dict[str, int]]:
        """Per artifact (the memo, the chart): numbers verified, contradicted, unverified."""
        return self.to_dict()["coverage"]

    @property
    def summary(self) -> Dict[str, Any]:
        return self.to_dict()["summary"]

    def to_json(self) -> str:
        """Exactly the text of ``vouch verify … --format json``."""
        return self._native.json()

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report as a dict (schema ``vouch.report`` v2)."""
        if self._dict is None:
            self._dict = _json.loads(self._native.json())
        return _json.loads(_json.dumps(self._dict))

    def to_html(self) -> str:
        """Exactly the page of ``vouch verify … --format html`` (self-contained, no script)."""
        return self._native.html()

    def to_text(self, *, verbose: bool = False, max_findings: Optional[int] = None) -> str:
        """The human report the CLI prints (without colour)."""
        return self._native.human(verbose, max_findings)

    def to_markdown(self) -> str:
        """The text of ``vouch verify … --format markdown``."""
        return self._native.markdown()

    def _repr_html_(self) -> str:
        # The page inside an iframe's srcdoc: its stylesheet styles only the report, not the
        # notebook around it, and its Content-Security-Policy applies (docs/decisions.md).
        page = self.to_html()
        return (
            '<iframe class="vouch-report" sandbox="" '
            'style="width:100%;height:640px;border:1px solid #ccc" '
            f'title="vouch report: {self.verdict}" srcdoc="{_html.escape(page, quote=True)}">'
            "</iframe>"
        )

    def __repr__(self) -> str:
        s = self.summary
        bundle = self.to_dict().get("bundle", "")
        return (
            f"<vouch.Report {self.verdict} {bundle!r}: {s.get('fail', 0)} fail, "
            f"{s.get('warn', 0)} warn, {s.get('info', 0)} info>"
        )

    def __str__(self) -> str:
        return self.to_text()


def verify(
    bundle: StrPath,
    source: Optional[StrPath] = None,
    *,
    source_name: Optional[str] = None,
    spec: Optional[StrPath] = None,
) -> Report:
    """Verify a bundle (the six artifacts) against your copy of the source CSV, or a run
    directory (``run.json``, ``bundle/``, ``source/``) against its own checked copy.

    As ``vouch verify BUNDLE --source SOURCE [--source-name NAME] [--spec SPEC]``: a reject is a
    report with ``accepted == False``; what cannot be verified raises :class:`VouchError`."""
    return Report(
        _native.verify(
            _path(bundle), _opt_path(source), source_name, _opt_path(spec)
        )
    )


#: The columns of ``vouch audit --out`` (one row per run and check), in order, with their
#: Arrow types (what polars writes to ``--out x.parquet``).
AUDIT_COLUMNS: Tuple[Tuple[str, str], ...] = (
    ("run_id", "string_view"),
    ("path", "string_view"),
    ("label", "string_view"),
    ("trial", "uint32"),
    ("model", "string_view"),
    ("source_file", "string_view"),
    ("source_sha256", "string_view"),
    ("verdict", "string_view"),
    ("check", "string_view"),
    ("family", "string_view"),
    ("status", "string_view"),
    ("findings", "uint32"),
    ("message", "string_view"),
    ("first_pass_verdict", "string_view"),
    ("repair_rounds", "uint32"),
)


def _pyarrow():
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - exercised without pyarrow only
        raise ImportError(
            "vouch.audit returns a pyarrow Table: install pyarrow (pip install pyarrow, or "
            "pip install 'vouch[arrow]')"
        ) from e
    return pyarrow


def audit_schema():
    """The pyarrow schema of the audit's results table."""
    pa = _pyarrow()
    types = {"string_view": pa.string_view(), "uint32": pa.uint32()}
    return pa.schema([(name, types[t]) for name, t in AUDIT_COLUMNS])


def _audit_native(paths, source, spec, cache) -> Dict[str, Any]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if cache is True:
        cache_dir: Optional[str] = os.fspath(_native.default_cache_dir())
    elif cache is False or cache is None:
        cache_dir = None
    else:
        cache_dir = _path(cache)
    out = _native.audit([_path(p) for p in paths], _opt_path(source), _opt_path(spec), cache_dir)
    for w in out["warnings"]:
        _warnings.warn(w, stacklevel=3)
    return out


def audit(
    paths: Union[StrPath, Sequence[StrPath]],
    *,
    source: Optional[StrPath] = None,
    spec: Optional[StrPath] = None,
    cache: Union[bool, StrPath] = False,
    as_polars: bool = False,
):
    """Verify many runs and bundles (directories, searched recursively, and .zip/.tar.gz
    archives), as ``vouch audit PATHS --source SOURCE --out FILE``: one row per (run, check)
    with the columns of ``--out`` (:data:`AUDIT_COLUMNS`), as a pyarrow Table (a polars
    DataFrame with ``as_polars=True``).

    ``source`` is the CSV for bare bundles and runs without a source copy. ``cache`` is the
    verdict cache: off by default (a library call writes nothing unasked), ``True`` for the
    CLI's default directory, or a directory. Runs found twice are counted once (a warning says
    so); finding nothing to verify raises :class:`VouchError`, as the CLI exits 2."""
    pa = _pyarrow()
    out = _audit_native(paths, source, spec, cache)
    table = pa.Table.from_pydict(out["columns"], schema=audit_schema())
    if as_polars:
        try:
            import polars
        except ImportError as e:
            raise ImportError("as_polars=True needs polars: pip install polars") from e
        return polars.from_arrow(table)
    return table


def _path(p: StrPath) -> str:
    return os.fspath(p)


def _opt_path(p: Optional[StrPath]) -> Optional[str]:
    return None if p is None else os.fspath(p)
