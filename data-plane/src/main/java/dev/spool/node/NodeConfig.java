package dev.spool.node;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.SecurityConfig;
import dev.spool.broker.log.LogManager;
import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.node.ops.OpsConfig;
import dev.spool.quorum.QuorumConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A node's configuration: the data-plane keys ({@link BrokerConfig}) and the quorum's ({@link
 * QuorumConfig}) in one file. Everything a node needs is checked here before anything starts, so a
 * bad configuration exits with one message that names the key.
 */
public final class NodeConfig {
  private NodeConfig() {}

  /** Every key a node accepts, as printed by {@code spool node start --help}. */
  public static final ConfigDef DEF =
      new ConfigDef("node")
          .include(BrokerConfig.DEF)
          .include(OpsConfig.DEF)
          .include(SecurityConfig.DEF)
          .include(dev.spool.broker.security.AuthorizerConfig.DEF)
          .include(QuorumConfig.DEF);

  /** Reads a properties file; {@code overrides} (from --override k=v) win. */
  public static Map<String, String> load(Path file, Map<String, String> overrides) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file)) {
      p.load(r);
    } catch (IOException e) {
      throw new ConfigException(null, "cannot read config file " + file + ": " + e.getMessage());
    }
    Map<String, String> props = new LinkedHashMap<>();
    for (String name : p.stringPropertyNames()) {
      props.put(name, p.getProperty(name));
    }
    props.putAll(overrides);
    return props;
  }

  /** Parses and validates keys and relations; the metadata log dir defaults under data.dir. */
  public static Config parse(Map<String, String> props) {
    Map<String, String> effective = new LinkedHashMap<>(props);
    Config first = DEF.parse(effective);
    if (first.get(QuorumConfig.METADATA_LOG_DIR).isEmpty()) {
      effective.put(
          QuorumConfig.METADATA_LOG_DIR.name(),
          Path.of(first.get(BrokerConfig.DATA_DIR))
              .resolve(LogManager.METADATA_DIR_NAME)
              .toString());
    }
    Config config = DEF.parse(effective);
    QuorumConfig.validate(config);
    if (BrokerConfig.isController(config)) {
      Map<Integer, HostPort> voters = QuorumConfig.parseVoters(config.get(QuorumConfig.VOTERS));
      int id = config.get(BrokerConfig.NODE_ID);
      String listener = config.get(QuorumConfig.LISTENER);
      if (!voters.containsKey(id) && listener.isEmpty()) {
        throw new ConfigException(
            QuorumConfig.VOTERS.name(),
            "this node (node.id="
                + id
                + ") runs the controller role but is not among the voters "
                + voters.keySet()
                + "; a new controller joining the running quorum sets "
                + QuorumConfig.LISTENER.name()
                + " to its own Raft address (docs/operations.md#dynamic-controller-quorum)");
      }
      if (voters.containsKey(id) && !listener.isEmpty()) {
        throw new ConfigException(
            QuorumConfig.LISTENER.name(),
            "is only for a controller not among "
                + QuorumConfig.VOTERS.name()
                + "; node "
                + id
                + " is one of them and listens on its voters entry "
                + voters.get(id));
      }
    }
    return config;
  }

  /**
   * Checks what the machine must provide: writable directories and free listener ports. Run before
   * starting anything so the error names the key instead of surfacing as a stack trace.
   */
  public static void checkEnvironment(Config config) {
    SecurityConfig.quorumTls(config); // the quorum's key material (CONTROLLER:SSL): every role
    checkWritableDir(BrokerConfig.DATA_DIR.name(), Path.of(config.get(BrokerConfig.DATA_DIR)));
    if (BrokerConfig.isController(config)) {
      checkWritableDir(
          QuorumConfig.METADATA_LOG_DIR.name(), Path.of(config.get(QuorumConfig.METADATA_LOG_DIR)));
      String listener = config.get(QuorumConfig.LISTENER);
      HostPort self =
          listener.isEmpty()
              ? QuorumConfig.parseVoters(config.get(QuorumConfig.VOTERS))
                  .get(config.get(BrokerConfig.NODE_ID))
              : HostPort.parse(listener);
      checkPortFree(
          listener.isEmpty()
              ? QuorumConfig.VOTERS.name() + " (this node's entry)"
              : QuorumConfig.LISTENER.name(),
          config.get(QuorumConfig.BIND_HOST),
          self.port());
    }
    if (!config.get(OpsConfig.METRICS_LISTENER).isEmpty()) {
      HostPort ops = HostPort.parse(config.get(OpsConfig.METRICS_LISTENER));
      checkPortFree(OpsConfig.METRICS_LISTENER.name(), ops.host(), ops.port());
    }
    if (BrokerConfig.isBroker(config)) {
      SecurityConfig.contexts(config); // reads the key material: a bad keystore fails here
      SecurityConfig.replicationSasl(config); // a missing or malformed sasl.jaas.config too
      HostPort listener = HostPort.parse(config.get(BrokerConfig.LISTENER));
      checkPortFree(BrokerConfig.LISTENER.name(), listener.host(), listener.port());
      if (!config.get(BrokerConfig.KAFKA_LISTENER).isEmpty()) {
        HostPort kafka = HostPort.parse(config.get(BrokerConfig.KAFKA_LISTENER));
        checkPortFree(BrokerConfig.KAFKA_LISTENER.name(), kafka.host(), kafka.port());
      }
    }
  }

  /**
   * The listener keys of this node's roles that bind an address other than loopback, as {@code
   * key=host}, unless the listener speaks TLS and requires client certificates
   * (ssl.client.auth=required, mutual TLS: only holders of a trusted certificate get in) or, for
   * the Kafka listener, speaks SASL_SSL (every client authenticates over TLS), or, for the quorum
   * port, is CONTROLLER:SSL (always mutual TLS). Each of the others accepts, from anyone who
   * reaches it, everything its protocol can do (the quorum port: controller writes). The node warns
   * about each at start; binding them is the operator's choice.
   */
  public static List<String> exposedListeners(Config config) {
    List<String> exposed = new ArrayList<>();
    if (BrokerConfig.isController(config)
        && !SecurityConfig.isTls(config, SecurityConfig.CONTROLLER)) {
      addIfExposed(exposed, QuorumConfig.BIND_HOST.name(), config.get(QuorumConfig.BIND_HOST));
    }
    boolean mutualTls = config.get(SecurityConfig.SSL.clientAuth()).equals("required");
    // SASL_SSL: every client authenticates, over TLS (SASL_PLAINTEXT still warns: no TLS).
    boolean spoolSaslSsl =
        SecurityConfig.protocol(config, SecurityConfig.SPOOL).equals(SecurityConfig.SASL_SSL);
    if (BrokerConfig.isBroker(config)
        && !spoolSaslSsl
        && !(mutualTls && SecurityConfig.isTls(config, SecurityConfig.SPOOL))) {
      addIfExposed(
          exposed,
          BrokerConfig.LISTENER.name(),
          HostPort.parse(config.get(BrokerConfig.LISTENER)).host());
    }
    boolean kafkaSaslSsl =
        SecurityConfig.protocol(config, SecurityConfig.KAFKA).equals(SecurityConfig.SASL_SSL);
    if (BrokerConfig.isBroker(config)
        && !kafkaSaslSsl
        && !(mutualTls && SecurityConfig.isTls(config, SecurityConfig.KAFKA))) {
      if (!config.get(BrokerConfig.KAFKA_LISTENER).isEmpty()) {
        addIfExposed(
            exposed,
            BrokerConfig.KAFKA_LISTENER.name(),
            HostPort.parse(config.get(BrokerConfig.KAFKA_LISTENER)).host());
      }
    }
    if (!config.get(OpsConfig.METRICS_LISTENER).isEmpty()) {
      // Health and metrics only, but they name topics, brokers and the cluster's layout.
      addIfExposed(
          exposed,
          OpsConfig.METRICS_LISTENER.name(),
          HostPort.parse(config.get(OpsConfig.METRICS_LISTENER)).host());
    }
    return exposed;
  }

  private static void addIfExposed(List<String> exposed, String key, String host) {
    boolean loopback;
    try {
      loopback = InetAddress.getByName(host).isLoopbackAddress();
    } catch (IOException | SecurityException e) {
      loopback = false; // the bind will fail and say why; until then, assume the worst
    }
    if (!loopback) {
      exposed.add(key + "=" + host);
    }
  }

  private static void checkWritableDir(String key, Path dir) {
    try {
      Files.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".write-check", ".tmp");
      Files.delete(probe);
    } catch (IOException | SecurityException e) {
      throw new ConfigException(key, dir.toAbsolutePath() + " is not a writable directory: " + e);
    }
  }

  private static void checkPortFree(String key, String host, int port) {
    if (port == 0) {
      return;
    }
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new ConfigException(
          key,
          host
              + ":"
              + port
              + " cannot be bound ("
              + e.getMessage()
              + "); is another process using it?");
    }
  }
}
