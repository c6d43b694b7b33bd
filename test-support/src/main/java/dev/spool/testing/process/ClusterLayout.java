package dev.spool.testing.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The files and command lines of a process cluster: under {@code dir}, one {@code node-<id>/}
 * directory per node with its {@code node.properties}, its {@code data/} directory (the metadata
 * log lives under {@code data/metadata}) and its log {@code node-<id>.log}; one {@code
 * node-logback.xml} for all; and for each node the command {@code [network prefix] java <options>
 * -cp <this JVM's class path> dev.spool.node.SpoolMain node start --config <file>} (the class path
 * and class-data sharing options from {@link NodeClassData}), and the command that formats its
 * directories first ({@code ... SpoolMain storage format --config <file> --cluster-id <cluster.id>
 * --ignore-formatted}, so a directory of the same cluster and node is kept).
 *
 * <p>Used once, by the thread that builds the cluster.
 */
final class ClusterLayout {
  private static final String MAIN_CLASS = "dev.spool.node.SpoolMain";

  /** Where node JVMs' class-data archives live: the test module's build directory. */
  private static final Path CLASS_DATA_DIR = Path.of("target", "node-class-data").toAbsolutePath();

  /**
   * Every node config key of the cluster but the per-node ones; {@code kafkaListeners} is each
   * node's {@code kafka.listener} (empty: none); {@code joiners} are controllers left out of {@code
   * controller.quorum.voters} that start as new members waiting to be added.
   */
  record Spec(
      Path dir,
      String clusterId,
      Map<Integer, String> roles,
      Map<String, String> config,
      List<String> jvmOptions,
      Map<Integer, String> kafkaListeners,
      Set<Integer> joiners) {}

  private ClusterLayout() {}

  /**
   * Writes the configs of every node in {@code addresses} and returns their processes, not started.
   */
  static Map<Integer, NodeProcess> write(
      Spec spec, Map<Integer, NodeAddresses> addresses, NodeNetwork network) throws IOException {
    Files.createDirectories(spec.dir());
    Path logback = spec.dir().resolve("node-logback.xml");
    Files.writeString(logback, NODE_LOGBACK, StandardCharsets.UTF_8);
    String voters = voters(spec.roles(), spec.joiners(), addresses);
    String testClassPath =
        Optional.ofNullable(System.getProperty("surefire.test.class.path"))
            .filter(s -> !s.isBlank())
            .orElse(System.getProperty("java.class.path"));
    NodeClassData classData = NodeClassData.of(testClassPath, CLASS_DATA_DIR);
    classData.train(spec.jvmOptions());
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Map<Integer, NodeProcess> procs = new TreeMap<>();
    for (NodeAddresses a : addresses.values()) {
      String roles = spec.roles().get(a.id());
      Path nodeDir = spec.dir().resolve("node-" + a.id());
      Files.createDirectories(nodeDir);
      Path dataDir = nodeDir.resolve("data");
      Path configFile = nodeDir.resolve("node.properties");
      Map<String, String> props = nodeConfig(spec, a, roles, dataDir, voters);
      writeConfig(configFile, props, a.id());
      List<String> jvm = new ArrayList<>();
      jvm.add(java);
      jvm.addAll(spec.jvmOptions());
      jvm.add("-Dlogback.configurationFile=" + logback);
      jvm.add("-Dspool.harness.node=" + nodeDir);
      jvm.add("-cp");
      jvm.add(classData.classPath());
      jvm.add(MAIN_CLASS);
      List<String> command = new ArrayList<>(network.launchPrefix(a.id()));
      int jvmOptionsAt = command.size() + 1;
      command.addAll(jvm);
      command.addAll(List.of("node", "start", "--config", configFile.toString()));
      // Formatting only writes files: it runs outside any network namespace.
      List<String> format = new ArrayList<>(jvm);
      format.addAll(
          List.of(
              "storage",
              "format",
              "--config",
              configFile.toString(),
              "--cluster-id",
              props.get("cluster.id"),
              "--ignore-formatted"));
      procs.put(
          a.id(),
          new NodeProcess(
              a.id(),
              configFile,
              dataDir,
              nodeDir.resolve("node-" + a.id() + ".log"),
              command,
              format,
              classData,
              jvmOptionsAt,
              roles.contains("broker"),
              roles.contains("controller")));
    }
    return procs;
  }

  /** {@code id@host:port,...} of the nodes with the controller role but the joiners. */
  private static String voters(
      Map<Integer, String> roles, Set<Integer> joiners, Map<Integer, NodeAddresses> addresses) {
    return addresses.values().stream()
        .filter(a -> roles.get(a.id()).contains("controller") && !joiners.contains(a.id()))
        .map(a -> a.id() + "@" + a.quorum().getHostString() + ":" + a.quorum().getPort())
        .collect(Collectors.joining(","));
  }

  private static Map<String, String> nodeConfig(
      Spec spec, NodeAddresses a, String roles, Path dataDir, String voters) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("node.id", Integer.toString(a.id()));
    props.put("process.roles", roles);
    props.put("cluster.id", spec.clusterId());
    props.put("listener", a.broker().getHostString() + ":" + a.broker().getPort());
    if (a.advertisesElsewhere()) {
      props.put("advertised.listener", a.client().getHostString() + ":" + a.client().getPort());
    }
    if (spec.kafkaListeners().containsKey(a.id())) {
      props.put("kafka.listener", spec.kafkaListeners().get(a.id()));
    }
    props.put("data.dir", dataDir.toString());
    props.put("controller.quorum.voters", voters);
    props.put("controller.quorum.bind.host", a.quorum().getHostString());
    if (spec.joiners().contains(a.id())) {
      // A new controller (docs/operations.md#dynamic-controller-quorum): it waits, with an empty
      // group, until spool quorum add-voter adds it at this address.
      props.put(
          "controller.quorum.listener", a.quorum().getHostString() + ":" + a.quorum().getPort());
    }
    props.putAll(spec.config());
    return props;
  }

  private static void writeConfig(Path file, Map<String, String> props, int node)
      throws IOException {
    StringBuilder sb = new StringBuilder("# Written by ProcessCluster for node " + node + "\n");
    props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
  }

  /**
   * The node's own logback.xml but for the file: the full date, as there, so a line's time is
   * unambiguous across midnight (the chaos report's fault timelines read them).
   */
  private static final String NODE_LOGBACK =
      """
      <!-- Written by ProcessCluster: node logging to stdout, which the harness appends to node.log. -->
      <configuration>
        <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
          <encoder><pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n</pattern></encoder>
        </appender>
        <logger name="org.apache.ratis" level="WARN"/>
        <logger name="org.apache.ratis.server.impl.RaftServerImpl" level="INFO"/>
        <logger name="org.apache.ratis.client.impl" level="OFF"/>
        <logger name="io.netty" level="WARN"/>
        <root level="INFO"><appender-ref ref="OUT"/></root>
      </configuration>
      """;
}
