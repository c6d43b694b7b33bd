package dev.spool.network;

import io.netty.handler.ssl.SslContext;

/**
 * What the network client needs from a client's configuration; every client (producer, consumer,
 * admin) builds one from its own typed config.
 *
 * @param clientId sent in every request header, for broker logs
 * @param ioThreadName name of the client's one I/O thread
 * @param maxInFlightRequestsPerConnection requests written but not yet answered, per connection
 * @param maxQueuedRequestsPerConnection requests waiting to be written, per connection (a limit,
 *     not a tuning knob: callers that pace themselves never reach it)
 * @param connectTimeoutMs TCP connect plus ApiVersions handshake
 * @param reconnectBackoffMs first wait before reconnecting to a node after a failure
 * @param reconnectBackoffMaxMs cap of the exponential reconnect wait
 * @param maxResponseFrameBytes largest response frame accepted; a larger one closes the connection
 * @param timerTickMs how often request deadlines and reconnect times are checked
 * @param heapResponseFrames receive responses into heap arrays (clients that decode the records:
 *     consumers) rather than direct buffers (the broker's replica fetcher, which appends the record
 *     data to files as it is); see {@link dev.spool.protocol.FrameBuffers}
 * @param sslContext TLS for every connection (security.protocol=SSL), or null for plaintext
 * @param deadConnectionTimeoutMs a connection whose peer stops acknowledging (sent data unacked, or
 *     keepalive probes unanswered while waiting for an answer) for this long is closed by the
 *     kernel, failing its requests at once rather than at their deadline ({@link
 *     DeadPeerDetection}); 0 leaves the operating system's defaults (minutes to hours)
 * @param sasl the SASL login every connection makes after ApiVersions (security.protocol
 *     SASL_PLAINTEXT or SASL_SSL, {@link SaslLogin}), or null for none
 */
public record NetworkConfig(
    String clientId,
    String ioThreadName,
    int maxInFlightRequestsPerConnection,
    int maxQueuedRequestsPerConnection,
    long connectTimeoutMs,
    long reconnectBackoffMs,
    long reconnectBackoffMaxMs,
    int maxResponseFrameBytes,
    long timerTickMs,
    boolean heapResponseFrames,
    SslContext sslContext,
    long deadConnectionTimeoutMs,
    SaslCredentials sasl) {

  // The network client's defaults. The client library's keys socket.connection.setup.timeout.ms,
  // reconnect.backoff.ms and reconnect.backoff.max.ms take theirs from here: this package sits
  // below the library and cannot read the library's config, so the numbers live on this side.

  /** Default TCP connect plus ApiVersions handshake limit. */
  public static final long DEFAULT_CONNECT_TIMEOUT_MS = 10_000L;

  /** Default first reconnect wait. */
  public static final long DEFAULT_RECONNECT_BACKOFF_MS = 50L;

  /** Default cap of the reconnect wait. */
  public static final long DEFAULT_RECONNECT_BACKOFF_MAX_MS = 1000L;

  /** Default bound on requests waiting to be written, per connection. */
  public static final int DEFAULT_MAX_QUEUED_REQUESTS_PER_CONNECTION = 10_000;

  /** Default deadline-check period. */
  public static final long DEFAULT_TIMER_TICK_MS = 20L;

  /** Default time without acknowledgement from the peer after which a connection is closed. */
  public static final long DEFAULT_DEAD_CONNECTION_TIMEOUT_MS = 3000L;

  public NetworkConfig {
    if (maxInFlightRequestsPerConnection < 1 || maxQueuedRequestsPerConnection < 1) {
      throw new IllegalArgumentException("in-flight and queue limits must be positive");
    }
    if (connectTimeoutMs < 1 || timerTickMs < 1 || maxResponseFrameBytes < 1024) {
      throw new IllegalArgumentException("bad network timing or frame limit");
    }
    if (deadConnectionTimeoutMs < 0 || deadConnectionTimeoutMs > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "dead connection timeout must be 0 (off) or a positive number of milliseconds");
    }
  }

  /** Without SASL. */
  public NetworkConfig(
      String clientId,
      String ioThreadName,
      int maxInFlightRequestsPerConnection,
      int maxQueuedRequestsPerConnection,
      long connectTimeoutMs,
      long reconnectBackoffMs,
      long reconnectBackoffMaxMs,
      int maxResponseFrameBytes,
      long timerTickMs,
      boolean heapResponseFrames,
      SslContext sslContext,
      long deadConnectionTimeoutMs) {
    this(
        clientId,
        ioThreadName,
        maxInFlightRequestsPerConnection,
        maxQueuedRequestsPerConnection,
        connectTimeoutMs,
        reconnectBackoffMs,
        reconnectBackoffMaxMs,
        maxResponseFrameBytes,
        timerTickMs,
        heapResponseFrames,
        sslContext,
        deadConnectionTimeoutMs,
        null);
  }

  /** Heap response frames (every client but the broker's replica fetcher). */
  public NetworkConfig(
      String clientId,
      String ioThreadName,
      int maxInFlightRequestsPerConnection,
      int maxQueuedRequestsPerConnection,
      long connectTimeoutMs,
      long reconnectBackoffMs,
      long reconnectBackoffMaxMs,
      int maxResponseFrameBytes,
      long timerTickMs) {
    this(
        clientId,
        ioThreadName,
        maxInFlightRequestsPerConnection,
        maxQueuedRequestsPerConnection,
        connectTimeoutMs,
        reconnectBackoffMs,
        reconnectBackoffMaxMs,
        maxResponseFrameBytes,
        timerTickMs,
        true,
        null,
        DEFAULT_DEAD_CONNECTION_TIMEOUT_MS);
  }

  /** The same settings with response frames in direct buffers. */
  public NetworkConfig withDirectResponseFrames() {
    return with(false, sslContext, deadConnectionTimeoutMs);
  }

  /** The same settings with TLS on every connection ({@code null}: plaintext). */
  public NetworkConfig withTls(SslContext tls) {
    return with(heapResponseFrames, tls, deadConnectionTimeoutMs);
  }

  /** The same settings with another dead-connection timeout (0: the operating system's). */
  public NetworkConfig withDeadConnectionTimeout(long timeoutMs) {
    return with(heapResponseFrames, sslContext, timeoutMs);
  }

  /** The same settings with a SASL login on every connection ({@code null}: none). */
  public NetworkConfig withSasl(SaslCredentials credentials) {
    return with(heapResponseFrames, sslContext, deadConnectionTimeoutMs, credentials);
  }

  private NetworkConfig with(boolean heapFrames, SslContext tls, long deadTimeoutMs) {
    return with(heapFrames, tls, deadTimeoutMs, sasl);
  }

  private NetworkConfig with(
      boolean heapFrames, SslContext tls, long deadTimeoutMs, SaslCredentials credentials) {
    return new NetworkConfig(
        clientId,
        ioThreadName,
        maxInFlightRequestsPerConnection,
        maxQueuedRequestsPerConnection,
        connectTimeoutMs,
        reconnectBackoffMs,
        reconnectBackoffMaxMs,
        maxResponseFrameBytes,
        timerTickMs,
        heapFrames,
        tls,
        deadTimeoutMs,
        credentials);
  }

  /**
   * Defaults for users without a client config of their own (the broker's replica fetcher): 5
   * requests in flight per connection and response frames up to 64 MiB.
   */
  public static NetworkConfig defaults(String clientId, String ioThreadName) {
    return new NetworkConfig(
        clientId,
        ioThreadName,
        5,
        DEFAULT_MAX_QUEUED_REQUESTS_PER_CONNECTION,
        DEFAULT_CONNECT_TIMEOUT_MS,
        DEFAULT_RECONNECT_BACKOFF_MS,
        DEFAULT_RECONNECT_BACKOFF_MAX_MS,
        64 * 1024 * 1024,
        DEFAULT_TIMER_TICK_MS);
  }
}
