"""sched_report.py OUT: what bench/probe/sched-trace.sh recorded, by window of the run (PUT seconds 10-20, GET
seconds 0-1, 1-3 and 10-20): how long each thread group ran on the core; what the loop and the workers blocked on
(the futex a thread called since it last ran, marked by which groups ever waited on that address: only one thread
ever waits on a worker's own park futex, several on a lock; 'no futex' is the loop's io_uring
wait); and how long each slot of a background thread on the core lasted and who took the core from it."""
import collections
import datetime
import json
import re
import subprocess
import sys

out = sys.argv[1]
tail = json.load(open(out + '/tail.json'))
offset = float(open(out + '/mono-offset').read())


def epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace('Z', '')[:26]).replace(tzinfo=datetime.timezone.utc).timestamp()


def started(kind):
    return epoch([p for p in tail['phases'] if p['kind'] == kind][0]['started'])


put, get = started('PUT'), started('GET')
windows = {'PUT 10-20 s': (put + 10, put + 20), 'GET 0-1 s': (get, get + 1), 'GET 1-3 s': (get + 1, get + 3),
           'GET 10-20 s': (get + 10, get + 20)}
BACKGROUND = ('flush', 'cmp', 'warm')


def window(ts):
    for name, (a, b) in windows.items():
        if a <= ts < b:
            return name
    return None


def group(comm):
    comm = comm.strip()
    for prefix, name in (('larder-worker', 'wrk'), ('larder-io', 'loop'), ('rocksdb:high', 'flush'),
                         ('rocksdb:low', 'cmp'), ('larder-warmer', 'warm'), ('C1', 'jit'), ('C2', 'jit'),
                         ('swapper', 'idle')):
        if comm.startswith(prefix):
            return name
    return comm


line = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s+(.*)$')
perf = subprocess.Popen(['perf', 'script', '-i', out + '/perf.data', '-F', 'comm,tid,cpu,time,event,trace'],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors='replace')
futex_since_run = {}
waiters = collections.defaultdict(set)
waiter_threads = collections.defaultdict(set)
asleep = {}
on_core = {}
ran = {w: collections.Counter() for w in windows}
blocked = {w: collections.Counter() for w in windows}
slots = {w: collections.defaultdict(list) for w in windows}
taken_by = {w: collections.Counter() for w in windows}
for text in perf.stdout:
    m = line.match(text)
    if not m:
        continue
    comm, tid, _, ts, event, rest = m.groups()
    ts, tid = float(ts) + offset, int(tid)
    if event.endswith('sys_enter_futex'):
        fields = dict(re.findall(r'(\w+): (0x[0-9a-f]+|\d+)', rest))
        if int(fields.get('op', '0'), 0) & 0x7f in (0, 6, 9):  # WAIT, LOCK_PI, WAIT_BITSET
            futex_since_run[tid] = fields.get('uaddr')
            waiters[fields.get('uaddr')].add(group(comm))
            # Per window: a thread that ended (the warm-up server's) leaves its park futex's memory to a later one.
            waiter_threads[(window(ts), fields.get('uaddr'))].add(tid)
        continue
    if not event.endswith('sched_switch'):
        continue
    d = dict(re.findall(r'(\w+)=(\S+)', rest))
    prev_comm = group(re.search(r'prev_comm=(.*?) prev_pid', rest).group(1))
    next_comm = group(re.search(r'next_comm=(.*?) next_pid', rest).group(1))
    prev, nxt = int(d['prev_pid']), int(d['next_pid'])
    w = window(ts)
    if prev in on_core and w:
        length = ts - on_core[prev]
        ran[w][prev_comm] += length
        slots[w][prev_comm].append(length)
        if prev_comm in BACKGROUND:
            taken_by[w][(d['prev_state'][0], next_comm)] += 1
    on_core.pop(prev, None)
    on_core[nxt] = ts
    if d['prev_state'][0] in 'SD':
        why = 'D (disk)' if d['prev_state'][0] == 'D' else futex_since_run.get(prev, 'no futex')
        asleep[prev] = (ts, why, prev_comm)
    futex_since_run.pop(nxt, None)
    if nxt in asleep:
        since, why, g = asleep.pop(nxt)
        w0 = window(since)
        if w0:
            blocked[w0][(g, why)] += ts - since
for w in windows:
    print('==', w)
    print('  ran (s):', ', '.join('%s %.3f' % kv for kv in ran[w].most_common(8)))
    waits = sorted(((k, v) for k, v in blocked[w].items() if k[0] in ('wrk', 'loop')), key=lambda kv: -kv[1])
    shared = sum(v for (g, why), v in waits if why.startswith('0x')
                 and (len(waiters[why]) > 1 or len(waiter_threads[(w, why)]) > 1))
    print('  loop/workers blocked on a futex another thread also waits on: %.3f s' % shared)
    for (g, why), v in waits[:6]:
        print('    %-4s %.3f s on %s %s' % (g, v, why, sorted(waiters.get(why, [])) if why.startswith('0x') else ''))
    for g in ('loop', 'wrk') + BACKGROUND:
        s = sorted(slots[w][g])
        if s:
            q = lambda f: s[min(len(s) - 1, int(f * len(s)))] * 1e3
            print('  %-5s slots %6d  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f ms' % (g, len(s), q(.5), q(.9), q(.99),
                                                                              s[-1] * 1e3))
    print('  background slot ended by (state > next):',
          ', '.join('%s>%s %d' % (a, b, n) for (a, b), n in taken_by[w].most_common(5)))
