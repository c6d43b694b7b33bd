package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.LogManager;
import dev.spool.chaos.fuzz.FuzzCampaign;
import dev.spool.chaos.fuzz.FuzzLogs;
import dev.spool.cli.CliRunner;
import dev.spool.client.Admin;
import dev.spool.client.NewTopic;
import dev.spool.common.TopicPartition;
import dev.spool.testing.SpoolCluster;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Shared pieces of the end-to-end tests: how long a cluster may take, topics, the command line, a
 * cluster with Kafka listeners.
 */
final class E2e {
  static final Duration READY = Duration.ofSeconds(60);

  private E2e() {}

  /**
   * Asserts a short fuzz campaign exercised both outcomes (answers and closed connections) and that
   * every node survived it with nothing alarming in its log ({@link FuzzLogs#alarming}).
   */
  static void assertSurvived(ProcessCluster cluster, FuzzCampaign.Result r, long requests)
      throws IOException {
    assertTrue(r.sent() >= requests, r.toString());
    assertTrue(r.closes() > 0 && r.answered() > 0, "both outcomes were exercised: " + r);
    for (int n : cluster.nodes()) {
      assertTrue(cluster.isRunning(n), "node " + n + " survived " + r);
      try (Stream<String> lines = Files.lines(cluster.logFile(n))) {
        assertEquals(
            List.of(),
            lines.filter(FuzzLogs::alarming).toList(),
            "node "
                + n
                + ": no leaked buffer, no answer the listener failed to write, no request"
                + " that failed with an unexpected server error");
      }
    }
  }

  /** Creates an RF-3 topic and waits until every partition has its full ISR. */
  static List<TopicPartition> createTopic(
      SpoolCluster c, String topic, int partitions, Map<String, String> configs) throws Exception {
    Admin admin = c.admin();
    admin.createTopic(new NewTopic(topic, partitions, 3, configs)).get(60, TimeUnit.SECONDS);
    c.awaitFullIsr(List.of(topic), READY);
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new TopicPartition(topic, i));
    }
    return tps;
  }

  /**
   * Produces {@code count} records {@code k<i>:v<i>} to {@code topic} with {@code spool produce}.
   */
  static void produceKeyed(SpoolCluster c, String topic, int count) {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < count; i++) {
      lines.append("k").append(i).append(":v").append(i).append('\n');
    }
    CliRunner.Result produced =
        new CliRunner(Map.of(), c.dir())
            .run(
                lines.toString(),
                "produce",
                topic,
                "--key-separator",
                ":",
                "-b",
                c.bootstrapServers());
    if (produced.exitCode() != 0) {
      throw new AssertionError("spool produce failed: " + produced);
    }
  }

  /** Runs {@code spool ARGS -b BOOTSTRAP} in this JVM; its exit code, stdout and stderr. */
  static CliRunner.Result cli(SpoolCluster c, String... args) {
    return cli(c.dir(), c.bootstrapServers(), args);
  }

  /** {@link #cli(SpoolCluster, String...)} for nodes not run by the extension. */
  static CliRunner.Result cli(Path workingDirectory, String bootstrap, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("-b");
    all.add(bootstrap);
    return new CliRunner(Map.of(), workingDirectory).run("", all.toArray(new String[0]));
  }

  /**
   * Three node processes, each with a Kafka listener, in {@code target/spool-clusters/NAME}
   * (emptied first), with {@code config} on every node. Built by hand: the JUnit extension has no
   * Kafka listeners to offer, so the caller stops it and dumps its logs on failure.
   */
  static ProcessCluster kafkaCluster(String name, Map<String, String> config) throws IOException {
    Path dir = Path.of("target", "spool-clusters", name).toAbsolutePath();
    if (Files.exists(dir)) {
      LogManager.deleteRecursively(dir);
    }
    ProcessCluster.Builder b = ProcessCluster.builder().nodes(3).dir(dir).kafkaListeners(true);
    config.forEach(b::config);
    return b.start();
  }

  /**
   * A watcher that prints the last lines of each node's log when a test fails, for a cluster a test
   * class builds by hand (the JUnit extension does this for its own).
   */
  static TestWatcher logsOnFailure(Supplier<ProcessCluster> cluster) {
    return new TestWatcher() {
      @Override
      public void testFailed(ExtensionContext context, Throwable cause) {
        ProcessCluster c = cluster.get();
        if (c != null) {
          c.dumpLogs(150);
        }
      }
    };
  }
}
