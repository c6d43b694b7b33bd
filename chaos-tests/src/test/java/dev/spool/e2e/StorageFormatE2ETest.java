package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Storage identity against real node processes
 * (docs/operations.md#storage-format-and-node-identity): the harness formats every node as an
 * operator would; a node whose directory is not formatted, belongs to another cluster or node, or
 * is a voter's quorum directory that lost its Raft storage exits with code 3 and a message naming
 * the directory, changing nothing, and starts again once the directory is put back.
 */
@Tag("integration")
@SpoolClusterTest(nodes = 3, mode = ClusterMode.PROCESS)
class StorageFormatE2ETest {
  private static final Duration EXIT = Duration.ofSeconds(60);

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldRefuseToStartOnADirectoryThatIsNotThisNodesAndStartOnceItIsBack(ProcessCluster c)
      throws Exception {
    int node = 3;
    Path data = c.nodeDataDir(node);
    Path meta = data.resolve("meta.properties");
    String formatted = Files.readString(meta, StandardCharsets.ISO_8859_1);
    assertTrue(formatted.contains("cluster.id=") && formatted.contains("node.id=3"), formatted);
    Path quorum = data.resolve("__cluster_metadata");
    assertTrue(
        Files.exists(quorum.resolve("meta.properties")), "the quorum directory is formatted");
    assertTrue(Files.exists(quorum.resolve("voter.started")), "the first start was recorded");
    c.stop(node);

    // Not formatted: meta.properties gone.
    Files.delete(meta);
    assertRefused(c, node, "is not formatted", data.toString());
    assertTrue(Files.notExists(meta), "a refused start writes nothing");

    // Another cluster's directory.
    Files.writeString(
        meta,
        formatted.replaceAll("(?m)^cluster\\.id=.*$", "cluster.id=another-cluster"),
        StandardCharsets.ISO_8859_1);
    assertRefused(c, node, "belongs to cluster another-cluster", data.toString());

    // Another node's directory.
    Files.writeString(
        meta, formatted.replaceAll("(?m)^node\\.id=.*$", "node.id=7"), StandardCharsets.ISO_8859_1);
    assertRefused(c, node, "belongs to node 7", data.toString());
    Files.writeString(meta, formatted, StandardCharsets.ISO_8859_1);

    // A voter whose quorum directory lost its Raft storage while the quorum has data.
    Path group = raftGroupDir(quorum);
    Path aside = c.dir().resolve("raft-storage-aside");
    Files.move(group, aside);
    assertRefused(c, node, "lost its Raft storage", quorum.toString());
    assertTrue(
        lastRefusal(c, node).contains("new voter"), "the message says to re-add it as a new voter");
    Files.move(aside, group);

    // Everything put back: the node starts and rejoins, so no refusal changed anything.
    c.start(node);
    c.awaitReady(E2e.READY);
    assertEquals(formatted, Files.readString(meta, StandardCharsets.ISO_8859_1));
  }

  private static void assertRefused(ProcessCluster c, int node, String problem, String dir)
      throws IOException {
    c.start(node);
    ProcessCluster.await(
        "node " + node + " refuses to start",
        EXIT,
        () -> !c.isRunning(node),
        () -> "node " + node + " still runs; it should have refused: " + problem);
    assertEquals(3, c.exitCode(node), "exit code of a refused start");
    String refusal = lastRefusal(c, node);
    assertTrue(refusal.contains(problem), refusal);
    assertTrue(refusal.contains(dir), refusal);
  }

  /** The node's last "refusing to start" line (its stderr goes to its log file). */
  private static String lastRefusal(ProcessCluster c, int node) throws IOException {
    List<String> lines =
        Files.readAllLines(c.logFile(node), StandardCharsets.UTF_8).stream()
            .filter(l -> l.contains("refusing to start"))
            .toList();
    return lines.isEmpty()
        ? "(no refusal in " + c.logFile(node) + ")"
        : lines.get(lines.size() - 1);
  }

  /** The Raft group's directory under the quorum directory (named by the group's UUID). */
  private static Path raftGroupDir(Path quorum) throws IOException {
    try (Stream<Path> s = Files.list(quorum)) {
      return s.filter(Files::isDirectory)
          .filter(p -> isUuid(p.getFileName().toString()))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no Raft group directory in " + quorum));
    }
  }

  private static boolean isUuid(String name) {
    try {
      return UUID.fromString(name).toString().equals(name);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
