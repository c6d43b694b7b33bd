package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.assertValidAndExercised;
import static dev.spool.chaos.run.ChaosScenarioRuns.run;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.nemesis.FaultWindow;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code disk} scenario: a node killed and its newest segment torn or bit-flipped, a checkpoint
 * torn or bit-flipped, then restarted. The verdict is valid, every fault was applied, healed and
 * recorded what it damaged, and writes went on.
 */
@Tag("chaos")
class DiskFaultsChaosTest {
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
}
