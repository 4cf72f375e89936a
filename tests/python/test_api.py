"""The GIL is released during loads, progress is reported, errors name the file, exports
keep the CLI's safety, and a diff is the CLI's --diff-report."""
import gzip
import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
import unittest

import syncscope
from common import BIN, DLRM, SAMPLE_DIR, SHARED, SAMPLE_DEVICE, SAMPLE_HOST, cli, shared

def read(path):
    with open(path, "rb") as f:
        return f.read()


NS = shared("device_only", "hta_ns_resolution.kineto.json.gz")


class GilAndProgress(unittest.TestCase):
    def test_another_thread_runs_during_a_load(self):
        # The load takes ~0.2 s of C++; with the GIL held the counter would barely move.
        counter = [0]
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                counter[0] += 1

        th = threading.Thread(target=spin)
        th.start()
        time.sleep(0.05)
        before = counter[0]
        t0 = time.perf_counter()
        syncscope.load(device=NS)
        seconds = time.perf_counter() - t0
        during = counter[0] - before
        stop.set()
        th.join()
        # With the GIL held the other thread gets no switch interval at all during the call.
        self.assertGreater(during, 1000, f"{during} increments in {seconds:.3f} s")

    def test_progress_is_called_with_stages(self):
        calls = []
        syncscope.load(SAMPLE_HOST, SAMPLE_DEVICE, progress=lambda stage, f: calls.append((stage, f)))
        stages = {s for s, _ in calls}
        self.assertTrue({"load host", "load device"} <= stages or "link" in stages, stages)
        self.assertTrue(all(0.0 <= f <= 1.0 for _, f in calls))

    def test_progress_that_raises_stops_the_load(self):
        def boom(stage, fraction):
            raise KeyboardInterrupt("stop")

        with self.assertRaises(KeyboardInterrupt):
            syncscope.load(SAMPLE_HOST, SAMPLE_DEVICE, progress=boom)

    def test_job_progress_counts_ranks(self):
        calls = []
        syncscope.load_job(DLRM, jobs=2, progress=lambda s, f: calls.append((s, f)))
        self.assertIn(("ranks", 1.0), calls)


class Errors(unittest.TestCase):
    def test_missing_file_names_it(self):
        with self.assertRaisesRegex(syncscope.InputError, "no_such_trace.json"):
            syncscope.load(device="/nonexistent/no_such_trace.json")

    def test_truncated_file_names_it(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "truncated.json")
            with gzip.open(SAMPLE_DEVICE, "rb") as f:
                data = f.read()
            with open(bad, "wb") as f:
                f.write(data[: len(data) // 2])
            with self.assertRaisesRegex(syncscope.InputError, "truncated.json"):
                syncscope.load(device=bad)

    def test_usage_errors_are_the_clis(self):
        with self.assertRaisesRegex(syncscope.UsageError, "--compat takes 'chakra'"):
            syncscope.load(device=SAMPLE_DEVICE, compat="nope")
        with self.assertRaisesRegex(ValueError, "bad repetition operator"):
            syncscope.load(device=SAMPLE_DEVICE).what_if("name~.**x*0.5")
        with self.assertRaisesRegex(syncscope.AnalysisError, "matches nothing|matched nothing|no event"):
            syncscope.load(device=SAMPLE_DEVICE).what_if("name=no_such_op*0.5")

    def test_empty_job_folder(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(syncscope.InputError, d):
                syncscope.load_job(d)


class Hardening(unittest.TestCase):
    """Issue 40, class 9: the Python argument layer refuses what the C++ would misread."""

    def test_negative_step_is_refused(self):
        t = syncscope.load(SAMPLE_HOST, SAMPLE_DEVICE)
        with self.assertRaisesRegex(ValueError, "step=-1: a ProfilerStep number is 0 or more"):
            t.critical_path(step=-1)

    def test_a_nul_in_a_path_is_refused(self):
        with self.assertRaisesRegex(ValueError, "NUL byte"):
            syncscope.load(device=SAMPLE_DEVICE + "\0.ignored")
        with self.assertRaisesRegex(ValueError, "NUL byte"):
            syncscope.hang(SAMPLE_DIR + "\0x")
        t = syncscope.load(device=SAMPLE_DEVICE)
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(ValueError, "NUL byte"):
                t.to_sqlite(os.path.join(d, "a.sqlite\0b"))
            self.assertEqual(os.listdir(d), [])

    def test_ctrl_c_stops_a_call_without_progress(self):
        # SIGINT while the C++ runs with the GIL released: the call stops with KeyboardInterrupt
        # within ~50 ms (it used to finish first). 1,500 ranks x 100 entries of dumps: the read
        # takes ~0.25 s here.
        import signal
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([os.environ["SYNCSCOPE_TRACEGEN"], "--hang-scale", "1500,100", "--out", d],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t0 = time.perf_counter()
            syncscope.hang(d)
            full = time.perf_counter() - t0
            timer = threading.Timer(0.02, lambda: os.kill(os.getpid(), signal.SIGINT))
            timer.start()
            t0 = time.perf_counter()
            try:
                with self.assertRaises(KeyboardInterrupt):
                    syncscope.hang(d)
            finally:
                timer.cancel()
            stopped = time.perf_counter() - t0
            self.assertLess(stopped, 0.6 * full, f"stopped after {stopped:.3f} s of a {full:.3f} s read")


class Exports(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.host = os.path.join(self.dir, "h.et.json.gz")
        self.device = os.path.join(self.dir, "d.kineto.json.gz")
        shutil.copy(SAMPLE_HOST, self.host)
        shutil.copy(SAMPLE_DEVICE, self.device)
        self.t = syncscope.load(self.host, self.device)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_exports_write_what_the_cli_writes(self):
        et_plus = os.path.join(self.dir, "linked.json")
        self.t.export_et_plus(et_plus)
        ref = os.path.join(self.dir, "ref.json")
        rc, _ = cli(["--host", self.host, "--device", self.device, "--output", ref])
        self.assertEqual(read(et_plus), read(ref))
        for fn, name in [(self.t.export_et, "x.et"), (self.t.overlay, "x.overlay.json"),
                         (self.t.export_critical_path, "x.cp.json")]:
            fn(os.path.join(self.dir, name))
            self.assertGreater(os.path.getsize(os.path.join(self.dir, name)), 0)

    def test_exports_refuse_to_overwrite_an_input(self):
        before = read(self.device)
        link = os.path.join(self.dir, "alias.json.gz")
        os.symlink(self.device, link)
        for fn, target in [(self.t.export_et_plus, self.host), (self.t.overlay, self.device),
                           (self.t.export_et, link)]:
            with self.assertRaisesRegex(syncscope.OutputError, "input") as cm:
                fn(target)
            self.assertIn(os.path.basename(target), str(cm.exception))
        self.assertEqual(read(self.device), before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["alias.json.gz", "d.kineto.json.gz", "h.et.json.gz"])

    def test_to_sqlite_is_the_cli_database(self):
        mine, ref = os.path.join(self.dir, "py.db"), os.path.join(self.dir, "cli.db")
        self.t.to_sqlite(mine)
        subprocess.run([BIN, "--batch", "--quiet", "--host", self.host, "--device", self.device, "--sqlite", ref],
                       check=True)
        a, b = sqlite3.connect(mine), sqlite3.connect(ref)
        tables = [r[0] for r in b.execute("select name from sqlite_master where type='table' order by name")]
        self.assertIn("events", tables)
        for table in tables:
            self.assertEqual(a.execute(f"select * from {table}").fetchall(),
                             b.execute(f"select * from {table}").fetchall(), table)
        a.close()
        b.close()
        with self.assertRaisesRegex(syncscope.OutputError, "input"):
            self.t.to_sqlite(self.device)
        self.assertEqual(read(self.device), read(SAMPLE_DEVICE))

    def test_sqlite_text_is_utf8_for_any_file_name(self):
        # Issue 40, class 8: a file name that is not UTF-8 is stored as valid text (U+FFFD),
        # so Python's sqlite3 (and pandas) can read meta and ranks.
        odd = os.path.join(os.fsencode(self.dir), b"d\xff.kineto.json.gz")
        shutil.copy(SAMPLE_DEVICE, odd)
        out = os.path.join(self.dir, "odd.db")
        subprocess.run([os.fsencode(BIN), b"--batch", b"--quiet", b"--device", odd, b"--sqlite", os.fsencode(out)],
                       check=True)
        db = sqlite3.connect(out)
        meta = dict(db.execute("select key, value from meta").fetchall())
        self.assertIn("d\ufffd.kineto.json.gz", meta["device"])
        db.execute("select * from ranks").fetchall()
        db.close()

    def test_export_into_a_missing_folder_fails_cleanly(self):
        with self.assertRaises(syncscope.OutputError):
            self.t.export_et_plus(os.path.join(self.dir, "no", "such", "dir", "x.json"))


class Diff(unittest.TestCase):
    def test_diff_is_the_cli_diff_report(self):
        a = syncscope.load(SAMPLE_HOST, SAMPLE_DEVICE)
        other = shared("device_only", "hta_cuda_event_sync.kineto.json.gz")
        d = syncscope.diff(a, other)
        rc, want = cli(["--diff", f"{SAMPLE_DEVICE},{SAMPLE_HOST}", other], report_option="--diff-report")
        got = d.report()
        drop = lambda r: {k: v for k, v in r.items() if k != "timing"}
        self.assertEqual(drop(got), drop(want))
        self.assertEqual(d.exit_code, rc)
        ops = d.ops()
        self.assertEqual(len(ops), len(want["ops"]))
        self.assertEqual(list(ops.path), [o["path"] for o in want["ops"]])
        self.assertEqual(list(ops.delta_us), [o["delta_us"] for o in want["ops"]])
        self.assertEqual(len(d.steps()), len(want["steps"]))
        self.assertEqual(len(d.kernels()), len(want["kernels"]))
        self.assertEqual(list(d.top_changes().delta_us), [c["delta_us"] for c in want["top_changes"]])


class ReadmeExample(unittest.TestCase):
    def test_the_readme_python_example_runs(self):
        readme = os.path.join(SAMPLE_DIR, "..", "..", "README.md")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        section = text.split("## From Python", 1)[1]
        code = section.split("```python", 1)[1].split("```", 1)[0]
        code = code.replace("../shared/data", SHARED).replace("resources/sample", SAMPLE_DIR)
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as d:
            os.chdir(d)
            try:
                scope = {}
                exec(compile(code, "README.md (From Python)", "exec"), scope)
                self.assertEqual(sorted(os.listdir(d)), ["sample.0.et", "sample.db", "sample.overlay.json.gz"])
            finally:
                os.chdir(cwd)
        self.assertLess(scope["w"].projected_us, scope["w"].baseline_us)
        self.assertEqual(len(scope["j"].ranks()), 8)
        self.assertTrue(scope["h"].summary.startswith("hang: pg 9 EXPERT_MODEL_PARALLEL_GROUP"), scope["h"].summary)


if __name__ == "__main__":
    unittest.main()
