"""The job tables equal the job report of `syncscope --batch --job` on the DLRM 8-rank job."""
import math
import unittest

import syncscope
from common import DLRM, cli, without_timing

TOL = 1e-3  # the job report rounds to the nanosecond


class DlrmJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.j = syncscope.load_job(DLRM, jobs=2)
        cls.rc, cls.report = cli(["--job", DLRM, "--jobs", "2"])

    def test_report_is_the_cli_report(self):
        self.assertEqual(self.j.exit_code, self.rc)
        self.assertEqual(without_timing(self.j.report()), without_timing(self.report))

    def test_ranks(self):
        ranks = self.j.ranks()
        want = self.report["ranks"]
        self.assertEqual(list(ranks["rank"]), [r["rank"] for r in want])
        self.assertEqual(len(ranks), 8)
        for (_, row), w in zip(ranks.iterrows(), want):
            self.assertEqual(row.exit_code, w["exit_code"])
            self.assertAlmostEqual(row.step_time_us, w["step_time_us"], delta=TOL)
            self.assertAlmostEqual(row.critical_path_us, w["critical_path"]["weight_us"], delta=TOL)
            for key in ["clock_offset_us", "collective_wait_us", "collective_wait_caused_us",
                        "work_delay_cost_us", "start_skew_cost_us", "start_offset_us"]:
                self.assertAlmostEqual(row[key], w[key], delta=TOL, msg=key)
            self.assertEqual(row.last_arrivals, w["last_arrivals"])
            self.assertAlmostEqual(row.link_coverage_percent, w["link"]["coverage_percent"], delta=TOL)

    def test_collectives_and_arrivals(self):
        col = self.j.collectives()
        arr = self.j.arrivals()
        want = self.report["collectives"]
        self.assertEqual(len(col), len(want))
        self.assertGreater(len(col), 0)
        self.assertEqual(len(arr), sum(len(c["ranks"]) for c in want))
        for (_, row), w in zip(col.iterrows(), want):
            self.assertEqual((row["name"], row.process_group, row.last_arrival_rank),
                             (w["name"], w["process_group"], w["last_arrival_rank"]))
            self.assertEqual(bool(row.window_edge), w["window_edge"])
            # The bandwidth fields are the report's (null there is NaN here).
            for col in ("message_bytes", "transfer_us", "algbw_gbps", "busbw_gbps"):
                if w[col] is None:
                    self.assertTrue(math.isnan(row[col]), col)
                else:
                    self.assertAlmostEqual(row[col], w[col], delta=max(TOL, 1e-9 * abs(w[col])))
            self.assertEqual(bool(row.slow_busbw), w["slow_busbw"])
            mine = arr[arr.collective == row.collective]
            self.assertEqual(sorted(mine["rank"]), w["ranks"])
            for _, a in mine.iterrows():
                r = str(a["rank"])
                self.assertAlmostEqual(a.arrival_us, w["arrival_us"][r], delta=TOL)
                self.assertAlmostEqual(a.end_us, w["end_us"][r], delta=TOL)
                self.assertAlmostEqual(a.wait_us, w["wait_us"][r], delta=TOL)
                late = w["lateness"][r]
                self.assertAlmostEqual(a.late_us, late["late_us"], delta=TOL)
                self.assertAlmostEqual(a.start_skew_us, late["start_skew_us"], delta=TOL)
                self.assertAlmostEqual(a.work_excess_us, late["work_excess_us"], delta=TOL)
                self.assertAlmostEqual(a.transfer_us, a.end_us - mine.arrival_us.max(), delta=TOL)
            causes = self.j.root_causes()
            causes = causes[causes.collective == row.collective]
            self.assertEqual(list(causes.op), [c["op"] for c in w.get("root_causes", [])])

    def test_stragglers_and_delays(self):
        s = self.j.stragglers()
        want = self.report["stragglers"]
        self.assertEqual(list(s[s.kind == "work"]["rank"]), [x["rank"] if isinstance(x, dict) else x for x in want])
        d = self.j.delays()
        self.assertTrue((d.direct_us >= 0).all())

    def test_job_critical_path(self):
        cp = self.report["job_critical_path"]
        rows = self.j.critical_path()
        self.assertEqual(len(rows), len(cp["path"]))
        for (_, row), w in zip(rows.iterrows(), cp["path"]):
            self.assertEqual((row["rank"], row.op), (w[0], w[1]))
            # Epoch µs (~1.7e15): a double holds them to 0.25 µs, the report's ns rounding no better.
            self.assertAlmostEqual(row.start_us, w[2], delta=max(TOL, abs(w[2]) * 4e-16))
            self.assertAlmostEqual(row.dur_us, w[3], delta=TOL)
        summary = self.j.critical_path_summary()
        got = dict(zip(summary.bound_by, summary.percent))
        self.assertEqual(set(got), set(cp["summary"]))
        for k, v in cp["summary"].items():
            self.assertAlmostEqual(got[k], v, delta=TOL)
        self.assertAlmostEqual(rows.attrs["weight_us"], cp["weight_us"], delta=TOL)


if __name__ == "__main__":
    unittest.main()
