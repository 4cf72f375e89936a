"""load_job(straggler_whatif=True) and the j.straggler_* accessors equal the CLI's
`syncscope --batch --job DIR --straggler-whatif --report` on a generated 4-rank job with a
straggler (rank 2's compute kernels twice as slow)."""
import os
import shutil
import subprocess
import tempfile
import unittest

import syncscope
from common import BIN, cli, without_timing

TRACEGEN = os.environ.get("SYNCSCOPE_TRACEGEN", "")


def make_job(directory):
    if not os.path.isfile(TRACEGEN):
        raise AssertionError(
            f"syncscope-tracegen not built ({TRACEGEN!r}): "
            "ninja -C build syncscope-tracegen (the syncscope-tests target builds it)")
    subprocess.run([TRACEGEN, "--job", directory, "--ranks", "4", "--straggler", "2", "--straggler-scale", "2",
                    "--steps", "3"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cli_error(args):
    """The CLI's usage message for ARGS (stderr's first line, without the "syncscope: " prefix)."""
    p = subprocess.run([BIN, "--batch", "--quiet", *args], capture_output=True, text=True)
    line = p.stderr.splitlines()[0]
    return p.returncode, line[len("syncscope: "):] if line.startswith("syncscope: ") else line


class StragglerWhatIf(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="syncscope-straggler-")
        cls.dir = os.path.join(cls.tmp, "job")
        make_job(cls.dir)
        cls.j = syncscope.load_job(cls.dir, jobs=2, straggler_whatif=True)
        cls.rc, cls.report = cli(["--job", cls.dir, "--jobs", "2", "--straggler-whatif"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_object_is_the_cli_report(self):
        w = self.j.straggler_whatif()
        want = self.report["straggler_whatif"]
        self.assertTrue(want["ok"], want)
        self.assertEqual(w, want)
        self.assertEqual(w["slowdown"], want["slowdown"])
        self.assertGreater(w["slowdown"], 1.0)
        self.assertEqual(self.j.exit_code, self.rc)
        self.assertEqual(without_timing(self.j.report()), without_timing(self.report))

    def test_by_dp_rank(self):
        dp = self.j.straggler_by_dp_rank()
        self.assertEqual(list(dp.columns), ["dp_rank", "slowdown"])
        self.assertEqual(int(dp.iloc[0]["dp_rank"]), 2)  # the straggler
        want = self.report["straggler_whatif"]["by_dp_rank"]
        self.assertEqual({str(r.dp_rank): r.slowdown for r in dp.itertuples()}, want)
        self.assertTrue(dp["slowdown"].is_monotonic_decreasing)

    def test_steps_and_op_types(self):
        want = self.report["straggler_whatif"]
        steps = self.j.straggler_steps()
        self.assertEqual(list(steps.columns), ["step", "measured_us", "no_delay_us", "ideal_us", "slowdown"])
        self.assertEqual(steps.to_dict("records"), want["steps"])
        self.assertEqual(len(steps), len(want["step_slowdown"]))
        self.assertGreater(len(steps), 0)
        types = self.j.straggler_by_op_type()
        self.assertEqual(list(types.columns), ["type", "comm", "count", "ideal_us", "slowdown"])
        self.assertEqual(types.to_dict("records"), want["op_types"])
        self.assertTrue(types["comm"].any() and not types["comm"].all())
        stages = self.j.straggler_by_stage()  # one stage: empty, as the report's {}
        self.assertEqual(list(stages.columns), ["stage", "slowdown"])
        self.assertEqual(len(stages), len(want["by_stage"]))

    def test_parallelism_keyword(self):
        rc, report = cli(["--job", self.dir, "--jobs", "2", "--straggler-whatif", "--parallelism", "dp=4"])
        for spec in ("dp=4", {"dp": 4}):
            j = syncscope.load_job(self.dir, jobs=2, straggler_whatif=True, parallelism=spec)
            w = j.straggler_whatif()
            self.assertEqual(w["layout"], {"source": "parallelism", "dp": 4, "pp": 1, "tp": 1})
            self.assertEqual(w, report["straggler_whatif"])

    def test_without_the_keyword(self):
        j = syncscope.load_job(self.dir, jobs=2)
        for accessor in (j.straggler_whatif, j.straggler_steps, j.straggler_by_dp_rank):
            with self.assertRaises(syncscope.UsageError) as e:
                accessor()
            self.assertIn("straggler_whatif", str(e.exception))
        self.assertNotIn("straggler_whatif", j.report())

    def test_bad_parallelism_is_the_cli_message(self):
        for kw, args in [({"straggler_whatif": True, "parallelism": "dp=x"}, ["--straggler-whatif", "--parallelism", "dp=x"]),
                         ({"straggler_whatif": True, "parallelism": "ep=2"}, ["--straggler-whatif", "--parallelism", "ep=2"]),
                         ({"parallelism": "dp=4"}, ["--parallelism", "dp=4"])]:
            rc, message = cli_error(["--job", self.dir, *args])
            self.assertEqual(rc, 2, message)
            with self.assertRaises(syncscope.UsageError) as e:
                syncscope.load_job(self.dir, **kw)
            self.assertEqual(str(e.exception), message)


if __name__ == "__main__":
    unittest.main()
