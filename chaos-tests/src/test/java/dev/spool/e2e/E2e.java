package dev.spool.e2e;

import dev.spool.broker.log.LogManager;
import dev.spool.chaos.cluster.ProcessCluster;
import dev.spool.client.Admin;
import dev.spool.client.NewTopic;
import dev.spool.common.TopicPartition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Shared pieces of the end-to-end tests: clusters under {@code target/e2e/<name>} (kept after the
 * run, so node logs can be read), topics, and an extension that prints node logs when a test fails.
 */
final class E2e {
  static final Duration READY = Duration.ofSeconds(60);

  private E2e() {}

  /** A fresh 3-node loopback cluster in {@code target/e2e/<name>}. */
  static ProcessCluster cluster(String name, UnaryOperator<ProcessCluster.Builder> customize)
      throws IOException {
    Path dir = Path.of("target", "e2e", name).toAbsolutePath();
    if (Files.exists(dir)) {
      LogManager.deleteRecursively(dir);
    }
    return customize.apply(ProcessCluster.builder().nodes(3).dir(dir)).start();
  }

  static List<TopicPartition> createTopic(
      ProcessCluster c, String topic, int partitions, Map<String, String> configs)
      throws Exception {
    Admin admin = c.admin();
    admin.createTopic(new NewTopic(topic, partitions, 3, configs)).get(60, TimeUnit.SECONDS);
    c.awaitFullIsr(List.of(topic), READY);
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new TopicPartition(topic, i));
    }
    return tps;
  }

  /** Prints the tail of every node log when a test fails. */
  static final class DumpLogsOnFailure implements TestWatcher {
    private volatile ProcessCluster cluster;

    void watch(ProcessCluster c) {
      this.cluster = c;
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
      ProcessCluster c = cluster;
      if (c != null) {
        System.err.println("test " + context.getDisplayName() + " failed; node logs in " + c.dir());
        c.dumpLogs(150);
      }
    }
  }
}
