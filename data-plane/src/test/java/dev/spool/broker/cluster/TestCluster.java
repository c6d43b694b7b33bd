package dev.spool.broker.cluster;

import dev.spool.broker.Broker;
import dev.spool.broker.BrokerConfig;
import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-JVM cluster of combined nodes (controller + broker), each a real {@link QuorumServer} (Ratis)
 * and a real {@link Broker} on ephemeral ports, with short timeouts so failures are detected in a
 * test's time. Built with {@code TestCluster.builder().nodes(3).start()}.
 */
public final class TestCluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TestCluster.class);
  static final String CLUSTER_ID = "spool-test";
  static final ConfigDef NODE_DEF =
      new ConfigDef("test node").include(BrokerConfig.DEF).include(QuorumConfig.DEF);

  public static final class Builder {
    private int nodes = 1;
    private Path dir;
    private final Map<String, String> overrides = new HashMap<>();

    public Builder nodes(int n) {
      this.nodes = n;
      return this;
    }

    public Builder dir(Path d) {
      this.dir = d;
      return this;
    }

    public Builder config(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    public TestCluster start() {
      TestCluster c = new TestCluster(this);
      try {
        c.startAll();
      } catch (RuntimeException | IOException e) {
        c.close();
        throw e instanceof RuntimeException re ? re : new UncheckedIOException((IOException) e);
      }
      return c;
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  private final Builder spec;
  private final String voters;
  private final List<QuorumServer> servers = new ArrayList<>();
  private final List<QuorumClient> clients = new ArrayList<>();
  private final Broker[] brokers;

  private TestCluster(Builder spec) {
    this.spec = spec;
    StringJoiner v = new StringJoiner(",");
    for (int id = 1; id <= spec.nodes; id++) {
      v.add(id + "@127.0.0.1:" + freePort());
    }
    this.voters = v.toString();
    this.brokers = new Broker[spec.nodes + 1];
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Config config(int id) {
    Map<String, String> p = new HashMap<>();
    p.put("node.id", String.valueOf(id));
    p.put("data.dir", spec.dir.resolve("node-" + id).resolve("data").toString());
    p.put("metadata.log.dir", spec.dir.resolve("node-" + id).resolve("metadata").toString());
    p.put("listener", "127.0.0.1:0");
    p.put("controller.quorum.voters", voters);
    p.put("controller.quorum.bind.host", "127.0.0.1");
    p.put("broker.heartbeat.interval.ms", "100");
    p.put("broker.session.timeout.ms", "1500");
    p.put("replica.lag.time.max.ms", "1500");
    p.put("replica.fetch.wait.max.ms", "200");
    p.put("replica.fetch.backoff.ms", "50");
    p.put("num.partition.threads", "1");
    p.put("num.network.threads", "1");
    p.put("log.recovery.threads", "1");
    p.put("request.timeout.ms", "10000");
    p.putAll(spec.overrides);
    return QuorumConfig.validate(NODE_DEF.parse(p));
  }

  private void startAll() throws IOException {
    for (int id = 1; id <= spec.nodes; id++) {
      QuorumServer s =
          QuorumServer.create(QuorumSettings.of(id, CLUSTER_ID, config(id)), Clock.SYSTEM);
      servers.add(s);
      s.start();
    }
    for (int id = 1; id <= spec.nodes; id++) {
      startBroker(id);
    }
    Awaitility.await()
        .atMost(60, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= spec.nodes; id++) {
                if (brokers[id].image().broker(id) == null
                    || brokers[id].image().broker(id).fenced()) {
                  return false;
                }
              }
              return true;
            });
    log.info("test cluster of {} nodes is up", spec.nodes);
  }

  /** Starts (or restarts, on the same data directory) broker {@code id}. */
  public Broker startBroker(int id) {
    QuorumClient c = QuorumClient.create(QuorumClientSettings.of(CLUSTER_ID, config(id)));
    clients.add(c);
    brokers[id] = Broker.start(config(id), c, Clock.SYSTEM);
    return brokers[id];
  }

  /** Stops broker {@code id} cleanly (its controller keeps running). */
  public void stopBroker(int id) {
    if (brokers[id] != null) {
      brokers[id].close();
      brokers[id] = null;
    }
  }

  public Broker broker(int id) {
    return brokers[id];
  }

  public int size() {
    return spec.nodes;
  }

  @Override
  public void close() {
    for (int id = 1; id < brokers.length; id++) {
      stopBroker(id);
    }
    for (QuorumClient c : clients) {
      c.close();
    }
    for (QuorumServer s : servers) {
      try {
        s.close();
      } catch (IOException | RuntimeException e) {
        log.warn("closing a quorum server failed", e);
      }
    }
  }
}
