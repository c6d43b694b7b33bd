package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.checker.Availability;
import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.FaultTimeline;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.nemesis.PlannedFault;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every test of the chaos tier does: run a named scenario ({@link Scenarios}) once on 3 real
 * node processes, with a fixed seed that is printed with the exact re-run command, and check that
 * the run really exercised its faults.
 *
 * <p>Each scenario has its own test class ({@code *ChaosTest}, tag {@code chaos}) so that the two
 * test JVMs of this module share the scenarios between them (docs/conventions.md, test tiers).
 * Stateless; called from each test's own thread.
 */
final class ChaosScenarioRuns {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosScenarioRuns.class);
  private static final Path RUNS = Path.of("target", "chaos").toAbsolutePath();

  private ChaosScenarioRuns() {}

  /** Runs {@code scenario} with {@code seed}, saying how to re-run it. */
  static ChaosRun.Result run(String scenario, long seed) throws Exception {
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

  /** Whether IP-level partitions are possible here (root, network namespaces). */
  static boolean canPartition() {
    return Capabilities.detect(new CommandRunner()).canPartition();
  }

  /**
   * Fault {@code faultId}, a failover (a partition leader killed for longer than the session
   * timeout), was timed step by step from the node logs and the history: detection, decision,
   * takeover, client switch and first ack all found, in order. Fails when a log line the fault
   * timelines read changed its wording (chaos-tests/README.md, fault timelines).
   */
  static void assertFailoverTimed(ChaosRun.Result r, int faultId) {
    FaultTimeline t =
        r.verdict().timelines().stream()
            .filter(x -> x.faultId() == faultId)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no timeline of fault " + faultId));
    String all = t + " (report " + r.index() + ")";
    for (FaultTimeline.Step step :
        Arrays.asList(t.detection(), t.decision(), t.takeover(), t.clientSwitch(), t.firstAck())) {
      assertNotNull(step, "every step of the failover was found: " + all);
    }
    assertTrue(t.detection().ms() <= t.decision().ms(), "detected, then decided: " + all);
    assertTrue(t.decision().ms() <= t.takeover().ms(), "decided, then taken over: " + all);
    assertTrue(t.takeover().ms() <= t.firstAck().ms(), "taken over, then acked: " + all);
    assertTrue(t.clientSwitch().ms() <= t.firstAck().ms(), "switched, then acked: " + all);
    assertTrue(t.clientsSwitched() > 0, all);
  }

  /**
   * The verdict is valid, every fault was applied and healed, and writes were acknowledged before
   * the first fault, after the last heal, and during the faults not listed in {@code
   * mayStopWrites}.
   */
  static void assertValidAndExercised(ChaosRun.Result r, Set<FaultKind> mayStopWrites) {
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
}
