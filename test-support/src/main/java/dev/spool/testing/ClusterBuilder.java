package dev.spool.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every cluster is built from: how many nodes and their roles, node config for all of them,
 * the directory, the cluster id and how long a start may take. Used by one thread.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class ClusterBuilder<B extends ClusterBuilder<B>> {
  private static final List<String> ROLES =
      List.of("broker", "controller", "broker,controller", "controller,broker");

  private int nodes;
  private final Map<Integer, String> roles = new TreeMap<>();
  private final Map<String, String> config = new LinkedHashMap<>();
  private Path dir;
  private String clusterId;
  private Duration startTimeout;

  protected ClusterBuilder(int nodes, String clusterId, Duration startTimeout) {
    this.nodes = nodes;
    this.clusterId = clusterId;
    this.startTimeout = startTimeout;
  }

  protected abstract B self();

  /** Number of nodes, ids 1..n, combined broker + controller unless {@link #roles} says else. */
  public B nodes(int n) {
    if (n < 1 || n > 50) {
      throw new IllegalArgumentException("1..50 nodes, not " + n);
    }
    this.nodes = n;
    return self();
  }

  /**
   * The roles of one node: {@code broker}, {@code controller} or {@code broker,controller} (the
   * default). Voters are the nodes with the controller role; e.g. three broker-only nodes and one
   * controller-only node keep a quorum whatever happens to the brokers.
   */
  public B roles(int node, String roles) {
    String r = roles.replace(" ", "");
    if (!ROLES.contains(r)) {
      throw new IllegalArgumentException(
          "roles must be broker, controller or broker,controller: " + roles);
    }
    this.roles.put(node, r);
    return self();
  }

  /** A node config key for every node (see {@code spool node start --help}). */
  public B config(String key, String value) {
    config.put(key, value);
    return self();
  }

  /** The directory for configs, data and logs (created; should be empty); else a temporary one. */
  public B dir(Path dir) {
    this.dir = dir;
    return self();
  }

  public B clusterId(String id) {
    this.clusterId = id;
    return self();
  }

  /** How long starting waits for a ready cluster. */
  public B startTimeout(Duration t) {
    this.startTimeout = t;
    return self();
  }

  /** The role of every node, ids 1..n; a cluster without a controller or a broker is refused. */
  protected Map<Integer, String> rolesOfAll() {
    Map<Integer, String> all = new TreeMap<>();
    for (int id = 1; id <= nodes; id++) {
      all.put(id, roles.getOrDefault(id, "broker,controller"));
    }
    if (all.values().stream().noneMatch(r -> r.contains("controller"))
        || all.values().stream().noneMatch(r -> r.contains("broker"))) {
      throw new IllegalArgumentException("a cluster needs a controller and a broker: " + all);
    }
    return all;
  }

  /** The directory, created (a new temporary one if none was set). */
  protected Path createdDir() throws IOException {
    if (dir == null) {
      dir = Files.createTempDirectory("spool-cluster-");
    }
    return Files.createDirectories(dir);
  }

  protected int nodeCount() {
    return nodes;
  }

  protected Map<String, String> config() {
    return config;
  }

  protected String clusterId() {
    return clusterId;
  }

  protected Duration startTimeout() {
    return startTimeout;
  }
}
