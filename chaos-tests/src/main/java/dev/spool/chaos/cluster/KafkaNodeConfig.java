package dev.spool.chaos.cluster;

import dev.spool.testing.process.NodeAddresses;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The {@code server.properties} of one Apache Kafka KRaft node in a chaos run (pure, so it is
 * tested without Kafka): combined broker + controller roles like Spool's chaos nodes, the broker
 * listener on the node's DATA address and the controller listener on its QUORUM address (the
 * addresses the harness's network gave it, nothing else), static voters on the QUORUM addresses,
 * and the same durability settings the chaos workload asks of Spool: RF 3 by default, {@code
 * min.insync.replicas=2}, no unclean election, no automatic topic creation. Timeouts (session,
 * replica lag, election) are Kafka's own defaults: the run measures Kafka as shipped.
 */
public final class KafkaNodeConfig {
  private KafkaNodeConfig() {}

  /**
   * The node's config as ordered key/value pairs.
   *
   * @param node this node's id
   * @param nodes every node's addresses (the voters), by id
   * @param logDir the node's data directory
   * @param extra keys that override or add to the defaults
   */
  public static Map<String, String> properties(
      int node, Map<Integer, NodeAddresses> nodes, Path logDir, Map<String, String> extra) {
    NodeAddresses self = Objects.requireNonNull(nodes.get(node), "no addresses for node " + node);
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(node));
    p.put(
        "controller.quorum.voters",
        nodes.values().stream()
            .map(a -> a.id() + "@" + hostPort(a.quorum()))
            .collect(Collectors.joining(",")));
    p.put(
        "listeners",
        "PLAINTEXT://" + hostPort(self.broker()) + ",CONTROLLER://" + hostPort(self.quorum()));
    p.put("advertised.listeners", "PLAINTEXT://" + hostPort(self.client()));
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
    p.put("log.dirs", logDir.toAbsolutePath().toString());
    p.put("num.partitions", "1");
    p.put("default.replication.factor", "3");
    p.put("min.insync.replicas", "2");
    p.put("unclean.leader.election.enable", "false");
    p.put("auto.create.topics.enable", "false");
    p.put("offsets.topic.replication.factor", "3");
    p.put("transaction.state.log.replication.factor", "3");
    p.put("transaction.state.log.min.isr", "2");
    p.put("share.coordinator.state.topic.replication.factor", "3");
    p.put("share.coordinator.state.topic.min.isr", "2");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.putAll(extra);
    return p;
  }

  /** The properties as file text, one {@code key=value} per line. */
  public static String render(Map<String, String> properties) {
    StringBuilder b =
        new StringBuilder("# Apache Kafka KRaft node of a Spool chaos run (KafkaNodeConfig)\n");
    properties.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
    return b.toString();
  }

  /**
   * Log4j 2 config for the node: INFO to the console (the harness appends it to the node's log),
   * with the same line layout as Kafka's stock config; request and state-change loggers at WARN.
   */
  public static String log4j2() {
    return """
        status = warn
        appender.console.type = Console
        appender.console.name = STDOUT
        appender.console.layout.type = PatternLayout
        appender.console.layout.pattern = [%d] %p %m (%c)%n
        rootLogger.level = INFO
        rootLogger.appenderRef.stdout.ref = STDOUT
        logger.request.name = kafka.request.logger
        logger.request.level = WARN
        logger.state.name = state.change.logger
        logger.state.level = WARN
        """;
  }

  static String hostPort(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }
}
