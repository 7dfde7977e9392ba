#!/usr/bin/env python3
# Writes docs/grafana/larder.json: edit the panels here, run this, commit both. Every selector gets the dashboard's
# job and instance filters; DashboardQueriesIT and PrometheusScrapeIT check the queries against the live server.
import json
import os
R='$__rate_interval'
def s(metric, extra=''):
    m='job=~"$job",instance=~"$instance"' + (','+extra if extra else '')
    return '%s{%s}' % (metric, m)
def rate(metric, extra=''):
    return 'rate(%s[%s])' % (s(metric, extra), R)
def q(p, metric, by='le', extra=''):
    return 'histogram_quantile(%s, sum by (%s) (%s))' % (p, by, rate(metric, extra))
NS='uri!="/v0/status"'
panels_spec = [
 ("row","Requests"),
 ("Requests per second by status", "reqps", [
   ('sum by (status) (%s)' % rate('http_server_requests_seconds_count', NS), '{{status}}')]),
 ("Request latency p50 / p99 / p99.9 (all routes but /v0/status)", "s", [
   (q('0.5','http_server_requests_seconds_bucket',extra=NS), 'p50'),
   (q('0.99','http_server_requests_seconds_bucket',extra=NS), 'p99'),
   (q('0.999','http_server_requests_seconds_bucket',extra=NS), 'p99.9')]),
 ("p99 latency by route and method", "s", [
   (q('0.99','http_server_requests_seconds_bucket',by='le, uri, method'), '{{method}} {{uri}}')]),
 ("Error ratio (5xx / all)", "percentunit", [
   ('sum(%s) / sum(%s)' % (rate('http_server_requests_seconds_count','status=~"5.."'), rate('http_server_requests_seconds_count')), '5xx ratio')]),
 ("row","Where latency comes from"),
 ("Queue wait vs service time (p99)", "s", [
   (q('0.99','larder_queue_wait_seconds_bucket'), 'queue wait p99'),
   (q('0.99','larder_service_time_seconds_bucket'), 'service time p99')]),
 ("Queue wait vs service time (mean)", "s", [
   ('sum(%s) / sum(%s)' % (rate('larder_queue_wait_seconds_sum'), rate('larder_queue_wait_seconds_count')), 'queue wait mean'),
   ('sum(%s) / sum(%s)' % (rate('larder_service_time_seconds_sum'), rate('larder_service_time_seconds_count')), 'service time mean')]),
 ("Storage call p99 by operation", "s", [
   (q('0.99','larder_storage_calls_seconds_bucket',by='le, operation',extra='result="success"'), '{{operation}}')]),
 ("Requests per worker run (mean; runs of up to 16 share one MultiGet or WriteBatch)", "short", [
   ('sum by (instance) (%s) / sum by (instance) (%s)' % (rate('larder_worker_run_size_requests_sum'), rate('larder_worker_run_size_requests_count')), 'mean run ({{instance}})')]),
 ("Storage failures per second", "ops", [
   ('sum by (operation) (%s)' % rate('larder_storage_calls_seconds_count','result="failure"'), '{{operation}}')]),
 ("row","Overload"),
 ("Rejections per second (503 without touching storage)", "reqps", [
   ('sum by (mode, reason) (%s)' % rate('larder_rejections_total'), '{{mode}} {{reason}}')]),
 ("Queue depth", "short", [
   (s('larder_queue_pending'), 'pending, all workers ({{instance}})'),
   (s('larder_queue_capacity'), 'capacity ({{instance}})'),
   ('max by (instance) (%s)' % s('larder_worker_pending'), 'deepest worker queue ({{instance}})')]),
 ("Admission limit and requests admitted (adaptive: learned limit, in flight; fixed modes: queue capacity, queued)", "short", [
   ('%s or %s' % (s('larder_limit_current'), s('larder_queue_capacity')), 'limit ({{instance}})'),
   ('%s or %s' % (s('larder_limit_inflight'), s('larder_queue_pending')), 'admitted ({{instance}})')]),
 ("Connections", "short", [
   (s('larder_connections_active'), 'open ({{instance}})'),
   (rate('larder_connections_opened_total'), 'opened per second ({{instance}})')]),
 ("Event-loop pending tasks", "short", [
   (s('netty_eventexecutor_tasks_pending'), '{{instance}} {{name}}')]),
 ("row","RocksDB"),
 ("RocksDB memory", "bytes", [
   (s('larder_rocksdb_block_cache_usage_bytes'), 'block cache used ({{instance}})'),
   (s('larder_rocksdb_block_cache_capacity_bytes'), 'block cache capacity ({{instance}})'),
   (s('larder_rocksdb_memtables_size_bytes'), 'memtables ({{instance}})')]),
 ("RocksDB compaction", "bytes", [
   (s('larder_rocksdb_compaction_pending_bytes'), 'pending compaction bytes ({{instance}})'),
   (s('larder_rocksdb_live_sst_size_bytes'), 'live SST files ({{instance}})')]),
 ("RocksDB compactions and write stalls", "short", [
   (s('larder_rocksdb_compactions_running'), 'compactions running ({{instance}})'),
   (s('larder_rocksdb_write_stopped'), 'writes stopped, 1/0 ({{instance}})'),
   (rate('larder_rocksdb_write_stall_seconds_total'), 'stalled seconds per second ({{instance}})')]),
 ("RocksDB delayed write rate", "Bps", [
   (s('larder_rocksdb_write_delayed_rate_bytes_per_second'), 'delayed write rate ({{instance}})')]),
 ("RocksDB keys (estimate)", "short", [
   (s('larder_rocksdb_keys_estimate'), 'keys ({{instance}})')]),
 ("RocksDB block cache hit ratio", "percentunit", [
   ('%s / (%s + %s)' % (rate('larder_rocksdb_block_cache_hits_total'), rate('larder_rocksdb_block_cache_hits_total'), rate('larder_rocksdb_block_cache_misses_total')), 'hit ratio ({{instance}})')]),
 ("RocksDB row cache hit ratio (--row-cache)", "percentunit", [
   ('%s / (%s + %s)' % (rate('larder_rocksdb_row_cache_hits_total'), rate('larder_rocksdb_row_cache_hits_total'), rate('larder_rocksdb_row_cache_misses_total')), 'hit ratio ({{instance}})')]),
 ("RocksDB bytes read / written", "Bps", [
   (rate('larder_rocksdb_read_bytes_total'), 'read ({{instance}})'),
   (rate('larder_rocksdb_written_bytes_total'), 'written ({{instance}})')]),
 ("row","JVM"),
 ("JVM heap", "bytes", [
   ('sum by (instance) (%s)' % s('jvm_memory_used_bytes','area="heap"'), 'used ({{instance}})'),
   ('sum by (instance) (%s)' % s('jvm_memory_committed_bytes','area="heap"'), 'committed ({{instance}})'),
   ('sum by (instance) (%s)' % s('jvm_memory_max_bytes','area="heap"'), 'max ({{instance}})')]),
 ("Direct memory", "bytes", [
   (s('jvm_buffer_memory_used_bytes','id="direct"'), 'JVM direct buffers ({{instance}})'),
   ('sum by (instance, memory_type) (%s)' % s('netty_allocator_memory_used'), 'Netty allocator {{memory_type}} ({{instance}})')]),
 ("GC pause time per second", "s", [
   ('sum by (instance, action, cause) (%s)' % rate('jvm_gc_pause_seconds_sum'), '{{action}} ({{cause}}) {{instance}}')]),
 ("GC pauses per second", "ops", [
   ('sum by (instance, action) (%s)' % rate('jvm_gc_pause_seconds_count'), '{{action}} {{instance}}')]),
 ("CPU", "percentunit", [
   (s('process_cpu_usage'), 'process, share of all cores ({{instance}})'),
   (s('system_cpu_usage'), 'system ({{instance}})')]),
 ("JVM threads", "short", [
   (s('jvm_threads_live_threads'), 'live ({{instance}})'),
   ('sum by (state) (%s)' % s('jvm_threads_states_threads'), '{{state}}')]),
]
ds = {"type": "prometheus", "uid": "${datasource}"}
panels=[]; pid=1; x=0; y=0
for spec in panels_spec:
    if spec[0]=="row":
        if x != 0: y += 8; x = 0
        panels.append({"type":"row","title":spec[1],"id":pid,"collapsed":False,"gridPos":{"h":1,"w":24,"x":0,"y":y},"panels":[]})
        pid+=1; y+=1; continue
    title, unit, targets = spec
    panels.append({
        "type":"timeseries","title":title,"id":pid,"datasource":ds,
        "gridPos":{"h":8,"w":12,"x":x,"y":y},
        "fieldConfig":{"defaults":{"unit":unit,"custom":{"lineWidth":1,"fillOpacity":0}},"overrides":[]},
        "options":{"legend":{"displayMode":"list","placement":"bottom","showLegend":True},"tooltip":{"mode":"multi","sort":"desc"}},
        "targets":[{"refId":chr(65+i),"expr":e,"legendFormat":l,"datasource":ds} for i,(e,l) in enumerate(targets)]})
    pid+=1
    if x == 0: x = 12
    else: x = 0; y += 8
def qvar(name, label, query):
    return {"name":name,"label":label,"type":"query","datasource":ds,
            "query":{"query":query,"refId":"PrometheusVariableQueryEditor-VariableQuery"},"definition":query,
            "refresh":2,"includeAll":True,"allValue":".+","multi":True,"current":{"text":"All","value":"$__all"},"sort":1,"hide":0}
dash = {
  "title":"Larder","uid":"larder","description":"Larder key-value server: requests, latency sources, overload, RocksDB and JVM. Every series is documented in docs/metrics.md.",
  "tags":["larder"],"timezone":"browser","schemaVersion":39,"version":1,"editable":True,
  "refresh":"10s","time":{"from":"now-30m","to":"now"},
  "templating":{"list":[
     {"name":"datasource","label":"Prometheus","type":"datasource","query":"prometheus","current":{"text":"Prometheus","value":"prometheus"},"hide":0},
     qvar("job","Job","label_values(larder_queue_capacity, job)"),
     qvar("instance","Instance",'label_values(larder_queue_capacity{job=~"$job"}, instance)')]},
  "annotations":{"list":[]},
  "panels":panels}
json.dump(dash, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'larder.json'), 'w'), indent=2)
print(len(panels), sum(len(p.get('targets',[])) for p in panels))
