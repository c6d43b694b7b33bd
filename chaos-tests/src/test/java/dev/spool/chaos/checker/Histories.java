package dev.spool.chaos.checker;

import dev.spool.chaos.history.BatchSummary;
import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.history.ReplicaSnapshot;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hand-written histories for checker tests. Each call appends an invocation and its completion for
 * one process; time advances 1 ms per op so op times are easy to read in failures.
 */
final class Histories {
  static final TopicPartition T0 = new TopicPartition("t", 0);
  static final TopicPartition T1 = new TopicPartition("t", 1);
  private static final long STEP_NS = 1_000_000L;

  private final List<Op> ops = new ArrayList<>();
  private final List<ReplicaSnapshot> replicas = new ArrayList<>();
  private final List<EpochObservation> epochs = new ArrayList<>();
  private long nowNs;

  static Histories history() {
    return new Histories();
  }

  /** An acknowledged send of {@code value} at {@code offset}. */
  Histories sendOk(long process, TopicPartition tp, long value, long offset) {
    add(process, OpType.INVOKE, OpFunction.SEND, tp, value, null, null, null, null, null);
    add(process, OpType.OK, OpFunction.SEND, tp, value, offset, null, null, null, null);
    return this;
  }

  Histories sendFail(long process, TopicPartition tp, long value) {
    add(process, OpType.INVOKE, OpFunction.SEND, tp, value, null, null, null, null, null);
    add(
        process,
        OpType.FAIL,
        OpFunction.SEND,
        tp,
        value,
        null,
        null,
        null,
        null,
        "NOT_LEADER_OR_FOLLOWER");
    return this;
  }

  Histories sendInfo(long process, TopicPartition tp, long value) {
    add(process, OpType.INVOKE, OpFunction.SEND, tp, value, null, null, null, null, null);
    add(
        process,
        OpType.INFO,
        OpFunction.SEND,
        tp,
        value,
        null,
        null,
        null,
        null,
        "REQUEST_TIMED_OUT");
    return this;
  }

  /** Acknowledged sends of values {@code first..first+n-1} at offsets {@code 0..n-1}. */
  Histories sendOkRange(long process, TopicPartition tp, long firstValue, int n) {
    for (int i = 0; i < n; i++) {
      sendOk(process, tp, firstValue + i, i);
    }
    return this;
  }

  /** An ok poll of one partition; {@code pairs} is offset, value, offset, value, ... */
  Histories poll(long process, TopicPartition tp, long... pairs) {
    Map<TopicPartition, List<OffsetValue>> reads = new LinkedHashMap<>();
    reads.put(tp, pairs(pairs));
    return poll(process, reads);
  }

  Histories poll(long process, Map<TopicPartition, List<OffsetValue>> reads) {
    add(process, OpType.INVOKE, OpFunction.POLL, null, null, null, null, null, null, null);
    add(process, OpType.OK, OpFunction.POLL, null, null, null, reads, null, null, null);
    return this;
  }

  Histories assign(long process, boolean seekToBeginning, TopicPartition... tps) {
    add(
        process,
        OpType.INVOKE,
        OpFunction.ASSIGN,
        null,
        null,
        null,
        null,
        List.of(tps),
        seekToBeginning,
        null);
    add(
        process,
        OpType.OK,
        OpFunction.ASSIGN,
        null,
        null,
        null,
        null,
        List.of(tps),
        seekToBeginning,
        null);
    return this;
  }

  Histories replica(int node, TopicPartition tp, long hw, BatchSummary... batches) {
    nowNs += STEP_NS;
    replicas.add(new ReplicaSnapshot(nowNs, node, tp, hw, 0, List.of(batches)));
    return this;
  }

  Histories epoch(int observer, TopicPartition tp, int leader, int epoch) {
    nowNs += STEP_NS;
    epochs.add(new EpochObservation(nowNs, observer, tp, leader, epoch));
    return this;
  }

  /** Advances time without an op, to make availability gaps. */
  Histories idleMs(long ms) {
    nowNs += ms * 1_000_000L;
    return this;
  }

  History build() {
    return History.of(ops, replicas, epochs);
  }

  Analysis analysis() {
    return Analysis.of(build());
  }

  Analysis analysis(List<FaultWindow> faults) {
    return Analysis.of(build(), faults);
  }

  static List<OffsetValue> pairs(long... pairs) {
    List<OffsetValue> out = new ArrayList<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      out.add(new OffsetValue(pairs[i], pairs[i + 1]));
    }
    return out;
  }

  private void add(
      long process,
      OpType type,
      OpFunction f,
      TopicPartition tp,
      Long value,
      Long offset,
      Map<TopicPartition, List<OffsetValue>> reads,
      List<TopicPartition> assignment,
      Boolean seek,
      String error) {
    nowNs += STEP_NS;
    ops.add(
        new Op(
            ops.size(),
            nowNs,
            process,
            (int) process,
            type,
            f,
            tp,
            value,
            offset,
            reads,
            assignment,
            seek,
            error));
  }
}
