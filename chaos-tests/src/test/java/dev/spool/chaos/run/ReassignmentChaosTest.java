package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.cluster.ProcessClusterControl;
import dev.spool.chaos.cluster.ReplicaLogs;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.HistoryEntry;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.HistorySink;
import dev.spool.chaos.history.HistoryWriter;
import dev.spool.chaos.nemesis.ClusterControl;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.nemesis.Nemesis;
import dev.spool.chaos.nemesis.NemesisFamily;
import dev.spool.chaos.nemesis.NemesisRunner;
import dev.spool.chaos.nemesis.PartitionNemesis;
import dev.spool.chaos.nemesis.PlannedFault;
import dev.spool.chaos.nemesis.ProcessNemesis;
import dev.spool.chaos.nemesis.Schedule;
import dev.spool.chaos.nemesis.ScheduleConfig;
import dev.spool.chaos.nemesis.Target;
import dev.spool.chaos.net.FaultNetwork;
import dev.spool.chaos.report.RunInfo;
import dev.spool.chaos.report.RunReport;
import dev.spool.chaos.workload.Workload;
import dev.spool.chaos.workload.WorkloadConfig;
import dev.spool.client.NewTopic;
import dev.spool.client.Reassignments;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replica reassignment and a controller quorum change under faults: five node processes, nodes 1–3
 * combined (the voters), node 4 a broker and node 5 a new controller that joins the quorum ({@link
 * ProcessCluster.Builder#joining}). The standard chaos workload (acks=all idempotent producers,
 * readers of every partition) runs throughout. After some seconds of writes, an operator ({@link
 * ClusterOperator}) moves every partition of the topic off its first replica (its preferred leader,
 * so leaders move away) onto the broker that did not hold it, that broker first, with a replication
 * throttle so that the moves take seconds; with the moves, a fixed nemesis schedule starts (SIGKILL
 * of the leader partition 0's move takes away, isolation of the active controller in network
 * namespaces, SIGKILL of the active controller, isolation of broker 4; without root the isolations
 * are SIGKILLs, said loudly) and the operator adds node 5 as a voter and removes node 1, each step
 * retried until the cluster accepts it. After healing, the operator sends the plan again as long as
 * a partition is not where the plan says while nothing moves (never a cancel); once nothing moves,
 * the workload stops and drains. Then: every partition's replicas are the plan's, in its order,
 * with a full ISR; the voters are 2, 3 and 5, with no listener and no change under way; and the
 * standard checkers find no lost, duplicated or reordered acknowledged write and no divergent
 * replica. The run's report (history, faults, what moved when, node logs) is under {@code
 * target/chaos/reassign-*}. About 45 s on 2 cores.
 */
@Tag("chaos")
class ReassignmentChaosTest {
  private static final Logger LOG = LoggerFactory.getLogger(ReassignmentChaosTest.class);
  private static final long SEED = 16;
  private static final String TOPIC = "moving";
  private static final int PARTITIONS = 3;
  private static final int BROKER_ONLY = 4;
  private static final int JOINER = 5;
  private static final int REMOVED_VOTER = 1;
  private static final Set<Integer> FINAL_VOTERS = Set.of(2, 3, JOINER);

  /**
   * Bytes/s of catch-up fetching per broker: about twice what the workload writes to a partition
   * (some 70-byte records a second), so a move copies the seconds of records written before it at
   * about 1 KB/s net once the bucket's one-second burst is spent, and still converges while the
   * writes go on (each partition adds a different broker).
   */
  private static final long THROTTLE = 2 * 1024;

  /** The faults' part of the run, from the start of the moves. */
  private static final Duration FAULT_PHASE = Duration.ofSeconds(21);

  private static final Duration SETTLE = Duration.ofSeconds(120);

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void replicasMoveAndVotersChangeThroughKillsAndPartitions() throws Exception {
    boolean namespaces = ChaosScenarioRuns.canPartition();
    if (!namespaces) {
      System.out.println("!!! no network namespaces: the isolations are SIGKILLs");
    }
    String runId = "reassign-seed" + SEED + "-" + System.currentTimeMillis();
    Path runDir = Path.of("target", "chaos", runId).toAbsolutePath();
    FaultNetwork network = new FaultNetwork(namespaces, false);
    long startedAtMs = System.currentTimeMillis();
    List<String> notes = new ArrayList<>();
    List<HistoryEntry> entries = Collections.synchronizedList(new ArrayList<>());
    List<FaultWindow> timeline;
    Verdict verdict;
    History history;
    try (ProcessCluster cluster =
        ProcessCluster.builder()
            .nodes(5)
            .roles(BROKER_ONLY, "broker")
            .roles(JOINER, "controller")
            .joining(JOINER)
            .dir(runDir.resolve("cluster"))
            .network(network)
            .clusterId("chaos-reassign")
            .start()) {
      notes.addAll(cluster.notes());
      cluster
          .admin()
          .createTopic(new NewTopic(TOPIC, PARTITIONS, 3, Map.of()))
          .get(60, TimeUnit.SECONDS);
      cluster.awaitFullIsr(List.of(TOPIC), SETTLE);
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        tps.add(new TopicPartition(TOPIC, p));
      }
      Map<TopicPartition, List<Integer>> plan = plan(cluster, tps);
      int movedLeader = cluster.partitionReplicas(tps.get(0)).get(0);
      LOG.info("plan {}", plan);

      try (HistoryWriter writer = HistoryWriter.create(runDir.resolve(RunReport.HISTORY))) {
        HistorySink tee =
            e -> {
              writer.append(e);
              entries.add(e);
            };
        HistoryRecorder recorder = new HistoryRecorder(Clock.SYSTEM, tee);
        NemesisRunner runner = null;
        Workload workload =
            new Workload(
                new WorkloadConfig(
                    cluster.bootstrapServers(), tps, 3, 2, 20, Map.of(), SEED, Map.of()),
                recorder);
        EpochObserver observer = EpochObserver.spool(cluster, recorder, List.of(TOPIC), 500);
        ClusterOperator operator = new ClusterOperator(cluster, LOG::info);
        AtomicBoolean watched = new AtomicBoolean();
        AtomicReference<String> operatorOutcome = new AtomicReference<>("did not finish");
        observer.start();
        workload.start();
        try {
          // Seconds of records to copy, so that the throttled moves outlast the first fault.
          awaitAcks(workload, 300);
          watch(operator, recorder, watched);
          assertTrue(
              operator.execute(plan, THROTTLE, System.nanoTime() + SETTLE.toNanos()),
              "the plan was accepted: " + operator.refusals());
          // The faults start with the moves, the voter change with them.
          long movesStartMs = TimeUnit.NANOSECONDS.toMillis(recorder.elapsedNs());
          Schedule schedule = schedule(cluster.nodes(), movedLeader, namespaces, tps, movesStartMs);
          LOG.info("{}", schedule.describe());
          runner =
              new NemesisRunner(
                  schedule, nemeses(cluster, network), w -> LOG.info("fault {}", describe(w)));
          Thread op = new Thread(() -> operatorOutcome.set(changeVoters(operator)), "chaos-voters");
          op.start();
          faultPhase(recorder, runner, schedule.config().durationMs());
          runner.healAll(recorder.elapsedNs());
          recover(cluster, network);
          op.join(SETTLE.toMillis());
          assertEquals("done", operatorOutcome.get(), "the operator's steps under faults");
          long settleStart = System.nanoTime();
          settleMoves(cluster, operator, plan);
          LOG.info(
              "every move finished {} ms after the heal",
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - settleStart));
          watched.set(true);
          cluster.awaitFullIsr(List.of(TOPIC), SETTLE);
          awaitAcks(workload, 40);
          workload.stopProducers(Duration.ofSeconds(60));
          workload.drain(ChaosRun.DRAIN_TIMEOUT);
        } finally {
          workload.close();
          observer.close();
          observer.observeOnce();
          timeline = runner == null ? List.of() : runner.timeline();
        }
        assertWhereThePlanSaid(cluster, operator, plan);
        assertTrue(operator.clearThrottle(), "the throttle is removed after the moves");
        notes.addAll(operator.refusals());
        cluster.stop();
        recordReplicas(cluster, recorder, runDir);
      }
      synchronized (entries) {
        history = History.of(entries);
      }
      verdict = CheckerSuite.standard().check(history, timeline);
      RunInfo info =
          new RunInfo(
              runId,
              SEED,
              startedAtMs,
              "./mvnw -pl chaos-tests -am -Dtest=ReassignmentChaosTest verify",
              "nodes 1-3 combined, 4 broker, 5 joining controller; 1 topic x 3 partitions, RF 3,"
                  + " moved with a throttle; voters 1,2,3 -> 2,3,5"
                  + (network.namespaces().isPresent() ? ", network namespaces" : ""),
              "kill,partition",
              notes);
      Path index = RunReport.write(runDir, info, history, verdict, timeline, cluster.logFiles());
      LOG.info(
          "verdict {} ({} anomalies), report {}", verdict.valid(), verdict.anomalyCount(), index);
    }
    assertValid(verdict, timeline, runId);
  }

  /**
   * The checkers found nothing, writes were acknowledged, and every planned fault was applied and
   * healed.
   */
  private static void assertValid(Verdict verdict, List<FaultWindow> timeline, String runId) {
    String anomalies =
        verdict.results().values().stream()
            .filter(c -> c.valid() != Validity.TRUE)
            .map(CheckResult::toString)
            .collect(Collectors.joining("\n"));
    assertEquals(Validity.TRUE, verdict.valid(), "verdict of " + runId + "\n" + anomalies);
    assertTrue(verdict.counts().sendOk() > 0, "writes were acknowledged: " + verdict.counts());
    for (FaultWindow w : timeline) {
      assertTrue(w.healed() && !w.targets().isEmpty(), "fault applied and healed: " + w);
    }
    assertEquals(
        Set.of(0, 1, 2, 3),
        timeline.stream().map(FaultWindow::id).collect(Collectors.toSet()),
        "every planned fault ran: " + timeline);
  }

  /**
   * Each partition leaves its first replica (its preferred leader, so its leader moves) for the
   * broker that did not hold it, which becomes its preferred leader: [m, r1, r2] from [r0, r1, r2].
   */
  private static Map<TopicPartition, List<Integer>> plan(
      ProcessCluster cluster, List<TopicPartition> tps) {
    Map<TopicPartition, List<Integer>> plan = new LinkedHashMap<>();
    for (TopicPartition tp : tps) {
      List<Integer> r = cluster.partitionReplicas(tp);
      int missing =
          cluster.brokers().stream().filter(b -> !r.contains(b)).findFirst().orElseThrow();
      plan.put(tp, List.of(missing, r.get(1), r.get(2)));
    }
    return plan;
  }

  /**
   * One fault at a time, each healed before the next: the leader that partition 0's move takes
   * away, the active controller (isolated, then killed) while the voters change, broker 4.
   */
  private static Schedule schedule(
      List<Integer> nodes,
      int movedLeader,
      boolean namespaces,
      List<TopicPartition> tps,
      long atMs) {
    FaultKind isolate = namespaces ? FaultKind.ISOLATE_NODE : FaultKind.KILL;
    Target activeController = new Target.ActiveController();
    List<PlannedFault> faults =
        List.of(
            new PlannedFault(
                0, null, FaultKind.KILL, pick(nodes, movedLeader), atMs + 500, 4_000, null),
            new PlannedFault(1, null, isolate, activeController, atMs + 6_500, 4_000, null),
            new PlannedFault(2, null, FaultKind.KILL, activeController, atMs + 12_500, 3_000, null),
            new PlannedFault(
                3, null, isolate, pick(nodes, BROKER_ONLY), atMs + 17_500, 3_000, null));
    Set<NemesisFamily> families =
        namespaces
            ? EnumSet.of(NemesisFamily.KILL, NemesisFamily.PARTITION)
            : EnumSet.of(NemesisFamily.KILL);
    ScheduleConfig config =
        new ScheduleConfig(
            SEED,
            families,
            atMs + FAULT_PHASE.toMillis(),
            1_000,
            60_000,
            0,
            60_000,
            0,
            1_000,
            0,
            tps);
    return new Schedule(SEED, config, faults, Set.of());
  }

  /** The node itself: a random-node target's pick is its index in the node list. */
  private static Target pick(List<Integer> nodes, int node) {
    return new Target.RandomNode(nodes.indexOf(node));
  }

  private static List<Nemesis> nemeses(ProcessCluster processes, FaultNetwork network) {
    ClusterControl control = new ProcessClusterControl(processes);
    List<Nemesis> n = new ArrayList<>();
    n.add(new ProcessNemesis(control));
    network.namespaces().ifPresent(net -> n.add(new PartitionNemesis(control, net)));
    return n;
  }

  /**
   * The operator's quorum change, each step retried until accepted: node 5 added as a voter, then
   * node 1 removed. "done" or what did not go through.
   */
  private static String changeVoters(ClusterOperator operator) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    if (!operator.addVoter(JOINER, deadline)) {
      return "node " + JOINER + " was never added: " + operator.refusals();
    }
    if (!operator.removeVoter(REMOVED_VOTER, deadline)) {
      return "node " + REMOVED_VOTER + " was never removed: " + operator.refusals();
    }
    return "done";
  }

  /**
   * The nemesis duty cycle until every fault ran and healed and a quiet tail passed, as {@link
   * ChaosRun}'s main loop.
   */
  private static void faultPhase(HistoryRecorder recorder, NemesisRunner runner, long untilMs)
      throws InterruptedException {
    long durationNs = TimeUnit.MILLISECONDS.toNanos(untilMs);
    while (true) {
      long now = recorder.elapsedNs();
      if (now >= durationNs && runner.idle()) {
        long lastHeal = runner.timeline().stream().mapToLong(FaultWindow::endNs).max().orElse(0);
        if (now >= lastHeal + ChaosRun.QUIET_TAIL.toNanos()) {
          return;
        }
      }
      if (now >= durationNs + ChaosRun.FAULT_OVERRUN.toNanos()) {
        return;
      }
      runner.tick(now);
      Thread.sleep(ChaosRun.TICK_MS); // the nemesis duty cycle
    }
  }

  /** Heals the network, restarts killed nodes, waits for a ready cluster. */
  private static void recover(ProcessCluster cluster, FaultNetwork network) {
    network.namespaces().ifPresent(net -> net.healAll());
    for (int n : cluster.nodes()) {
      if (!cluster.isRunning(n)) {
        cluster.start(n);
      } else if (!cluster.isServing(n)) {
        cluster.kill(n, Signal.CONT);
      }
    }
    cluster.awaitReady(SETTLE);
  }

  /**
   * Waits until nothing moves and every partition is where the plan says; a partition that is not
   * while nothing moves had its move refused or redirected during a fault, and the plan is sent
   * again (never a cancel).
   */
  private static void settleMoves(
      ProcessCluster cluster, ClusterOperator operator, Map<TopicPartition, List<Integer>> plan) {
    AtomicReference<String> last = new AtomicReference<>("not looked yet");
    try {
      Awaitility.await("every move finished as planned")
          .atMost(SETTLE)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                Optional<Reassignments> moving = operator.inProgress();
                if (moving.isEmpty()) {
                  return false;
                }
                Map<TopicPartition, List<Integer>> now = new LinkedHashMap<>();
                plan.keySet().forEach(tp -> now.put(tp, cluster.partitionReplicas(tp)));
                last.set("moving " + moving.get().partitions() + ", replicas " + now);
                if (!moving.get().partitions().isEmpty()) {
                  return false;
                }
                if (now.equals(plan)) {
                  return true;
                }
                LOG.info("nothing moves but {} is not the plan {}: sending it again", now, plan);
                operator.execute(plan, THROTTLE, System.nanoTime() + SETTLE.toNanos());
                return false;
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("the moves did not finish; last: " + last.get(), e);
    }
  }

  private static void assertWhereThePlanSaid(
      ProcessCluster cluster, ClusterOperator operator, Map<TopicPartition, List<Integer>> plan) {
    for (Map.Entry<TopicPartition, List<Integer>> e : plan.entrySet()) {
      TopicPartition tp = e.getKey();
      assertEquals(e.getValue(), cluster.partitionReplicas(tp), tp + ": replicas as planned");
      assertEquals(
          new TreeSet<>(e.getValue()),
          new TreeSet<>(cluster.partitionIsr(tp)),
          tp + ": every planned replica in sync");
    }
    Reassignments moving = operator.inProgress().orElseThrow();
    assertEquals(List.of(), moving.partitions(), "no reassignment in progress");
    QuorumAdmin.Description q = operator.describeQuorum();
    assertEquals(FINAL_VOTERS, ClusterOperator.voterIds(q), "voters: " + q);
    assertEquals(Set.of(), ClusterOperator.listenerIds(q), "listeners: " + q);
    assertFalse(q.changing(), "no quorum change under way: " + q);
    assertTrue(FINAL_VOTERS.contains(q.leaderId()), "a voter leads: " + q);
  }

  /** Notes which partitions move, on the history's clock, until {@code stop}. */
  private static void watch(
      ClusterOperator operator, HistoryRecorder recorder, AtomicBoolean stop) {
    Thread t =
        new Thread(
            () ->
                operator.watchMoves(
                    () -> TimeUnit.NANOSECONDS.toMillis(recorder.elapsedNs()), stop::get),
            "chaos-move-watch");
    t.setDaemon(true);
    t.start();
  }

  private static void awaitAcks(Workload workload, int more) {
    long target = workload.counters().sendOk.get() + more;
    Awaitility.await("writes acknowledged")
        .atMost(SETTLE)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> workload.counters().sendOk.get() >= target);
  }

  /** Every replica's batches below its checkpointed high watermark, from its files. */
  private static void recordReplicas(ProcessCluster cluster, HistoryRecorder recorder, Path runDir)
      throws java.io.IOException {
    Path scratch = runDir.resolve("replica-scratch");
    for (int n : cluster.brokers()) {
      for (ReplicaLogs.Replica r : ReplicaLogs.read(n, cluster.nodeDataDir(n), scratch).values()) {
        recorder.replicaSnapshot(
            n, r.partition(), r.highWatermark(), r.logStartOffset(), r.belowHighWatermark());
      }
    }
    dev.spool.broker.log.LogManager.deleteRecursively(scratch);
  }

  private static String describe(FaultWindow w) {
    return "#"
        + w.id()
        + " "
        + w.label()
        + (w.healed()
            ? " healed after " + TimeUnit.NANOSECONDS.toMillis(w.endNs() - w.startNs()) + " ms"
            : " started")
        + (w.note() == null ? "" : " (" + w.note() + ")");
  }
}
