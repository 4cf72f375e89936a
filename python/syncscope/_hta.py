"""HTA-compatible names, so an HTA notebook can switch by changing its import.

Only analyses Syncscope has are offered. docs/python.md ("HTA aliases") says which are
exact: with syncscope.load(..., hta_exact=True) the critical path is HTA f4d0062's exactly.
"""
from __future__ import annotations

import pandas as pd

# HTA's get_critical_path_breakdown() columns, in HTA's order.
_HTA_BREAKDOWN = ["event_idx", "duration", "type", "s_name", "cat", "pid", "tid", "stream", "index", "bound_by"]


class CPGraph:
    """The part of HTA's CPGraph a notebook reads: summary() and get_critical_path_breakdown().
    (HTA's is a networkx DiGraph; this one is not, and has no save()/restore.)"""

    def __init__(self, rows: dict, facts: dict):
        self._rows = pd.DataFrame(rows)
        self.facts = dict(facts)
        self.critical_path_weight_us = facts["weight_us"]
        # HTA: the set of trace events with a node on the path (indices into traceEvents).
        self.critical_path_events_set = set(int(e) for e in self._rows["event"] if e >= 0)

    def get_critical_path_breakdown(self) -> pd.DataFrame:
        """One row per critical edge, in path order (HTA's comes from a set: unordered),
        with HTA's columns: event_idx, duration (µs), type, s_name, cat, pid, tid, stream
        (-1 for CPU events), index (= event_idx; NaN without an event), bound_by ("" for
        dependency and sync edges, as HTA)."""
        r = self._rows
        out = pd.DataFrame({
            "event_idx": r["event"],
            "duration": r["duration_us"],
            "type": r["type"],
            "s_name": r["s_name"],
            "cat": r["cat"],
            "pid": r["pid"],
            "tid": r["tid"],
            "stream": r["stream"],
            "index": r["event"].where(r["event"] >= 0),
            "bound_by": r["hta_bound_by"],
        })
        return out[_HTA_BREAKDOWN]

    def summary(self) -> pd.Series:
        """HTA's summary(): % of the path's duration per bound_by (a Series named
        "duration", indexed by "bound_by", sorted by name as groupby sorts)."""
        edf = self.get_critical_path_breakdown()
        return edf.groupby("bound_by").duration.sum() / edf.duration.sum() * 100


class TraceAnalysis:
    """HTA's TraceAnalysis for one rank's trace: TraceAnalysis(trace_files={0: "rank0.json.gz"})
    or TraceAnalysis(trace_dir=DIR) with one Kineto trace in DIR. HTA-exact by default, as
    HTA computes; analyses Syncscope does not have yet raise NotImplementedError."""

    def __init__(self, trace_dir: str = None, trace_files: dict = None, hta_exact: bool = True):
        import os
        from . import load
        if trace_files:
            self._traces = {int(r): load(device=os.path.join(trace_dir or "", f), hta_exact=hta_exact)
                            for r, f in trace_files.items()}
        elif trace_dir:
            files = sorted(f for f in os.listdir(trace_dir) if f.endswith((".json", ".json.gz")))
            if len(files) != 1:
                raise ValueError(f"{trace_dir}: {len(files)} traces; give trace_files={{rank: file}} "
                                 "(or syncscope.load_job for a whole job)")
            t = load(device=os.path.join(trace_dir, files[0]), hta_exact=hta_exact)
            self._traces = {t.rank if t.rank is not None else 0: t}
        else:
            raise ValueError("TraceAnalysis needs trace_dir= or trace_files=")

    def critical_path_analysis(self, rank: int, annotation: str, instance_id=0):
        if rank not in self._traces:
            raise ValueError(f"rank {rank}: the loaded ranks are {sorted(self._traces)}")
        return self._traces[rank].critical_path_analysis(rank, annotation, instance_id)

    def _later(self, name: str):
        raise NotImplementedError(f"{name}: not in Syncscope yet (issue 25 adds HTA's breakdowns); "
                                  "see docs/python.md")

    def get_temporal_breakdown(self, *args, **kwargs):
        self._later("get_temporal_breakdown")

    def get_idle_time_breakdown(self, *args, **kwargs):
        self._later("get_idle_time_breakdown")

    def get_gpu_kernel_breakdown(self, *args, **kwargs):
        self._later("get_gpu_kernel_breakdown")

    def get_comm_comp_overlap(self, *args, **kwargs):
        self._later("get_comm_comp_overlap")

    def get_queue_length_summary(self, *args, **kwargs):
        self._later("get_queue_length_summary")
