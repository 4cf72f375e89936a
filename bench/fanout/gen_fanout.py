#!/usr/bin/env python3
"""Writes a Kineto trace of one correlation fan-out shape (issue 40): `memcpy` (N copy calls and
N copies sharing one correlation), `launches` (N launch calls sharing one correlation, one
kernel), `waits` (N record / wait / launch triples, kernels that overlap the next 16) or
`streamwaits` (N kernels launched early, then all start at once, each on its own stream: every kernel waited in
its queue, and the ops of the other streams end inside each one's stream-wait window).
Usage: gen_fanout.py SHAPE N OUT.json"""
import json
import sys

shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ev, t = [], 0.0
for i in range(n):
    if shape == "memcpy":
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": t,
                   "dur": 2, "args": {"correlation": 7}})
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0,
                   "tid": 7, "ts": t + 1, "dur": 1, "args": {"correlation": 7, "stream": 7, "device": 0}})
    elif shape == "launches":
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                   "dur": 1, "args": {"correlation": 5}})
        if i == 0:
            ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 2, "dur": 1,
                       "args": {"correlation": 5, "stream": 7, "device": 0}})
    elif shape == "waits":
        s = 7 + i % 2
        for k, name in enumerate(("cudaEventRecord", "cudaStreamWaitEvent", "cudaLaunchKernel")):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": t + k, "dur": 1,
                       "args": {"correlation": 3 * i + k + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": s, "ts": t + 3, "dur": 50,
                   "args": {"correlation": 3 * i + 3, "stream": s, "device": 0}})
    elif shape == "streamwaits":
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2 * i,
                   "dur": 1, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7 + i, "ts": 2 * n + 100,
                   "dur": 1, "args": {"correlation": i + 1, "stream": 7 + i, "device": 0}})
    else:
        sys.exit("unknown shape " + shape)
    t += 3
with open(out, "w") as f:
    json.dump({"traceEvents": ev}, f)
