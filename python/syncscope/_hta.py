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
    HTA computes. Non-default options Syncscope does not compute raise NotImplementedError."""

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

    # --- HTA's breakdowns (f4d0062's frames and column names; docs/python.md) ---------
    def _ranks(self, ranks):
        wanted = sorted(self._traces) if ranks is None else [int(r) for r in ranks]
        for r in wanted:
            if r not in self._traces:
                raise ValueError(f"rank {r}: the loaded ranks are {sorted(self._traces)}")
        return wanted

    def _whole(self, rank):
        return self._traces[rank].breakdown()

    def get_temporal_breakdown(self, visualize: bool = True) -> pd.DataFrame:
        rows = []
        for r in self._ranks(None):
            t = self._whole(r)["temporal"]
            rows.append({"rank": r, "idle_time(us)": t["idle_time_us"], "compute_time(us)": t["compute_time_us"],
                         "non_compute_time(us)": t["non_compute_time_us"], "kernel_time(us)": t["kernel_time_us"],
                         "idle_time_pctg": t["idle_time_pct"], "compute_time_pctg": t["compute_time_pct"],
                         "non_compute_time_pctg": t["non_compute_time_pct"]})
        return pd.DataFrame(rows)

    def get_idle_time_breakdown(self, ranks=None, streams=None, visualize: bool = True,
                                visualize_pctg: bool = True, show_idle_interval_stats: bool = False,
                                consecutive_kernel_delay: int = 30):
        if show_idle_interval_stats or consecutive_kernel_delay != 30:
            raise NotImplementedError("get_idle_time_breakdown: Syncscope computes HTA's defaults only "
                                      "(consecutive_kernel_delay=30, no interval stats)")
        rows = []
        for r in self._ranks(ranks):
            for row in self._whole(r)["idle_time"]:
                if streams is None or row["stream"] in streams:
                    rows.append({"rank": r, "stream": row["stream"], "idle_category": row["idle_category"],
                                 "idle_time": row["idle_time_us"], "idle_time_ratio": row["idle_time_ratio"]})
        return pd.DataFrame(rows, columns=["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]), None

    def get_gpu_kernel_breakdown(self, visualize: bool = True, duration_ratio: float = 0.8, num_kernels: int = 10,
                                 include_memory_kernels: bool = True, image_renderer: str = "notebook"):
        if duration_ratio != 0.8 or num_kernels != 10 or not include_memory_kernels:
            raise NotImplementedError("get_gpu_kernel_breakdown: Syncscope computes HTA's defaults only "
                                      "(duration_ratio=0.8, num_kernels=10, include_memory_kernels=True)")
        # HTA sums the per-type time over ranks and lists every rank's kernels.
        by_type, kernels = {}, []
        for r in self._ranks(None):
            k = self._whole(r)["kernels"]
            for row in k["by_type"]:
                by_type[row["kernel_type"]] = by_type.get(row["kernel_type"], 0) + row["sum_us"]
            for row in k["by_kernel"]:
                kernels.append({"kernel_type": row["kernel_type"], "name": row["name"], "sum (us)": row["sum_us"],
                                "max (us)": row["max_us"], "min (us)": row["min_us"], "stddev": row["stddev"],
                                "mean (us)": row["mean_us"], "rank": r})
        total = sum(by_type.values())
        type_df = pd.DataFrame([{"kernel_type": t, "sum": v, "percentage": round(100 * v / total, 1) if total else float("nan")}
                                for t, v in sorted(by_type.items(), key=lambda kv: -kv[1])],
                               columns=["kernel_type", "sum", "percentage"])
        return type_df, pd.DataFrame(kernels, columns=["kernel_type", "name", "sum (us)", "max (us)", "min (us)",
                                                       "stddev", "mean (us)", "rank"])

    def get_comm_comp_overlap(self, visualize: bool = True) -> pd.DataFrame:
        return pd.DataFrame([{"rank": r, "comp_comm_overlap_pctg": self._whole(r)["comm_comp_overlap_pct"]}
                             for r in self._ranks(None)], columns=["rank", "comp_comm_overlap_pctg"])

    def get_cuda_kernel_launch_stats(self, ranks=None, runtime_cutoff: int = 50, launch_delay_cutoff: int = 100,
                                     include_memory_events: bool = True, visualize: bool = True) -> dict:
        if not include_memory_events:
            raise NotImplementedError("get_cuda_kernel_launch_stats: Syncscope counts memcpy/memset launches "
                                      "(include_memory_events=True, HTA's default)")
        # The cut-offs only drive HTA's plots; the frame is every launch.
        return {r: pd.DataFrame(self._traces[r]._breakdowns()["launch_rows"],
                                columns=["correlation", "cpu_duration", "gpu_duration", "launch_delay"])
                for r in self._ranks(ranks)}

    def get_queue_length_summary(self, ranks=None) -> pd.DataFrame:
        """HTA's describe() of the queue length, indexed by (rank, stream)."""
        rows = []
        for r in self._ranks(ranks):
            for q in self._whole(r)["queue_length"]:
                rows.append({"rank": r, "stream": q["stream"], "count": float(q["count"]), "mean": q["mean"],
                             "std": q["std"], "min": q["min"], "25%": q["p25"], "50%": q["p50"], "75%": q["p75"],
                             "max": q["max"]})
        if not rows:
            return None
        df = pd.DataFrame(rows).set_index(["rank", "stream"])
        df.columns = pd.MultiIndex.from_product([["queue_length"], df.columns])
        return df
