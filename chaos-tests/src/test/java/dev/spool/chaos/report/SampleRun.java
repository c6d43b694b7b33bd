package dev.spool.chaos.report;

import dev.spool.chaos.history.BatchSummary;
import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.history.ReplicaSnapshot;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A synthetic but plausible two-minute run for report tests and for looking at the rendered page: 3
 * partitions, 4 producer and 3 consumer processes, four faults that visibly hurt throughput and
 * latency, and two injected bugs: one acknowledged record missing from the log (lost-write, unseen,
 * poll-skip) and one record appended twice (duplicate). Seeded, so every build sees the same run.
 */
final class SampleRun {
  static final long SEED = 20261129L;
  static final long S = 1_000_000_000L;
  static final long MS = 1_000_000L;
  static final long DURATION_NS = 120 * S;
  static final List<TopicPartition> TPS =
      List.of(
          new TopicPartition("orders", 0),
          new TopicPartition("orders", 1),
          new TopicPartition("orders", 2));
  static final long LOST_VALUE = 1_500;
  static final long DUPLICATED_VALUE = 1_200;

  final List<FaultWindow> faults =
      List.of(
          new FaultWindow(
              0, FaultKind.KILL, List.of("n2"), 20 * S, 32 * S, "PARTITION_LEADER(orders-1)"),
          new FaultWindow(
              1, FaultKind.SPLIT_MAJORITY_MINORITY, List.of("n3 | n1 n2"), 48 * S, 63 * S, null),
          new FaultWindow(
              2,
              FaultKind.CLIENT_LATENCY,
              List.of("client links"),
              78 * S,
              92 * S,
              "+200 ms each way"),
          new FaultWindow(
              3, FaultKind.PAUSE, List.of("n1"), 100 * S, 112 * S, "ACTIVE_CONTROLLER"));
  final History history;

  private record Rec(long offset, long value, long visibleNs) {}

  private record Timed(long timeNs, int seq, Op op) {}

  private final Random rng = new Random(SEED);
  private final Map<TopicPartition, List<Rec>> logs = new HashMap<>();
  private final List<Timed> timed = new ArrayList<>();
  private int seq;

  SampleRun() {
    TPS.forEach(tp -> logs.put(tp, new ArrayList<>()));
    simulate();
    timed.sort(Comparator.comparingLong(Timed::timeNs).thenComparingInt(Timed::seq));
    List<Op> ops = new ArrayList<>();
    for (Timed t : timed) {
      Op o = t.op();
      ops.add(
          new Op(
              ops.size(),
              o.timeNs(),
              o.process(),
              o.worker(),
              o.type(),
              o.f(),
              o.partition(),
              o.value(),
              o.offset(),
              o.reads(),
              o.assignment(),
              o.seekToBeginning(),
              o.error()));
    }
    history = History.of(ops, replicas(), epochs());
  }

  private boolean in(long t, int fault) {
    FaultWindow f = faults.get(fault);
    return t >= f.startNs() && t < f.endNs();
  }

  private void simulate() {
    PriorityQueue<long[]> next = new PriorityQueue<>(Comparator.comparingLong(a -> a[0]));
    for (int w = 0; w < 7; w++) {
      next.add(new long[] {w * 3 * MS, w});
    }
    long[] position = new long[3];
    long value = 1;
    while (!next.isEmpty()) {
      long[] n = next.poll();
      long t = n[0];
      int worker = (int) n[1];
      // Producers stop 5 s early so the consumers' final polls can catch up (as Jepsen's do).
      if (t >= DURATION_NS || (worker < 4 && t >= DURATION_NS - 5 * S)) {
        continue;
      }
      long done;
      if (worker < 4) {
        done = send(worker, t, TPS.get((int) (value % 3)), value++);
      } else {
        done = poll(worker, t, position);
      }
      next.add(
          new long[] {done + (worker < 4 ? 20 * MS + rng.nextInt(40) * MS : 100 * MS), worker});
    }
  }

  private long latency(long t) {
    double base = Math.exp(rng.nextGaussian() * 0.45) * 4 * MS;
    if (in(t, 0)) {
      base *= 6;
    }
    if (in(t, 1)) {
      base *= 3;
    }
    if (in(t, 2)) {
      base += 400 * MS;
    }
    if (in(t, 3)) {
      base *= 2.5;
    }
    if (rng.nextInt(200) == 0) {
      base *= 12;
    }
    return (long) base;
  }

  private long send(int worker, long t, TopicPartition tp, long value) {
    add(
        t,
        new Op(
            0,
            t,
            worker,
            worker,
            OpType.INVOKE,
            OpFunction.SEND,
            tp,
            value,
            null,
            null,
            null,
            null,
            null));
    // A kill of the leader stalls writes for ~3 s, then they flow via the new leader.
    if (in(t, 0) && t < 20 * S + 3 * S) {
      long end = 20 * S + 3 * S + rng.nextInt(400) * MS;
      add(
          end,
          new Op(
              0,
              end,
              worker,
              worker,
              OpType.INFO,
              OpFunction.SEND,
              tp,
              value,
              null,
              null,
              null,
              null,
              "REQUEST_TIMED_OUT"));
      return end;
    }
    // The split leaves the minority leader refusing with NOT_ENOUGH_REPLICAS for ~6 s.
    if (in(t, 1) && t < 48 * S + 6 * S) {
      long end = t + 30 * MS;
      add(
          end,
          new Op(
              0,
              end,
              worker,
              worker,
              OpType.FAIL,
              OpFunction.SEND,
              tp,
              value,
              null,
              null,
              null,
              null,
              "NOT_ENOUGH_REPLICAS"));
      return end + 250 * MS;
    }
    long end = t + latency(t);
    List<Rec> log = logs.get(tp);
    long offset = log.isEmpty() ? 0 : log.get(log.size() - 1).offset() + 1;
    // Consumers see a record once the high watermark passes it, and the HW only grows.
    long visible = Math.max(end, log.isEmpty() ? 0 : log.get(log.size() - 1).visibleNs());
    if (value == LOST_VALUE) {
      // The bug: acknowledged, but the record is not in the log (a hole at its offset).
      log.add(new Rec(offset, -1, visible));
    } else {
      log.add(new Rec(offset, value, visible));
      if (value == DUPLICATED_VALUE) {
        log.add(new Rec(offset + 1, value, visible)); // the bug: a retried batch appended twice
      }
    }
    add(
        end,
        new Op(
            0,
            end,
            worker,
            worker,
            OpType.OK,
            OpFunction.SEND,
            tp,
            value,
            offset,
            null,
            null,
            null,
            null));
    return end;
  }

  private long poll(int worker, long t, long[] position) {
    int p = worker - 4;
    TopicPartition tp = TPS.get(p);
    add(
        t,
        new Op(
            0,
            t,
            worker,
            worker,
            OpType.INVOKE,
            OpFunction.POLL,
            null,
            null,
            null,
            null,
            null,
            null,
            null));
    long end = t + latency(t) / 2;
    List<OffsetValue> read = new ArrayList<>();
    for (Rec r : logs.get(tp)) {
      if (r.offset() >= position[p] && r.visibleNs() <= t && read.size() < 40) {
        if (r.value() >= 0) {
          read.add(new OffsetValue(r.offset(), r.value()));
        }
        position[p] = r.offset() + 1;
      }
    }
    add(
        end,
        new Op(
            0,
            end,
            worker,
            worker,
            OpType.OK,
            OpFunction.POLL,
            null,
            null,
            null,
            Map.of(tp, read),
            null,
            null,
            null));
    return end;
  }

  private void add(long t, Op op) {
    timed.add(new Timed(t, seq++, op));
  }

  private List<ReplicaSnapshot> replicas() {
    List<ReplicaSnapshot> out = new ArrayList<>();
    for (TopicPartition tp : TPS) {
      long hw = logs.get(tp).size();
      List<BatchSummary> batches = new ArrayList<>();
      for (long base = 0; base < hw; base += 10) {
        batches.add(
            new BatchSummary(
                base,
                Math.min(hw - 1, base + 9),
                base < hw / 2 ? 1 : 2,
                0x1000 + base * 7 + tp.partition()));
      }
      for (int node = 1; node <= 3; node++) {
        out.add(new ReplicaSnapshot(DURATION_NS - S, node, tp, hw, 0, batches));
      }
    }
    return out;
  }

  private List<EpochObservation> epochs() {
    List<EpochObservation> out = new ArrayList<>();
    for (int node = 1; node <= 3; node++) {
      out.add(new EpochObservation(S, node, TPS.get(1), 2, 1));
      out.add(new EpochObservation(24 * S, node, TPS.get(1), 1, 2));
    }
    return out;
  }
}
