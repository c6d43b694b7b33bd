package dev.spool.chaos.run;

import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.checker.FaultTimelines;
import dev.spool.chaos.checker.NodeLogEvents;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.cluster.ProcessClusterControl;
import dev.spool.chaos.cluster.ReplicaLogs;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.HistoryEntry;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.HistorySink;
import dev.spool.chaos.history.HistoryWriter;
import dev.spool.chaos.nemesis.ClientLinkNemesis;
import dev.spool.chaos.nemesis.ClusterControl;
import dev.spool.chaos.nemesis.DiskNemesis;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.nemesis.FlapNemesis;
import dev.spool.chaos.nemesis.FullRestartNemesis;
import dev.spool.chaos.nemesis.Nemesis;
import dev.spool.chaos.nemesis.NemesisFamily;
import dev.spool.chaos.nemesis.NemesisRunner;
import dev.spool.chaos.nemesis.NemesisSchedule;
import dev.spool.chaos.nemesis.PartitionNemesis;
import dev.spool.chaos.nemesis.ProcessNemesis;
import dev.spool.chaos.nemesis.Schedule;
import dev.spool.chaos.nemesis.ScheduleConfig;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import dev.spool.chaos.net.FaultNetwork;
import dev.spool.chaos.report.RunInfo;
import dev.spool.chaos.report.RunReport;
import dev.spool.chaos.workload.Workload;
import dev.spool.chaos.workload.WorkloadConfig;
import dev.spool.client.NewTopic;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One chaos run from start to verdict, the sequence of the chaos core's README:
 *
 * <ol>
 *   <li>{@link Capabilities} → the nemesis families this machine allows (skipped ones said loudly);
 *   <li>a {@link ProcessCluster} (in namespaces if partitions are on and allowed; behind fault
 *       proxies if client-link faults are on), RF-3 topics;
 *   <li>the {@link Workload} recording into {@code history.jsonl}, an {@link EpochObserver}, and
 *       the {@link NemesisRunner} ticked every 100 ms with the seeded {@link Schedule};
 *   <li>heal everything, restart stopped nodes, wait for a full ISR, stop producers, drain every
 *       partition to its end with fresh consumer sessions;
 *   <li>stop the cluster cleanly and record every replica's batches below its checkpointed high
 *       watermark from its files ({@link ReplicaLogs});
 *   <li>{@link CheckerSuite#standard()} → {@link Verdict}, {@link RunReport} → the run folder.
 * </ol>
 *
 * A problem of the harness itself (the cluster does not start, a file cannot be written) throws; a
 * cluster that stays unavailable is not a harness problem: the run goes on and the checkers and the
 * availability figures say what it cost.
 */
public final class ChaosRun {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosRun.class);
  static final long TICK_MS = 100;
  static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(120);
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(120);

  /**
   * How long past the scenario's duration the fault phase may run to finish faults a slow cluster
   * delayed (their target did not exist yet, see {@link NemesisRunner}); one still waiting then is
   * given up and recorded as not done.
   */
  static final Duration FAULT_OVERRUN = Duration.ofSeconds(60);

  /**
   * How long the workload keeps writing after the last heal before the fault phase ends, so every
   * run shows whether writes are acknowledged again once the faults are gone.
   */
  static final Duration QUIET_TAIL = Duration.ofSeconds(3);

  /**
   * {@code -Dspool.chaos.namespaces=false}: run on loopback even as root (partitions are then
   * skipped).
   */
  public static final String NAMESPACES_PROPERTY = "spool.chaos.namespaces";

  private final ChaosOptions options;
  private final Consumer<String> progress;

  public ChaosRun(ChaosOptions options, Consumer<String> progress) {
    this.options = options;
    this.progress = progress;
  }

  /** What a finished run produced. */
  public record Result(
      String runId,
      Path runDir,
      Path index,
      Verdict verdict,
      Schedule schedule,
      List<FaultWindow> timeline,
      List<String> notes,
      Map<String, Long> counts) {
    public boolean valid() {
      return verdict.valid() == dev.spool.chaos.checker.Validity.TRUE;
    }
  }

  public Result run() throws IOException, InterruptedException {
    String runId =
        options.scenario()
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
    say("run " + runId + " in " + runDir);
    say("re-run: " + options.rerunCommand());

    Capabilities caps = Capabilities.detect(new CommandRunner());
    boolean namespacesAllowed =
        caps.canPartition() && !"false".equals(System.getProperty(NAMESPACES_PROPERTY));
    String why =
        caps.canPartition()
            ? "namespaces disabled with -D" + NAMESPACES_PROPERTY + "=false"
            : caps.report();
    Set<NemesisFamily> available = EnumSet.copyOf(caps.availableFamilies());
    if (!namespacesAllowed) {
      available.remove(NemesisFamily.PARTITION);
      available.remove(NemesisFamily.FLAP);
    }
    Set<NemesisFamily> skipped = EnumSet.noneOf(NemesisFamily.class);
    options.families().stream().filter(f -> !available.contains(f)).forEach(skipped::add);
    if (options.unsafe() && !namespacesAllowed) {
      String loud =
          "!!! no network namespaces ("
              + why
              + "): the unsafe scenario SIGSTOPs the followers instead of "
              + "cutting them off";
      say(loud);
      notes.add(loud);
    } else if (!skipped.isEmpty()) {
      String loud = "!!! SKIPPED nemesis families " + skipped + ": " + why;
      say(loud);
      notes.add(loud);
    }
    boolean partitions =
        (options.families().contains(NemesisFamily.PARTITION)
                || options.families().contains(NemesisFamily.FLAP))
            && namespacesAllowed;
    boolean proxies = options.families().contains(NemesisFamily.PROXY);

    FaultNetwork network =
        new FaultNetwork(partitions || options.unsafe() && namespacesAllowed, proxies);
    SecureRun secure = SecureRun.of(options, runDir);
    ProcessCluster.Builder b =
        ProcessCluster.builder()
            .nodes(options.nodes())
            .dir(runDir.resolve("cluster"))
            .network(secure.network(network))
            .clusterId("chaos-" + options.seed());
    secure.nodeConfig().forEach(b::config);
    options.nodeConfig().forEach(b::config);
    try (ProcessCluster cluster = b.start()) {
      notes.addAll(cluster.notes());
      List<TopicPartition> tps = createTopics(cluster);
      secure.grant(
          cluster, tps.stream().map(TopicPartition::topic).distinct().toList(), RECOVERY_TIMEOUT);
      Schedule schedule = schedule(options, tps, available);
      say(schedule.describe());
      Files.writeString(runDir.resolve("schedule.txt"), schedule.describe() + "\n");
      return runWith(cluster, network, secure, tps, schedule, runId, runDir, startedAtMs, notes);
    }
  }

  private List<TopicPartition> createTopics(ProcessCluster cluster) throws IOException {
    Map<String, String> configs = new LinkedHashMap<>();
    if (options.unsafe()) {
      configs.put("min.insync.replicas", "1");
      configs.put("unclean.leader.election.enable", "true");
    }
    List<TopicPartition> tps = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int t = 0; t < options.topics(); t++) {
      String name = "chaos-" + t;
      names.add(name);
      try {
        cluster
            .admin()
            .createTopic(new NewTopic(name, options.partitionsPerTopic(), 3, configs))
            .get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IOException("cannot create topic " + name + ": " + e, e);
      }
      for (int p = 0; p < options.partitionsPerTopic(); p++) {
        tps.add(new TopicPartition(name, p));
      }
    }
    cluster.awaitFullIsr(names, RECOVERY_TIMEOUT);
    return tps;
  }

  /**
   * The run's schedule: the options' fixed one, or one generated from the seed with fault and quiet
   * lengths scaled to the duration. A pure function of the options and the partitions, so the same
   * seed gives the same schedule whatever system runs it (Spool or Kafka).
   */
  static Schedule schedule(
      ChaosOptions options, List<TopicPartition> tps, Set<NemesisFamily> available) {
    if (options.schedule() != null) {
      return options.schedule().apply(tps);
    }
    long ms = options.duration().toMillis();
    ScheduleConfig defaults = ScheduleConfig.defaults(options.seed(), options.families(), ms, tps);
    // Spool's broker session timeout is 1.5 s: pauses of 4 s and more get a node fenced.
    ScheduleConfig config =
        new ScheduleConfig(
            options.seed(),
            options.families(),
            ms,
            Math.min(defaults.faultMinMs(), Math.max(3_000, ms / 20)),
            Math.min(defaults.faultMaxMs(), Math.max(6_000, ms / 6)),
            Math.min(defaults.quietMinMs(), Math.max(3_000, ms / 20)),
            Math.min(defaults.quietMaxMs(), Math.max(6_000, ms / 10)),
            4_000,
            Math.min(defaults.finalQuietMs(), Math.max(5_000, ms / 6)),
            defaults.composeProbability(),
            tps);
    return NemesisSchedule.generate(config, available);
  }

  private Result runWith(
      ProcessCluster cluster,
      FaultNetwork network,
      SecureRun secure,
      List<TopicPartition> tps,
      Schedule schedule,
      String runId,
      Path runDir,
      long startedAtMs,
      List<String> notes)
      throws IOException, InterruptedException {
    // Appended under the recorder's lock (HistorySink's contract), read after every writer stopped.
    // Not a CopyOnWriteArrayList: a 30-minute run records around a million entries.
    List<HistoryEntry> entries = Collections.synchronizedList(new ArrayList<>());
    List<FaultWindow> timeline;
    long historyStartWallMs;
    try (HistoryWriter writer = HistoryWriter.create(runDir.resolve(RunReport.HISTORY))) {
      HistorySink tee =
          e -> {
            writer.append(e);
            entries.add(e);
          };
      HistoryRecorder recorder = new HistoryRecorder(Clock.SYSTEM, tee);
      historyStartWallMs = recorder.startWallMs();
      NemesisRunner runner =
          new NemesisRunner(schedule, nemeses(cluster, network), w -> say("fault " + describe(w)));
      Workload workload =
          new Workload(
              new WorkloadConfig(
                  cluster.bootstrapServers(),
                  tps,
                  options.producers(),
                  options.consumers(),
                  options.sendsPerSecondPerProducer(),
                  producerOverrides(),
                  options.seed(),
                  secure.workloadClient()),
              recorder);
      List<String> topics = tps.stream().map(TopicPartition::topic).distinct().toList();
      EpochObserver observer = new EpochObserver(cluster, recorder, topics, 500);
      observer.start();
      workload.start();
      secure.startIntruder(cluster.bootstrapServers(), tps, recorder::elapsedNs);
      try {
        mainLoop(options, recorder, runner, workload.counters(), this::say);
        runner.healAll(recorder.elapsedNs());
        recover(cluster, network, topics, notes);
        secure.stopIntruder();
        say("final phase: stopping producers, draining every partition with fresh consumers");
        workload.stopProducers(Duration.ofSeconds(60));
        try {
          Map<TopicPartition, Long> end = workload.drain(DRAIN_TIMEOUT);
          say(
              "drained to "
                  + end.values().stream().mapToLong(Long::longValue).sum()
                  + " records in total");
        } catch (IllegalStateException e) {
          notes.add("the final drain did not complete: " + e.getMessage());
          say("!!! " + e.getMessage());
        }
      } finally {
        secure.stopIntruder();
        workload.close();
        observer.close();
        observer.observeOnce();
        timeline = runner.timeline();
      }
      say("stopping the cluster cleanly and reading every replica from its files");
      cluster.stop();
      recordReplicas(cluster, recorder, runDir);
    }
    History history;
    synchronized (entries) {
      history = History.of(entries);
    }
    Verdict verdict = CheckerSuite.standard().check(history, timeline);
    List<NodeLogEvents.Event> nodeEvents = nodeLogEvents(cluster);
    if (nodeEvents.isEmpty() && !timeline.isEmpty()) {
      notes.add(
          "the node logs hold none of the lines the fault timelines read: their node steps show"
              + " as '-'");
    }
    verdict =
        verdict.withTimelines(
            FaultTimelines.compute(
                timeline, history, nodeEvents, historyStartWallMs, verdict.availability()));
    stalledWorkload(options, verdict)
        .ifPresent(
            n -> {
              notes.add(n);
              say("!!! " + n);
            });
    Map<String, Long> securityCounts = secure.counts(history, timeline, cluster.logFiles());
    for (String problem : SecureRun.problems(securityCounts)) {
      notes.add(problem);
      say("!!! " + problem);
    }
    for (String uncovered : secure.uncoveredWindows(timeline)) {
      notes.add(uncovered);
      say(uncovered);
    }
    RunInfo info =
        new RunInfo(
            runId,
            options.seed(),
            startedAtMs,
            options.rerunCommand(),
            options.nodes()
                + " nodes (combined roles), "
                + options.topics()
                + " topics x "
                + options.partitionsPerTopic()
                + " partitions, RF 3"
                + (options.unsafe()
                    ? ", UNSAFE: acks=1, min.insync.replicas=1, unclean election"
                    : ", acks=all idempotent, min.insync.replicas=2")
                + (network.namespaces().isPresent() ? ", network namespaces" : "")
                + (network.clientLinks().isPresent() ? ", fault proxies" : "")
                + (secure.on() ? ", mutual TLS everywhere and ACLs (authorizer on)" : ""),
            options.families().stream()
                .map(f -> f.name().toLowerCase())
                .collect(Collectors.joining(",")),
            notes);
    Path index = RunReport.write(runDir, info, history, verdict, timeline, cluster.logFiles());
    Map<String, Long> counts = counts(verdict);
    counts.putAll(securityCounts);
    say("verdict: " + verdict.valid() + ", " + verdict.anomalyCount() + " anomalies; " + counts);
    say("report: " + index);
    return new Result(
        runId, runDir, index, verdict, schedule, timeline, List.copyOf(notes), counts);
  }

  /**
   * The failover steps of every node's log (NodeLogEvents), for the fault timelines. The nodes run
   * on this machine, so their log times are in this JVM's time zone. Read as ISO-8859-1 so that no
   * byte of a torn line can fail the read.
   */
  private static List<NodeLogEvents.Event> nodeLogEvents(ProcessCluster cluster) {
    List<NodeLogEvents.Event> events = new ArrayList<>();
    ZoneId zone = ZoneId.systemDefault();
    for (int n : cluster.nodes()) {
      Path log = cluster.logFile(n);
      try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
        events.addAll(NodeLogEvents.parse(n, lines.filter(NodeLogEvents::mayMatch).toList(), zone));
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("cannot read {} for the fault timelines: {}", log, e.toString());
      }
    }
    return events;
  }

  static Map<String, Long> counts(Verdict verdict) {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("ops", (long) verdict.counts().ops());
    counts.put("sends", (long) verdict.counts().sends());
    counts.put("acknowledged", (long) verdict.counts().sendOk());
    counts.put("failed", (long) verdict.counts().sendFail());
    counts.put("indeterminate", (long) verdict.counts().sendInfo());
    counts.put("polls", (long) verdict.counts().polls());
    counts.put("anomalies", (long) verdict.anomalyCount());
    return counts;
  }

  /**
   * A run whose workload stopped acknowledging long before the end proves little about the faults
   * after that point (the checkers only see what was written): say so when the fault phase ends
   * with more than a quarter of it, and at least 60 s, without an acknowledged write.
   */
  static java.util.Optional<String> stalledWorkload(ChaosOptions options, Verdict verdict) {
    long faultPhaseNs = options.duration().toNanos();
    long lastAckNs = -1;
    for (dev.spool.chaos.checker.Availability.Bucket b : verdict.availability().series()) {
      if (b.sendOk() > 0 && b.second() * 1_000_000_000L < faultPhaseNs) {
        lastAckNs = (b.second() + 1) * 1_000_000_000L;
      }
    }
    long silentNs = faultPhaseNs - Math.max(0, lastAckNs);
    if (silentNs > Math.max(faultPhaseNs / 4, TimeUnit.SECONDS.toNanos(60))) {
      return java.util.Optional.of(
          "WORKLOAD STALLED: no write was acknowledged in the last "
              + TimeUnit.NANOSECONDS.toSeconds(silentNs)
              + " s of the fault phase; the faults after that tested little");
    }
    return java.util.Optional.empty();
  }

  private Map<String, String> producerOverrides() {
    return options.unsafe() ? Map.of("acks", "1") : Map.of();
  }

  private List<Nemesis> nemeses(ProcessCluster processes, FaultNetwork network) {
    ClusterControl cluster = new ProcessClusterControl(processes);
    List<Nemesis> n = new ArrayList<>();
    if (options.unsafe()) {
      n.add(new LeaderLossNemesis(cluster, network.namespaces().orElse(null)));
      n.add(new ProcessNemesis(cluster));
      return n;
    }
    n.add(new ProcessNemesis(cluster));
    n.add(new DiskNemesis(cluster, options.seed()));
    n.add(new FullRestartNemesis(cluster));
    network.namespaces().ifPresent(net -> n.add(new PartitionNemesis(cluster, net)));
    n.add(new FlapNemesis(cluster, network.namespaces().orElse(null)));
    network.clientLinks().ifPresent(links -> n.add(new ClientLinkNemesis(links)));
    return n;
  }

  /** Ticks the nemeses every {@link #TICK_MS} and prints progress until the fault phase is over. */
  static void mainLoop(
      ChaosOptions options,
      HistoryRecorder recorder,
      NemesisRunner runner,
      Workload.Counters counters,
      Consumer<String> say)
      throws InterruptedException {
    long durationNs = options.duration().toNanos();
    long nextReportNs = 0;
    long lastOk = 0;
    long lastReportNs = 0;
    while (true) {
      long now = recorder.elapsedNs();
      if (now >= durationNs && faultPhaseOver(runner, now, durationNs)) {
        break;
      }
      runner.tick(now);
      if (now >= nextReportNs) {
        long ok = counters.sendOk.get();
        double seconds = Math.max(1e-9, (now - lastReportNs) / 1e9);
        String active =
            runner.timeline().stream()
                .filter(w -> !w.healed())
                .map(FaultWindow::label)
                .collect(Collectors.joining("; "));
        say.accept(
            String.format(
                "[%4ds] acks %d (%.0f/s), failed %d, indeterminate %d, polls %d, read %d | fault: %s",
                TimeUnit.NANOSECONDS.toSeconds(now),
                ok,
                (ok - lastOk) / seconds,
                counters.sendFail.get(),
                counters.sendInfo.get(),
                counters.polls.get(),
                counters.recordsRead.get(),
                active.isEmpty() ? "none" : active));
        lastOk = ok;
        lastReportNs = now;
        nextReportNs = now + TimeUnit.SECONDS.toNanos(options.progressIntervalSeconds());
      }
      Thread.sleep(TICK_MS); // the nemesis duty cycle
    }
  }

  /**
   * Whether the fault phase may end at {@code nowNs}, past the scenario's duration: every fault has
   * run and healed and {@link #QUIET_TAIL} has passed since the last heal, or the phase has overrun
   * by {@link #FAULT_OVERRUN} (what is still active is then healed, what still waits given up).
   */
  private static boolean faultPhaseOver(NemesisRunner runner, long nowNs, long durationNs) {
    if (!runner.idle()) {
      return nowNs >= durationNs + FAULT_OVERRUN.toNanos();
    }
    long lastHealNs =
        runner.timeline().stream()
            .filter(FaultWindow::healed)
            .mapToLong(FaultWindow::endNs)
            .max()
            .orElse(0);
    return nowNs >= lastHealNs + QUIET_TAIL.toNanos();
  }

  /** Heals anything left, restarts stopped nodes, waits for a ready cluster with full ISRs. */
  private void recover(
      ProcessCluster cluster, FaultNetwork network, List<String> topics, List<String> notes) {
    network.namespaces().ifPresent(net -> net.healAll());
    network.clientLinks().ifPresent(links -> links.heal());
    for (int n : cluster.nodes()) {
      if (!cluster.isRunning(n)) {
        cluster.start(n);
      } else if (!cluster.isServing(n)) {
        cluster.kill(n, Signal.CONT);
      }
    }
    long t0 = System.nanoTime();
    try {
      cluster.awaitReady(RECOVERY_TIMEOUT);
      cluster.awaitFullIsr(topics, RECOVERY_TIMEOUT);
      say(
          "healed: every node up, full ISRs after "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
              + " ms");
    } catch (IllegalStateException e) {
      notes.add("the cluster did not fully recover after the faults: " + e.getMessage());
      say("!!! the cluster did not fully recover: " + e.getMessage());
    }
  }

  private void recordReplicas(ProcessCluster cluster, HistoryRecorder recorder, Path runDir)
      throws IOException {
    Path scratch = runDir.resolve("replica-scratch");
    int replicas = 0;
    for (int n : cluster.brokers()) {
      for (ReplicaLogs.Replica r : ReplicaLogs.read(n, cluster.nodeDataDir(n), scratch).values()) {
        recorder.replicaSnapshot(
            n, r.partition(), r.highWatermark(), r.logStartOffset(), r.belowHighWatermark());
        replicas++;
      }
    }
    dev.spool.broker.log.LogManager.deleteRecursively(scratch);
    say("recorded " + replicas + " replica snapshots");
  }

  static String describe(FaultWindow w) {
    return "#"
        + w.id()
        + " "
        + w.label()
        + (w.healed()
            ? " healed after " + TimeUnit.NANOSECONDS.toMillis(w.endNs() - w.startNs()) + " ms"
            : " started")
        + (w.note() == null ? "" : " (" + w.note() + ")");
  }

  private void say(String line) {
    progress.accept(line);
  }
}
