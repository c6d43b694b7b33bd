package dev.spool.testing;

import dev.spool.client.Admin;
import dev.spool.common.TopicPartition;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;

/**
 * A running Spool cluster for tests: nodes in this JVM ({@link
 * dev.spool.testing.inprocess.InProcessCluster}) or node processes ({@link
 * dev.spool.testing.process.ProcessCluster}). Nodes have ids 1..n, listen on 127.0.0.1 and keep
 * their ports and data directories across restarts, so {@link #bootstrapServers()} stays valid.
 *
 * <p>Leaders and the active controller are asked of the brokers themselves (the node with the
 * newest view wins), never guessed from a client's cache.
 *
 * <p>Thread-safe: tests may call it from several threads.
 */
public interface SpoolCluster extends AutoCloseable {
  /** {@code host:port,...} of every broker, for {@code bootstrap.servers}. */
  String bootstrapServers();

  /** A shared admin client, closed with the cluster. */
  Admin admin();

  /** All node ids, ascending. */
  List<Integer> nodes();

  /** Nodes with the broker role, ascending. */
  List<Integer> brokers();

  /** Nodes with the controller role (the voters of the metadata quorum), ascending. */
  List<Integer> controllers();

  /** One node, to stop, kill, start or restart it. */
  ClusterNode node(int id);

  /** The active controller (the quorum leader), if there is one and a broker could say. */
  OptionalInt activeController();

  /** The current leader of {@code partition}, if it has one and a broker could say. */
  OptionalInt partitionLeader(TopicPartition partition);

  /** The replicas of {@code partition}, preferred leader first; empty if unknown. */
  List<Integer> partitionReplicas(TopicPartition partition);

  /** The in-sync replicas of {@code partition}, leader included; empty if unknown. */
  List<Integer> partitionIsr(TopicPartition partition);

  /**
   * Waits until the quorum has a leader and every running broker is registered and unfenced (after
   * a restart: with its new broker epoch).
   */
  void awaitReady(Duration timeout);

  /** Waits until every partition of {@code topics} has a leader and all its replicas in the ISR. */
  void awaitFullIsr(Collection<String> topics, Duration timeout);

  /** The directory of the nodes' configs, data and logs. */
  Path dir();

  /**
   * Writes what a reader of a failed test needs to {@code out}: where the nodes' files are and the
   * last {@code lines} lines of every node log (in-process nodes log into this JVM's own output, so
   * for them: each node's state).
   */
  void dumpLogs(PrintStream out, int lines);

  /** Stops every node and releases everything the cluster holds; idempotent. */
  @Override
  void close();
}
