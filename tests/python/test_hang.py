"""syncscope.hang: a folder of flight recorder dumps gives the CLI's `hang` report, the
generator's known root first, the ranks' entries with their stacks, and InputError for a
folder without dumps."""
import json
import os
import subprocess
import tempfile
import unittest

import syncscope
from common import cli

TRACEGEN = os.environ["SYNCSCOPE_TRACEGEN"]


def write_case(name, out, pickle=False):
    subprocess.run([TRACEGEN, "--hang-case", name, "--out", out] + (["--pickle"] if pickle else []),
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "expected.json"), encoding="utf-8") as f:
        return json.load(f)


class HangFromPython(unittest.TestCase):
    def test_same_report_as_the_cli(self):
        for case in ("never_enters", "p2p_desync", "nested_ep", "coalesced_other_size"):
            with self.subTest(case=case), tempfile.TemporaryDirectory() as d:
                expected = write_case(case, d)
                h = syncscope.hang(d)
                rc, report = cli(["--flight-recorder", d])
                self.assertEqual(rc, 0)
                self.assertEqual(h.report(), report["hang"])
                s = h.suspects()
                root = expected["expected"][0]
                self.assertEqual(s.loc[0, "pg_id"], root["pg_id"])
                self.assertEqual(s.loc[0, "kind"], root["kind"])
                self.assertTrue(bool(s.loc[0, "root"]))
                self.assertEqual(s.loc[0, "missing_ranks"], ",".join(str(r) for r in root["missing_ranks"]))
                self.assertEqual(len(s), len(report["hang"]["suspects"]))
                self.assertTrue(h.summary.startswith("hang: pg " + root["pg_id"] + " "), h.summary)
                inputs = h.inputs()
                self.assertEqual(inputs["world_size"], report["inputs"]["world_size"])
                self.assertEqual(inputs["missing_dumps"], report["inputs"]["missing_dumps"])

    def test_groups_and_entries_with_frames(self):
        with tempfile.TemporaryDirectory() as d:
            write_case("nested_ep", d, pickle=True)  # torch's pickle form carries the stacks
            h = syncscope.hang(d)
            g = h.groups()
            culprit = g[(g.pg_id == "9") & (g["rank"] == 12)]
            self.assertEqual(len(culprit), 1)
            self.assertEqual(culprit.iloc[0]["last_enqueued"], 2)  # it never enqueued seq 3
            e = h.entries(8)
            self.assertEqual(e.iloc[-1]["op"], "nccl:all_to_all")
            self.assertEqual(e.iloc[-1]["state"], "started")
            self.assertTrue(any(f for f in e["frames"]), "no entry of rank 8 has a stack")
            with self.assertRaises(syncscope.UsageError):
                h.entries(999)

    def test_a_folder_without_dumps(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "notes.txt"), "w") as f:
                f.write("nothing\n")
            with self.assertRaises(syncscope.InputError) as ctx:
                syncscope.hang(d)
            self.assertIn(d, str(ctx.exception))
            with self.assertRaises(syncscope.InputError):
                syncscope.hang(os.path.join(d, "absent"))


if __name__ == "__main__":
    unittest.main()
