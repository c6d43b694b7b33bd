package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spool.chaos.checker.Availability;
import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.nemesis.PlannedFault;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chaos tier: each named scenario ({@link Scenarios}) once, on 3 real node processes, with a
 * fixed seed that is printed with the exact re-run command. A scenario passes when the checkers
 * find the history valid <em>and</em> the run really exercised its faults: every planned fault was
 * applied to real targets and healed, and writes were acknowledged before the first fault, during
 * the faults and after the last. The unsafe scenario must instead find lost writes.
 */
@Tag("chaos")
class ChaosScenariosTest {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosScenariosTest.class);
  private static final Path RUNS = Path.of("target", "chaos").toAbsolutePath();

  private static ChaosRun.Result run(String scenario, long seed) throws Exception {
    String rerun = "scripts/chaos.sh --scenario " + scenario + " --seed " + seed;
    LOG.info("chaos scenario {} with seed {}; re-run: {}", scenario, seed, rerun);
    System.out.println("chaos scenario " + scenario + ", seed " + seed + ", re-run: " + rerun);
    ChaosOptions o = Scenarios.options(Scenarios.get(scenario), seed, RUNS, rerun);
    ChaosRun.Result r = new ChaosRun(o, line -> LOG.info("[{}] {}", scenario, line)).run();
    System.out.println(
        "chaos scenario "
            + scenario
            + ": "
            + r.verdict().valid()
            + ", "
            + r.counts()
            + ", report "
            + r.index());
    return r;
  }

  private static boolean root() {
    return Capabilities.detect(new CommandRunner()).canPartition();
  }

  /**
   * The verdict is valid, every fault was applied and healed, and writes were acknowledged before
   * the first fault, after the last heal, and during the faults not listed in {@code
   * mayStopWrites}.
   */
  private static void assertValidAndExercised(ChaosRun.Result r, Set<FaultKind> mayStopWrites) {
    String anomalies =
        r.verdict().results().values().stream()
            .filter(c -> c.valid() == Validity.FALSE)
            .map(CheckResult::toString)
            .collect(Collectors.joining("\n"));
    assertEquals(
        Validity.TRUE,
        r.verdict().valid(),
        "verdict of " + r.runId() + " (report " + r.index() + ")\n" + anomalies);
    List<PlannedFault> planned = r.schedule().faults();
    List<FaultWindow> applied = r.timeline().stream().filter(FaultWindow::healed).toList();
    for (PlannedFault f : planned) {
      FaultWindow w = applied.stream().filter(x -> x.id() == f.id()).findFirst().orElse(null);
      assertNotNull(w, "fault " + f + " has a window");
      assertFalse(w.targets().isEmpty(), "fault " + f + " hit something: " + w);
      assertTrue(w.endNs() > w.startNs(), "fault " + f + " lasted: " + w);
      String note = w.note() == null ? "" : w.note();
      assertFalse(
          note.contains("failed") || note.contains("skipped") || note.contains("no file"),
          "fault " + f + ": " + note);
    }
    Availability.Report a = r.verdict().availability();
    long firstStart = r.timeline().stream().mapToLong(FaultWindow::startNs).min().orElseThrow();
    long lastEnd = r.timeline().stream().mapToLong(FaultWindow::endNs).max().orElseThrow();
    List<Long> acks = new ArrayList<>();
    for (Availability.Bucket b : a.series()) {
      for (int i = 0; i < b.sendOk(); i++) {
        acks.add(b.second() * 1_000_000_000L);
      }
    }
    assertTrue(
        acks.stream().anyMatch(t -> t + 1_000_000_000L <= firstStart),
        "writes acknowledged before the first fault");
    assertTrue(
        acks.stream().anyMatch(t -> t >= lastEnd), "writes acknowledged after the last heal");
    int during =
        a.faults().stream()
            .filter(w -> !mayStopWrites.contains(w.kind()))
            .mapToInt(Availability.WindowAvailability::acknowledgedDuring)
            .sum();
    boolean anyExpected = a.faults().stream().anyMatch(w -> !mayStopWrites.contains(w.kind()));
    // A worker waits for each ack, and a send stuck on a paused or cut-off leader waits for its
    // request timeout, so a single window may pass without an ack; across the windows some must.
    assertTrue(
        !anyExpected || during > 0, "writes acknowledged while faults were active: " + a.faults());
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void processFaults() throws Exception {
    assertValidAndExercised(run("process", 11), Set.of());
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void networkPartitions() throws Exception {
    assumeTrue(root(), "SKIPPED: IP-level partitions need root (network namespaces)");
    // A split or an isolated controller may stop all writes for a moment; a one-way cut may too.
    assertValidAndExercised(
        run("partition", 23),
        Set.of(
            FaultKind.SPLIT_MAJORITY_MINORITY,
            FaultKind.ISOLATE_CONTROLLER_FROM_BROKERS,
            FaultKind.ONE_WAY_LOSS,
            FaultKind.ISOLATE_NODE,
            FaultKind.KILL));
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void diskFaults() throws Exception {
    ChaosRun.Result r = run("disk", 37);
    assertValidAndExercised(r, Set.of());
    for (FaultWindow w : r.timeline()) {
      assertTrue(
          w.note() != null && (w.note().startsWith("truncated") || w.note().startsWith("flipped")),
          "the file damage is recorded: " + w);
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void fullClusterRestart() throws Exception {
    assertValidAndExercised(run("restart", 41), Set.of(FaultKind.FULL_RESTART));
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void clientLinkFaults() throws Exception {
    assertValidAndExercised(run("client-links", 53), Set.of(FaultKind.CLIENT_CONNECTION_DROP));
  }

  /**
   * The proof that a clean verdict means something: the same workload and checkers against a
   * configuration that loses acknowledged writes, with a fault that guarantees the loss, must
   * report lost writes.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void unsafeConfigurationMustLoseWrites() throws Exception {
    ChaosRun.Result r = run("unsafe-leader-loss", 67);
    Map<String, CheckResult> results = r.verdict().results();
    assertEquals(
        Validity.FALSE,
        r.verdict().valid(),
        "the checkers found nothing in an unsafe run: " + r.index());
    int lost = results.get("lost-write").anomalyCount() + results.get("unseen").anomalyCount();
    assertTrue(
        lost > 0,
        "lost-write or unseen must report the writes only the killed leader had: " + results);
    LOG.info(
        "unsafe run found {} lost-write and {} unseen anomalies, {} in total",
        results.get("lost-write").anomalyCount(),
        results.get("unseen").anomalyCount(),
        r.verdict().anomalyCount());
  }
}
