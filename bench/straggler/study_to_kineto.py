#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Convert one job of ByteDance's straggler study (trace-*.parquet, dumped to JSON
by dump_parquet.mjs) into per-rank Kineto traces that Syncscope's job mode reads.

The study's dependency model is obtained by RUNNING the study's own
analyzer.dependency_model.setup_dependency (imported from a checkout of the
artifact given with --study); nothing of it is copied here.

Layout (one Kineto rank per study worker (dp_rank, stage); tp is collapsed, so run
Syncscope with --parallelism dp=D,pp=P,tp=1; rank = dp_rank + D * stage):
  stream 7   forward/backward-compute, gc, layernorm-grads-all-reduce,
             embedding-grads-all-reduce, optimizer-clip-main-grad, optimizer
  stream 20..23  forward-send, forward-recv, backward-send, backward-recv
  stream 30  params-all-gather, grads-reduce-scatter, separate-grads-all-reduce
Stream order reproduces the study's same-stream chains; every other dep_on edge
u -> v (u and v on different streams) is a GPU->GPU wait as Kineto records it:
a cudaEventRecord right after u's launch, then cudaStreamWaitEvent + a cuda_sync
"Stream Wait Event" row (stream = v's, wait_on_stream = u's,
wait_on_cuda_event_record_corr_id = the record's correlation) just before v's launch.
Study comm groups become NCCL kernels: p2p pairs are send/recv in the dp rank's
pipeline group; grads-reduce-scatter / params-all-gather / separate-grads-all-reduce
are collectives of the stage's data-parallel group (the study's need_dp_sync);
embedding-grads-all-reduce is an all-reduce of (dp, stage 0) and (dp, stage P-1);
optimizer-clip-main-grad is an all-reduce of the whole world. Study ops that are
no comm group (p2p "no-ops", layernorm-grads-all-reduce, gc) are compute kernels
named after their optype. Timestamps: the study's seconds (relative to each step's
earliest op) become microseconds; steps are laid one after another with a gap.
"""
import argparse
import collections
import json
import os
import sys

import pandas as pd

STREAM = {
    'forward-compute': 7, 'backward-compute': 7, 'gc': 7, 'layernorm-grads-all-reduce': 7,
    'embedding-grads-all-reduce': 7, 'optimizer-clip-main-grad': 7, 'optimizer': 7,
    'forward-send': 20, 'forward-recv': 21, 'backward-send': 22, 'backward-recv': 23,
    'params-all-gather': 30, 'grads-reduce-scatter': 30, 'separate-grads-all-reduce': 30,
}
P2P = ('forward-send', 'forward-recv', 'backward-send', 'backward-recv')
STEP_GAP_US = 200000.0   # between one step's last kernel and the next step's first
MARKER = 'study-wait-marker'  # zero-length kernel carrying an extra wait
SLOT_US = 2.0            # CPU time per runtime call in the launch window


def read_meta(path):
    meta = {}
    for line in open(path):
        if ':' in line:
            k, v = line.split(':', 1)
            v = v.strip()
            meta[k.strip()] = int(v) if v.isdigit() else v
    return meta


def topo_order(dep_on, key):
    """Kahn's order of dep_on's ops, ties broken by key (the measured start)."""
    import heapq
    deg = {v: len(d) for v, d in dep_on.items()}
    nxt = collections.defaultdict(list)
    for v, d in dep_on.items():
        for u in d:
            nxt[u].append(v)
    heap = [(key(v), v) for v, n in deg.items() if n == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, u = heapq.heappop(heap)
        out.append(u)
        for v in nxt[u]:
            deg[v] -= 1
            if deg[v] == 0:
                heapq.heappush(heap, (key(v), v))
    assert len(out) == len(dep_on), 'dependency cycle'
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--study', required=True, help='a checkout of ByteDance-Seed/StragglerAnalysis (work tree)')
    ap.add_argument('--trace-json', required=True, help='trace-X.parquet dumped to JSON records')
    ap.add_argument('--meta', required=True, help='meta-X.yaml')
    ap.add_argument('--out', required=True, help='output directory (rankN.kineto.json); statistics go to OUT.conversion.json')
    args = ap.parse_args()

    sys.path.insert(0, args.study)
    from analyzer.dependency_model import setup_dependency  # the study's own model

    meta = read_meta(args.meta)
    df = pd.read_json(args.trace_json)
    df['end_ts'] = df['start_ts'] + df['duration']
    df['mc'] = df['mc'].astype('Int64')
    df['op'] = df['optype'] + '_' + df['seq_id'].astype(str) + '_' + df['stage'].astype(str)
    dep_on, comm_groups, op2gid, need_dp_sync = setup_dependency(df, int(meta.get('dsp_size', 1)))

    D = int(df.dp_rank.max()) + 1
    P = int(df.stage.max()) + 1
    world = D * P
    rank_of = lambda d, s: d + D * s
    steps = sorted(df.step.unique())

    # Measured start of every op at dp 0, first step: tie-break of the launch order.
    first = df[df.dp_rank.eq(0) & df.step.eq(steps[0])].set_index('op')
    start0 = first['start_ts'].to_dict()
    stage_of = {op: int(op.rsplit('_', 1)[1]) for op in dep_on}
    optype_of = {op: op.rsplit('_', 2)[0] for op in dep_on}
    order = topo_order(dep_on, lambda v: (start0.get(v, 0.0), v))

    # Checks: a same-stream predecessor must be an ancestor in dep_on (else stream
    # order adds a dependency the study does not have).
    anc = {}
    for v in order:
        a = set()
        for u in dep_on[v]:
            a.add(u)
            a |= anc[u]
        anc[v] = a
    by_stream = collections.defaultdict(list)
    for v in order:
        by_stream[(stage_of[v], STREAM[optype_of[v]])].append(v)
    extra_stream_edges = 0
    stream_prev = {}
    for ops in by_stream.values():
        for a, b in zip(ops, ops[1:]):
            stream_prev[b] = a
            if a not in anc[b]:
                extra_stream_edges += 1
    cross = {v: [u for u in dep_on[v] if STREAM[optype_of[u]] != STREAM[optype_of[v]]] for v in order}
    sources = {u for us in cross.values() for u in us}  # ops some other stream waits on

    # Collective identity of each comm-group op: (kind, pg key, collective name, nelems, kernel name).
    group_of = {}
    for gid, g in enumerate(comm_groups):
        for op in g:
            group_of[op] = gid
    nelems = {'forward-send': 4194304, 'forward-recv': 4194304, 'backward-send': 8388608,
              'backward-recv': 8388608, 'params-all-gather': 33554432, 'grads-reduce-scatter': 67108864,
              'separate-grads-all-reduce': 16777216, 'embedding-grads-all-reduce': 2097152,
              'optimizer-clip-main-grad': 1}

    # Process groups.
    pgs = [{'pg_name': '0', 'pg_desc': 'default_pg', 'ranks': list(range(world))}]
    dp_pg, pp_pg, emb_pg = {}, {}, {}
    for s in range(P):
        dp_pg[s] = str(len(pgs))
        pgs.append({'pg_name': dp_pg[s], 'pg_desc': 'DATA_PARALLEL_GROUP', 'ranks': [rank_of(d, s) for d in range(D)]})
    for d in range(D):
        pp_pg[d] = str(len(pgs))
        pgs.append({'pg_name': pp_pg[d], 'pg_desc': 'PIPELINE_MODEL_PARALLEL_GROUP',
                    'ranks': [rank_of(d, s) for s in range(P)]})
    for d in range(D):
        emb_pg[d] = str(len(pgs))
        pgs.append({'pg_name': emb_pg[d], 'pg_desc': 'EMBEDDING_GROUP',
                    'ranks': sorted({rank_of(d, 0), rank_of(d, P - 1)})})
    pg_ranks = {g['pg_name']: g['ranks'] for g in pgs}

    def comm_args(op, d, s):
        """Kineto args of a comm kernel, or None for a compute kernel."""
        t = optype_of[op]
        if op not in group_of:
            return None
        g = comm_groups[group_of[op]]
        if t in P2P:
            if len(g) != 2:
                return None  # a study no-op: a group of one, no peer
            peer = [x for x in g if x != op][0]
            peer_rank = rank_of(d, stage_of[peer])
            me = rank_of(d, s)
            send = t.endswith('send')
            return ('send' if send else 'recv', pp_pg[d], 'ncclDevKernel_SendRecv',
                    {'Src Rank': me if send else peer_rank, 'Dst Rank': peer_rank if send else me})
        if t == 'grads-reduce-scatter':
            return ('_reduce_scatter_base', dp_pg[s], 'ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL', {})
        if t == 'params-all-gather':
            return ('_allgather_base', dp_pg[s], 'ncclDevKernel_AllGather_RING_LL', {})
        if t == 'separate-grads-all-reduce':
            return ('allreduce', dp_pg[s], 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL', {})
        if t == 'embedding-grads-all-reduce':
            return ('allreduce', emb_pg[d], 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', {})
        if t == 'optimizer-clip-main-grad':
            return ('allreduce', '0', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', {})
        return None

    def seq_key(t, s):
        return ('dp' if t in ('params-all-gather', 'grads-reduce-scatter', 'separate-grads-all-reduce') else t) + str(s)

    # Seq per (pg, op name within a step): the dp-0 launch order, the same on every member.
    seq_in_step = collections.defaultdict(dict)
    for v in order:
        t = optype_of[v]
        if v in group_of and t not in P2P:
            key = seq_key(t, stage_of[v])
            seq_in_step[key][v] = len(seq_in_step[key])

    # Step placement on one clock (µs).
    span = (df.groupby('step').end_ts.max() - df.groupby('step').start_ts.min()) * 1e6
    base = {}
    t = 1.0e6
    for n in steps:
        base[n] = t
        t += span[n] + STEP_GAP_US

    os.makedirs(args.out, exist_ok=True)
    rows = {(int(r.dp_rank), int(r.stage), int(r.step), r.op): (r.start_ts, r.end_ts)
            for r in df[['dp_rank', 'stage', 'step', 'op', 'start_ts', 'end_ts']].itertuples(index=False)}
    stats = {'ranks': world, 'dp': D, 'pp': P, 'steps': len(steps), 'ops_per_worker_step': len(order) // P,
             'extra_stream_edges': extra_stream_edges, 'stream_order_violations': 0, 'missing_ops': 0, 'markers': 0,
             'wait_edges_per_step': sum(len(c) for c in cross.values())}
    fmt = lambda x: float('%.3f' % x)
    for s in range(P):
        ops_s = [v for v in order if stage_of[v] == s]
        for d in range(D):
            r = rank_of(d, s)
            pid, tid = 1000 + r, 1000 + r
            ev = [{'name': 'process_name', 'ph': 'M', 'ts': 0, 'pid': pid, 'tid': 0, 'args': {'name': 'python3'}},
                  {'name': 'process_name', 'ph': 'M', 'ts': 0, 'pid': 0, 'tid': 0, 'args': {'name': 'GPU 0'}}]
            corr = 1
            seq_base = collections.Counter()
            for n in steps:
                T = base[n]
                times = {}
                for v in ops_s:
                    x = rows.get((d, s, int(n), v))
                    if x is None:
                        stats['missing_ops'] += 1
                        x = (0.0, 0.0)
                    times[v] = (T + x[0] * 1e6, T + x[1] * 1e6)
                # Same-stream measured order must follow the launch order.
                for v in ops_s:
                    p = stream_prev.get(v)
                    if p is not None and times[v][0] < times[p][0]:
                        stats['stream_order_violations'] += 1
                n_calls = len(ops_s) + 2 * sum(len(cross[v]) for v in ops_s) + len(ops_s)
                cpu = T - SLOT_US * (n_calls + 20) - 1000.0
                step_end = max(e for _, e in times.values())
                ev.append({'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#%d' % n, 'pid': pid,
                           'tid': tid, 'ts': fmt(cpu - 5.0), 'dur': fmt(step_end + 50.0 - (cpu - 5.0)),
                           'args': {'External id': corr}})
                corr += 1
                record_corr = {}
                stream_end = {}
                for v in ops_s:
                    st = STREAM[optype_of[v]]
                    b, e = times[v]
                    for i, u in enumerate(cross[v]):
                        # Syncscope (as HTA) keeps one Stream Wait Event per kernel (the last before
                        # it): every wait but the last gets its own zero-length marker kernel.
                        last = i == len(cross[v]) - 1
                        wts = b if last else min(b, max(stream_end.get(st, b), times[u][1]))
                        c = corr
                        corr += 1
                        ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaStreamWaitEvent', 'pid': pid,
                                   'tid': tid, 'ts': fmt(cpu), 'dur': 1.0, 'args': {'correlation': c}})
                        cpu += SLOT_US
                        ev.append({'ph': 'X', 'cat': 'cuda_sync', 'name': 'Stream Wait Event', 'pid': 0, 'tid': st,
                                   'ts': fmt(wts), 'dur': 0.0,
                                   'args': {'device': 0, 'stream': st, 'correlation': c,
                                            'wait_on_stream': STREAM[optype_of[u]],
                                            'wait_on_cuda_event_record_corr_id': record_corr[u]}})
                        if not last:
                            c = corr
                            corr += 1
                            ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': pid,
                                       'tid': tid, 'ts': fmt(cpu), 'dur': 1.0,
                                       'args': {'External id': c, 'cbid': 211, 'correlation': c}})
                            cpu += SLOT_US
                            ev.append({'ph': 'X', 'cat': 'kernel', 'name': MARKER, 'pid': 0, 'tid': st,
                                       'ts': fmt(wts), 'dur': 0.0,
                                       'args': {'External id': c, 'device': 0, 'stream': st, 'correlation': c}})
                            stats['markers'] += 1
                    c = corr
                    corr += 1
                    ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': pid, 'tid': tid,
                               'ts': fmt(cpu), 'dur': 1.0, 'args': {'External id': c, 'cbid': 211, 'correlation': c}})
                    cpu += SLOT_US
                    kargs = {'External id': c, 'device': 0, 'stream': st, 'correlation': c}
                    ca = comm_args(v, d, s)
                    name = optype_of[v]
                    if ca is not None:
                        coll, pg, name, extra = ca
                        t = optype_of[v]
                        if t in P2P:
                            seq_base[pg] += 1
                            seq = seq_base[pg]
                        else:
                            key = seq_key(t, s)
                            seq = len(seq_in_step[key]) * steps.index(n) + seq_in_step[key][v] + 1
                        kargs.update({'Collective name': coll, 'Process Group Name': pg,
                                      'Process Group Ranks': str(pg_ranks[pg]), 'Seq': seq,
                                      'In msg nelems': nelems[t], 'Out msg nelems': nelems[t],
                                      'Group size': len(pg_ranks[pg]), 'dtype': 'BFloat16',
                                      'In split size': '[]', 'Out split size': '[]'})
                        kargs.update(extra)
                    ev.append({'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': 0, 'tid': st, 'ts': fmt(b),
                               'dur': fmt(max(0.0, e - b)), 'args': kargs})
                    stream_end[st] = max(stream_end.get(st, e), e)
                    if v in sources:
                        record_corr[v] = corr
                        ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaEventRecord', 'pid': pid,
                                   'tid': tid, 'ts': fmt(cpu), 'dur': 1.0, 'args': {'correlation': corr}})
                        corr += 1
                        cpu += SLOT_US
            doc = {'schemaVersion': 1,
                   'deviceProperties': [{'id': 0, 'name': 'NVIDIA H100 80GB HBM3', 'totalGlobalMem': 85045035008,
                                         'computeMajor': 9, 'computeMinor': 0, 'maxThreadsPerBlock': 1024,
                                         'numSms': 132}],
                   'distributedInfo': {'backend': 'nccl', 'rank': r, 'world_size': world, 'pg_count': len(pgs),
                                       'pg_config': [dict(g, backend_config='cuda:nccl', pg_size=len(g['ranks']))
                                                     for g in pgs], 'nccl_version': '2.21.5'},
                   'study_job': {'trial': meta.get('trial_name'), 'dp_rank': d, 'stage': s,
                                 'study_dp': meta.get('dp_size'), 'study_pp': meta.get('pp_size'),
                                 'study_tp': meta.get('tp_size'), 'study_dsp': meta.get('dsp_size')},
                   'traceEvents': ev, 'traceName': 'study-%s' % meta.get('trial_name'), 'displayTimeUnit': 'ms',
                   'baseTimeNanoseconds': 1764580000000000000}
            with open(os.path.join(args.out, 'rank%d.kineto.json' % r), 'w') as f:
                json.dump(doc, f, separators=(',', ':'))
    with open(os.path.normpath(args.out) + '.conversion.json', 'w') as f:
        json.dump(stats, f, indent=1)
    print(json.dumps(stats))


if __name__ == '__main__':
    main()
