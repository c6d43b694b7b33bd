package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.checker.Checker;
import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.cluster.KafkaCluster;
import dev.spool.chaos.nemesis.NemesisFamily;
import dev.spool.common.TopicPartition;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code chaos.sh --system kafka} without Kafka: choosing the system, what a Kafka run refuses, the
 * same schedule for the same seed whichever system runs it, the checkers it runs, and a loud
 * harness failure (not a pass) when the Kafka jars are missing.
 */
@Tag("unit")
class KafkaModeTest {
  private static final String[] KAFKA_RUN = {
    "--system",
    "kafka",
    "--nodes",
    "3",
    "--duration",
    "180s",
    "--nemesis",
    "kill,pause,partition",
    "--seed",
    "20261129"
  };

  @Test
  void shouldChooseKafkaAndRepeatTheChoiceInTheRerunCommand() {
    ChaosMain.Args a = ChaosMain.Args.parse(KAFKA_RUN);
    assertEquals(ChaosMain.SystemUnderTest.KAFKA, a.system);
    assertEquals(
        "scripts/chaos.sh --system kafka --nodes 3 --duration 180s --nemesis kill,pause,partition"
            + " --seed 20261129",
        a.rerunCommand());
    assertEquals(
        ChaosMain.SystemUnderTest.SPOOL,
        ChaosMain.Args.parse(new String[] {"--nodes", "3"}).system);
    assertEquals(
        ChaosMain.SystemUnderTest.SPOOL,
        ChaosMain.Args.parse(new String[] {"--system", "Spool"}).system);
  }

  @Test
  void shouldPlanTheSameFaultsForKafkaAsForSpoolWithTheSameSeed() {
    String[] spool = new String[KAFKA_RUN.length - 2];
    System.arraycopy(KAFKA_RUN, 2, spool, 0, spool.length);
    ChaosOptions k = ChaosMain.options(ChaosMain.Args.parse(KAFKA_RUN));
    ChaosOptions s = ChaosMain.options(ChaosMain.Args.parse(spool));
    List<TopicPartition> tps = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      for (int p = 0; p < 3; p++) {
        tps.add(new TopicPartition("chaos-" + t, p));
      }
    }
    EnumSet<NemesisFamily> all = EnumSet.allOf(NemesisFamily.class);
    String kafkaPlan = ChaosRun.schedule(k, tps, all).describe();
    assertEquals(ChaosRun.schedule(s, tps, all).describe(), kafkaPlan);
    assertTrue(kafkaPlan.contains("kill") || kafkaPlan.contains("KILL"), kafkaPlan);
  }

  @Test
  void shouldRefuseWhatCannotRunAgainstKafkaWithUsageStatus() {
    for (String[] bad :
        new String[][] {
          {"--system", "redpanda"},
          {"--system", "kafka", "--nemesis", "kill,disk"},
          {"--system", "kafka", "--nemesis", "latency"},
          {"--system", "kafka", "--scenario", "process"},
          {"--system", "kafka", "--secure"}
        }) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status =
          ChaosMain.run(
              bad,
              new PrintStream(new ByteArrayOutputStream()),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(ChaosMain.USAGE, status, String.join(" ", bad));
      assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage:"), String.join(" ", bad));
    }
  }

  @Test
  void shouldFailLoudlyNotPassWithoutTheKafkaJars() {
    String before = System.getProperty(KafkaCluster.LIB_PROPERTY);
    System.clearProperty(KafkaCluster.LIB_PROPERTY);
    try {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status =
          ChaosMain.run(
              new String[] {
                "--system",
                "kafka",
                "--nodes",
                "3",
                "--duration",
                "30s",
                "--nemesis",
                "kill",
                "--dir",
                System.getProperty("java.io.tmpdir")
              },
              new PrintStream(new ByteArrayOutputStream()),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(ChaosMain.HARNESS_FAILURE, status);
      assertTrue(
          err.toString(StandardCharsets.UTF_8).contains("Kafka peer harness"),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      if (before != null) {
        System.setProperty(KafkaCluster.LIB_PROPERTY, before);
      }
    }
  }

  @Test
  void shouldRunEveryCheckerButReplicaDivergence() {
    List<String> kafka = KafkaChaosRun.suite().checkers().stream().map(Checker::name).toList();
    List<String> spool = CheckerSuite.standard().checkers().stream().map(Checker::name).toList();
    assertTrue(spool.containsAll(kafka));
    assertEquals(spool.size() - 1, kafka.size());
    assertFalse(kafka.contains("replica-divergence"));
    assertTrue(kafka.contains("leader-epoch-monotonic"));
  }
}
