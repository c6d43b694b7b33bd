package dev.spool.chaos.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable recorded history: the client ops in index order plus the white-box observations.
 * Pure data with a few derived look-ups the checkers share; no I/O.
 */
public final class History {
  private final List<Op> ops;
  private final List<ReplicaSnapshot> replicaSnapshots;
  private final List<EpochObservation> epochObservations;
  private final List<ClientLeaderView> clientLeaderViews;

  /** For each op index: the index of its invocation if it is a completion, else -1. */
  private final int[] invocationIndex;

  private History(
      List<Op> ops,
      List<ReplicaSnapshot> replicaSnapshots,
      List<EpochObservation> epochs,
      List<ClientLeaderView> clientViews) {
    this.ops = List.copyOf(ops);
    this.replicaSnapshots = List.copyOf(replicaSnapshots);
    this.epochObservations = List.copyOf(epochs);
    this.clientLeaderViews = List.copyOf(clientViews);
    for (int i = 0; i < this.ops.size(); i++) {
      if (this.ops.get(i).index() != i) {
        throw new IllegalArgumentException(
            "op at position "
                + i
                + " has index "
                + this.ops.get(i).index()
                + ": indices must be 0..n-1");
      }
    }
    this.invocationIndex = pairInvocations(this.ops);
  }

  /** Splits recorded entries by kind, keeping each kind's order. */
  public static History of(List<? extends HistoryEntry> entries) {
    List<Op> ops = new ArrayList<>();
    List<ReplicaSnapshot> replicas = new ArrayList<>();
    List<EpochObservation> epochs = new ArrayList<>();
    List<ClientLeaderView> clientViews = new ArrayList<>();
    for (HistoryEntry e : entries) {
      if (e instanceof Op op) {
        ops.add(op);
      } else if (e instanceof ReplicaSnapshot r) {
        replicas.add(r);
      } else if (e instanceof EpochObservation o) {
        epochs.add(o);
      } else if (e instanceof ClientLeaderView v) {
        clientViews.add(v);
      }
    }
    return new History(ops, replicas, epochs, clientViews);
  }

  public static History of(
      List<Op> ops, List<ReplicaSnapshot> replicas, List<EpochObservation> epochs) {
    return new History(ops, replicas, epochs, List.of());
  }

  /** Every entry, ops first, for writing a history back out. */
  public List<HistoryEntry> entries() {
    List<HistoryEntry> all = new ArrayList<>(ops);
    all.addAll(replicaSnapshots);
    all.addAll(epochObservations);
    all.addAll(clientLeaderViews);
    return all;
  }

  public List<Op> ops() {
    return ops;
  }

  public List<ReplicaSnapshot> replicaSnapshots() {
    return replicaSnapshots;
  }

  public List<EpochObservation> epochObservations() {
    return epochObservations;
  }

  /** What each producer learned of partition leaders, in recorded order. */
  public List<ClientLeaderView> clientLeaderViews() {
    return clientLeaderViews;
  }

  public Op op(int index) {
    return ops.get(index);
  }

  /** The invocation that a completion completes, or {@code null} if it has none (a bad history). */
  public Op invocationOf(Op completion) {
    int i = invocationIndex[completion.index()];
    return i < 0 ? null : ops.get(i);
  }

  /** Time from invocation to completion, or -1 when the completion has no invocation. */
  public long latencyNs(Op completion) {
    Op inv = invocationOf(completion);
    return inv == null ? -1 : completion.timeNs() - inv.timeNs();
  }

  /** Time of the last op or observation, 0 for an empty history. */
  public long endNs() {
    long end = 0;
    for (HistoryEntry e : entries()) {
      end = Math.max(end, e.timeNs());
    }
    return end;
  }

  /**
   * Jepsen's model: a process has at most one op outstanding, so a completion completes the
   * process's latest invocation.
   */
  private static int[] pairInvocations(List<Op> ops) {
    int[] result = new int[ops.size()];
    Map<Long, Integer> open = new HashMap<>();
    for (Op op : ops) {
      if (op.type() == OpType.INVOKE) {
        result[op.index()] = -1;
        open.put(op.process(), op.index());
      } else {
        Integer inv = open.remove(op.process());
        result[op.index()] = inv == null ? -1 : inv;
      }
    }
    return result;
  }
}
