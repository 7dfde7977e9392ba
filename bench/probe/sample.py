"""sample.py PID OUT ADMIN_PORT: every 200 ms one line: time, core 1's idle and iowait ticks, the process's disk
read bytes, three counters from /metrics (once a second; -1 before the first scrape): the block cache's misses, the
requests the event loop ran itself and the requests workers ran, and the CPU ticks of each of its threads, summed by
thread name with digits replaced by '#'. Ends when the process does."""
import os
import re
import sys
import time
import urllib.request

pid, out_path, admin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
core = int(os.environ.get('SERVER_CPU', '1'))


def threads():
    ticks = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            stat = open(f'/proc/{pid}/task/{tid}/stat').read()
        except OSError:
            continue  # the thread ended while we listed
        name = re.sub(r'[0-9]+', '#', stat[stat.index('(') + 1:stat.rindex(')')])
        fields = stat.rsplit(')', 1)[1].split()
        ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
    return ticks


def read_bytes():
    for line in open(f'/proc/{pid}/io'):
        if line.startswith('read_bytes'):
            return int(line.split()[1])
    return -1


COUNTERS = ('larder_rocksdb_block_cache_misses', 'larder_inline_requests_total', 'larder_worker_run_size_requests_sum')


def counters():
    """The COUNTERS in that order, or None when /metrics did not answer or lacks one."""
    try:
        body = urllib.request.urlopen(f'http://127.0.0.1:{admin}/metrics', timeout=0.5).read().decode()
    except OSError:
        return None
    found = {}
    for line in body.split('\n'):
        for name in COUNTERS:
            if line.startswith(name):
                found[name] = float(line.split()[-1])
    return [found[name] for name in COUNTERS] if len(found) == len(COUNTERS) else None


with open(out_path, 'w') as out:
    read, scraped = [-1.0] * len(COUNTERS), 0.0
    while os.path.exists(f'/proc/{pid}'):
        now = time.time()
        if now - scraped >= 1:
            scraped = now
            scraped_counters = counters()
            if scraped_counters is not None:
                read = scraped_counters
        cpu = open('/proc/stat').read().split('\n')[1 + core].split()
        try:
            ticks, disk = threads(), read_bytes()
        except OSError:
            break
        out.write('%.3f %s %s %d %d %d %d %s\n' % (now, cpu[4], cpu[5], disk, *read,
                                                   ';'.join(f'{k}={v}' for k, v in ticks.items() if v > 0)))
        out.flush()
        time.sleep(0.2)
