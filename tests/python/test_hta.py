"""The HTA alias gives HTA f4d0062's numbers on HTA's own test traces.

Golden numbers: shared/docs/critical_path_spec.md 4.2-4.3 (HTA HEAD's results on the
traces in shared/data/device_only; summaries there are rounded to 3 decimals)."""
import unittest

import syncscope
from common import shared

ALEXNET = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
GOLDEN = [
    # trace, annotation, instance, zero-weight launch edges, CP nodes, weight µs, summary %
    ("hta_cpa_simple_add", ALEXNET, 1, True, 315, 241724,
     {"cpu_bound": 99.779, "gpu_compute_bound": 0.210, "gpu_kernel_kernel_overhead": 0.004,
      "gpu_kernel_launch_overhead": 0.007, "": 0}),
    ("hta_cpa_alexnet", ALEXNET, 1, True, 149, 35834,
     {"cpu_bound": 89.418, "gpu_compute_bound": 10.359, "gpu_kernel_kernel_overhead": 0.140,
      "gpu_kernel_launch_overhead": 0.084, "": 0}),
    ("hta_cuda_event_sync", "ProfilerStep", 0, True, 40, 2411,
     {"cpu_bound": 98.092, "gpu_compute_bound": 1.493, "gpu_kernel_launch_overhead": 0.415, "": 0}),
    ("hta_cuda_event_sync_multi_stream", "", None, True, 59, 1178,
     {"cpu_bound": 87.012, "gpu_compute_bound": 10.526, "gpu_kernel_kernel_overhead": 1.273,
      "gpu_kernel_launch_overhead": 1.188, "": 0}),
    ("hta_ns_resolution", "ProfilerStep", 1, True, 2983, 97176,
     {"cpu_bound": 1.825, "gpu_compute_bound": 96.317, "gpu_kernel_kernel_overhead": 1.858,
      "gpu_kernel_launch_overhead": 0.000, "": 0}),
    ("hta_ns_resolution", "ProfilerStep", 1, False, 2438, 95735,
     {"gpu_compute_bound": 97.866, "gpu_kernel_kernel_overhead": 2.134}),
    ("hta_amd_mi250_rocm6.2", "ProfilerStep", 1, True, 66, 741, {"cpu_bound": 100, "": 0}),
]
HTA_COLUMNS = ["event_idx", "duration", "type", "s_name", "cat", "pid", "tid", "stream", "index", "bound_by"]


def device(name):
    return shared("device_only", name + ".kineto.json.gz")


class HtaCriticalPathAlias(unittest.TestCase):
    def check(self, t, name, annotation, instance, nodes, weight, summary):
        result = t.critical_path_analysis(rank=t.rank if t.rank is not None else 0, annotation=annotation,
                                          instance_id=instance)
        self.assertIsNotNone(result, name)
        cp_graph, success = result
        self.assertTrue(success, name)
        self.assertEqual(cp_graph.facts["nodes"], nodes, name)
        self.assertAlmostEqual(cp_graph.critical_path_weight_us, weight, delta=0.5, msg=name)
        got = cp_graph.summary()
        self.assertEqual(got.index.name, "bound_by")
        self.assertEqual(set(got.index), set(summary), name)
        for bucket, pct in summary.items():
            self.assertAlmostEqual(got[bucket], pct, delta=0.0006, msg=f"{name} {bucket!r}")
        breakdown = cp_graph.get_critical_path_breakdown()
        self.assertEqual(list(breakdown.columns), HTA_COLUMNS)
        self.assertAlmostEqual(breakdown.duration.sum(), weight, delta=0.5)
        self.assertFalse(breakdown.bound_by.isna().any())

    def test_hta_exact_gives_htas_numbers(self):
        for name, annotation, instance, zw, nodes, weight, summary in GOLDEN:
            with self.subTest(trace=name, zero_weight=zw):
                t = syncscope.load(device=device(name), hta_exact=True, zero_weight_launch_edges=zw)
                self.check(t, name, annotation, instance, nodes, weight, summary)

    def test_default_mode_where_htas_assumptions_hold(self):
        # alexnet has cuda_sync rows, no graph launch, no blocking copy (docs/critical_path.md).
        name, annotation, instance, zw, nodes, weight, summary = GOLDEN[1]
        t = syncscope.load(device=device(name), zero_weight_launch_edges=zw)
        self.check(t, name, annotation, instance, nodes, weight, summary)

    def test_unknown_annotation_is_none_as_in_hta(self):
        t = syncscope.load(device=device("hta_cpa_simple_add"), hta_exact=True)
        self.assertIsNone(t.critical_path_analysis(0, "no such annotation", 0))

    def test_trace_analysis_entry(self):
        # HTA's spelling: TraceAnalysis(trace_dir=...) with one trace in it.
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.symlink(device("hta_cuda_event_sync"), os.path.join(d, "rank0.json.gz"))
            ta = syncscope.TraceAnalysis(trace_dir=d)
            cp_graph, ok = ta.critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=0)
        self.assertTrue(ok)
        self.assertAlmostEqual(cp_graph.summary()["cpu_bound"], 98.092, delta=0.0006)
        with self.assertRaisesRegex(NotImplementedError, "issue 25"):
            ta.get_temporal_breakdown()


if __name__ == "__main__":
    unittest.main()
