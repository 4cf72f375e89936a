"""Every DataFrame of a pair equals the JSON report the syncscope binary writes for it."""
import math
import unittest

import syncscope
from common import SAMPLE_DEVICE, SAMPLE_HOST, cli, shared, without_timing

TOL = 1e-6


class PairChecks:
    """Mixed into one TestCase per trace: HOST (or None), DEVICE, STEP (a step number it has)."""
    HOST = None
    DEVICE = None
    STEP = 0

    @classmethod
    def setUpClass(cls):
        cls.t = syncscope.load(host=cls.HOST, device=cls.DEVICE)
        args = (["--host", cls.HOST] if cls.HOST else []) + ["--device", cls.DEVICE]
        cls.args = args
        cls.rc, cls.report = cli(args)
        cls.rc_all, cls.report_all = cli(args + ["--step", "all"])

    def test_report_is_the_cli_report(self):
        self.assertEqual(self.t.exit_code, self.rc)
        self.assertEqual(without_timing(self.t.report()), without_timing(self.report))

    def test_events_count_what_the_report_counts(self):
        ev = self.t.events()
        gpu = ev[ev.kind.isin(["kernel", "gpu_memcpy", "gpu_memset"])]
        self.assertGreater(len(gpu), 0)
        self.assertTrue((ev.dur >= 0).all())
        on_path = set(ev.event[ev.on_critical_path])
        rows = self.t.critical_path()
        # Events with a node on the path; those the path's edges are attributed to among them.
        self.assertLessEqual(set(rows.event[rows.event >= 0]), on_path)
        self.assertEqual(len(on_path), self.report["critical_path"]["events"])
        if self.HOST:
            link = self.report["link"]
            self.assertEqual(len(gpu), link["gpu_ops"])
            cpu = ev[ev.kind.isin(["cpu_op", "user_annotation"]) & ~ev.name.str.startswith("ProfilerStep")]
            self.assertEqual(len(cpu), link["kineto_cpu_ops"])
            self.assertEqual(int((cpu.et_node >= 0).sum()), link["kineto_cpu_ops_linked"])

    def test_links(self):
        links = self.t.links()
        if not self.HOST:
            self.assertEqual(len(links), 0)
            return
        self.assertEqual(len(links), self.report["link"]["host_ops"])
        self.assertEqual(int(links.linked.sum()), self.report["link"]["host_ops_linked"])

    def test_sync_edges(self):
        s = self.t.sync_edges()
        sync = self.report["sync"]
        self.assertEqual(len(s), sync["edges"])
        self.assertEqual(int((s.source == "inferred").sum()), sync["inferred_edges"])
        for kind, k in sync["by_kind"].items():
            rows = s[s.kind == kind]
            self.assertEqual(len(rows), k["edges"], kind)
            self.assertEqual(int((rows.source == "cuda_sync").sum()), k["recorded"], kind)

    def test_critical_path_and_summary(self):
        cp = self.report["critical_path"]
        rows = self.t.critical_path()
        self.assertAlmostEqual(rows.duration_us.sum(), cp["weight_us"], delta=1e-6 * max(1, cp["weight_us"]))
        self.assertAlmostEqual(rows.attrs["weight_us"], cp["weight_us"], delta=TOL)
        self.assertEqual(rows.attrs["nodes"], cp["nodes"])
        summary = self.t.critical_path_summary()
        self.assertEqual(dict(zip(summary.bound_by, summary.percent)), cp["summary"])
        self.assertEqual(list(rows.position), list(range(len(rows))))

    def test_steps_table_is_step_all(self):
        steps = self.t.steps()
        want = self.report_all["critical_path"]["steps"]
        self.assertEqual(len(steps), len(want))
        for (_, row), w in zip(steps.iterrows(), want):
            self.assertEqual((row.step, row["name"], row.number), (w["step"], w["name"], w["number"]))
            self.assertAlmostEqual(row.weight_us, w["weight_us"], delta=TOL)
            self.assertAlmostEqual(row.duration_us, w["duration_us"], delta=TOL)
            for bucket, pct in w["summary"].items():
                self.assertAlmostEqual(row[bucket], pct, delta=TOL, msg=bucket)
            absent = [b for b in steps.columns[8:] if b not in w["summary"]]
            self.assertTrue(all(math.isnan(row[b]) for b in absent))

    def test_critical_path_of_one_step_is_step_n(self):
        rc, report = cli(self.args + ["--step", str(self.STEP)])
        summary = self.t.critical_path_summary(step=self.STEP)
        self.assertEqual(dict(zip(summary.bound_by, summary.percent)), report["critical_path"]["summary"])
        self.assertAlmostEqual(summary.attrs["weight_us"], report["critical_path"]["weight_us"], delta=TOL)
        with self.assertRaisesRegex(syncscope.UsageError, "no ProfilerStep#987654"):
            self.t.critical_path(step=987654)

    def test_what_if_is_the_cli_what_if(self):
        rule = "cat=kernel*0.5"
        rc, report = cli(self.args + ["--what-if", rule])
        w = self.t.what_if(rule)
        self.assertEqual(w.report, report["what_if"])
        self.assertEqual(w.baseline_us, report["what_if"]["baseline_us"])
        self.assertLessEqual(w.projected_us, w.baseline_us)
        self.assertEqual(list(w.top_moved.shift_us), [m["shift_us"] for m in report["what_if"]["top_moved"]])


class SamplePair(PairChecks, unittest.TestCase):
    HOST, DEVICE, STEP = SAMPLE_HOST, SAMPLE_DEVICE, 2


class HtaNsResolution(PairChecks, unittest.TestCase):
    """HTA's ns_resolution trace: 68,692 events, ProfilerStep#101-#105, device only."""
    DEVICE, STEP = shared("device_only", "hta_ns_resolution.kineto.json.gz"), 103


class HtaSimpleAddPair(PairChecks, unittest.TestCase):
    """A real pair (HTA simple_add, ET schema 1.0.1, linked by External id), no ProfilerStep."""
    HOST = shared("pairs", "hta_simple_add", "simple_add.et.json.gz")
    DEVICE = shared("pairs", "hta_simple_add", "simple_add.kineto.json.gz")

    def test_critical_path_of_one_step_is_step_n(self):
        with self.assertRaisesRegex(syncscope.UsageError, "ProfilerStep#0"):
            self.t.critical_path(step=0)


if __name__ == "__main__":
    unittest.main()
