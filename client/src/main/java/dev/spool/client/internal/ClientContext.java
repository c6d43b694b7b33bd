package dev.spool.client.internal;

import dev.spool.client.internal.metadata.Metadata;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.common.Clock;
import dev.spool.config.ConfigException;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.NetworkClient;
import dev.spool.network.NetworkConfig;
import dev.spool.network.Node;
import dev.spool.network.tls.SslContexts;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every client owns: a network client with its I/O thread, the metadata cache and its
 * refresher, the retry backoff. Built from the common config values.
 */
public final class ClientContext implements AutoCloseable {
  /** Refreshes before a topic that metadata does not name is reported as unknown. */
  public static final int UNKNOWN_TOPIC_MAX_REFRESHES = 3;

  private static final AtomicInteger CLIENT_SEQUENCE = new AtomicInteger();

  private final String clientId;
  private final Clock clock;
  private final NetworkClient network;
  private final Metadata metadata;
  private final MetadataRefresher refresher;
  private final ExponentialBackoff retryBackoff;
  private final CommonClientConfig.Values values;

  public ClientContext(
      String kind,
      CommonClientConfig.Values values,
      int maxInFlightPerConnection,
      int maxResponseFrameBytes,
      Clock clock) {
    List<Node> bootstrap;
    try {
      bootstrap = Node.parseBootstrap(values.bootstrapServers());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("bootstrap.servers", e.getMessage());
    }
    int n = CLIENT_SEQUENCE.incrementAndGet();
    this.clientId = values.clientId().isEmpty() ? kind + "-" + n : values.clientId();
    this.clock = clock;
    this.values = values;
    Random random = new Random();
    this.retryBackoff =
        new ExponentialBackoff(values.retryBackoffMs(), values.retryBackoffMaxMs(), 0.2, random);
    this.network =
        new NetworkClient(
            new NetworkConfig(
                    clientId,
                    "spool-" + kind + "-io-" + n,
                    maxInFlightPerConnection,
                    NetworkConfig.DEFAULT_MAX_QUEUED_REQUESTS_PER_CONNECTION,
                    values.connectionSetupTimeoutMs(),
                    values.reconnectBackoffMs(),
                    values.reconnectBackoffMaxMs(),
                    maxResponseFrameBytes,
                    NetworkConfig.DEFAULT_TIMER_TICK_MS)
                .withTls(values.tls() ? SslContexts.client(values.ssl()) : null)
                .withDeadConnectionTimeout(values.deadConnectionTimeoutMs())
                .withSasl(values.sasl()),
            clock,
            random);
    this.metadata =
        new Metadata(
            bootstrap, values.metadataMaxAgeMs(), retryBackoff, UNKNOWN_TOPIC_MAX_REFRESHES);
    this.refresher = new MetadataRefresher(metadata, network, clock, values.requestTimeoutMs());
    refresher.wakeup();
  }

  public String clientId() {
    return clientId;
  }

  public Clock clock() {
    return clock;
  }

  public NetworkClient network() {
    return network;
  }

  public Metadata metadata() {
    return metadata;
  }

  public MetadataRefresher refresher() {
    return refresher;
  }

  public ExponentialBackoff retryBackoff() {
    return retryBackoff;
  }

  public CommonClientConfig.Values values() {
    return values;
  }

  @Override
  public void close() {
    refresher.close();
    network.close();
  }
}
