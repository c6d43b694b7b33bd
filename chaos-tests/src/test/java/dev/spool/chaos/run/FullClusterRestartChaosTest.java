package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.assertValidAndExercised;
import static dev.spool.chaos.run.ChaosScenarioRuns.run;

import dev.spool.chaos.nemesis.FaultKind;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code restart} scenario: every node SIGKILLed at once and restarted, then a leader kill on
 * the restarted cluster. The verdict is valid, both faults were applied and healed, and writes were
 * acknowledged before and after (not while the whole cluster is down).
 */
@Tag("chaos")
class FullClusterRestartChaosTest {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void fullClusterRestart() throws Exception {
    assertValidAndExercised(run("restart", 41), Set.of(FaultKind.FULL_RESTART));
  }
}
