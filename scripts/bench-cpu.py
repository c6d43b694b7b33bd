#!/usr/bin/env python3
"""CPU time of one benchmark step: the brokers' and the client's (scripts/bench.sh, bench-kafka-tools.sh).

  bench-cpu.py run [--out FILE] [--label NAME] -- CMD ARGS...
  bench-cpu.py run --out-beside-stdout -- CMD ARGS...

Runs CMD (the step's client: a perf tool) and appends one JSON line to FILE:

  {"step": NAME, "start_unix": ..., "wall_s": ..., "clk_tck": 100,
   "client": {"cpu_s": ..., "user_s": ..., "sys_s": ..., "rc": ...},
   "brokers": {"node-1": {"pid": ..., "cpu_s": ...}, ...}, "broker_cpu_s": ..., "brokers_complete": true}

Brokers: every pid file matching the globs in $BENCH_CPU_BROKERS (space-separated; a file named
node.pid is named after its directory, any other X.pid is named X). Each broker is sampled just
before CMD starts and just after it exits: utime + stime of the process and its descendants from
/proc/PID/stat, in clock ticks (SC_CLK_TCK). A broker whose process is gone or was replaced (other
start time) at the end sample has "cpu_s": null and the line says "brokers_complete": false.
Client: CMD's rusage as wait4(2) reports it when CMD exits: user + system time of CMD and of every
descendant it waited for (a launcher script that forks java is counted whole; JIT and GC threads
are threads of the JVM and are counted).

--out-beside-stdout: for a script that runs CMD with stdout redirected to STEP.log (the Kafka
harness's bench.sh, through scripts/bench-cpu-java as its JAVA): FILE is STEP.cpu.jsonl beside it and
NAME is STEP. When stdout is not a regular file (`java -version | head`), CMD runs unmeasured.

Exits with CMD's exit status (128 + N when a signal N ended it). Writes nothing to stdout; the
step's own output stays the tool's.
"""
import glob
import json
import os
import signal
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_stat(pid):
    """(ppid, utime + stime in ticks, start time in ticks) of PID, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After "(comm)": state=0 ppid=1 ... utime=11 stime=12 ... starttime=19 (stat(5) fields 3, 4, 14, 15, 22).
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19])


def children_of():
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            s = proc_stat(p)
            if s is not None:
                kids.setdefault(s[0], []).append(int(p))
    return kids


def tree_ticks(pid, kids):
    """utime + stime of PID and its live descendants, in ticks, with PID's start time; None if gone."""
    s = proc_stat(pid)
    if s is None:
        return None
    total, todo = s[1], list(kids.get(pid, ()))
    while todo:
        c = todo.pop()
        cs = proc_stat(c)
        if cs is not None:
            total += cs[1]
            todo.extend(kids.get(c, ()))
    return total, s[2]


def broker_pids():
    """{name: pid} of the pid files matching $BENCH_CPU_BROKERS."""
    out = {}
    for pattern in os.environ.get("BENCH_CPU_BROKERS", "").split():
        for path in sorted(glob.glob(pattern)):
            base = os.path.basename(path)
            name = os.path.basename(os.path.dirname(path)) if base == "node.pid" else base[: -len(".pid")]
            try:
                out[name] = int(open(path).read().strip())
            except (OSError, ValueError):
                pass
    return out


def sample(pids):
    kids = children_of()
    return {name: tree_ticks(pid, kids) for name, pid in pids.items()}


def run(argv):
    out, label, beside = None, None, False
    while argv and argv[0] != "--":
        a = argv.pop(0)
        if a == "--out":
            out = argv.pop(0)
        elif a == "--label":
            label = argv.pop(0)
        elif a == "--out-beside-stdout":
            beside = True
        else:
            sys.exit(f"bench-cpu.py: unknown option {a}")
    cmd = argv[1:]
    if not cmd:
        sys.exit("bench-cpu.py: no command after --")
    if beside:
        target = os.path.realpath("/proc/self/fd/1")
        if not os.path.isfile(target):
            os.execvp(cmd[0], cmd)
        stem = target[:-4] if target.endswith(".log") else target
        out, label = stem + ".cpu.jsonl", label or os.path.basename(stem)
    if out is None:
        sys.exit("bench-cpu.py: --out FILE or --out-beside-stdout")
    label = label or os.path.basename(out).split(".")[0]

    pids = broker_pids()
    before = sample(pids)
    start = time.time()
    t0 = time.monotonic()
    child = subprocess.Popen(cmd)
    # Ctrl-C reaches CMD through the terminal; this process waits for it and reports all the same.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    while True:
        try:
            _, status, ru = os.wait4(child.pid, 0)
            break
        except InterruptedError:
            continue
    wall = time.monotonic() - t0
    after = sample(pids)
    rc = os.waitstatus_to_exitcode(status)
    rc = 128 - rc if rc < 0 else rc

    brokers, complete = {}, bool(pids)
    for name, pid in pids.items():
        b, a = before.get(name), after.get(name)
        if b is None or a is None or a[1] != b[1]:
            brokers[name] = {"pid": pid, "cpu_s": None}
            complete = False
        else:
            brokers[name] = {"pid": pid, "cpu_s": round((a[0] - b[0]) / CLK_TCK, 3)}
    record = {
        "step": label,
        "start_unix": round(start, 3),
        "wall_s": round(wall, 3),
        "clk_tck": CLK_TCK,
        "client": {"cpu_s": round(ru.ru_utime + ru.ru_stime, 3), "user_s": round(ru.ru_utime, 3),
                   "sys_s": round(ru.ru_stime, 3), "rc": rc},
        "brokers": brokers,
        "broker_cpu_s": round(sum(b["cpu_s"] for b in brokers.values() if b["cpu_s"] is not None), 3),
        "brokers_complete": complete,
    }
    with open(out, "a") as f:
        f.write(json.dumps(record) + "\n")
    return rc


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "run":
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(run(sys.argv[2:]))
