package dev.spool.cli;

import dev.spool.client.Reassignments;
import dev.spool.client.ReplicaLog;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each partition of a reassignment stands ({@code spool reassign status}): complete (its
 * replicas equal the plan's, in order), in progress (the controller is moving it), or failed/not
 * started (neither: the plan was not executed, the move was refused or cancelled, or the partition
 * was moved elsewhere since); for a partition in progress, how far each adding replica has caught
 * up with its leader, by log end offset. Pure; any thread.
 */
final class ReassignmentProgress {
  /** The three states, with the words the command prints. */
  enum State {
    COMPLETE("complete"),
    IN_PROGRESS("in progress"),
    NOT_STARTED("failed/not started");

    final String text;

    State(String text) {
      this.text = text;
    }
  }

  /**
   * An adding replica's log end offset against the leader's; -1 when that broker did not report it
   * (the replica is not created yet, or there is no leader).
   */
  record Catchup(int broker, long logEndOffset, long leaderLogEndOffset) {
    /** e.g. "broker 4: 812/1000 (81%)". */
    String describe() {
      if (logEndOffset < 0) {
        return "broker " + broker + ": no log yet";
      }
      if (leaderLogEndOffset < 0) {
        return "broker " + broker + ": " + logEndOffset + "/? (the leader's log end is unknown)";
      }
      long pct =
          leaderLogEndOffset == 0 ? 100 : Math.min(100, logEndOffset * 100 / leaderLogEndOffset);
      return "broker "
          + broker
          + ": "
          + logEndOffset
          + "/"
          + leaderLogEndOffset
          + " ("
          + pct
          + "%)";
    }
  }

  /** One partition's standing. {@code replicas} is its current replica set (empty if unknown). */
  record Partition(
      TopicPartition partition,
      State state,
      List<Integer> replicas,
      List<Integer> adding,
      List<Integer> removing,
      List<Catchup> progress) {}

  private ReassignmentProgress() {}

  /**
   * Each partition of {@code plan}.
   *
   * @param current every partition's current replicas (of the plan's topics at least)
   * @param inProgress the reassignments in progress
   * @param logs the replicas' logs, from every broker
   */
  static List<Partition> ofPlan(
      ReassignmentPlan plan,
      Map<TopicPartition, List<Integer>> current,
      Reassignments inProgress,
      List<ReplicaLog> logs) {
    Map<TopicPartition, Reassignments.Reassignment> moving = byPartition(inProgress);
    List<Partition> out = new ArrayList<>();
    for (ReassignmentPlan.Move m : plan.partitions()) {
      Reassignments.Reassignment r = moving.get(m.partition());
      if (r != null) {
        out.add(inProgress(r, logs));
        continue;
      }
      List<Integer> replicas = current.getOrDefault(m.partition(), List.of());
      out.add(
          new Partition(
              m.partition(),
              replicas.equals(m.replicas()) ? State.COMPLETE : State.NOT_STARTED,
              replicas,
              List.of(),
              List.of(),
              List.of()));
    }
    return out;
  }

  /** Every reassignment in progress. */
  static List<Partition> ofAll(Reassignments inProgress, List<ReplicaLog> logs) {
    return inProgress.partitions().stream().map(r -> inProgress(r, logs)).toList();
  }

  private static Partition inProgress(Reassignments.Reassignment r, List<ReplicaLog> logs) {
    Map<Integer, Long> leo = new HashMap<>();
    for (ReplicaLog l : logs) {
      if (l.partition().equals(r.partition())) {
        leo.put(l.brokerId(), l.logEndOffset());
      }
    }
    long leader = r.leader() < 0 ? -1 : leo.getOrDefault(r.leader(), -1L);
    List<Catchup> progress = new ArrayList<>();
    for (int b : r.adding()) {
      progress.add(new Catchup(b, leo.getOrDefault(b, -1L), leader));
    }
    return new Partition(
        r.partition(), State.IN_PROGRESS, r.replicas(), r.adding(), r.removing(), progress);
  }

  private static Map<TopicPartition, Reassignments.Reassignment> byPartition(Reassignments all) {
    Map<TopicPartition, Reassignments.Reassignment> m = new HashMap<>();
    all.partitions().forEach(r -> m.put(r.partition(), r));
    return m;
  }
}
