package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.Validity;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proof that a clean verdict means something: the {@code unsafe-leader-loss} scenario runs the
 * same workload and checkers against a configuration that loses acknowledged writes (acks=1,
 * min.insync.replicas=1, unclean election), with a fault that guarantees the loss, and the checkers
 * must report lost writes.
 */
@Tag("chaos")
class UnsafeConfigurationChaosTest {
  private static final Logger LOG = LoggerFactory.getLogger(UnsafeConfigurationChaosTest.class);

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
