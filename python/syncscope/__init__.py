"""Syncscope from Python: PyTorch trace pairs, whole jobs and run diffs as pandas DataFrames.

Every function runs Syncscope's C++ pipeline -- the one ``syncscope --batch`` and the
inspector run -- with the GIL released, so the numbers are the JSON report's.
See docs/python.md for every function and column (times in microseconds).

    import syncscope
    t = syncscope.load(host="host.json.gz", device="device.json.gz")
    t.critical_path_summary()          # bound-by buckets of the first ProfilerStep
    t.events().query("kind == 'kernel'").nlargest(5, "dur")
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _syncscope as _c
from ._syncscope import AnalysisError, InputError, OutputError, UsageError
from ._hta import CPGraph, TraceAnalysis

__version__ = _c.__version__
__all__ = ["load", "load_job", "diff", "hang", "Trace", "Job", "Diff", "Hang", "WhatIf", "CPGraph", "TraceAnalysis",
           "UsageError", "InputError", "OutputError", "AnalysisError"]

PathLike = Union[str, "os.PathLike[str]"]
Progress = Union[None, bool, Callable[[str, float], Any]]


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame(columns)


def _progress(progress: Progress):
    """progress=True prints one line per stage on stderr; a callable gets (stage, fraction)."""
    if progress is True:
        last = [None]

        def show(stage: str, fraction: float) -> None:
            if last[0] is not None and stage != last[0]:
                sys.stderr.write("\n")  # one line per stage, redrawn in place
            last[0] = stage
            sys.stderr.write(f"\rsyncscope: {stage} {fraction * 100:5.1f} %")
            sys.stderr.flush()
        return show
    return progress or None


def _window_value(value: Union[int, str, Tuple[int, int]]) -> str:
    if isinstance(value, tuple):
        return f"{int(value[0])},{int(value[1])}"
    return str(value)


def _options(compat=None, hta_exact=False, hta_version=None, step=None, instance=None, annotation=None,
             zero_weight_launch_edges=False, rank=None) -> list:
    """Keyword options as the command line spells them: app/'s parser makes the request."""
    args = []
    if compat is not None:
        args += ["--compat", str(compat)]
    if hta_exact:
        args.append("--hta-exact")
    if hta_version is not None:
        args += ["--hta-version", str(hta_version)]
    if step is not None:
        args += ["--step", _window_value(step)]
    if instance is not None:
        args += ["--instance", _window_value(instance)]
    if annotation is not None:
        args += ["--annotation", str(annotation)]
    if zero_weight_launch_edges:
        args.append("--zero-weight-launch-edges")
    if rank is not None:
        args += ["--rank", str(rank)]
    return args


class WhatIf:
    """The projection of t.what_if(): the report's ``what_if`` object as attributes and frames."""

    def __init__(self, report: dict):
        self.report = report
        self.baseline_us: float = report["baseline_us"]
        self.projected_us: float = report["projected_us"]
        self.speedup: Optional[float] = report["speedup"]
        self.rules = pd.DataFrame(report["rules"], columns=["rule", "matched"])
        summary = report["critical_path"]["summary"]
        self.bound_by = pd.DataFrame({"bound_by": list(summary.keys()), "percent": list(summary.values())})
        self.top_moved = pd.DataFrame(report["top_moved"], columns=["name", "event", "baseline_start_us",
                                                                   "projected_start_us", "shift_us"])

    def __repr__(self) -> str:
        return f"<WhatIf {self.baseline_us:.1f} us -> {self.projected_us:.1f} us (speedup {self.speedup})>"


class Trace:
    """One analysed pair (or device trace). Made by syncscope.load()."""

    def __init__(self, impl, options: list):
        self._t = impl
        self._options = options
        self._paths: dict = {}
        info = impl.info()
        self.host: Optional[str] = info["host"]
        self.device: str = info["device"]
        self.rank: Optional[int] = info["rank"]
        self.exit_code: int = impl.exit_code

    def __repr__(self) -> str:
        return f"<syncscope.Trace device={self.device!r} host={self.host!r} exit_code={self.exit_code}>"

    def info(self) -> dict:
        """Inputs after detection, rank, exit code, timing, window and diagnostics."""
        return self._t.info()

    def diagnostics(self) -> pd.DataFrame:
        return pd.DataFrame(self._t.info()["diagnostics"], columns=["severity", "code", "message"])

    def events(self) -> pd.DataFrame:
        return _frame(self._t.events())

    def links(self) -> pd.DataFrame:
        return _frame(self._t.links())

    def sync_edges(self) -> pd.DataFrame:
        return _frame(self._t.sync_edges())

    def _path(self, step):
        key = None if step is None else int(step)
        if key not in self._paths:
            rows, summary, facts = self._t.critical_path(key)
            self._paths[key] = (rows, summary, facts)
        return self._paths[key]

    def critical_path(self, step: Optional[int] = None) -> pd.DataFrame:
        """Critical-path edges in path order (step=N: ProfilerStep#N; default: the loaded window).
        df.attrs holds weight_us, nodes, events and the window facts."""
        rows, _, facts = self._path(step)
        df = _frame(rows)
        df.attrs.update(facts)
        return df

    def critical_path_summary(self, step: Optional[int] = None) -> pd.DataFrame:
        """Bound-by buckets of that path: bound_by, percent, duration_us (the report's summary)."""
        _, summary, facts = self._path(step)
        df = _frame(summary)
        df.attrs.update(facts)
        return df

    def steps(self) -> pd.DataFrame:
        """One critical path per ProfilerStep#N (the per-step table of --step all)."""
        return _frame(self._t.steps())

    def report(self) -> dict:
        """The --report JSON of this run, parsed (the bytes the CLI writes, timing aside)."""
        return json.loads(self._t.report_json())

    def what_if(self, *rules: str) -> WhatIf:
        """Projected step time, bound-by and the ops that move most (docs/what_if.md rules)."""
        flat = []
        for r in rules:
            flat.extend([r] if isinstance(r, str) else list(r))
        return WhatIf(json.loads(self._t.what_if_json(flat)))

    def export_et(self, path: PathLike) -> None:
        """Chakra protobuf .et (needs a host ET); atomic, never over an input."""
        self._t.export("chakra_et", os.fspath(path))

    def export_et_plus(self, path: PathLike) -> None:
        """The linked ET+ JSON (needs a host ET); atomic, never over an input."""
        self._t.export("et_plus", os.fspath(path))

    def overlay(self, path: PathLike, all_events: bool = False) -> None:
        """The device trace with the critical path marked, for Perfetto (.gz: compressed)."""
        self._t.export("overlay", os.fspath(path), all_events)

    def export_critical_path(self, path: PathLike) -> None:
        """The --critical-path JSON: graph, path, sync edges and summary."""
        self._t.export("critical_path", os.fspath(path))

    def to_sqlite(self, path: PathLike) -> None:
        """One SQLite database with the trace and every analysis (docs/sqlite.md), as --sqlite."""
        self._t.to_sqlite(os.fspath(path))

    def breakdown(self, step: Optional[int] = None) -> dict:
        """HTA's breakdowns (docs/breakdowns.md): the report's ``breakdown`` object for the
        whole trace, or with step=N for ProfilerStep#N's window (plus ``exposed_comm_us``)."""
        data = self._breakdowns()
        if step is None:
            return data["whole"]
        for s in data["steps"]:
            if s["name"] == f"ProfilerStep#{int(step)}":
                return dict(s["breakdown"], exposed_comm_us=s["exposed_comm_us"])
        names = ", ".join(s["name"] for s in data["steps"]) or "none"
        raise ValueError(f"step {step}: not in the trace (steps: {names})")

    def _breakdowns(self) -> dict:
        if getattr(self, "_breakdown_cache", None) is None:
            self._breakdown_cache = json.loads(self._t.breakdown_json())
        return self._breakdown_cache

    # --- HTA aliases (docs/python.md, "HTA aliases") ---------------------------------
    def critical_path_analysis(self, rank: int, annotation: str, instance_id=0):
        """HTA's TraceAnalysis.critical_path_analysis: (CPGraph, success), or None when no
        event name contains the annotation. HTA's numbers exactly when loaded with hta_exact=True."""
        if self.rank is not None and rank != self.rank:
            raise ValueError(f"rank {rank}: {self.device} is rank {self.rank}")
        if instance_id is None:
            first = last = 0
        elif isinstance(instance_id, tuple):
            first, last = (int(v) for v in instance_id)
        else:
            first = last = int(instance_id)
        result = self._t.hta_critical_path(str(annotation), first, last)
        if result is None:
            return None
        rows, summary, facts = result
        return CPGraph(rows, facts), bool(facts["success"])


def load(host: Optional[PathLike] = None, device: Optional[PathLike] = None, compat: Optional[str] = None,
         progress: Progress = None, *, hta_exact: bool = False, hta_version: Optional[str] = None,
         step: Union[None, int, str, Tuple[int, int]] = None, instance=None, annotation: Optional[str] = None,
         zero_weight_launch_edges: bool = False, rank: Optional[int] = None) -> Trace:
    """Load and analyse a pair (host ET + Kineto device trace; either order) or a device trace
    alone, as `syncscope --batch --host HOST --device DEVICE [options]` does."""
    if host is None and device is None:
        raise UsageError("load() needs device= (the Kineto trace), and host= for the execution trace")
    if host is not None and device is not None:
        args = ["--host", os.fspath(host), "--device", os.fspath(device)]
    else:
        args = [os.fspath(device if device is not None else host)]  # one file: a device trace
    options = _options(compat, hta_exact, hta_version, step, instance, annotation, zero_weight_launch_edges, rank)
    return Trace(_c.Trace.load(args + options, _progress(progress)), options)


class Job:
    """A whole job: every rank, clocks aligned, collectives matched. Made by syncscope.load_job()."""

    def __init__(self, impl):
        self._j = impl
        self.exit_code: int = impl.exit_code
        self.seconds: float = impl.seconds

    def __repr__(self) -> str:
        return f"<syncscope.Job ranks={len(self.ranks())} exit_code={self.exit_code}>"

    def ranks(self) -> pd.DataFrame:
        return _frame(self._j.ranks())

    def collectives(self) -> pd.DataFrame:
        return _frame(self._j.collectives())

    def arrivals(self) -> pd.DataFrame:
        return _frame(self._j.arrivals())

    def root_causes(self) -> pd.DataFrame:
        return _frame(self._j.root_causes())

    def delays(self) -> pd.DataFrame:
        return _frame(self._j.delays())

    def stragglers(self) -> pd.DataFrame:
        return _frame(self._j.stragglers())

    def critical_path(self) -> pd.DataFrame:
        rows, _, facts = self._j.critical_path()
        df = _frame(rows)
        df.attrs.update(facts)
        return df

    def critical_path_summary(self) -> pd.DataFrame:
        _, summary, facts = self._j.critical_path()
        df = _frame(summary)
        df.attrs.update(facts)
        return df

    def report(self) -> dict:
        """The job --report JSON, parsed (as `syncscope --batch --job DIR --report`)."""
        return json.loads(self._j.report_json())

    # --- straggler what-if (load_job(..., straggler_whatif=True); docs/what_if.md) ----
    def straggler_whatif(self) -> dict:
        """The report's ``straggler_whatif`` object (core's JSON, the CLI's bytes): ``ok``,
        ``slowdown``, ``step_slowdown``, ``by_op_type``, ``by_dp_rank``, ``by_stage``, ``M_W``,
        ``M_S``, ``worst_ranks``, ... or ``{"ok": False, "error": ...}`` when it could not run."""
        if getattr(self, "_straggler", None) is None:
            text = self._j.straggler_whatif_json()
            if text is None:
                raise UsageError("straggler_whatif: this job was loaded without straggler_whatif=True "
                                 "(load_job(path, straggler_whatif=True) keeps the ranks' GPU timelines "
                                 "the what-if re-simulates)")
            self._straggler = json.loads(text)
        return self._straggler

    def _straggler_ok(self) -> dict:
        w = self.straggler_whatif()
        if not w["ok"]:
            raise AnalysisError(f"straggler_whatif: {w['error']}")
        return w

    def straggler_steps(self) -> pd.DataFrame:
        """One row per ProfilerStep: step (N), measured_us, no_delay_us, ideal_us, slowdown (no_delay / ideal)."""
        rows = self._straggler_ok()["steps"]
        return _float_frame(rows, ["step", "measured_us", "no_delay_us", "ideal_us", "slowdown"],
                            ["measured_us", "no_delay_us", "ideal_us", "slowdown"])

    def straggler_by_op_type(self) -> pd.DataFrame:
        """S_t per op type, descending: type, comm, count, ideal_us, slowdown."""
        rows = self._straggler_ok()["op_types"]
        return _float_frame(rows, ["type", "comm", "count", "ideal_us", "slowdown"], ["ideal_us", "slowdown"])

    def straggler_by_dp_rank(self) -> pd.DataFrame:
        """S_w per data-parallel rank, descending (ties: lower dp rank first): dp_rank, slowdown."""
        return _ranked_frame(self._straggler_ok()["by_dp_rank"], "dp_rank")

    def straggler_by_stage(self) -> pd.DataFrame:
        """S per pipeline stage, descending (empty with one stage): stage, slowdown."""
        return _ranked_frame(self._straggler_ok()["by_stage"], "stage")


def _float_frame(rows: list, columns: list, floats: list) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=columns)
    for c in floats:  # null (a non-finite ratio) is NaN
        df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
    return df


def _ranked_frame(by: dict, key: str) -> pd.DataFrame:
    """A {"rank": slowdown} object of the report as rows, in the core's order (slowdown
    descending, ties by key; JSON objects keep no order)."""
    rows = sorted(((int(k), float("nan") if v is None else float(v)) for k, v in by.items()),
                  key=lambda kv: (-kv[1] if kv[1] == kv[1] else float("inf"), kv[0]))
    df = pd.DataFrame(rows, columns=[key, "slowdown"])
    df[key] = df[key].astype("int64")
    df["slowdown"] = df["slowdown"].astype("float64")
    return df


def load_job(path: Union[PathLike, Sequence[PathLike]], jobs: Optional[int] = None, progress: Progress = None, *,
             compat: Optional[str] = None, hta_exact: bool = False, hta_version: Optional[str] = None,
             step: Union[None, int] = None, instance=None, annotation: Optional[str] = None,
             zero_weight_launch_edges: bool = False, what_if: Iterable[str] = (),
             clocks: Optional[str] = None, straggler_whatif: bool = False,
             parallelism: Union[None, str, Mapping[str, int]] = None) -> Job:
    """Every rank under the folder(s), `jobs` ranks at once, as `syncscope --batch --job DIR`;
    clocks: "align" (default), "auto" or "trust" (--clocks); straggler_whatif=True runs the
    straggler what-if (--straggler-whatif; j.straggler_whatif() and the j.straggler_* frames),
    parallelism="dp=4,pp=2" (or {"dp": 4, "pp": 2}) places the ranks for it (--parallelism)."""
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    args = ["--batch"]
    for p in paths:
        args += ["--job", os.fspath(p)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    args += _options(compat, hta_exact, hta_version, step, instance, annotation, zero_weight_launch_edges)
    for rule in what_if:
        args += ["--what-if", rule]
    if clocks is not None:
        args += ["--clocks", clocks]
    if straggler_whatif:
        args.append("--straggler-whatif")
    if parallelism is not None:
        if isinstance(parallelism, Mapping):
            parallelism = ",".join(f"{k}={v}" for k, v in parallelism.items())
        args += ["--parallelism", str(parallelism)]
    return Job(_c.Job.load(args, _progress(progress)))


class Diff:
    """Two runs compared, as `syncscope --batch --diff`. Made by syncscope.diff()."""

    def __init__(self, impl):
        self._d = impl
        self.exit_code: int = impl.exit_code

    def steps(self) -> pd.DataFrame:
        return _frame(self._d.steps())

    def ops(self) -> pd.DataFrame:
        return _frame(self._d.ops())

    def kernels(self, by_op: bool = False) -> pd.DataFrame:
        return _frame(self._d.gpu(False, by_op))

    def memcpys(self, by_op: bool = False) -> pd.DataFrame:
        return _frame(self._d.gpu(True, by_op))

    def sync_waits(self, by_waiter: bool = False) -> pd.DataFrame:
        return _frame(self._d.sync_waits(by_waiter))

    def bound_by(self) -> pd.DataFrame:
        return _frame(self._d.bound_by())

    def top_changes(self) -> pd.DataFrame:
        return _frame(self._d.top_changes())

    def report(self) -> dict:
        """The --diff-report JSON, parsed."""
        return json.loads(self._d.report_json())


_WINDOW_OPTIONS = ("--step", "--instance", "--annotation", "--rank")


def _run_spec(run) -> Tuple[str, list]:
    """A diff side as the CLI takes it, DEVICE[,HOST], and the options a Trace was loaded with."""
    if isinstance(run, Trace):
        spec = run.device if run.host is None else f"{run.device},{run.host}"
        opts, skip = [], False
        for a in run._options:  # the window is the diff's (whole runs unless step= is given)
            if skip:
                skip = False
            elif a in _WINDOW_OPTIONS:
                skip = True
            else:
                opts.append(a)
        return spec, opts
    if isinstance(run, tuple):
        return ",".join(os.fspath(p) for p in run), []
    return os.fspath(run), []


def diff(a, b, progress: Progress = None, *, step: Optional[int] = None, instance=None,
         annotation: Optional[str] = None, **options) -> Diff:
    """Compare two runs: each a Trace, a device-trace path or a (device, host) tuple.
    Both are analysed again as `syncscope --batch --diff` analyses them (whole traces, every step)."""
    base, base_opts = _run_spec(a)
    cand, cand_opts = _run_spec(b)
    opts = _options(step=step, instance=instance, annotation=annotation, **options) if options or step is not None \
        or instance is not None or annotation is not None else []
    args = ["--batch", "--diff", base, cand] + (base_opts or cand_opts) + opts
    return Diff(_c.Diff.run(args, _progress(progress)))


class Hang:
    """Why a job hung, from the NCCL flight recorder dumps of a folder, as
    `syncscope --batch --flight-recorder DIR`. Made by syncscope.hang()."""

    def __init__(self, impl):
        self._h = impl
        self.summary: str = impl.summary()

    def __repr__(self) -> str:
        first = self.summary.splitlines()[0] if self.summary else ""
        return "<syncscope.Hang %s>" % first

    def suspects(self) -> pd.DataFrame:
        """One row per finding, root cause first (rank lists as "1,5,7" text)."""
        return _frame(self._h.suspects())

    def groups(self) -> pd.DataFrame:
        """Every process group's members: the state of each rank's last entry there."""
        return _frame(self._h.groups())

    def entries(self, rank: int) -> pd.DataFrame:
        """The rank's recorded entries, oldest first, with their stack frames ("\n"-joined)."""
        return _frame(self._h.entries(rank))

    def inputs(self) -> dict:
        """The dumps read, the ranks without one, the world size, the files refused, warnings."""
        return self._h.inputs()

    def report(self) -> dict:
        """The report's `hang` object (suspects, groups, warnings)."""
        return json.loads(self._h.analysis_json())


def hang(path: PathLike, progress: Progress = None) -> Hang:
    """Read a folder of NCCL flight recorder dumps (pickle or JSON, any file names) and find
    the collective the job is stuck in, who never entered it and who waits in it."""
    return Hang(_c.Hang.read(os.fspath(path), _progress(progress)))
