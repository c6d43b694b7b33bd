package dev.spool.chaos.run;

import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.checker.FaultTimelines;
import dev.spool.chaos.checker.ReplicaDivergence;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.cluster.KafkaCluster;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.HistoryEntry;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.HistorySink;
import dev.spool.chaos.history.HistoryWriter;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.nemesis.FlapNemesis;
import dev.spool.chaos.nemesis.FullRestartNemesis;
import dev.spool.chaos.nemesis.Nemesis;
import dev.spool.chaos.nemesis.NemesisFamily;
import dev.spool.chaos.nemesis.NemesisRunner;
import dev.spool.chaos.nemesis.PartitionNemesis;
import dev.spool.chaos.nemesis.ProcessNemesis;
import dev.spool.chaos.nemesis.Schedule;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import dev.spool.chaos.net.FaultNetwork;
import dev.spool.chaos.report.RunInfo;
import dev.spool.chaos.report.RunReport;
import dev.spool.chaos.workload.KafkaWorkload;
import dev.spool.chaos.workload.Workload;
import dev.spool.chaos.workload.WorkloadConfig;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The anchor: one chaos run against Apache Kafka instead of Spool, with everything else the same as
 * {@link ChaosRun} — the schedule ({@link ChaosRun#schedule}: same seed, same faults, same timing),
 * the nemeses ({@link ProcessNemesis}, {@link PartitionNemesis}, {@link FullRestartNemesis} over
 * {@link KafkaCluster} as their {@code ClusterControl}), the network (one namespace per node
 * through {@link FaultNetwork}), the topics (2 x 3 partitions, RF 3, {@code
 * min.insync.replicas=2}), the workload ({@link Workload}'s own worker loop, with {@link
 * KafkaWorkload}: Kafka's Java client), the history format, the Jepsen checkers, the availability
 * figures and the run folder.
 *
 * <p>Not run against Kafka: the white-box {@code replica-divergence} checker (it reads Spool's
 * on-disk format; {@code leader-epoch-monotonic} runs over {@link EpochObserver#kafka}), disk
 * faults (they damage Spool's files), client-link proxies, security, the fixed scenarios. Kafka's
 * node logs hold none of the lines the fault timelines read, so their node steps are '-'; the
 * first-ack column and the availability table come from the history and are comparable.
 */
public final class KafkaChaosRun {
  /** Nemesis families a Kafka run can apply. */
  public static final Set<NemesisFamily> FAMILIES =
      EnumSet.of(
          NemesisFamily.KILL,
          NemesisFamily.PAUSE,
          NemesisFamily.PARTITION,
          NemesisFamily.RESTART,
          NemesisFamily.FLAP);

  private final ChaosOptions options;
  private final Path kafkaLib;
  private final Consumer<String> progress;

  public KafkaChaosRun(ChaosOptions options, Path kafkaLib, Consumer<String> progress) {
    if (!FAMILIES.containsAll(options.families())) {
      Set<NemesisFamily> not = EnumSet.copyOf(options.families());
      not.removeAll(FAMILIES);
      throw new IllegalArgumentException("not available against Kafka: " + not);
    }
    if (options.secure() || options.unsafe() || options.schedule() != null) {
      throw new IllegalArgumentException(
          "Kafka runs take a generated schedule only (no scenario, --secure or unsafe mode)");
    }
    this.options = options;
    this.kafkaLib = kafkaLib;
    this.progress = progress;
  }

  /**
   * {@link CheckerSuite#standard()} without {@code replica-divergence} (it reads Spool's data
   * files): the Jepsen checkers and {@code leader-epoch-monotonic} over the nodes' metadata views.
   */
  static CheckerSuite suite() {
    // Every standard checker but replica-divergence, which reads Spool's data files.
    return new CheckerSuite(
        CheckerSuite.standard().checkers().stream()
            .filter(c -> !ReplicaDivergence.NAME.equals(c.name()))
            .toList());
  }

  public ChaosRun.Result run() throws IOException, InterruptedException {
    String runId =
        "kafka-"
            + options.scenario()
            + "-seed"
            + options.seed()
            + "-"
            + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now());
    Path runDir = options.baseDir().resolve(runId).toAbsolutePath();
    Files.createDirectories(runDir);
    long startedAtMs = System.currentTimeMillis();
    List<String> notes = new ArrayList<>();
    say("run " + runId + " in " + runDir + " against Apache Kafka (jars from " + kafkaLib + ")");
    say("re-run: " + options.rerunCommand());

    Capabilities caps = Capabilities.detect(new CommandRunner());
    boolean namespacesAllowed =
        caps.canPartition() && !"false".equals(System.getProperty(ChaosRun.NAMESPACES_PROPERTY));
    Set<NemesisFamily> available = EnumSet.copyOf(caps.availableFamilies());
    if (!namespacesAllowed) {
      available.remove(NemesisFamily.PARTITION);
      available.remove(NemesisFamily.FLAP);
    }
    Set<NemesisFamily> skipped = EnumSet.noneOf(NemesisFamily.class);
    options.families().stream().filter(f -> !available.contains(f)).forEach(skipped::add);
    if (!skipped.isEmpty()) {
      String loud =
          "!!! SKIPPED nemesis families "
              + skipped
              + ": "
              + (caps.canPartition() ? "namespaces disabled" : caps.report());
      say(loud);
      notes.add(loud);
    }
    notes.add(
        "Apache Kafka (KRaft, combined roles, Kafka's default timeouts) with Kafka's Java client;"
            + " replica-divergence not run (it reads Spool's data files)");
    // Same as Spool's runs: namespaces whenever this machine allows them, so both systems run in
    // the same network whatever the families.
    FaultNetwork network = new FaultNetwork(namespacesAllowed, false);
    try (KafkaCluster cluster =
        KafkaCluster.start(
            kafkaLib,
            runDir.resolve("cluster"),
            options.nodes(),
            network,
            options.seed(),
            options.nodeConfig())) {
      notes.addAll(network.notes());
      cluster.awaitReady(ChaosRun.RECOVERY_TIMEOUT);
      say("Kafka cluster ready: " + cluster.bootstrapServers());
      List<TopicPartition> tps = createTopics(cluster);
      Schedule schedule = ChaosRun.schedule(options, tps, available);
      say(schedule.describe());
      Files.writeString(runDir.resolve("schedule.txt"), schedule.describe() + "\n");
      return runWith(cluster, network, tps, schedule, runId, runDir, startedAtMs, notes);
    }
  }

  private List<TopicPartition> createTopics(KafkaCluster cluster) throws IOException {
    List<String> names = new ArrayList<>();
    List<TopicPartition> tps = new ArrayList<>();
    for (int t = 0; t < options.topics(); t++) {
      String name = "chaos-" + t;
      names.add(name);
      for (int p = 0; p < options.partitionsPerTopic(); p++) {
        tps.add(new TopicPartition(name, p));
      }
    }
    cluster.createTopics(
        names, options.partitionsPerTopic(), (short) 3, Map.of("min.insync.replicas", "2"));
    cluster.awaitFullIsr(names, ChaosRun.RECOVERY_TIMEOUT);
    return tps;
  }

  private List<Nemesis> nemeses(KafkaCluster cluster, FaultNetwork network) {
    List<Nemesis> n = new ArrayList<>();
    n.add(new ProcessNemesis(cluster));
    n.add(new FullRestartNemesis(cluster));
    network.namespaces().ifPresent(net -> n.add(new PartitionNemesis(cluster, net)));
    n.add(new FlapNemesis(cluster, network.namespaces().orElse(null)));
    return n;
  }

  private ChaosRun.Result runWith(
      KafkaCluster cluster,
      FaultNetwork network,
      List<TopicPartition> tps,
      Schedule schedule,
      String runId,
      Path runDir,
      long startedAtMs,
      List<String> notes)
      throws IOException, InterruptedException {
    List<HistoryEntry> entries = Collections.synchronizedList(new ArrayList<>());
    List<FaultWindow> timeline;
    long historyStartWallMs;
    try (HistoryWriter writer = HistoryWriter.create(runDir.resolve(RunReport.HISTORY))) {
      HistorySink tee =
          e -> {
            writer.append(e);
            entries.add(e);
          };
      HistoryRecorder recorder = new HistoryRecorder(dev.spool.common.Clock.SYSTEM, tee);
      historyStartWallMs = recorder.startWallMs();
      NemesisRunner runner =
          new NemesisRunner(
              schedule, nemeses(cluster, network), w -> say("fault " + ChaosRun.describe(w)));
      Workload workload =
          KafkaWorkload.create(
              new WorkloadConfig(
                  cluster.bootstrapServers(),
                  tps,
                  options.producers(),
                  options.consumers(),
                  options.sendsPerSecondPerProducer(),
                  Map.of(),
                  options.seed(),
                  Map.of()),
              recorder);
      List<String> topics = tps.stream().map(TopicPartition::topic).distinct().toList();
      EpochObserver observer = EpochObserver.kafka(cluster, recorder, topics, 500);
      observer.start();
      workload.start();
      try {
        ChaosRun.mainLoop(options, recorder, runner, workload.counters(), this::say);
        runner.healAll(recorder.elapsedNs());
        recover(cluster, network, topics, notes);
        say("final phase: stopping producers, draining every partition with fresh consumers");
        workload.stopProducers(Duration.ofSeconds(60));
        try {
          Map<TopicPartition, Long> end = workload.drain(ChaosRun.DRAIN_TIMEOUT);
          say(
              "drained to "
                  + end.values().stream().mapToLong(Long::longValue).sum()
                  + " records in total");
        } catch (IllegalStateException e) {
          notes.add("the final drain did not complete: " + e.getMessage());
          say("!!! " + e.getMessage());
        }
      } finally {
        workload.close();
        observer.close();
        observer.observeOnce();
        timeline = runner.timeline();
      }
      say("stopping the Kafka cluster cleanly");
      cluster.stop();
    }
    History history;
    synchronized (entries) {
      history = History.of(entries);
    }
    Verdict verdict = suite().check(history, timeline);
    verdict =
        verdict.withTimelines(
            FaultTimelines.compute(
                timeline, history, List.of(), historyStartWallMs, verdict.availability()));
    ChaosRun.stalledWorkload(options, verdict)
        .ifPresent(
            n -> {
              notes.add(n);
              say("!!! " + n);
            });
    RunInfo info =
        new RunInfo(
            runId,
            options.seed(),
            startedAtMs,
            options.rerunCommand(),
            "Apache Kafka: "
                + options.nodes()
                + " nodes (KRaft, combined roles), "
                + options.topics()
                + " topics x "
                + options.partitionsPerTopic()
                + " partitions, RF 3, acks=all idempotent, min.insync.replicas=2"
                + (network.namespaces().isPresent() ? ", network namespaces" : ""),
            options.families().stream()
                .map(f -> f.name().toLowerCase())
                .collect(Collectors.joining(",")),
            notes);
    Path index = RunReport.write(runDir, info, history, verdict, timeline, cluster.logFiles());
    Map<String, Long> counts = ChaosRun.counts(verdict);
    say("verdict: " + verdict.valid() + ", " + verdict.anomalyCount() + " anomalies; " + counts);
    say("report: " + index);
    return new ChaosRun.Result(
        runId, runDir, index, verdict, schedule, timeline, List.copyOf(notes), counts);
  }

  /** Heals anything left, restarts stopped nodes, waits for a ready cluster with full ISRs. */
  private void recover(
      KafkaCluster cluster, FaultNetwork network, List<String> topics, List<String> notes) {
    network.namespaces().ifPresent(net -> net.healAll());
    for (int n : cluster.nodes()) {
      if (!cluster.isRunning(n)) {
        cluster.start(n);
      } else if (!cluster.isServing(n)) {
        cluster.kill(n, Signal.CONT);
      }
    }
    long t0 = System.nanoTime();
    try {
      cluster.awaitReady(ChaosRun.RECOVERY_TIMEOUT);
      cluster.awaitFullIsr(topics, ChaosRun.RECOVERY_TIMEOUT);
      say(
          "healed: every node up, full ISRs after "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
              + " ms");
    } catch (IllegalStateException e) {
      notes.add("the cluster did not fully recover after the faults: " + e.getMessage());
      say("!!! the cluster did not fully recover: " + e.getMessage());
    }
  }

  private void say(String line) {
    progress.accept(line);
  }
}
