package dev.spool.chaos.nemesis;

import dev.spool.common.TopicPartition;
import dev.spool.testing.process.Signal;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

/**
 * What the nemeses need from the cluster harness. The harness implements it over real node
 * processes (it knows their PIDs and asks the cluster for leaders); tests implement it with a fake.
 * Node ids are the cluster's node ids.
 *
 * <p>Processes are signalled and started by PID only, never by name: the harness keeps the PID of
 * each node it started.
 */
public interface ClusterControl {
  /** All node ids, ascending. */
  List<Integer> nodes();

  /** Nodes with the controller role (voters of the metadata quorum), ascending. */
  List<Integer> controllers();

  /** Nodes with the broker role, ascending. */
  List<Integer> brokers();

  /** Sends {@code signal} to the node's process; does nothing if it is not running. */
  void kill(int nodeId, Signal signal);

  /** Starts the node's process again with its old data directory; no-op if it is running. */
  void start(int nodeId);

  boolean isRunning(int nodeId);

  /** The current active controller, if the quorum has a leader and it could be asked. */
  OptionalInt activeController();

  /** The current leader of {@code partition}, if it has one and it could be asked. */
  OptionalInt partitionLeader(TopicPartition partition);

  /** The replicas of {@code partition}, leader included. */
  List<Integer> partitionReplicas(TopicPartition partition);

  /** The in-sync replicas of {@code partition}, leader included; empty if unknown. */
  List<Integer> partitionIsr(TopicPartition partition);

  /** The node's data directory (log dirs and checkpoints). */
  Path nodeDataDir(int nodeId);
}
