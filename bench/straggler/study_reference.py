#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the study's OWN analyzer (imported from a checkout of
ByteDance-Seed/StragglerAnalysis, nothing copied) on a trace dumped to JSON, and
print its S two ways:
  study   : nodelay / ideal, both without launch delays (the published blocking_slowdown)
  delays  : measured / ideal with the measured launch delays kept in the ideal
            (what Syncscope's straggler what-if computes)
so the gap between Syncscope and the published figures can be attributed.
pyarrow is not needed: pd.read_parquet is redirected to the JSON dump; tqdm and
yaml are stubbed when absent.
"""
import argparse
import json
import sys
import types

import pandas as pd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--study', required=True)
    ap.add_argument('--trace-json', required=True)
    ap.add_argument('--meta', required=True)
    ap.add_argument('--out', help='write the figures here (JSON)')
    ap.add_argument('--dump-nodelay', help="write the study's no-launch-delay timeline here, in the trace's "
                    'JSON record form (study_to_kineto.py --trace-json reads it)')
    a = ap.parse_args()
    for mod in ('tqdm', 'yaml', 'ujson'):
        try:
            __import__(mod)
        except ImportError:
            m = types.ModuleType(mod)
            if mod == 'tqdm':
                m.tqdm = lambda x, *k, **kw: x
            if mod == 'ujson':
                m = json
            sys.modules[mod] = m
    sys.path.insert(0, a.study)
    sys.path.insert(0, a.study + '/analyzer')  # timers.py imports analysis_logger flat
    def read(path, *k, **kw):
        d = pd.read_json(a.trace_json)
        d['optype'] = d['optype'].astype('category')  # as the parquet stores it
        return d

    pd.read_parquet = read
    import functools
    from analyzer import wia
    from analyzer.metatypes import JobMeta
    from analyzer.analysis_util import get_step_time, simulation_analysis_no_delay, simulation_analysis_reduce_dim
    from analyzer.simulator import compute_op2dfidx, simulate

    meta = {}
    for line in open(a.meta):
        if ':' in line:
            k, v = line.split(':', 1)
            v = v.strip()
            meta[k.strip()] = int(v) if v.isdigit() else v
    jm = JobMeta(**meta)
    dep_on, comm_groups, op2gid, need_dp_sync, df = wia.parse_trace(jm, a.trace_json)
    for c in ('start_ts', 'end_ts', 'duration', 'transfer_duration', 'launch_delay'):
        df[c] = df[c].astype('float64')
    sim = functools.partial(simulate, dep_on, comm_groups, op2gid, need_dp_sync,
                            step_starts=df.groupby('step')['start_ts'].min(), inplace=True,
                            op2dfidx=compute_op2dfidx(df))
    base = get_step_time(df).step_time.mean()
    _, _, df_nd, t_nd = simulation_analysis_no_delay(sim, df)
    _, _, df_ideal, t_ideal = simulation_analysis_reduce_dim(sim, df_nd, ['dp_rank', 'stage', 'step'])
    _, _, df_ideal_d, t_ideal_d = simulation_analysis_reduce_dim(sim, df.copy(), ['dp_rank', 'stage', 'step'])
    _, t_replay = sim(df.copy())
    res = {
        'measured_step_s': float(base),
        'replayed_step_s': float(t_replay.step_time.mean()),
        'nodelay_step_s': float(t_nd.step_time.mean()),
        'ideal_nodelay_step_s': float(t_ideal.step_time.mean()),
        'ideal_with_delays_step_s': float(t_ideal_d.step_time.mean()),
        'S_study': float(t_nd.step_time.mean() / t_ideal.step_time.mean()),
        'S_with_delays': float(base / t_ideal_d.step_time.mean()),
        'launch_slowdown': float(base / t_nd.step_time.mean()),
    }
    if a.dump_nodelay:
        cols = ['dp_rank', 'stage', 'rank', 'step', 'optype', 'start_ts', 'duration', 'seq_id', 'mc', 'mb_id', 'gmc']
        d = df_nd.copy()
        d['duration'] = d['end_ts'] - d['start_ts']
        d['optype'] = d['optype'].astype(str)
        d['mc'] = d['mc'].astype('int64')
        d[cols].to_json(a.dump_nodelay, orient='records')
    print(json.dumps(res))
    if a.out:
        json.dump(res, open(a.out, 'w'), indent=1)


if __name__ == '__main__':
    main()
