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
 * The {@code client-links} scenario: latency, a slow link and reset-and-refused connections on
 * every client link, through fault proxies. The verdict is valid, every fault was applied and
 * healed, and writes went on except while connections are refused.
 */
@Tag("chaos")
class ClientLinkFaultsChaosTest {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void clientLinkFaults() throws Exception {
    assertValidAndExercised(run("client-links", 53), Set.of(FaultKind.CLIENT_CONNECTION_DROP));
  }
}
