#!/usr/bin/env python3
"""Summary and result checks of a scripts/bench.sh run directory.

  bench-summary.py summary DIR                  markdown: Spool beside Kafka, medians over reps
  bench-summary.py check-json FILE N            a `spool perf --json` output has a summary, no
                                                errors and (N > 0) N records
  bench-summary.py check-settings DIR HARNESS   Kafka's runs use the settings the rows claim
  bench-summary.py check-kafka DIR REP          every step of Kafka's rep REP gave a result and
                                                reported no error
  bench-summary.py cpu-steps DIR                markdown: CPU time of every step (both sides)
  bench-summary.py kafka-tools-cpu DIR          markdown: CPU per MB of a bench.sh kafka-tools run

CPU figures come from the STEP.cpu.jsonl files scripts/bench-cpu.py writes beside each step's output:
the brokers' CPU seconds (utime + stime, all brokers summed, so replication is included) and the
client's, over the step; "per MB" divides by the step's payload, records × record size in MiB (the
unit of the tools' MB/s columns), produced or consumed.

A check that fails prints the step on stderr and exits 4.
"""
import glob
import json
import os
import re
import statistics
import sys

SIZES = (100, 1024)
RATES = (1000, 10000)
KAFKA_WARMUP_S = 5  # FixedRateE2E sends for 5 s before it measures


def fail(step, why):
    print(f"bench: step '{step}' failed: {why}", file=sys.stderr)
    sys.exit(4)


def last_json(path):
    try:
        lines = [line for line in open(path) if line.strip().startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None


def read_settings(out):
    """settings.txt: space-separated k=v on the first two lines, then one KEY=k=v k=v... a line."""
    s = {}
    for i, line in enumerate(open(os.path.join(out, "settings.txt"))):
        line = line.strip()
        if not line:
            continue
        if i < 2:
            s.update(tok.split("=", 1) for tok in line.split())
        else:
            k, _, v = line.partition("=")
            s[k] = v
    return s


def kv(text):
    return dict(tok.split("=", 1) for tok in text.split())


def read_kv_file(path):
    d = {}
    for line in open(path):
        k, sep, v = line.strip().partition("=")
        if sep:
            d[k] = v
    return d


def kafka_rows(path):
    rows = []
    for line in open(path):
        if line.startswith("#") or line.startswith("kind"):
            continue
        rows.append(line.rstrip("\n").split("\t"))
    return rows


def number(text):
    try:
        return float(re.sub(r"[^0-9.]", "", text))
    except ValueError:
        return None


def fetch_only(row):
    """Kafka's consumer row carries '# fetch-only: X MB/s Y msg/s, rebalance Z ms' in its last column."""
    m = re.search(r"fetch-only: ([0-9.]+) MB/s ([0-9.]+) msg/s, rebalance ([0-9.]+) ms", row[-1])
    return (float(m.group(1)), float(m.group(2)), float(m.group(3))) if m else None


# ---------------------------------------------------------------------------------------- checks


def check_json(path, expect):
    step = os.path.basename(path)
    r = last_json(path)
    if r is None:
        fail(step, "the tool printed no JSON summary")
    if r.get("errors", 0):
        fail(step, f"{r['errors']} errors reported")
    if "sent" in r and r.get("received") != r["sent"]:
        fail(step, f"received {r.get('received')} of {r['sent']} records")
    if expect > 0 and r.get("records") != expect:
        fail(step, f"{r.get('records')} records, expected {expect}")


# The strings in the harness's bench.sh that settings.txt's kafka.* lines rely on.
HARNESS_LINES = {
    "kafka.tuned": 'tuned) echo "linger.ms=5 batch.size=131072"',
    "kafka.default": 'default) echo ""',
    "producer acks": 'acks=all $(cfg_props $cfg)',
    "kafka.e2e": '"$rate" "$E2E_SECS" 1024 all 0',
}


def check_settings(out, harness):
    step = "same settings check"
    s = read_settings(out)
    text = open(os.path.join(harness, "bench.sh")).read()
    for what, line in HARNESS_LINES.items():
        if line not in text:
            fail(step, f"Kafka's harness no longer has `{line}` ({what}); update settings in bench.sh")
    k = read_kv_file(os.path.join(out, "kafka-client-settings.txt"))
    producer = {key[len("producer.default."):]: v for key, v in k.items() if key.startswith("producer.default.")}
    consumer = {key[len("consumer.default."):]: v for key, v in k.items() if key.startswith("consumer.default.")}
    perf = {key[len("consumerperf.set."):]: v for key, v in k.items() if key.startswith("consumerperf.set.")}
    checks = (
        ("producer, same settings (Kafka 'tuned')", s["same.producer"], {**producer, **kv(s["kafka.tuned"])}),
        ("consumer, same settings (ConsumerPerformance)", s["same.consumer"], {**consumer, **perf}),
        ("e2e producer (FixedRateE2E)", s["e2e.producer"], {**producer, **kv(s["kafka.e2e"])}),
        ("e2e consumer (FixedRateE2E)", s["e2e.consumer"], consumer),
    )
    for what, spool, kafka in checks:
        for key, value in kv(spool).items():
            if kafka.get(key) != value:
                fail(step, f"{what}: Spool runs with {key}={value}, Kafka with {key}={kafka.get(key)}")
    print("same settings check: Kafka's effective client settings match settings.txt")


def log_errors(path):
    """Stack traces (ProducerPerformance prints failed sends so) and ERROR log lines of a tool's log."""
    bad = []
    for line in open(path, errors="replace"):
        if "] ERROR " in line or (not line.startswith("[") and re.search(r"\w+(Exception|Error)\b", line)):
            bad.append(line.strip())
    return bad


def check_kafka(out, rep):
    s = read_settings(out)
    raw = os.path.join(out, f"kafka-raw-{rep}")
    rows = kafka_rows(os.path.join(raw, "summary.tsv"))
    n_of = {100: int(s["n100"]), 1024: int(s["n1k"])}

    def row(kind, size, cfg=None):
        found = [r for r in rows if r[0] == kind and r[2] == str(size) and (cfg is None or r[3] == cfg)]
        return found[-1] if found else None

    def clean(step, log):
        path = os.path.join(raw, log)
        if not os.path.exists(path):
            fail(step, f"no log {path}")
        bad = log_errors(path)
        if bad:
            fail(step, f"{len(bad)} error lines in {path}, first: {bad[0]}")

    for size in SIZES:
        for cfg in ("tuned", "default"):
            step = f"Kafka rep {rep}: ProducerPerformance {size} B {cfg}"
            r = row("producer", size, cfg)
            if r is None:
                fail(step, "no result line")
            if int(r[5]) != n_of[size]:
                fail(step, f"{r[5]} records sent, expected {n_of[size]}")
            clean(step, f"producer-{size}-{cfg}-1.log")
        if s.get("produce_only") == "1":
            continue
        step = f"Kafka rep {rep}: ConsumerPerformance {size} B"
        r = row("consumer", size)
        if r is None or fetch_only(r) is None:
            fail(step, "no result line with the fetch-only rate")
        if int(float(r[5])) != 2 * n_of[size]:
            fail(step, f"{r[5]} records read, expected {2 * n_of[size]}")
        clean(step, f"consumer-{size}-1.log")
        step = f"Kafka rep {rep}: EndToEndLatency {size} B"
        if row("e2e-seq", size) is None:
            fail(step, "no result line")
        clean(step, f"e2e-seq-{size}-1.log")
    if s.get("produce_only") == "1":
        return
    secs = int(s["e2e_secs"])
    for rate in RATES:
        step = f"Kafka rep {rep}: FixedRateE2E {rate}/s"
        path = os.path.join(raw, f"e2e-rate-{rate}-1.log")
        m = None
        if os.path.exists(path):
            m = re.search(r"measured=(\d+) \(of (\d+) received\)", open(path).read())
        if m is None or row(f"e2e-rate{rate}", 1024) is None:
            fail(step, "no result line")
        if int(m.group(2)) != rate * (secs + KAFKA_WARMUP_S):
            fail(step, f"received {m.group(2)} of {rate * (secs + KAFKA_WARMUP_S)} records")
        clean(step, f"e2e-rate-{rate}-1.log")


# ------------------------------------------------------------------------------------------- CPU

MIB = 1024 * 1024


def cpu_record(path):
    """The last line of a STEP.cpu.jsonl file that scripts/bench-cpu.py wrote, or None. (Not *.json: the
    summary's globs of the tools' JSON outputs must not match it.)"""
    return last_json(path) if os.path.exists(path) else None


def per_mb(rec, mb):
    """(broker CPU-ms per MB, client CPU-ms per MB) of one step; None where it cannot be known."""
    if rec is None or not mb:
        return None, None
    broker = rec["broker_cpu_s"] * 1000 / mb if rec.get("brokers_complete") else None
    return broker, rec["client"]["cpu_s"] * 1000 / mb


def spool_mb(json_path):
    """Payload MiB of a Spool perf step, from its JSON summary."""
    r = last_json(json_path) or {}
    if "bytes" in r:
        return r["bytes"] / MIB
    if "sent" in r:
        return r["sent"] * r.get("recordSize", 0) / MIB
    return r.get("records", 0) * r.get("recordSize", 0) / MIB or None


def kafka_mb(out, rep, name):
    """Payload MiB of the Kafka harness's step NAME (producer-100-tuned-1, ...) in rep REP."""
    s = read_settings(out)
    n_of = {"100": int(s["n100"]), "1024": int(s["n1k"])}
    parts = name.split("-")
    if parts[0] == "producer":
        return n_of[parts[1]] * int(parts[1]) / MIB
    if parts[0] == "consumer":
        # PRODUCE_ONLY=1 runs the harness with CONS_N=1: its consumer step reads one record.
        return None if s.get("produce_only") == "1" else 2 * n_of[parts[1]] * int(parts[1]) / MIB
    if name.startswith("e2e-rate-"):
        return int(parts[2]) * (int(s["e2e_secs"]) + KAFKA_WARMUP_S) * 1024 / MIB
    if name.startswith("warmup-"):
        return int(s["warmup_n"]) * 512 / MIB
    if name.startswith("e2e-seq-"):
        tsv = os.path.join(out, f"kafka-summary-{rep}.tsv")
        rows = kafka_rows(tsv) if os.path.exists(tsv) else []
        n = [int(r[5]) for r in rows if r[0] == "e2e-seq" and r[2] == parts[2] and r[4] == parts[3]]
        return n[0] * int(parts[2]) / MIB if n else None
    return None


def spool_cpu(out, pattern):
    """Per-rep (broker, client) CPU-ms per MB of the Spool steps matching PATTERN (a *.json glob)."""
    return [per_mb(cpu_record(p[: -len(".json")] + ".cpu.jsonl"), spool_mb(p))
            for p in glob.glob(os.path.join(out, pattern))]


def kafka_cpu(out, name):
    """Per-rep (broker, client) CPU-ms per MB of the Kafka harness's step NAME."""
    res = []
    for raw in sorted(glob.glob(os.path.join(out, "kafka-raw-*"))):
        rep = raw.rsplit("-", 1)[1]
        res.append(per_mb(cpu_record(os.path.join(raw, name + ".cpu.jsonl")), kafka_mb(out, rep, name)))
    return res


def cpu_rows(prefix, spool_pairs, kafka_pairs):
    """Two table rows: broker and client CPU-ms per MB, medians over the reps."""
    return [
        (f"{prefix}: broker CPU-ms per MB (all brokers)", med([b for b, _ in spool_pairs]),
         med([b for b, _ in kafka_pairs])),
        (f"{prefix}: client CPU-ms per MB", med([c for _, c in spool_pairs]), med([c for _, c in kafka_pairs])),
    ]


def cpu_steps(out):
    """Every step's CPU time, both sides, rep by rep: the raw figures behind the per-MB rows."""
    rows = []
    for p in sorted(glob.glob(os.path.join(out, "spool-*.cpu.jsonl"))):
        name = os.path.basename(p)[: -len(".cpu.jsonl")]
        rows.append(("Spool", name, cpu_record(p), spool_mb(os.path.join(out, name + ".json"))))
    for raw in sorted(glob.glob(os.path.join(out, "kafka-raw-*"))):
        rep = raw.rsplit("-", 1)[1]
        for p in sorted(glob.glob(os.path.join(raw, "*.cpu.jsonl"))):
            name = os.path.basename(p)[: -len(".cpu.jsonl")]
            if name != "topics":
                rows.append((f"Kafka rep {rep}", name, cpu_record(p), kafka_mb(out, rep, name)))
    print_cpu_steps(rows)


def print_cpu_steps(rows):
    """rows: (side, step, cpu record, MiB or None); printed in the order the steps ran."""
    rows = sorted(rows, key=lambda r: (r[2] or {}).get("start_unix", 0))
    if not rows:
        print("No CPU figures in this run (no *.cpu.jsonl files).\n")
        return
    print("| side | step | wall s | MB | broker CPU s (each) | broker CPU s | client CPU s | broker CPU-ms/MB | client CPU-ms/MB |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|")
    for side, name, rec, mb in rows:
        if rec is None:
            print(f"| {side} | {name} | – | – | no CPU record | – | – | – | – |")
            continue
        each = " / ".join("gone" if b["cpu_s"] is None else f"{b['cpu_s']:.2f}" for _, b in sorted(rec["brokers"].items()))
        b, c = per_mb(rec, mb)
        print(f"| {side} | {name} | {rec['wall_s']:.1f} | {fmt(mb, 2)} | {each or '–'} | {rec['broker_cpu_s']:.2f}"
              f" | {rec['client']['cpu_s']:.2f} | {fmt(b)} | {fmt(c)} |")
    print()


def kafka_tools_cpu(out):
    """CPU per MB of a bench.sh kafka-tools run: the same tool on both brokers (SIDE-STEP.cpu.jsonl)."""
    s = kv(open(os.path.join(out, "settings.txt")).readline())
    n_of = {"100": int(s["n100"]), "1024": int(s["n1k"])}

    def mb(name):
        parts = name.split("-")
        if parts[0] == "producer":
            return n_of[parts[1]] * int(parts[1]) / MIB
        if parts[0] == "consumer":
            return 2 * n_of[parts[1]] * int(parts[1]) / MIB
        if name.startswith("e2e-seq-"):
            return int(s["e2e_msgs"]) * int(parts[2]) / MIB
        if name.startswith("e2e-rate-"):
            return int(parts[2]) * (int(s["e2e_secs"]) + KAFKA_WARMUP_S) * 1024 / MIB
        if name.startswith("warmup-"):
            return int(s["warmup_n"]) * 512 / MIB
        return None

    reps = int(s["reps"])
    steps = [f"producer-{z}-{c}" for z in ("100", "1024") for c in ("default", "tuned")]
    steps += [f"consumer-{z}" for z in ("100", "1024")] + ["e2e-rate-1000", "e2e-rate-10000"]
    print("## CPU per MB, the same Kafka tool on both brokers\n")
    print("Broker CPU = all 3 brokers summed over the step (replication included); client CPU = the tool's"
          " JVM (JVM start and JIT included). MB = records × record size in MiB, produced or consumed; the"
          " e2e rows produce and consume each MB once. Medians of the reps.\n")
    print("| step | Spool broker CPU-ms/MB | Kafka broker CPU-ms/MB | Spool/Kafka | Spool client CPU-ms/MB"
          " | Kafka client CPU-ms/MB |")
    print("|---|---:|---:|---:|---:|---:|")
    raw_rows = []
    for step in steps:
        pairs = {}
        for side in ("spool", "kafka"):
            pairs[side] = []
            for rep in range(1, reps + 1):
                name = f"{step}-{rep}"
                rec = cpu_record(os.path.join(out, f"{side}-{name}.cpu.jsonl"))
                if rec is not None:
                    pairs[side].append(per_mb(rec, mb(name)))
                    raw_rows.append((side, name, rec, mb(name)))
        if not pairs["spool"] and not pairs["kafka"]:
            continue
        sb, kb = med([b for b, _ in pairs["spool"]]), med([b for b, _ in pairs["kafka"]])
        sc, kc = med([c for _, c in pairs["spool"]]), med([c for _, c in pairs["kafka"]])
        print(f"| {step} | {fmt(sb)} | {fmt(kb)} | {ratio(sb, kb)} | {fmt(sc)} | {fmt(kc)} |")
    print("\n### CPU of every step\n")
    print_cpu_steps(raw_rows)


# --------------------------------------------------------------------------------------- summary


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def field_of(obj, path):
    """A dotted path into a JSON object ("latencyMs.p99"); None when any step is missing."""
    for key in path.split("."):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def fmt(x, digits=1):
    if x is None:
        return "–"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"


def summary(out):
    s = read_settings(out)
    spool_files = lambda pattern: glob.glob(os.path.join(out, pattern))  # noqa: E731

    def spool(pattern, field):
        return med([field_of(last_json(p) or {}, field) for p in spool_files(pattern)])

    kafka = []
    for tsv in sorted(glob.glob(os.path.join(out, "kafka-summary-*.tsv"))):
        kafka.extend(kafka_rows(tsv))

    def kafka_col(kind, size, cfg, col):
        return med([number(r[col]) for r in kafka
                    if r[0] == kind and r[2] == str(size) and (cfg is None or r[3] == cfg) and len(r) > col])

    def kafka_fetch_only(size, i):
        return med([(fetch_only(r) or (None,) * 3)[i] for r in kafka if r[0] == "consumer" and r[2] == str(size)])

    def table(rows):
        print("| measure | Spool | Kafka | Spool/Kafka |")
        print("|---|---:|---:|---:|")
        for name, a, b in rows:
            print(f"| {name} | {fmt(a)} | {fmt(b)} | {ratio(a, b)} |")
        print()

    facts = open(os.path.join(out, "command.txt")).read().strip()
    commit = open(os.path.join(out, "git.txt")).readline().split()[-1]
    dirty = " (with uncommitted changes, see git.txt)" if "uncommitted changes:" in open(os.path.join(out, "git.txt")).read() else ""
    machine = read_machine(out)
    reps = len(glob.glob(os.path.join(out, "spool-producer-100-same-*.json")))
    mode = "3 nodes, RF 3, min ISR 2" if s["mode"] == "cluster" else "1 node, RF 1"
    kafka_version = kafka_version_of(out)

    print(f"# Spool vs Kafka {kafka_version} — {os.path.basename(out)}\n")
    if s.get("quick") == "1":
        print("**Smoke run (--quick): small record counts, no warm-up. Checks the scripts; not figures to quote.**\n")
    print(f"- command: `{facts}`")
    print(f"- commit: {commit}{dirty}")
    print(f"- machine: {machine}")
    print(f"- {mode}, 6 partitions per topic, acks=all; medians of {reps} rep(s), Spool and Kafka interleaved rep by rep;"
          f" {s['n100']} × 100 B and {s['n1k']} × 1 KiB records per producer run;"
          f" JIT warm-up {'none' if s['warmup_n'] == '0' else '2 × ' + s['warmup_n'] + ' × 512 B'} before each rep")
    print(f"- raw results of every step, Kafka's included (kafka-raw-N/), and the exact commands (commands.txt): {out}\n")

    print("## Producer, same producer settings on both sides\n")
    print(f"`{s['same.producer']}` — Spool gets all of them on its command line; Kafka's harness passes"
          f" `{s['kafka.tuned']}` (its \"tuned\" run) and the rest are Kafka's client defaults, read from its jars"
          " and checked against this list before the run (kafka-client-settings.txt).\n")
    rows = []
    for size in SIZES:
        rows += producer_rows(out, size, "same settings", f"spool-producer-{size}-same-*.json", "tuned", spool, kafka_col)
    table(rows)

    print("## Producer, each side's client defaults\n")
    print(f"Both pass `acks=all` only. Spool's defaults: `{spool_defaults(out)}`."
          f" Kafka's defaults: `{kafka_defaults(out)}`. The difference that matters is batch.size"
          " (128 KiB vs 16 KiB); the rows above show each system with the same batch.\n")
    rows = []
    for size in SIZES:
        rows += producer_rows(out, size, "each side's defaults", f"spool-producer-{size}-defaults-*.json", "default",
                              spool, kafka_col)
    table(rows)
    print("Kafka's produce latency at full load (`--throughput -1`) is mostly time queued in its 32 MiB producer"
          " buffer (≈ buffer ÷ throughput). Spool's producer keeps at most about queue.target.ms of batches"
          " unsent per partition (two batches at least; client/README.md), so its latency at full load is"
          " the requests in flight plus that; compare latency with the fixed-rate rows below.\n")

    if s.get("produce_only") == "1":
        print("PRODUCE_ONLY=1: the producer rows only (no consumer, end-to-end or failover step).\n")
    else:
        print("## Consumer, same consumer settings, same window\n")
        print(f"`{s['same.consumer']}` on both sides (what ConsumerPerformance runs with); both read everything"
              " both producer runs wrote, from offset 0 (page cache). Window [1].\n")
        rows = []
        for size in SIZES:
            rows.append((f"consumer {size} B, same settings: MB/s",
                         spool(f"spool-consumer-{size}-same-*.json", "mbPerSec"), kafka_fetch_only(size, 0)))
            rows.append((f"consumer {size} B, same settings: records/s",
                         spool(f"spool-consumer-{size}-same-*.json", "recordsPerSec"), kafka_fetch_only(size, 1)))
            rows += cpu_rows(f"consumer {size} B, same settings", spool_cpu(out, f"spool-consumer-{size}-same-*.json"),
                             kafka_cpu(out, f"consumer-{size}-1"))
            rows.append((f"consumer {size} B, Spool with check.crcs=true (both clients' default; not run on Kafka): MB/s",
                         spool(f"spool-consumer-{size}-crc-*.json", "mbPerSec"), None))
            rows += cpu_rows(f"consumer {size} B, Spool with check.crcs=true",
                             spool_cpu(out, f"spool-consumer-{size}-crc-*.json"), [])
        table(rows)
        print("[1] Both rates are records (key + value bytes) over the time from the first fetch to the last"
              " record. Spool's clock starts after its seek (ListOffsets answered), before its first poll."
              " Kafka's figure is ConsumerPerformance's fetch-only rate: its whole run minus the group join"
              " (the time until partitions are assigned); it still holds the new group's offset lookup (one"
              " OffsetFetch and one ListOffsets round trip, a few ms on loopback). ConsumerPerformance also asks"
              " for a 2 MiB socket receive buffer, which Spool's client has no setting for.\n")
        for size in SIZES:
            print(f"- {size} B windows: {windows(out, size)}")
        print()

        print("## End-to-end latency at a fixed rate, 1 KiB, same settings\n")
        print(f"Producer `{s['e2e.producer']}`, consumer `{s['e2e.consumer']}` on both sides (FixedRateE2E sets"
              " acks=all linger.ms=0 on Kafka's client defaults; Spool gets the same values). Latency from the"
              f" scheduled send time to receipt, {s['e2e_secs']} s measured after 5 s of warm-up. In ms.\n")
        rows = []
        for rate in RATES:
            for field, col, name in (("p50", 9, "p50"), ("p99", 11, "p99"), ("p999", 12, "p99.9")):
                rows.append((f"e2e 1 KiB at {rate}/s: {name} ms", spool(f"spool-e2e-{rate}-*.json", "latencyMs." + field),
                             kafka_col(f"e2e-rate{rate}", 1024, None, col)))
            rows += cpu_rows(f"e2e 1 KiB at {rate}/s (each MB produced and consumed once)",
                             spool_cpu(out, f"spool-e2e-{rate}-*.json"), kafka_cpu(out, f"e2e-rate-{rate}-1"))
        table(rows)

    heaps = []
    for p in spool_files("spool-heap-*.json"):
        for line in open(p):
            try:
                heaps.append(json.loads(line)["peak_heap_mib"])
            except (ValueError, KeyError):
                pass
    if heaps:
        print(f"Spool broker peak used heap (jstat, 1 s samples, -Xmx{s['spool_heap']}): {max(heaps):.0f} MiB"
              " (target < 512 MiB)\n")
    fo = os.path.join(out, "spool-failover.log")
    if os.path.exists(fo):
        for line in open(fo):
            if line.startswith("RESULT"):
                print(f"Spool partition-leader failover (SIGKILL of the leader → first acknowledged write):"
                      f" {line.strip()[7:]} (target p99 < 3000 ms)\n")
    if not kafka:
        print("No Kafka results in this run (SKIP_KAFKA=1 or no harness): the Kafka column is empty.\n")

    print("## CPU time of every step\n")
    print("The rows \"CPU-ms per MB\" above come from these (scripts/bench-cpu.py, STEP.cpu.jsonl beside each"
          " step's output): broker CPU = utime + stime of every broker process, sampled just before the step's"
          " client starts and just after it exits, summed over the brokers (replication included); client CPU ="
          " the client's rusage at exit (JVM start and JIT included). MB = records × record size in MiB."
          " Kafka's steps are the ones its harness runs (kafka-raw-N/STEP.cpu.jsonl). How far to trust"
          " these: docs/performance.md.\n")
    cpu_steps(out)


def producer_rows(out, size, label, pattern, kafka_cfg, spool, kafka_col):
    rows = [
        (f"producer {size} B, {label}: records/s", spool(pattern, "recordsPerSec"),
         kafka_col("producer", size, kafka_cfg, 6)),
        (f"producer {size} B, {label}: MB/s", spool(pattern, "mbPerSec"), kafka_col("producer", size, kafka_cfg, 7)),
    ]
    for field, col, name in (("p50", 9, "p50"), ("p99", 11, "p99")):
        rows.append((f"producer {size} B, {label}: latency {name} ms at full load",
                     spool(pattern, "latencyMs." + field), kafka_col("producer", size, kafka_cfg, col)))
    return rows + cpu_rows(f"producer {size} B, {label}", spool_cpu(out, pattern),
                           kafka_cpu(out, f"producer-{size}-{kafka_cfg}-1"))


def windows(out, size):
    """The measured windows of the consumer rows, per rep: Spool's, and Kafka's fetch-only (of the whole)."""
    parts = []
    for p in sorted(glob.glob(os.path.join(out, f"spool-consumer-{size}-same-*.json"))):
        rep = p.rsplit("-", 1)[1].split(".")[0]
        spool_ms = (last_json(p) or {}).get("elapsedMs")
        kafka_ms = "–"
        log = os.path.join(out, f"kafka-raw-{rep}", f"consumer-{size}-1.log")
        if os.path.exists(log):
            lines = open(log).read().splitlines()
            for i, line in enumerate(lines):
                if line.startswith("start.time") and i + 1 < len(lines):
                    f = [x.strip() for x in lines[i + 1].split(",")]
                    if len(f) >= 8:
                        kafka_ms = f"{f[7]} ms fetch-only of {int(f[7]) + int(f[6])} ms (join {f[6]} ms)"
        parts.append(f"rep {rep}: Spool {spool_ms} ms, Kafka {kafka_ms}")
    return "; ".join(parts) or "–"


def spool_defaults(out):
    """Spool's producer defaults of the keys that matter, from `spool produce --help-config`."""
    keys = ("acks", "enable.idempotence", "batch.size", "linger.ms", "buffer.memory",
            "max.in.flight.requests.per.connection", "compression.type")
    path = os.path.join(out, "spool-producer-config.txt")
    if not os.path.exists(path):
        return "?"
    lines = open(path).read().splitlines()
    found = {}
    for i, line in enumerate(lines):
        tok = line.split()
        if tok and tok[0] in keys and i + 1 < len(lines):
            m = re.search(r"default: (\S+)", lines[i + 1])
            if m:
                found[tok[0]] = m.group(1)
    return " ".join(f"{k}={found.get(k, '?')}" for k in keys)


def kafka_defaults(out):
    path = os.path.join(out, "kafka-client-settings.txt")
    if not os.path.exists(path):
        return "? (no Kafka run)"
    k = read_kv_file(path)
    keys = ("acks", "enable.idempotence", "batch.size", "linger.ms", "buffer.memory",
            "max.in.flight.requests.per.connection", "compression.type")
    return " ".join(f"{key}={k.get('producer.default.' + key, '?')}" for key in keys)


def kafka_version_of(out):
    for tsv in glob.glob(os.path.join(out, "kafka-summary-*.tsv")):
        m = re.search(r"kafka=(\S+)", open(tsv).readline())
        if m:
            return m.group(1)
    return ""


def read_machine(out):
    m = {}
    lines = open(os.path.join(out, "machine.txt")).read().splitlines()
    for i, line in enumerate(lines):
        k, _, v = line.partition(": ")
        m[k] = v
        if line.startswith("java -version") and i + 1 < len(lines):
            m["java"] = lines[i + 1].strip()
    return (f"{m.get('cores (nproc)', '?')} cores, {m.get('memory', '?').split(',')[0]}, {m.get('java', '?')},"
            f" load average at start {m.get('load average at start', '?')}")


def main(argv):
    if len(argv) == 2 and os.path.isdir(argv[1]):
        argv = [argv[0], "summary", argv[1]]
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "summary" and len(argv) == 3:
        summary(argv[2])
    elif cmd == "check-json" and len(argv) == 4:
        check_json(argv[2], int(argv[3]))
    elif cmd == "check-settings" and len(argv) == 4:
        check_settings(argv[2], argv[3])
    elif cmd == "check-kafka" and len(argv) == 4:
        check_kafka(argv[2], argv[3])
    elif cmd == "cpu-steps" and len(argv) == 3:
        cpu_steps(argv[2])
    elif cmd == "kafka-tools-cpu" and len(argv) == 3:
        kafka_tools_cpu(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
