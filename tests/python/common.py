"""Shared by the Python tests: paths from CTest's environment and the CLI as the reference."""
import json
import os
import subprocess
import tempfile

import syncscope  # noqa: F401  (from build/python, PYTHONPATH set by CTest)

BIN = os.environ["SYNCSCOPE_BIN"]
SAMPLE_DIR = os.environ["SYNCSCOPE_SAMPLE_DIR"]
SHARED = os.environ.get("SYNCSCOPE_SHARED_DATA") or os.environ["SYNCSCOPE_SHARED_DATA_DEFAULT"]
SAMPLE_HOST = os.path.join(SAMPLE_DIR, "sample.et.json.gz")
SAMPLE_DEVICE = os.path.join(SAMPLE_DIR, "sample.kineto.json.gz")
DLRM = os.path.join(SHARED, "pairs", "param_dlrm_8rank")


def shared(*parts):
    return os.path.join(SHARED, *parts)


def cli(args, report_option="--report"):
    """Runs `syncscope --batch ARGS REPORT_OPTION FILE` and returns (exit code, parsed report)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "report.json")
        rc = subprocess.run([BIN, "--batch", "--quiet", *args, report_option, out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        with open(out, encoding="utf-8") as f:
            return rc, json.load(f)


def without_timing(report):
    """A report apart from its wall-clock figures (the one part two runs never share)."""
    return {k: v for k, v in report.items() if k != "timing"}
