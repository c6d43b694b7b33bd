package dev.spool.chaos.checker;

import dev.spool.chaos.history.History;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The look-ups every checker shares, derived once from a {@link History} (Jepsen's {@code
 * analysis}): version orders, the writer of each value, the values read by ok polls and who read
 * them. Pure and read-only.
 *
 * <p>Version orders take, as Jepsen's do, the offsets of sends we know took effect ({@code ok}; our
 * sends carry one value, so an {@code info} send never has a known offset) and the offsets of every
 * polled record.
 */
public final class Analysis {
  private final History history;
  private final List<FaultWindow> faults;
  private final Map<TopicPartition, VersionOrder> orders;
  private final Map<TopicPartition, Map<Long, Op>> writerOf;
  private final Map<TopicPartition, Set<Long>> okReads;
  private final Map<TopicPartition, Map<Long, List<Op>>> readersOf;

  private Analysis(History history, List<FaultWindow> faults) {
    this.history = history;
    this.faults = List.copyOf(faults);
    Map<TopicPartition, VersionOrder.Builder> builders = new TreeMap<>();
    Map<TopicPartition, Map<Long, Op>> writers = new TreeMap<>();
    Map<TopicPartition, Set<Long>> reads = new TreeMap<>();
    Map<TopicPartition, Map<Long, List<Op>>> readers = new TreeMap<>();
    for (Op op : history.ops()) {
      if (op.f() == OpFunction.SEND) {
        Map<Long, Op> w = writers.computeIfAbsent(op.partition(), tp -> new HashMap<>());
        // The completion replaces the invocation; an invocation that never completed stays and
        // counts as indeterminate.
        w.put(op.value(), op);
        if (op.type() == OpType.OK) {
          builders
              .computeIfAbsent(op.partition(), tp -> new VersionOrder.Builder())
              .claim(op.offset(), op.value(), op.index());
        }
      } else if (op.f() == OpFunction.POLL && op.reads() != null) {
        for (Map.Entry<TopicPartition, List<OffsetValue>> e : op.reads().entrySet()) {
          TopicPartition tp = e.getKey();
          for (OffsetValue ov : e.getValue()) {
            builders
                .computeIfAbsent(tp, t -> new VersionOrder.Builder())
                .claim(ov.offset(), ov.value(), op.index());
            if (op.type() == OpType.OK) {
              reads.computeIfAbsent(tp, t -> new HashSet<>()).add(ov.value());
              List<Op> rs =
                  readers
                      .computeIfAbsent(tp, t -> new HashMap<>())
                      .computeIfAbsent(ov.value(), v -> new ArrayList<>());
              if (rs.isEmpty() || rs.get(rs.size() - 1) != op) {
                rs.add(op);
              }
            }
          }
        }
      }
    }
    Map<TopicPartition, VersionOrder> built = new LinkedHashMap<>();
    builders.forEach((tp, b) -> built.put(tp, b.build()));
    this.orders = built;
    this.writerOf = writers;
    this.okReads = reads;
    this.readersOf = readers;
  }

  public static Analysis of(History history) {
    return new Analysis(history, List.of());
  }

  /** With the faults of the run, as the nemesis applied them, for checkers that judge by fault. */
  public static Analysis of(History history, List<FaultWindow> faults) {
    return new Analysis(history, faults);
  }

  public History history() {
    return history;
  }

  /** The run's faults as applied (empty when the analysis was made without them). */
  public List<FaultWindow> faults() {
    return faults;
  }

  /** Partitions that appear in any send or poll, in order. */
  public Set<TopicPartition> partitions() {
    Set<TopicPartition> all = new java.util.TreeSet<>(orders.keySet());
    all.addAll(writerOf.keySet());
    return all;
  }

  public VersionOrder versionOrder(TopicPartition tp) {
    VersionOrder vo = orders.get(tp);
    return vo == null ? new VersionOrder.Builder().build() : vo;
  }

  /** The completion (or, if it never completed, the invocation) of the send of {@code value}. */
  public Op writerOf(TopicPartition tp, long value) {
    return writerOf.getOrDefault(tp, Map.of()).get(value);
  }

  /** Values of {@code tp} read by at least one ok poll. */
  public Set<Long> okReads(TopicPartition tp) {
    return okReads.getOrDefault(tp, Set.of());
  }

  /** The ok polls that read {@code value} in {@code tp}, in history order. */
  public List<Op> readersOf(TopicPartition tp, long value) {
    return readersOf.getOrDefault(tp, Map.of()).getOrDefault(value, List.of());
  }

  public boolean anyOkRead() {
    return okReads.values().stream().anyMatch(s -> !s.isEmpty());
  }

  /**
   * Jepsen's {@code must-have-committed?}: the send was ok, or it was indeterminate and its value
   * was read by an ok poll.
   */
  public boolean mustHaveCommitted(Op writer) {
    return writer.type() == OpType.OK
        || (writer.type() != OpType.FAIL && okReads(writer.partition()).contains(writer.value()));
  }
}
