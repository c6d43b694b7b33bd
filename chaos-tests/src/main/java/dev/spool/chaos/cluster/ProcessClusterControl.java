package dev.spool.chaos.cluster;

import dev.spool.chaos.nemesis.ClusterControl;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

/**
 * The nemeses' view ({@link ClusterControl}) of a {@link ProcessCluster}: signals by recorded PID,
 * restarts with the old config and data, leaders as the node with the newest view says. Thread-safe
 * as the cluster is.
 */
public final class ProcessClusterControl implements ClusterControl {
  private final ProcessCluster cluster;

  public ProcessClusterControl(ProcessCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public List<Integer> nodes() {
    return cluster.nodes();
  }

  @Override
  public List<Integer> controllers() {
    return cluster.controllers();
  }

  @Override
  public List<Integer> brokers() {
    return cluster.brokers();
  }

  @Override
  public void kill(int nodeId, Signal signal) {
    cluster.kill(nodeId, signal);
  }

  @Override
  public void start(int nodeId) {
    cluster.start(nodeId);
  }

  @Override
  public boolean isRunning(int nodeId) {
    return cluster.isRunning(nodeId);
  }

  @Override
  public OptionalInt activeController() {
    return cluster.activeController();
  }

  @Override
  public OptionalInt partitionLeader(TopicPartition partition) {
    return cluster.partitionLeader(partition);
  }

  @Override
  public List<Integer> partitionReplicas(TopicPartition partition) {
    return cluster.partitionReplicas(partition);
  }

  @Override
  public List<Integer> partitionIsr(TopicPartition partition) {
    return cluster.partitionIsr(partition);
  }

  @Override
  public Path nodeDataDir(int nodeId) {
    return cluster.nodeDataDir(nodeId);
  }
}
