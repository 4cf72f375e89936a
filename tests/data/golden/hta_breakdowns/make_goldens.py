#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Golden outputs of HTA f4d0062's breakdown analyzers on the shared HTA traces.

Usage (see README.md):  /usr/bin/python3 make_goldens.py HTA_SRC SHARED_DATA OUT_DIR
HTA_SRC is an unpacked HolisticTraceAnalysis checkout (the folder holding hta/).
Only HTA's outputs are written; no HTA code is copied.
"""
import json
import math
import os
import shutil
import sys
import tempfile
import traceback

TRACES = {
    "hta_nccl_data": "device_only/hta_nccl_data.kineto.json.gz",
    "hta_cpa_alexnet": "device_only/hta_cpa_alexnet.kineto.json.gz",
    "hta_cpa_simple_add": "device_only/hta_cpa_simple_add.kineto.json.gz",
    "hta_ns_resolution": "device_only/hta_ns_resolution.kineto.json.gz",
    "hta_amd_mi250_rocm6.2": "device_only/hta_amd_mi250_rocm6.2.kineto.json.gz",
    "hta_cuda_event_sync": "device_only/hta_cuda_event_sync.kineto.json.gz",
    "hta_cuda_event_sync_multi_stream": "device_only/hta_cuda_event_sync_multi_stream.kineto.json.gz",
    "hta_simple_add": "pairs/hta_simple_add/simple_add.kineto.json.gz",
    "param_dlrm_rank0": "pairs/param_dlrm_8rank/rank0.kineto.json.gz",
}


def clean(v):
    """JSON-safe scalar: NaN/inf -> None, numpy -> python."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def frame(df, sym=None, name_cols=()):
    if df is None:
        return None
    df = df.reset_index()
    out = []
    for rec in df.to_dict(orient="records"):
        row = {}
        for k, v in rec.items():
            if k == "index":
                continue
            v = clean(v)
            if k in name_cols and sym is not None and isinstance(v, int):
                v = sym[v] if 0 <= v < len(sym) else v
            row[str(k)] = v
        out.append(row)
    return out


def run_one(TraceAnalysis, key, path):
    res = {"trace": path}
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(path, os.path.join(tmp, "rank-0.json.gz"))
        try:
            ta = TraceAnalysis(trace_dir=tmp)
        except Exception as e:  # noqa: BLE001
            res["load_error"] = "".join(traceback.format_exception_only(type(e), e)).strip()
            return res
        ranks = sorted(ta.t.traces.keys())
        res["ranks"] = ranks
        rank = ranks[0]
        sym = ta.t.symbol_table.get_sym_table()

        def call(name, fn):
            try:
                res[name] = fn()
            except Exception as e:  # noqa: BLE001
                res[name + "_error"] = "".join(
                    traceback.format_exception_only(type(e), e)).strip()

        call("temporal_breakdown", lambda: frame(ta.get_temporal_breakdown(visualize=False)))

        def idle():
            a, _ = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)
            return frame(a)
        call("idle_time_breakdown", idle)

        def kern():
            a, b = ta.get_gpu_kernel_breakdown(visualize=False)
            return {"by_type": frame(a), "by_kernel": frame(b)}
        call("gpu_kernel_breakdown", kern)

        call("comm_comp_overlap", lambda: frame(ta.get_comm_comp_overlap(visualize=False)))

        def launch():
            d = ta.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)
            df = d[rank]
            short = df[(df["cpu_duration"] <= 50) & (df["gpu_duration"] < df["cpu_duration"])]
            rt = df[df["cpu_duration"] > 50]
            ld = df[df["launch_delay"] > 100]
            cols = ["correlation", "cpu_duration", "gpu_duration", "launch_delay"]
            return {
                "runtime_cutoff": 50, "launch_delay_cutoff": 100,
                "rows": int(len(df)),
                "short_kernels": int(len(short)),
                "runtime_outliers": int(len(rt)),
                "launch_delay_outliers": int(len(ld)),
                "sum_cpu_duration": clean(df["cpu_duration"].sum()),
                "sum_gpu_duration": clean(df["gpu_duration"].sum()),
                "sum_launch_delay": clean(df["launch_delay"].sum()),
                "first_rows": frame(df[cols].head(5)),
                "runtime_outlier_rows": frame(rt[cols].head(5)),
                "launch_delay_outlier_rows": frame(ld[cols].head(5)),
            }
        call("cuda_kernel_launch_stats", launch)

        def queue():
            df = ta.get_queue_length_summary(ranks=[rank])
            if df is None:
                return None
            df = df.reset_index()
            df.columns = [c[1] if isinstance(c, tuple) and c[1] else
                          (c[0] if isinstance(c, tuple) else c) for c in df.columns]
            return frame(df)
        call("queue_length_summary", queue)
        return res
    finally:
        shutil.rmtree(tmp)


def main():
    hta_src, data, out = sys.argv[1:4]
    sys.path.insert(0, hta_src)
    from hta.trace_analysis import TraceAnalysis
    os.makedirs(out, exist_ok=True)
    for key, rel in TRACES.items():
        res = run_one(TraceAnalysis, key, os.path.join(data, rel))
        res["trace"] = rel
        with open(os.path.join(out, key + ".json"), "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
            f.write("\n")
        print(key, "errors:", [k for k in res if k.endswith("_error")])


if __name__ == "__main__":
    main()
