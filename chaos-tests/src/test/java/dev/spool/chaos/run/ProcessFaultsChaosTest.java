package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.assertFailoverTimed;
import static dev.spool.chaos.run.ChaosScenarioRuns.assertValidAndExercised;
import static dev.spool.chaos.run.ChaosScenarioRuns.run;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code process} scenario: SIGKILL and SIGSTOP (longer than the session timeout) of a
 * partition leader, the active controller and a random node. The verdict is valid, every fault was
 * applied and healed, and writes were acknowledged before, during and after the faults; the kill of
 * the partition leader is timed step by step (detection, decision, takeover, client switch, first
 * ack).
 */
@Tag("chaos")
class ProcessFaultsChaosTest {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void processFaults() throws Exception {
    ChaosRun.Result r = run("process", 11);
    assertValidAndExercised(r, Set.of());
    assertFailoverTimed(r, 0);
  }
}
