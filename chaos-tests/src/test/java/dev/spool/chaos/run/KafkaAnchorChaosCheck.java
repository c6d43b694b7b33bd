package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.cluster.KafkaCluster;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.NemesisFamily;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka anchor end to end (chaos tier, script-only): a short run of the chaos workload against
 * a real 3-node Apache Kafka cluster under a process kill, a pause and partitions (network
 * namespaces, root), judged by the Jepsen checkers. Kafka's jars are not in this repository, so
 * this class is not named like a test and never runs in the default test command; run it with the
 * jars given, and it fails (never skips) without them:
 *
 * <pre>
 * ./mvnw -B -o verify -pl chaos-tests -am -Dtest=KafkaAnchorChaosCheck \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dspool.chaos.kafka.lib=/dir/of/kafka/jars
 * </pre>
 *
 * (chaos-tests/README.md, "Kafka under the same faults", says how to get the jars.)
 */
@Tag("chaos")
class KafkaAnchorChaosCheck {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaAnchorChaosCheck.class);

  @Test
  void shouldRunTheChaosWorkloadAgainstKafkaUnderKillPauseAndPartitions() throws Exception {
    Path lib = KafkaCluster.libFromSystemProperty(); // throws: a missing Kafka is a failure
    long seed = 7;
    String rerun =
        "scripts/chaos.sh --system kafka --nodes 3 --duration 60s --nemesis kill,pause,partition"
            + " --seed "
            + seed;
    ChaosOptions o =
        ChaosOptions.defaults(
            "random",
            3,
            Duration.ofSeconds(60),
            EnumSet.of(NemesisFamily.KILL, NemesisFamily.PAUSE, NemesisFamily.PARTITION),
            seed,
            Path.of("target", "chaos").toAbsolutePath(),
            rerun);
    ChaosRun.Result r = new KafkaChaosRun(o, lib, line -> LOG.info("[kafka] {}", line)).run();
    System.out.println(
        "kafka anchor: " + r.verdict().valid() + ", " + r.counts() + ", " + r.index());
    assertFalse(r.timeline().isEmpty(), "faults were applied");
    assertTrue(
        r.timeline().stream()
            .anyMatch(w -> w.kind() == FaultKind.KILL || w.kind() == FaultKind.PAUSE),
        "a process fault ran: " + r.timeline());
    ChaosScenarioRuns.assertValidAndExercised(r, EnumSet.allOf(FaultKind.class));
  }
}
