package dev.spool.testing;

import dev.spool.testing.inprocess.InProcessCluster;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link SpoolClusterTest} (plus a method's {@link ClusterConfig}) asks for, and how to
 * start it. Immutable.
 */
record ClusterSpec(
    int nodes, ClusterMode mode, Map<String, String> config, Map<Integer, String> roles) {
  private static final String CLUSTER_ID = "spool-test";

  ClusterSpec {
    config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
    roles = Collections.unmodifiableMap(new TreeMap<>(roles));
  }

  /** The spec of an annotated class; a malformed entry fails with what is wrong. */
  static ClusterSpec of(SpoolClusterTest a) {
    Map<Integer, String> roles = new TreeMap<>();
    pairs(a.roles(), "roles")
        .forEach(
            (id, r) -> {
              int node;
              try {
                node = Integer.parseInt(id);
              } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                    "@SpoolClusterTest roles: '" + id + "' is not a node id");
              }
              if (node < 1 || node > a.nodes()) {
                throw new IllegalArgumentException(
                    "@SpoolClusterTest roles: node " + node + " is not in 1.." + a.nodes());
              }
              roles.put(node, r);
            });
    return new ClusterSpec(a.nodes(), a.mode(), pairs(a.config(), "config"), roles);
  }

  /** This spec with a method's config on top. */
  ClusterSpec with(ClusterConfig overrides) {
    Map<String, String> merged = new LinkedHashMap<>(config);
    merged.putAll(pairs(overrides.value(), "@ClusterConfig"));
    return new ClusterSpec(nodes, mode, merged, roles);
  }

  private static Map<String, String> pairs(String[] entries, String what) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String kv : entries) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(what + ": '" + kv + "' is not key=value");
      }
      out.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
    }
    return out;
  }

  /** Starts the cluster in {@code dir}. */
  SpoolCluster start(Path dir) throws IOException {
    return switch (mode) {
      case IN_PROCESS -> {
        InProcessCluster.Builder b =
            InProcessCluster.builder().nodes(nodes).dir(dir).clusterId(CLUSTER_ID);
        roles.forEach(b::roles);
        config.forEach(b::config);
        yield b.start();
      }
      case PROCESS -> {
        ProcessCluster.Builder b =
            ProcessCluster.builder().nodes(nodes).dir(dir).clusterId(CLUSTER_ID);
        roles.forEach(b::roles);
        config.forEach(b::config);
        yield b.start();
      }
    };
  }

  /**
   * Where the cluster of {@code name} lives: under {@code -Dspool.test.dir}, else {@code
   * target/spool-clusters} when the working directory has a {@code target/} (Maven), else {@code
   * build/spool-clusters} (Gradle), else the temporary directory.
   */
  static Path dirFor(String name) {
    String configured = System.getProperty("spool.test.dir");
    Path base;
    if (configured != null && !configured.isBlank()) {
      base = Path.of(configured);
    } else if (Files.isDirectory(Path.of("target"))) {
      base = Path.of("target", "spool-clusters");
    } else if (Files.isDirectory(Path.of("build"))) {
      base = Path.of("build", "spool-clusters");
    } else {
      base = Path.of(System.getProperty("java.io.tmpdir"), "spool-clusters");
    }
    return base.resolve(name).toAbsolutePath();
  }
}
