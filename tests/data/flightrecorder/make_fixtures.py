#!/usr/bin/env python3
# Writes the flight-recorder fixtures of tst_frreader: builtin-only dicts shaped like
# PyTorch's NCCL flight-recorder dumps (FlightRecorder.cpp, version "2.x"), pickled with
# protocols 2, 4 and 5, the same dump in dump_json's JSON form, gzipped, and an old
# ("2.0"-like) dump without p2p_seq_id and pg_status. Run from this directory.
import gzip, json, pickle

frames = [{"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py", "line": 2501},
          {"name": "train_step", "filename": "train.py", "line": 42}]

def entry(rid, seq, p2p, op, name, state, started, completed, dur, is_p2p=False, pg=("0", "default_pg"), pg_id=0):
    return {"frames": frames, "record_id": rid, "pg_id": pg_id, "process_group": pg,
            "collective_seq_id": seq, "p2p_seq_id": p2p, "op_id": op, "profiling_name": name,
            "time_created_ns": 1724779239936775119 + rid * 1000, **({"duration_ms": dur} if dur is not None else {}),
            "input_sizes": [[3, 4]], "input_dtypes": ["Float"], "output_sizes": [[3, 4]], "output_dtypes": ["Float"],
            "state": state, "time_discovered_started_ns": started, "time_discovered_completed_ns": completed,
            "retired": completed is not None, "timeout_ms": 600000, "is_p2p": is_p2p}

dump = {
    "version": "2.5",
    "rank": 1,
    "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"},
                  "1": {"name": "1", "desc": "EXPERT_MODEL_PARALLEL_GROUP", "ranks": [0, 1, 2, 3]}},
    "pg_status": {"0": {"last_enqueued_collective": 3, "last_started_collective": 2, "last_completed_collective": 2}},
    "entries": [
        entry(0, 1, 0, 1, "nccl:all_reduce", "completed", 1724779239936776000, 1724779239936777000, 0.25),
        entry(1, 2, 0, 2, "nccl:all_reduce", "started", 1724779239936786000, None, None),
        entry(2, 2, 1, 3, "nccl:send 1->0", "scheduled", None, None, None, is_p2p=True, pg=("1", "EXPERT_MODEL_PARALLEL_GROUP"), pg_id=1),
    ],
    "nccl_comm_state": {},
}
for proto in (2, 4, 5):
    with open(f"dump_v25.p{proto}.pkl", "wb") as f:
        pickle.dump(dump, f, protocol=proto)
with open("dump_v25.p2.pkl", "rb") as f, gzip.open("dump_v25.pkl.gz", "wb") as g:
    g.write(f.read())

# dump_json: no frames, pg_status numbers as strings, absent times as 0, tuples as lists.
j = json.loads(json.dumps(dump))
j["pg_status"] = {k: {kk: str(vv) for kk, vv in v.items()} for k, v in j["pg_status"].items()}
for e in j["entries"]:
    del e["frames"]
    for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
        e[k] = e[k] or 0
del j["nccl_comm_state"]
with open("dump_v25.json", "w") as f:
    json.dump(j, f, indent=1)

old = {"version": "2.0",
       "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": [0, 1]}},
       "entries": [{k: v for k, v in entry(5, 7, 0, 7, "nccl:broadcast", "completed", 10, 20, 1.5).items()
                    if k not in ("p2p_seq_id", "is_p2p", "retired", "time_discovered_started_ns", "frames")}]}
with open("old_v20.pkl", "wb") as f:
    pickle.dump(old, f, protocol=2)
