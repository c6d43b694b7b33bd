#!/usr/bin/env python3
"""Summarise a scripts/bench.sh run folder: Spool beside Kafka, medians over reps."""
import glob, json, os, re, statistics, sys

out = sys.argv[1]

def last_json(path):
    try:
        lines = [l for l in open(path) if l.strip().startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except OSError:
        return None

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

def field_of(obj, path):
    """A dotted path into a JSON object ("latencyMs.p99"); None when any step is missing."""
    for key in path.split("."):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj

def spool(pattern, field):
    return med([field_of(last_json(p) or {}, field) for p in glob.glob(os.path.join(out, pattern))])

kafka_rows = []
for tsv in glob.glob(os.path.join(out, "kafka-summary-*.tsv")):
    for line in open(tsv):
        if line.startswith("#") or line.startswith("kind"):
            continue
        kafka_rows.append(line.rstrip("\n").split("\t"))

def kafka(kind, size, config, col):
    vals = []
    for r in kafka_rows:
        if r[0] == kind and r[2] == str(size) and (config is None or r[3] == config):
            try:
                vals.append(float(re.sub(r"[^0-9.]", "", r[col])))
            except (ValueError, IndexError):
                pass
    return med(vals)

def fmt(x, digits=1):
    if x is None:
        return "–"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.{digits}f}"

def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"

rows = []
for size in (100, 1024):
    for cfg in ("default", "tuned"):
        s_rps = spool(f"spool-producer-{size}-{cfg}-*.json", "recordsPerSec")
        s_mb = spool(f"spool-producer-{size}-{cfg}-*.json", "mbPerSec")
        k_rps = kafka("producer", size, cfg, 6)
        k_mb = kafka("producer", size, cfg, 7)
        rows.append((f"producer {size} B, {cfg}: records/s", s_rps, k_rps))
        rows.append((f"producer {size} B, {cfg}: MB/s", s_mb, k_mb))
        for field, col, name in (("p50", 9, "p50"), ("p99", 11, "p99")):
            rows.append((f"producer {size} B, {cfg}: produce latency {name} ms (at full load)",
                         spool(f"spool-producer-{size}-{cfg}-*.json", "latencyMs." + field),
                         kafka("producer", size, cfg, col)))
    rows.append((f"consumer {size} B: MB/s", spool(f"spool-consumer-{size}-*.json", "mbPerSec"),
                 kafka("consumer", size, None, 7)))
for rate in (1000, 10000):
    for field, col, name in (("p50", 9, "p50"), ("p99", 11, "p99"), ("p999", 12, "p99.9")):
        rows.append((f"e2e 1 KiB at {rate}/s: {name} ms", spool(f"spool-e2e-{rate}-*.json", "latencyMs." + field),
                     kafka(f"e2e-rate{rate}", 1024, None, col)))

print(f"# Spool vs Kafka — {os.path.basename(out)}\n")
print("| measure | Spool | Kafka | Spool/Kafka |")
print("|---|---:|---:|---:|")
for name, s, k in rows:
    print(f"| {name} | {fmt(s)} | {fmt(k)} | {ratio(s, k)} |")

heaps = []
for p in glob.glob(os.path.join(out, "spool-heap-*.json")):
    for line in open(p):
        try:
            heaps.append(json.loads(line)["peak_heap_mib"])
        except (ValueError, KeyError):
            pass
if heaps:
    print(f"\nSpool broker peak used heap (jstat, 1 s samples): {max(heaps):.0f} MiB (target < 512 MiB)")
fo = os.path.join(out, "spool-failover.log")
if os.path.exists(fo):
    for line in open(fo):
        if line.startswith("RESULT"):
            print(f"\nSpool partition-leader failover: {line.strip()[7:]} (target p99 < 3000 ms)")
