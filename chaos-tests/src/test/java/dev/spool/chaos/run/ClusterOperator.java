package dev.spool.chaos.run;

import dev.spool.client.ReassignmentResult;
import dev.spool.client.Reassignments;
import dev.spool.common.HostPort;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.QuorumConfig;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What an operator does to a cluster under faults in {@link ReassignmentChaosTest}: executes a
 * reassignment plan with a throttle and changes the controller quorum's voters, each step retried
 * until the cluster accepts it, as a person at a terminal would. A step that fails (a fenced broker
 * refuses the plan, a quorum change times out while its leader is isolated) is looked at again from
 * the cluster's state before it is repeated: a voter change that went through is not sent twice.
 * Never cancels. One thread.
 */
final class ClusterOperator {
  /** How long one admin call may take before the operator looks again. */
  static final long CALL_TIMEOUT_MS = 15_000;

  private final ProcessCluster cluster;
  private final Consumer<String> log;
  private final List<String> refusals = new ArrayList<>();

  ClusterOperator(ProcessCluster cluster, Consumer<String> log) {
    this.cluster = cluster;
    this.log = log;
  }

  /**
   * What the cluster refused or failed on the way and what moved when, in order (the report lists
   * them).
   */
  synchronized List<String> refusals() {
    return List.copyOf(refusals);
  }

  private synchronized void refused(String what) {
    refusals.add(what);
    log.accept("operator: " + what);
  }

  /**
   * Sends {@code plan} with {@code throttle} until every partition of it was accepted in one
   * request (a partition already moving to its target is accepted again, one already there succeeds
   * without a change), or {@code deadlineNs} passes; true when accepted.
   */
  boolean execute(Map<TopicPartition, List<Integer>> plan, long throttle, long deadlineNs) {
    Map<TopicPartition, Optional<List<Integer>>> targets = new java.util.LinkedHashMap<>();
    plan.forEach((tp, replicas) -> targets.put(tp, Optional.of(replicas)));
    while (System.nanoTime() < deadlineNs) {
      try {
        Map<TopicPartition, ReassignmentResult> results =
            cluster
                .admin()
                .alterPartitionReassignments(targets, OptionalLong.of(throttle))
                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        List<ReassignmentResult> bad =
            results.values().stream().filter(r -> !r.succeeded()).toList();
        if (bad.isEmpty() && results.keySet().containsAll(plan.keySet())) {
          log.accept("operator: plan accepted " + plan + " throttle " + throttle + " B/s");
          return true;
        }
        refused("plan refused for " + bad);
      } catch (Exception e) {
        refused("plan failed: " + e);
      }
      pause();
    }
    return false;
  }

  /** The reassignments in progress, or empty when they could not be listed now. */
  Optional<Reassignments> inProgress() {
    try {
      return Optional.of(
          cluster
              .admin()
              .listPartitionReassignments(List.of())
              .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS));
    } catch (Exception e) {
      refused("list reassignments failed: " + e);
      return Optional.empty();
    }
  }

  /**
   * Until {@code stop}: every 250 ms, which partitions are moving, noted with {@code clock}'s
   * milliseconds each time that changes (what the report shows of the moves against the faults).
   */
  void watchMoves(
      java.util.function.LongSupplier clockMs, java.util.function.BooleanSupplier stop) {
    List<TopicPartition> last = null;
    while (!stop.getAsBoolean()) {
      Optional<Reassignments> now = inProgress();
      if (now.isPresent()) {
        List<TopicPartition> moving =
            now.get().partitions().stream().map(Reassignments.Reassignment::partition).toList();
        if (!moving.equals(last)) {
          noted("at " + clockMs.getAsLong() + " ms moving " + moving);
          last = moving;
        }
      }
      try {
        TimeUnit.MILLISECONDS.sleep(250); // the watch's sampling period
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private synchronized void noted(String what) {
    refusals.add(what);
    log.accept("operator: " + what);
  }

  /** Removes the replication throttle; true when the cluster accepted it. */
  boolean clearThrottle() {
    try {
      cluster.admin().setReplicationThrottle(0).get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      return true;
    } catch (Exception e) {
      refused("clearing the throttle failed: " + e);
      return false;
    }
  }

  /**
   * Adds {@code node} (started as a new controller, see {@link ProcessCluster.Builder#joining}) as
   * a voter, unless it already is one; retried until it is or {@code deadlineNs} passes.
   */
  boolean addVoter(int node, long deadlineNs) {
    HostPort at =
        new HostPort(
            cluster.addresses(node).quorum().getHostString(),
            cluster.addresses(node).quorum().getPort());
    while (System.nanoTime() < deadlineNs) {
      try (QuorumAdmin admin = QuorumAdmin.connect(bootstrap(), CALL_TIMEOUT_MS)) {
        if (voterIds(admin.describe()).contains(node)) {
          log.accept("operator: n" + node + " is a voter");
          return true;
        }
        QuorumAdmin.Description d = admin.addVoter(node, at);
        log.accept("operator: added voter n" + node + ": voters " + voterIds(d));
      } catch (RuntimeException e) {
        refused("add-voter " + node + " failed: " + e);
        pause();
      }
    }
    return false;
  }

  /** Removes {@code node} from the voters unless it is not one; retried as {@link #addVoter}. */
  boolean removeVoter(int node, long deadlineNs) {
    while (System.nanoTime() < deadlineNs) {
      try (QuorumAdmin admin = QuorumAdmin.connect(bootstrap(), CALL_TIMEOUT_MS)) {
        if (!voterIds(admin.describe()).contains(node)) {
          log.accept("operator: n" + node + " is not a voter");
          return true;
        }
        QuorumAdmin.Description d = admin.removeVoters(Set.of(node));
        log.accept("operator: removed voter n" + node + ": voters " + voterIds(d));
      } catch (RuntimeException e) {
        refused("remove-voter " + node + " failed: " + e);
        pause();
      }
    }
    return false;
  }

  /** The quorum as its leader describes it now. */
  QuorumAdmin.Description describeQuorum() {
    try (QuorumAdmin admin = QuorumAdmin.connect(bootstrap(), CALL_TIMEOUT_MS)) {
      return admin.describe();
    }
  }

  static Set<Integer> voterIds(QuorumAdmin.Description d) {
    Set<Integer> out = new TreeSet<>();
    d.voters().forEach(m -> out.add(m.nodeId()));
    return out;
  }

  static Set<Integer> listenerIds(QuorumAdmin.Description d) {
    Set<Integer> out = new TreeSet<>();
    d.listeners().forEach(m -> out.add(m.nodeId()));
    return out;
  }

  /**
   * Where the admin finds the quorum: node 1's {@code controller.quorum.voters} (the voters at the
   * start), as {@code spool quorum --config} does.
   */
  private Map<Integer, HostPort> bootstrap() {
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(cluster.configFile(1), StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return QuorumConfig.parseVoters(p.getProperty("controller.quorum.voters"));
  }

  /** Between two attempts of a refused step, as a person would wait before trying again. */
  private static void pause() {
    try {
      TimeUnit.MILLISECONDS.sleep(500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
