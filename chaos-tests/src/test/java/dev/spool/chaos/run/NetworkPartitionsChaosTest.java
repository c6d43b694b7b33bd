package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.assertValidAndExercised;
import static dev.spool.chaos.run.ChaosScenarioRuns.run;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spool.chaos.nemesis.FaultKind;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code partition} scenario: IP-level partitions between node network namespaces (needs root).
 * The verdict is valid, every fault was applied and healed, and writes went on while a leader was
 * cut from its followers (its ISRs shrink); the other faults may stop them for a while.
 */
@Tag("chaos")
class NetworkPartitionsChaosTest {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void networkPartitions() throws Exception {
    assumeTrue(
        ChaosScenarioRuns.canPartition(),
        "SKIPPED: IP-level partitions need root (network namespaces)");
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
}
