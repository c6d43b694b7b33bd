package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.assertValidAndExercised;
import static dev.spool.chaos.run.ChaosScenarioRuns.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.LeadershipStability;
import dev.spool.chaos.checker.Validity;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code flap} scenario (needs root: the flapping link cuts namespace links): the active
 * controller's links cut and healed every second, another partition leader stopped 1 s of every 3.
 * The verdict is valid, leadership-ping-pong included (each partition's leadership moved at most
 * once while each fault lasted), and writes went on during both faults.
 */
@Tag("chaos")
class FlappingFaultsChaosTest {
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void flappingLinkAndIntermittentPause() throws Exception {
    assumeTrue(
        ChaosScenarioRuns.canPartition(),
        "SKIPPED: a flapping link needs root (network namespaces)");
    ChaosRun.Result r = run("flap", 31);
    assertValidAndExercised(r, Set.of());
    CheckResult pingPong = r.verdict().results().get(LeadershipStability.NAME);
    assertEquals(Validity.TRUE, pingPong.valid(), pingPong.toString());
    assertTrue(pingPong.note().startsWith("2 faults judged"), pingPong.toString());
  }
}
