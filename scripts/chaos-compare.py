#!/usr/bin/env python3
"""Spool's chaos run beside Kafka's (same seed): fault by fault, the longest time without an
acknowledged write, and both verdicts.

  chaos-compare.py SPOOL_RUN KAFKA_RUN            markdown on stdout
  chaos-compare.py SPOOL_RUN KAFKA_RUN --faults   also one row per fault
  chaos-compare.py --self-test                    the script's own tests (synthetic run folders)

A run folder is what scripts/chaos.sh leaves in DIR/<run>/: this reads its run.json (seed, nemeses,
re-run command) and verdict.json (verdict, counts, checkers, availability). Nothing else, nothing
live. The first folder is labelled Spool and the second Kafka unless --names A,B says otherwise.

The figure per fault is verdict.json's availability.faults[].longestGap: the longest interval
between two consecutive acknowledged writes (or the run's start or end) that overlaps the fault's
window, so it may start before the fault. Per fault kind the table gives how many faults of that
kind the run holds and p50 / p99 / max of their figures (nearest rank, as the report's latency
percentiles; with one or two faults of a kind, p99 is the max).

Runs with different seeds or nemesis families are not the same schedule: exit 2 unless
--any-seed. Exit 0 otherwise, whatever the verdicts (they are printed, not judged).
"""
import argparse
import json
import math
import os
import sys

# FaultKind labels (chaos-tests dev.spool.chaos.nemesis.FaultKind); an unknown kind prints as is.
KIND_LABELS = {
    "KILL": "kill -9",
    "PAUSE": "pause",
    "ISOLATE_NODE": "isolate a node",
    "SPLIT_MAJORITY_MINORITY": "majority/minority split",
    "ISOLATE_CONTROLLER_FROM_BROKERS": "isolate the active controller",
    "ISOLATE_LEADER_FROM_FOLLOWERS": "isolate a leader from its followers",
    "ONE_WAY_LOSS": "one-way loss",
    "CLIENT_LATENCY": "client latency",
    "CLIENT_SLOW_LINK": "slow client link",
    "CLIENT_CONNECTION_DROP": "client connection drop",
    "TORN_SEGMENT_TAIL": "torn segment",
    "BITFLIP_SEGMENT_TAIL": "bit-flip segment",
    "TORN_CHECKPOINT": "torn checkpoint",
    "BITFLIP_CHECKPOINT": "bit-flip checkpoint",
    "FULL_RESTART": "full restart",
    "FLAPPING_LINK": "flapping link",
    "INTERMITTENT_PAUSE": "intermittent pause",
}


class Run:
    """One run folder: its run.json and verdict.json."""

    def __init__(self, folder, name):
        self.folder = folder
        self.name = name
        with open(os.path.join(folder, "run.json")) as f:
            self.run = json.load(f)
        with open(os.path.join(folder, "verdict.json")) as f:
            self.verdict = json.load(f)
        self.availability = self.verdict.get("availability") or {}
        self.faults = self.availability.get("faults") or []

    @property
    def seed(self):
        return self.run.get("seed")

    @property
    def nemeses(self):
        return self.run.get("nemeses")

    def gaps_by_kind(self):
        """kind -> [longest gap of each fault of that kind, in s], in fault order."""
        out = {}
        for f in self.faults:
            out.setdefault(f["kind"], []).append(gap_s(f))
        return out


def gap_s(fault):
    g = fault.get("longestGap")
    return None if g is None else (g["endNs"] - g["startNs"]) / 1e9


def percentile(values, p):
    """Nearest-rank percentile of the values (None values ignored); None if there are none."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    rank = math.ceil(p * len(xs))
    return xs[max(0, min(len(xs) - 1, rank - 1))]


def secs(x):
    return "–" if x is None else "%.1f s" % x


def cell(text):
    return str(text).replace("|", "\\|")


def verdict_lines(run):
    v = run.verdict
    c = v.get("counts") or {}
    results = v.get("results") or {}
    failed = sorted(k for k, r in results.items() if not r.get("valid", False))
    lines = [
        "**%s** (`%s`, seed %s): %s; %s of %s sends acknowledged, %s indeterminate, %s failed; "
        "%d of %d checkers true%s."
        % (
            run.name,
            os.path.basename(os.path.normpath(run.folder)),
            run.seed,
            "valid" if v.get("valid") else "INVALID",
            fmt_int(c.get("sendOk")),
            fmt_int(c.get("sends")),
            fmt_int(c.get("sendInfo")),
            fmt_int(c.get("sendFail")),
            len(results) - len(failed),
            len(results),
            ""
            if not failed
            else "; failing: "
            + ", ".join("%s (%s)" % (k, results[k].get("anomalyCount", "?")) for k in failed),
        )
    ]
    g = run.availability.get("longestGap")
    if g is not None:
        lines.append(
            "  longest gap of the run %.1f s (from %.1f s); re-run: `%s`"
            % ((g["endNs"] - g["startNs"]) / 1e9, g["startNs"] / 1e9, run.run.get("rerunCommand", "?"))
        )
    return lines


def fmt_int(x):
    return "?" if x is None else "{:,}".format(x)


def kind_table(runs):
    per = [r.gaps_by_kind() for r in runs]
    kinds = []
    for r in runs:  # first appearance in the schedule, which both runs share
        for f in r.faults:
            if f["kind"] not in kinds:
                kinds.append(f["kind"])
    head = "| fault kind | " + " | ".join(
        "%s: faults | p50 | p99 | max" % cell(r.name) for r in runs
    ) + " |"
    rows = [head, "|---|" + "---:|---:|---:|---:|" * len(runs)]
    for k in kinds:
        cells = [KIND_LABELS.get(k, k)]
        for p in per:
            xs = p.get(k, [])
            cells += [
                str(len(xs)),
                secs(percentile(xs, 0.50)),
                secs(percentile(xs, 0.99)),
                secs(percentile(xs, 1.0)),
            ]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def fault_table(runs):
    by_id = [{f["faultId"]: f for f in r.faults} for r in runs]
    ids = sorted(set().union(*[m.keys() for m in by_id]))
    rows = [
        "| # | fault kind | "
        + " | ".join("%s: fault (length) | longest gap" % cell(r.name) for r in runs)
        + " |",
        "|---|---|" + "---|---:|" * len(runs),
    ]
    for i in ids:
        kind = next(m[i]["kind"] for m in by_id if i in m)
        cells = [str(i), KIND_LABELS.get(kind, kind)]
        for m in by_id:
            f = m.get(i)
            if f is None:
                cells += ["–", "–"]
            else:
                length = (f["endNs"] - f["startNs"]) / 1e9
                cells += ["%s (%.1f s)" % (cell(f.get("label", "")), length), secs(gap_s(f))]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def compare(runs, with_faults):
    out = []
    for r in runs:
        out += verdict_lines(r)
    out.append("")
    out += kind_table(runs)
    if with_faults:
        out.append("")
        out += fault_table(runs)
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(
        description="Spool's chaos run beside Kafka's (same seed): longest window without an "
        "acknowledged write per fault kind, and both verdicts."
    )
    ap.add_argument("runs", nargs="*", metavar="RUN", help="two run folders: Spool's, then Kafka's")
    ap.add_argument("--names", default="Spool,Kafka", help="labels of the two runs (default Spool,Kafka)")
    ap.add_argument("--faults", action="store_true", help="also one row per fault")
    ap.add_argument("--any-seed", action="store_true", help="compare runs of different seeds or nemeses")
    ap.add_argument("--self-test", action="store_true", help="run this script's tests and exit")
    a = ap.parse_args(argv)
    if a.self_test:
        return self_test()
    names = a.names.split(",")
    if len(a.runs) != 2 or len(names) != 2:
        ap.print_usage(sys.stderr)
        print("chaos-compare: give two run folders (and two --names)", file=sys.stderr)
        return 2
    try:
        runs = [Run(d, n) for d, n in zip(a.runs, names)]
    except (OSError, ValueError) as e:
        print("chaos-compare: %s" % e, file=sys.stderr)
        return 2
    if not a.any_seed and (runs[0].seed != runs[1].seed or runs[0].nemeses != runs[1].nemeses):
        print(
            "chaos-compare: not the same schedule: seed %s / %s, nemeses %s / %s (--any-seed to compare anyway)"
            % (runs[0].seed, runs[1].seed, runs[0].nemeses, runs[1].nemeses),
            file=sys.stderr,
        )
        return 2
    sys.stdout.write(compare(runs, a.faults))
    return 0


def self_test():
    import tempfile
    import unittest

    def write_run(root, name, seed, faults, valid=True, failing=()):
        d = os.path.join(root, name)
        os.makedirs(d)
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump({"seed": seed, "nemeses": "kill,partition", "rerunCommand": "chaos.sh"}, f)
        results = {"lost-write": {"valid": True, "anomalyCount": 0}}
        for k in failing:
            results[k] = {"valid": False, "anomalyCount": 3}
        fs = [
            {"faultId": i, "kind": k, "label": "%s n1" % k.lower(), "startNs": i * 10**10,
             "endNs": i * 10**10 + 5 * 10**9,
             "longestGap": {"startNs": i * 10**10, "endNs": i * 10**10 + int(g * 1e9)}}
            for i, (k, g) in enumerate(faults)
        ]
        v = {"valid": valid, "counts": {"sends": 10, "sendOk": 9, "sendInfo": 1, "sendFail": 0},
             "results": results,
             "availability": {"acknowledgedWrites": 9, "longestGap": {"startNs": 0, "endNs": 10**9},
                              "faults": fs}}
        with open(os.path.join(d, "verdict.json"), "w") as f:
            json.dump(v, f)
        return d

    class Tests(unittest.TestCase):
        def setUp(self):
            self.tmp = tempfile.TemporaryDirectory()
            self.addCleanup(self.tmp.cleanup)

        def test_percentiles_are_nearest_rank(self):
            xs = [float(i) for i in range(1, 101)]
            self.assertEqual(percentile(xs, 0.5), 50.0)
            self.assertEqual(percentile(xs, 0.99), 99.0)
            self.assertEqual(percentile(xs, 1.0), 100.0)
            self.assertEqual(percentile([2.0, 9.0], 0.5), 2.0)
            self.assertEqual(percentile([2.0, 9.0], 0.99), 9.0)
            self.assertIsNone(percentile([], 0.5))

        def test_one_row_per_kind_with_both_systems(self):
            s = write_run(self.tmp.name, "s", 7, [("KILL", 1.5), ("ONE_WAY_LOSS", 15.0), ("KILL", 2.5)])
            k = write_run(self.tmp.name, "k", 7, [("KILL", 9.0), ("ONE_WAY_LOSS", 10.5), ("KILL", 11.0)])
            text = compare([Run(s, "Spool"), Run(k, "Kafka")], with_faults=True)
            self.assertIn("| kill -9 | 2 | 1.5 s | 2.5 s | 2.5 s | 2 | 9.0 s | 11.0 s | 11.0 s |", text)
            self.assertIn("| one-way loss | 1 | 15.0 s | 15.0 s | 15.0 s | 1 | 10.5 s | 10.5 s | 10.5 s |", text)
            self.assertIn("| 2 | kill -9 | kill n1 (5.0 s) | 2.5 s | kill n1 (5.0 s) | 11.0 s |", text)
            self.assertIn("**Spool** (`s`, seed 7): valid; 9 of 10 sends acknowledged", text)

        def test_a_kind_only_one_run_holds_shows_zero_faults(self):
            s = write_run(self.tmp.name, "s", 7, [("FLAPPING_LINK", 3.0)])
            k = write_run(self.tmp.name, "k", 7, [])
            text = compare([Run(s, "Spool"), Run(k, "Kafka")], with_faults=False)
            self.assertIn("| flapping link | 1 | 3.0 s | 3.0 s | 3.0 s | 0 | – | – | – |", text)

        def test_failing_checkers_are_named(self):
            s = write_run(self.tmp.name, "s", 7, [], valid=False, failing=["unseen"])
            k = write_run(self.tmp.name, "k", 7, [])
            text = compare([Run(s, "Spool"), Run(k, "Kafka")], with_faults=False)
            self.assertIn("INVALID", text)
            self.assertIn("1 of 2 checkers true; failing: unseen (3)", text)

        def test_different_seeds_are_refused(self):
            s = write_run(self.tmp.name, "s", 7, [])
            k = write_run(self.tmp.name, "k", 8, [])
            self.assertEqual(main([s, k]), 2)
            with open(os.devnull, "w") as null:
                old, sys.stdout = sys.stdout, null
                try:
                    self.assertEqual(main([s, k, "--any-seed"]), 0)
                finally:
                    sys.stdout = old

    result = unittest.TextTestRunner(verbosity=1).run(unittest.defaultTestLoader.loadTestsFromTestCase(Tests))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
