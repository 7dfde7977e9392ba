"""report.py OUT: the per-second table of bench/phase-probe.sh (see there), then per phase the mean ticks per second
of the event loop and the workers over seconds 2..n-2 and the server's CPU time per request."""
import datetime
import json
import re
import sys
from collections import Counter

out = sys.argv[1]
tail = json.load(open(out + '/tail.json'))


def epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace('Z', '')[:26]).replace(tzinfo=datetime.timezone.utc).timestamp()


samples = []
for line in open(out + '/samples.txt'):
    f = line.split(' ', 7)
    ticks = dict((k, int(v)) for k, v in (kv.rsplit('=', 1) for kv in f[7].strip().split(';') if '=' in kv)) \
        if len(f) > 7 else {}
    samples.append((float(f[0]), int(f[1]) + int(f[2]), int(f[3]), float(f[4]), ticks, float(f[5]), float(f[6])))

events = []
try:
    for line in open(out + '/LOG', errors='replace'):
        if 'EVENT_LOG_v1' in line:
            e = json.loads(line.split('EVENT_LOG_v1', 1)[1])
            kind = e['event']
            if kind == 'flush_finished':
                events.append((e['time_micros'] / 1e6, 'flush%d' % e['job']))
            elif kind == 'compaction_finished':
                events.append((e['time_micros'] / 1e6, 'compaction%d->L%d(%dMB)' % (
                    e['job'], e['output_level'], e['total_output_size'] >> 20)))
        elif 'Stopping writes' in line or 'Stalling writes' in line:
            at = datetime.datetime.strptime(line[:26], '%Y/%m/%d-%H:%M:%S.%f').timestamp()  # the server's local time
            events.append((at, 'WRITES-STOPPED' if 'Stopping' in line else 'writes-slowed'))
except OSError:
    pass


def sample_at(t):
    best = None
    for s in samples:
        if s[0] <= t:
            best = s
    return best


def groups(ticks):
    g = Counter()
    for name, v in ticks.items():
        n = name.lower()
        key = ('cmp' if 'rocksdb:low' in n else 'fl' if 'rocksdb:high' in n else 'warm' if 'warmer' in n
               else 'wrk' if 'worker' in n else 'loop' if 'larder-io' in n else 'C2' if 'c# compilerthre' in n
               else name)
        g[key] += v
    return g


for phase in tail['phases']:
    start = epoch(phase['started'])
    larder = phase['larder']
    p99s = larder['timeline']['p99_ms']
    print('== %s %d/s: p99 %.1f ms, %d s above the SLO' % (phase['kind'], phase['rate'],
                                                         larder['latency_ms']['p99'], phase['seconds_above_slo']))
    means = Counter()
    counted = 0
    for i, p99 in enumerate(p99s):
        a, b = sample_at(start + i), sample_at(start + i + 1)
        if not a or not b or b is a:
            continue
        span = b[0] - a[0]
        ga, gb = groups(a[4]), groups(b[4])
        used = {k: round((gb[k] - ga.get(k, 0)) / span) for k in gb if gb[k] - ga.get(k, 0) > 0}
        if 2 <= i < len(p99s) - 1:
            counted += 1
            means.update({k: v for k, v in used.items()})
            means['total'] += sum(used.values())
        happened = ' '.join(name for at, name in events if start + i <= at < start + i + 1)
        print('%3d p99 %7.1f idle %3d rdMB %5.1f miss %6.0f loop/wrk req %6.0f %6.0f %s %s' % (
            i, p99, round((b[1] - a[1]) / span), (b[2] - a[2]) / 1e6, (b[3] - a[3]) / span,
            (b[5] - a[5]) / span, (b[6] - a[6]) / span,
            ' '.join('%s=%d' % kv for kv in sorted(used.items(), key=lambda kv: -kv[1])[:6]), happened))
    if counted:
        print('   mean ticks/s: loop %.0f, workers %.0f, server %.0f; CPU per request %.1f us' % (
            means['loop'] / counted, means['wrk'] / counted, means['total'] / counted,
            means['total'] / counted * 1e4 / larder['achieved_rate']))
