package dev.spool.chaos.nemesis;

import dev.spool.common.TopicPartition;
import dev.spool.testing.process.Signal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * An in-memory cluster that records what the nemeses did to it, and a network and proxy likewise.
 */
final class RecordingCluster implements ClusterControl, NetworkControl, ClientLinkControl {
  final List<String> calls = new ArrayList<>();
  final Set<Grudge.Link> dropped = new HashSet<>();
  private final List<Integer> nodes;
  private final List<Integer> controllers;
  private final Set<Integer> running = new HashSet<>();
  private final Map<TopicPartition, Integer> leaders = new HashMap<>();
  private final Map<TopicPartition, List<Integer>> replicas = new HashMap<>();
  private final Map<TopicPartition, List<Integer>> isrs = new HashMap<>();
  private Integer activeController;
  private Path dataRoot = Path.of("/nonexistent");

  RecordingCluster(List<Integer> nodes, List<Integer> controllers) {
    this.nodes = List.copyOf(nodes);
    this.controllers = List.copyOf(controllers);
    running.addAll(nodes);
  }

  static RecordingCluster combined(int n) {
    List<Integer> ids = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      ids.add(i);
    }
    return new RecordingCluster(ids, ids);
  }

  RecordingCluster leader(TopicPartition tp, int leader, Integer... replicaIds) {
    leaders.put(tp, leader);
    replicas.put(tp, List.of(replicaIds));
    return this;
  }

  /** Sets the ISR of {@code tp}; without a call every replica counts as in sync. */
  RecordingCluster isr(TopicPartition tp, Integer... isrIds) {
    isrs.put(tp, List.of(isrIds));
    return this;
  }

  RecordingCluster activeController(Integer c) {
    this.activeController = c;
    return this;
  }

  RecordingCluster dataRoot(Path root) {
    this.dataRoot = root;
    return this;
  }

  @Override
  public List<Integer> nodes() {
    return nodes;
  }

  @Override
  public List<Integer> controllers() {
    return controllers;
  }

  @Override
  public List<Integer> brokers() {
    return nodes;
  }

  @Override
  public void kill(int nodeId, Signal signal) {
    calls.add(signal + " n" + nodeId);
    if (signal == Signal.KILL || signal == Signal.TERM) {
      running.remove(nodeId);
    }
  }

  @Override
  public void start(int nodeId) {
    calls.add("START n" + nodeId);
    running.add(nodeId);
  }

  @Override
  public boolean isRunning(int nodeId) {
    return running.contains(nodeId);
  }

  @Override
  public OptionalInt activeController() {
    return activeController == null ? OptionalInt.empty() : OptionalInt.of(activeController);
  }

  @Override
  public OptionalInt partitionLeader(TopicPartition partition) {
    Integer l = leaders.get(partition);
    return l == null ? OptionalInt.empty() : OptionalInt.of(l);
  }

  @Override
  public List<Integer> partitionReplicas(TopicPartition partition) {
    return replicas.getOrDefault(partition, nodes);
  }

  @Override
  public List<Integer> partitionIsr(TopicPartition partition) {
    return isrs.getOrDefault(partition, partitionReplicas(partition));
  }

  @Override
  public Path nodeDataDir(int nodeId) {
    return dataRoot.resolve("n" + nodeId);
  }

  @Override
  public void drop(int from, int to, Plane plane) {
    dropped.add(new Grudge.Link(from, to, plane));
  }

  @Override
  public void healAll() {
    calls.add("HEAL network");
    dropped.clear();
  }

  @Override
  public void addLatency(long latencyMs) {
    calls.add("LATENCY " + latencyMs);
  }

  @Override
  public void limitBandwidth(long bytesPerSecond) {
    calls.add("BANDWIDTH " + bytesPerSecond);
  }

  @Override
  public void dropConnections() {
    calls.add("DROP connections");
  }

  @Override
  public void heal() {
    calls.add("HEAL links");
  }
}
