#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py WORK STUDY_DATA JOB...: a markdown table of the study's published figures
(STUDY_DATA/result-, mw-, ms-JOB.json), the study's own simulator with the launch
delays kept (WORK/JOB.studyref.json, study_reference.py) and Syncscope's straggler
what-if on the converted measured trace (WORK/JOB.report.json) and on the converted
no-launch-delay timeline (WORK/JOB-nodelay.report.json)."""
import json
import sys

# Syncscope's comm types (collective + message size the converter gave each study optype).
TYPE = {'send/recv 8.0 MiB': 'forward-pp-comm', 'send/recv 16.0 MiB': 'backward-pp-comm',
        '_reduce_scatter_base 128.0 MiB': 'grads-reduce-scatter', '_allgather_base 64.0 MiB': 'params-all-gather',
        'allreduce 4.0 MiB': 'embedding-grads-all-reduce', 'allreduce 2 B': 'optimizer-clip-main-grad',
        'allreduce 32.0 MiB': 'separate-grads-all-reduce'}


def top(d, n=2, name=lambda k: k):
    if not d:
        return '—'
    items = sorted(d.items(), key=lambda kv: -kv[1])[:n]
    return ', '.join('%s %.3f' % (name(k), v) for k, v in items)


def pct(x):
    return '—' if x is None else '%.1f %%' % (100 * x)


def main():
    work, data, jobs = sys.argv[1], sys.argv[2], sys.argv[3:]
    print('| job | dp×pp (tp) | source | S | M_W | M_S | top S_w (dp rank) | top S_stage | top S_t | replay err % | launch slowdown |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for j in jobs:
        r = json.load(open('%s/result-%s.json' % (data, j)))
        mw = json.load(open('%s/mw-%s.json' % (data, j)))['Mw']
        ms = json.load(open('%s/ms-%s.json' % (data, j)))['Ms']
        m = r['job_meta']
        shape = '%d×%d (tp %d, dsp %d)' % (m['dp_size'], m['pp_size'], m['tp_size'], m['dsp_size'])
        print('| %s | %s | study (published) | %.4f | %s | %s | %s | %s | %s | — | %.4f |' % (
            j, shape, r['blocking_slowdown'], pct(mw), pct(ms), top(r.get('blocking_decompose_by_dp_rank')),
            top(r.get('blocking_decompose_by_stage')), top(r.get('blocking_decompose_by_optype')),
            r['launch_slowdown']))
        try:
            ref = json.load(open('%s/%s.studyref.json' % (work, j)))
            print('| %s | | study simulator, delays kept | %.4f | | | | | | %.4f | %.4f |' % (
                j, ref['S_with_delays'], 100 * abs(ref['replayed_step_s'] / ref['measured_step_s'] - 1),
                ref['launch_slowdown']))
        except OSError:
            pass
        for tag, label in (('', 'Syncscope, measured trace'), ('-nodelay', 'Syncscope, no-delay timeline')):
            try:
                sw = json.load(open('%s/%s%s.report.json' % (work, j, tag)))['straggler_whatif']
            except (OSError, KeyError):
                continue
            if not sw.get('ok'):
                print('| %s | | %s | failed: %s |' % (j, label, sw.get('error')))
                continue
            types = {k: v for k, v in sw['by_op_type'].items() if k != 'study-wait-marker'}
            print('| %s | | %s | %.4f | %s | %s | %s | %s | %s | %.4f | %.4f |' % (
                j, label, sw['slowdown'], pct(sw.get('M_W')), pct(sw.get('M_S')), top(sw['by_dp_rank']),
                top(sw.get('by_stage')), top(types, name=lambda k: TYPE.get(k, k)), sw['replay_error_pct'],
                sw['launch_slowdown']))


if __name__ == '__main__':
    main()
