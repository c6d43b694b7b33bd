package dev.spool.broker;

import dev.spool.broker.kafka.KafkaProtocol;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.metrics.BrokerGauges;
import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.broker.metrics.GroupLagGauges;
import dev.spool.broker.network.BrokerServer;
import dev.spool.broker.network.RequestDispatcher;
import dev.spool.broker.network.SaslAuthentication;
import dev.spool.broker.replication.FetchWaiters;
import dev.spool.broker.replication.PartitionWorkers;
import dev.spool.broker.replication.ReplicaFetcherManager;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.broker.replication.ReplicationSettings;
import dev.spool.broker.request.AuthorizedGroups;
import dev.spool.broker.request.BrokerContext;
import dev.spool.broker.request.ConsumerGroupHeartbeatHandler;
import dev.spool.broker.request.DeleteGroupsHandler;
import dev.spool.broker.request.DescribeGroupsHandler;
import dev.spool.broker.request.FindCoordinatorHandler;
import dev.spool.broker.request.Handlers;
import dev.spool.broker.request.ListGroupsHandler;
import dev.spool.broker.request.MetadataWaiters;
import dev.spool.broker.request.OffsetCommitHandler;
import dev.spool.broker.request.OffsetDeleteHandler;
import dev.spool.broker.request.OffsetFetchHandler;
import dev.spool.broker.request.ProducerIdManager;
import dev.spool.broker.security.AuthorizerConfig;
import dev.spool.broker.security.SaslVerifiers;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.common.ScramMechanism;
import dev.spool.common.SpoolException;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import dev.spool.network.NetworkClient;
import dev.spool.network.NetworkConfig;
import dev.spool.network.tls.KeyMaterial;
import dev.spool.network.tls.SslContexts;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.lifecycle.BrokerLifecycle;
import dev.spool.quorum.lifecycle.BrokerState;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker role of a node: partition logs, replication, the client listener and the broker's
 * lifecycle towards the metadata quorum. The node process ({@code spool node start}) builds one
 * with {@link #start} and stops it with {@link #controlledShutdown} then {@link #close}.
 *
 * <p>Start order, each step needing the previous ones:
 *
 * <ol>
 *   <li>LogManager opens the data directory and recovers every partition log (an unclean stop scans
 *       from the recovery points);
 *   <li>partition workers start (retention is routed onto them), then the replica manager, the
 *       follower fetchers (one network client) and the periodic partition ticks;
 *   <li>the request handlers are registered and the listener binds (its port is what the broker
 *       registers when the configured port is 0);
 *   <li>the BrokerLifecycle registers with the quorum and heartbeats; every metadata update it
 *       replays goes to the {@link MetadataPublisher}, which makes replicas leaders or followers.
 *       Clients are served from the start, but a broker that has no metadata yet leads nothing and
 *       answers NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION.
 * </ol>
 *
 * <p>Stop order ({@link #close}): the listener first (no new requests) and the SASL verifiers, then
 * the lifecycle (a last heartbeat asks to be fenced, so leaderships move at once), then the
 * replicas (waiting produces fail), the fetchers and their network client, the workers (queued
 * tasks drain), the timer, and last the LogManager's clean shutdown (flush, checkpoints,
 * clean-shutdown marker) once nothing mutates logs any more. {@link #controlledShutdown} before
 * close moves leaderships away while the broker still serves, so clients and followers switch
 * without waiting for a session timeout.
 *
 * <p>Threads: start/close from the node's thread; accessors from any thread.
 */
public final class Broker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Broker.class);

  private final int brokerId;
  private final String logPrefix;
  private LogManager logManager;
  private PartitionWorkers workers;
  private ReplicaManager replicas;
  private NetworkClient fetchClient;
  private ReplicaFetcherManager fetchers;
  private HashedWheelTimer timer;
  private SaslVerifiers saslVerifiers;
  private KeyMaterial tlsMaterial;
  private BrokerServer server;
  private GroupCoordinator coordinator;
  private dev.spool.broker.quota.ClientQuotaManager quotas;
  private volatile BrokerLifecycle lifecycle;
  private volatile boolean closed;

  private Broker(int brokerId) {
    this.brokerId = brokerId;
    this.logPrefix = "[node=" + brokerId + "]";
  }

  /**
   * Starts the broker role from the node's merged configuration ({@link BrokerConfig} and the
   * quorum's keys). On failure everything started is stopped and the exception rethrown.
   */
  public static Broker start(Config config, QuorumClient quorum, Clock clock) {
    return start(config, quorum, clock, BrokerMetrics.DISABLED);
  }

  /** As {@link #start(Config, QuorumClient, Clock)}, counting into {@code metrics}. */
  public static Broker start(
      Config config, QuorumClient quorum, Clock clock, BrokerMetrics metrics) {
    Broker b = new Broker(config.get(BrokerConfig.NODE_ID));
    try {
      b.startAll(config, quorum, clock, metrics);
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
    return b;
  }

  /** The active controller as the lifecycle last heard it; -1 before the lifecycle runs. */
  private int activeControllerId() {
    BrokerLifecycle l = lifecycle;
    return l == null ? -1 : l.activeControllerId();
  }

  private void startAll(Config config, QuorumClient quorum, Clock clock, BrokerMetrics metrics) {
    long startNs = clock.nanoTime();
    // Key material first: a bad keystore or password fails the start before anything runs.
    SecurityConfig.Contexts tls = SecurityConfig.contexts(config);
    boolean flushAlways = config.get(BrokerConfig.LOG_FLUSH_POLICY).equals("always");
    logManager =
        LogManager.open(
            Path.of(config.get(BrokerConfig.DATA_DIR)),
            BrokerConfig.logManagerConfig(config),
            clock);
    long recoveryNs = clock.nanoTime() - startNs;

    workers =
        new PartitionWorkers(
            config.get(BrokerConfig.NUM_PARTITION_THREADS),
            config.get(BrokerConfig.PARTITION_WORKER_QUEUE_MAX_TASKS),
            "partition-" + brokerId);
    logManager.setPartitionExecutor(workers::execute);
    logManager.startCleaner();
    ReplicationSettings rs = BrokerConfig.replicationSettings(brokerId, config);
    FetchWaiters fetchWaiters =
        new FetchWaiters(config.get(BrokerConfig.FETCH_MAX_WAITING_REQUESTS));
    replicas =
        new ReplicaManager(
            rs, flushAlways, clock, logManager, workers, quorum, this::brokerEpoch, fetchWaiters);
    fetchClient = replicaClient(config, tls, clock);
    int requestTimeoutMs = config.get(BrokerConfig.REQUEST_TIMEOUT_MS);
    fetchers =
        new ReplicaFetcherManager(
            brokerId,
            new ReplicaFetcherManager.Settings(
                config.get(BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS),
                1,
                config.get(BrokerConfig.REPLICA_FETCH_RESPONSE_MAX_BYTES),
                config.get(BrokerConfig.REPLICA_FETCH_MAX_BYTES),
                config.get(BrokerConfig.REPLICA_FETCH_BACKOFF_MS),
                config.get(BrokerConfig.REPLICA_SOCKET_TIMEOUT_MS)),
            fetchClient,
            replicas,
            clock);
    replicas.setFetchers(fetchers);
    replicas.setMetrics(metrics);
    workers.startTicks(config.get(BrokerConfig.PARTITION_TICK_INTERVAL_MS), replicas::tick);

    timer =
        new HashedWheelTimer(
            new DefaultThreadFactory("broker-timer-" + brokerId, true), 5, TimeUnit.MILLISECONDS);
    MetadataPublisher[] publisher = new MetadataPublisher[1];
    MetadataWaiters metadataWaiters =
        new MetadataWaiters(
            () -> publisher[0] == null ? MetadataImage.EMPTY : publisher[0].appliedImage(),
            timer,
            10_000);
    ReplicaManager rm = replicas;
    publisher[0] = new MetadataPublisher(rm, metadataWaiters);
    ProducerIdManager producerIds =
        new ProducerIdManager(brokerId, this::brokerEpoch, quorum, 10_000);
    BrokerContext ctx =
        new BrokerContext(
            brokerId,
            clusterId(config),
            replicas,
            quorum,
            metadataWaiters,
            producerIds,
            timer,
            clock,
            config.get(BrokerConfig.AUTO_CREATE_TOPICS),
            requestTimeoutMs,
            requestTimeoutMs,
            config.get(BrokerConfig.FETCH_MAX_WAIT_LIMIT_MS),
            this::activeControllerId,
            metrics,
            AuthorizerConfig.authorizer(config, rm::image),
            quotas(config, rm, metrics, clock));
    coordinator =
        new GroupCoordinator(
            brokerId,
            BrokerConfig.coordinatorConfig(config),
            replicas,
            timer,
            clock,
            (name, partitions, rf, configs) ->
                createInternalTopic(quorum, name, partitions, rf, configs));
    replicas.setObserver(coordinator);
    quotas = ctx.quotas();
    startServer(config, tls, Handlers.create(ctx), ctx, metrics, publisher[0].servable());
    String kafkaListener = config.get(BrokerConfig.KAFKA_LISTENER);

    HostPort advertised =
        reachable(
            HostPort.parse(BrokerConfig.advertisedListener(config)),
            server.boundPort(BrokerServer.SPOOL_LISTENER));
    String host = advertised.host();
    int port = advertised.port();
    BrokerLifecycle.Settings lifecycleSettings =
        BrokerLifecycle.Settings.of(brokerId, host, port, config.get(BrokerConfig.RACK), config);
    if (!kafkaListener.isEmpty()) {
      lifecycleSettings =
          lifecycleSettings.withKafkaEndpoint(
              reachable(
                  HostPort.parse(BrokerConfig.kafkaAdvertisedListener(config)),
                  server.boundPort(KafkaProtocol.LISTENER)));
    }
    lifecycle = new BrokerLifecycle(lifecycleSettings, quorum, publisher[0], clock);
    connectLifecycle(publisher[0], BrokerConfig.replicationSettings(brokerId, config));
    registerGauges(metrics, recoveryNs);
    lifecycle.start();
    log.info(
        "{} broker started in {} ms: {} partition logs, listener {}:{}, Kafka listener {}, {}"
            + " partition workers",
        logPrefix,
        TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNs),
        logManager.all().size(),
        host,
        port,
        lifecycleSettings.kafkaEndpoint() == null ? "off" : lifecycleSettings.kafkaEndpoint(),
        workers.size());
  }

  /** The client quotas over this broker's image, and their throttle counter. */
  private static dev.spool.broker.quota.ClientQuotaManager quotas(
      Config config, ReplicaManager rm, BrokerMetrics metrics, Clock clock) {
    var quotas =
        new dev.spool.broker.quota.ClientQuotaManager(
            rm::image,
            config.get(BrokerConfig.QUOTA_WINDOW_NUM),
            config.get(BrokerConfig.QUOTA_WINDOW_SIZE_SECONDS) * 1000L,
            clock::monotonicMs);
    var byType = new java.util.LinkedHashMap<String, java.util.function.DoubleSupplier>();
    for (var kind : dev.spool.broker.quota.ClientQuotaManager.Kind.values()) {
      byType.put(kind.label, () -> quotas.throttledSeconds(kind));
    }
    metrics.counter(
        "spool_client_quota_throttle_seconds_total",
        "Throttle time asked for by each kind of client quota (produce and fetch byte rates,"
            + " request time); the connection is muted for the largest that applies.",
        "quota_type",
        byType);
    metrics.counter(
        "spool_client_request_time_seconds_total",
        "Thread time of requests whose client has a request_percentage quota, as metered against"
            + " it (event loop and partition workers).",
        quotas::requestSeconds);
    return quotas;
  }

  /**
   * What the lifecycle reads of the broker: the leadership lease it grants the replicas, and the
   * offline directories (docs/architecture.md#storage-errors) and unreachable leaders
   * (docs/architecture.md#isr-changes) its heartbeats report; and what it tells: when the broker
   * has caught up with the metadata log, so that it may serve requests.
   */
  private void connectLifecycle(MetadataPublisher publisher, ReplicationSettings rs) {
    replicas.setLeadershipLease(lifecycle::holdsLeadershipLease);
    lifecycle.setOfflineDirs(logManager::offlineDirs);
    long silenceMs = rs.replicaSilentTimeMaxMs();
    lifecycle.setUnreachableLeaders(() -> fetchers.unreachableLeaders(silenceMs));
    lifecycle.initialCatchUp().thenAccept(publisher::serveFrom);
  }

  /** The scrape-time gauges; after the lifecycle exists, whose state one of them reads. */
  private void registerGauges(BrokerMetrics metrics, long recoveryNs) {
    if (metrics.enabled()) {
      logManager.observeFlushes(metrics::logFlushed);
      BrokerGauges.register(
          metrics.registry(),
          new BrokerGauges.Sources(brokerId, replicas, fetchers, this::state, recoveryNs),
          metrics.maxLabels());
      GroupLagGauges.register(
          metrics.registry(), brokerId, coordinator, replicas, metrics.maxLabels());
    }
  }

  /** Binds Spool's listener and, when configured, Kafka's; both serve the same handlers. */
  private void startServer(
      Config config,
      SecurityConfig.Contexts tls,
      Handlers handlers,
      BrokerContext ctx,
      BrokerMetrics metrics,
      CompletableFuture<Void> servable) {
    // New key material in the files reaches new connections of both listeners and replication.
    tlsMaterial = tls.watch(config, "tls-" + brokerId);
    if (tlsMaterial != null) {
      log.info(
          "{} TLS engine: {}",
          logPrefix,
          SslContexts.engineName(SecurityConfig.SSL.read(config).engine()));
    }
    boolean spoolSasl = SecurityConfig.isSasl(config, SecurityConfig.SPOOL);
    boolean kafkaSasl =
        SecurityConfig.isSasl(config, SecurityConfig.KAFKA)
            && !config.get(BrokerConfig.KAFKA_LISTENER).isEmpty();
    if (spoolSasl || kafkaSasl) {
      saslVerifiers = SaslVerifiers.forBroker(brokerId); // both listeners' PLAIN logins
    }
    server =
        new BrokerServer(
                serverSettings(config),
                dispatcher(handlers, ctx, coordinator),
                metrics,
                spoolSasl ? saslExchange(config, handlers, logPrefix + "[spool]") : null,
                config.get(SecurityConfig.SASL_SERVER_MAX_RECEIVE_SIZE))
            .holdRequestsUntil(servable);
    // A broker starting (or restarting) serves only once it has the cluster's metadata: an empty
    // image would deny principals the ACLs allow and call existing topics unknown.
    servable.thenRun(
        () -> log.info("{} serving requests: caught up with the metadata log", logPrefix));
    if (tls.spool() != null) {
      server.tls(BrokerServer.SPOOL_LISTENER, tls.spool(), tls.clientAuth(), tls.principalMapper());
    }
    String kafkaListener = config.get(BrokerConfig.KAFKA_LISTENER);
    if (!kafkaListener.isEmpty()) {
      HostPort kl = HostPort.parse(kafkaListener);
      var kafka =
          new KafkaProtocol(
              handlers,
              coordinator,
              logPrefix,
              kafkaSasl
                  ? new KafkaProtocol.Sasl(
                      config.get(SecurityConfig.SASL_ENABLED_MECHANISMS).stream()
                          .map(String::trim)
                          .toList(),
                      config.get(SecurityConfig.SASL_SERVER_MAX_RECEIVE_SIZE),
                      config.get(SecurityConfig.CONNECTION_FAILED_AUTHENTICATION_DELAY_MS),
                      saslVerifiers)
                  : null);
      server.addListener(KafkaProtocol.LISTENER, kl.host(), kl.port(), kafka);
      if (tls.kafka() != null) {
        server.tls(KafkaProtocol.LISTENER, tls.kafka(), tls.clientAuth(), tls.principalMapper());
      }
    }
    server.start();
  }

  /**
   * The replica fetcher's wire client: TLS and the SASL login of the peers' Spool listeners, and
   * direct response frames (the fetched batches are appended to segment files as they are).
   */
  private NetworkClient replicaClient(Config config, SecurityConfig.Contexts tls, Clock clock) {
    return new NetworkClient(
        NetworkConfig.defaults("broker-" + brokerId + "-replica", "replica-fetcher-" + brokerId)
            .withDirectResponseFrames()
            .withTls(tls.replication())
            .withSasl(SecurityConfig.replicationSasl(config)),
        clock);
  }

  /** The SASL exchange of Spool's listener (docs/security.md#sasl). */
  private SaslAuthentication saslExchange(Config config, Handlers handlers, String prefix) {
    return new SaslAuthentication(
        config.get(SecurityConfig.SASL_ENABLED_MECHANISMS).stream().map(String::trim).toList(),
        handlers.context()::image,
        prefix,
        config.get(SecurityConfig.CONNECTION_FAILED_AUTHENTICATION_DELAY_MS),
        saslVerifiers,
        ScramMechanism.Credential::matches);
  }

  /** CreateTopics through the quorum for an internal topic (the offsets topic on first use). */
  private static CompletableFuture<Void> createInternalTopic(
      QuorumClient quorum, String name, int partitions, int rf, Map<String, String> configs) {
    return quorum
        .createTopics(
            CreateTopicsRequest.newBuilder()
                .addTopics(
                    CreateTopicsRequest.Topic.newBuilder()
                        .setName(name)
                        .setNumPartitions(partitions)
                        .setReplicationFactor(rf)
                        .putAllConfigs(configs))
                .build())
        .thenApply(
            r -> {
              ErrorCode code = r.getTopics(0).getErrorCode();
              if (code != ErrorCode.NONE && code != ErrorCode.TOPIC_ALREADY_EXISTS) {
                throw new SpoolException(code, r.getTopics(0).getErrorMessage());
              }
              return null;
            });
  }

  /**
   * Spool's protocol: the handlers both listeners share ({@link Handlers}) and the group APIs,
   * answered by the same coordinator as the Kafka listener's.
   */
  static RequestDispatcher dispatcher(Handlers h, BrokerContext ctx, GroupCoordinator coordinator) {
    AuthorizedGroups groups = new AuthorizedGroups(coordinator, ctx.authorizer());
    return new RequestDispatcher(ApiVersionTable.CURRENT)
        .meters(ctx::requestMeter)
        .register(ApiKey.API_VERSIONS, h.apiVersions())
        .register(ApiKey.METADATA, h.metadata())
        .register(ApiKey.PRODUCE, h.produce())
        .register(ApiKey.FETCH, h.fetch())
        .register(ApiKey.LIST_OFFSETS, h.listOffsets())
        .register(ApiKey.OFFSET_FOR_LEADER_EPOCH, h.offsetForLeaderEpoch())
        .register(ApiKey.INIT_PRODUCER_ID, h.initProducerId())
        .register(ApiKey.CREATE_TOPICS, h.createTopics())
        .register(ApiKey.CREATE_PARTITIONS, h.createPartitions())
        .register(ApiKey.DELETE_TOPICS, h.deleteTopics())
        .register(ApiKey.ELECT_LEADERS, h.electLeaders())
        .register(ApiKey.ALTER_CONFIGS, h.alterConfigs())
        .register(ApiKey.DESCRIBE_CLUSTER, h.describeCluster())
        .register(ApiKey.DESCRIBE_CONFIGS, h.describeConfigs())
        .register(ApiKey.FIND_COORDINATOR, new FindCoordinatorHandler(groups))
        .register(ApiKey.CONSUMER_GROUP_HEARTBEAT, new ConsumerGroupHeartbeatHandler(groups))
        .register(ApiKey.OFFSET_COMMIT, new OffsetCommitHandler(groups))
        .register(ApiKey.OFFSET_FETCH, new OffsetFetchHandler(groups))
        .register(ApiKey.LIST_GROUPS, new ListGroupsHandler(groups))
        .register(ApiKey.DESCRIBE_GROUPS, new DescribeGroupsHandler(groups))
        .register(ApiKey.DELETE_GROUPS, new DeleteGroupsHandler(groups))
        .register(ApiKey.OFFSET_DELETE, new OffsetDeleteHandler(groups))
        .register(ApiKey.DESCRIBE_LOGS, h.describeLogs())
        .register(ApiKey.DELETE_RECORDS, h.deleteRecords())
        .register(ApiKey.DESCRIBE_PRODUCERS, h.describeProducers())
        .register(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, h.alterUserScramCredentials())
        .register(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, h.describeUserScramCredentials())
        .register(ApiKey.DESCRIBE_FEATURES, h.describeFeatures())
        .register(ApiKey.UPDATE_FEATURES, h.updateFeatures())
        .register(ApiKey.UNREGISTER_BROKER, h.unregisterBroker())
        .register(ApiKey.ALTER_PARTITION_REASSIGNMENTS, h.alterPartitionReassignments())
        .register(ApiKey.LIST_PARTITION_REASSIGNMENTS, h.listPartitionReassignments())
        .register(ApiKey.CREATE_ACLS, h.createAcls())
        .register(ApiKey.DESCRIBE_ACLS, h.describeAcls())
        .register(ApiKey.DELETE_ACLS, h.deleteAcls())
        .register(ApiKey.ALTER_CLIENT_QUOTAS, h.alterClientQuotas())
        .register(ApiKey.DESCRIBE_CLIENT_QUOTAS, h.describeClientQuotas());
  }

  private BrokerServer.Settings serverSettings(Config config) {
    HostPort listener = HostPort.parse(config.get(BrokerConfig.LISTENER));
    return new BrokerServer.Settings(
        listener.host(),
        listener.port(),
        config.get(BrokerConfig.NUM_NETWORK_THREADS),
        config.get(BrokerConfig.SOCKET_REQUEST_MAX_BYTES),
        config.get(BrokerConfig.MAX_INFLIGHT_PER_CONNECTION),
        config.get(BrokerConfig.QUEUED_MAX_REQUEST_BYTES),
        config.get(BrokerConfig.CONNECTIONS_MAX_IDLE_MS),
        config.get(BrokerConfig.SOCKET_REQUEST_RECEIVE_TIMEOUT_MS),
        config.get(BrokerConfig.MAX_CONNECTIONS),
        config.get(BrokerConfig.MAX_CONNECTIONS_PER_IP),
        perIpOverrides(config.get(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES)),
        config.get(BrokerConfig.MAX_CONNECTION_CREATION_RATE),
        logPrefix);
  }

  /**
   * Resolves {@code max.connections.per.ip.overrides}' hosts once, at start (as Kafka): a name that
   * does not resolve fails the node with the key named.
   */
  static Map<InetAddress, Integer> perIpOverrides(List<String> entries) {
    Map<InetAddress, Integer> out = new HashMap<>();
    for (String e : entries) {
      Map.Entry<String, Integer> o = BrokerConfig.perIpOverride(e);
      try {
        for (InetAddress a : InetAddress.getAllByName(o.getKey())) {
          out.put(a, o.getValue());
        }
      } catch (UnknownHostException ex) {
        throw new ConfigException(
            BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES.name(),
            "host '" + o.getKey() + "' does not resolve");
      }
    }
    return out;
  }

  /**
   * What clients are told to connect to for a listener: a wildcard bind address becomes loopback
   * and port 0 the port actually bound.
   */
  private static HostPort reachable(HostPort advertised, int boundPort) {
    return new HostPort(
        advertised.host().equals("0.0.0.0") ? "127.0.0.1" : advertised.host(),
        advertised.port() == 0 ? boundPort : advertised.port());
  }

  static String clusterId(Config config) {
    return config.get(BrokerConfig.CLUSTER_ID);
  }

  // ---------------------------------------------------------------- accessors (any thread)

  public int brokerId() {
    return brokerId;
  }

  /** The port the client listener is bound to. */
  public int boundPort() {
    return server.boundPort();
  }

  /** The port the Kafka listener is bound to; throws when kafka.listener is not set. */
  public int kafkaBoundPort() {
    return server.boundPort(KafkaProtocol.LISTENER);
  }

  /** The current registration's broker epoch, -1 before the first registration. */
  public long brokerEpoch() {
    BrokerLifecycle l = lifecycle;
    return l == null ? -1L : l.brokerEpoch();
  }

  public BrokerState state() {
    BrokerLifecycle l = lifecycle;
    return l == null ? BrokerState.STARTING : l.state();
  }

  /**
   * Whether the active controller answered a heartbeat within the session timeout (the leadership
   * lease, docs/architecture.md): false once heartbeats stop reaching it, when the controller
   * fences this broker, even though no answer has said so. Any thread.
   */
  public boolean holdsLeadershipLease() {
    BrokerLifecycle l = lifecycle;
    return l != null && l.holdsLeadershipLease();
  }

  /**
   * Why the data directory is offline after a storage error ("" while it serves): the node is not
   * ready until it restarts on a healthy disk. Any thread.
   */
  public String offlineDirReason() {
    LogManager m = logManager;
    return m == null || !m.isOffline() ? "" : m.dataDir() + " (" + m.offlineReason() + ")";
  }

  /** This broker's metadata image. */
  public MetadataImage image() {
    return replicas.image();
  }

  /** The client quotas this broker enforces (their metrics; tests read the thread time metered). */
  public dev.spool.broker.quota.ClientQuotaManager quotas() {
    return quotas;
  }

  public ReplicaManager replicaManager() {
    return replicas;
  }

  /** The group coordinator (the Kafka-protocol listener and tests use it directly). */
  public GroupCoordinator groupCoordinator() {
    return coordinator;
  }

  public LogManager logManager() {
    return logManager;
  }

  /** The follower fetchers (status, and tests that stop a follower without stopping the broker). */
  public ReplicaFetcherManager replicaFetchers() {
    return fetchers;
  }

  // ---------------------------------------------------------------- stopping

  /**
   * Asks the quorum to move this broker's leaderships away and drop it from ISRs, waiting up to
   * {@code timeoutMs} (less when no controller answers: {@link
   * BrokerLifecycle#controlledShutdown}); the broker keeps serving meanwhile. True when the quorum
   * confirmed.
   */
  public boolean controlledShutdown(long timeoutMs) {
    BrokerLifecycle l = lifecycle;
    if (l == null || closed) {
      return false;
    }
    try {
      boolean done = l.controlledShutdown(timeoutMs);
      log.info(
          "{} controlled shutdown {}",
          logPrefix,
          done ? "confirmed by the quorum" : "not confirmed (timeout " + timeoutMs + " ms)");
      return done;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Clean stop in the order of the class comment. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    log.info("{} broker stopping", logPrefix);
    closeQuietly(server, "listener");
    closeQuietly(saslVerifiers, "SASL verifiers");
    closeQuietly(lifecycle, "lifecycle");
    closeQuietly(replicas, "replicas");
    closeQuietly(fetchers, "fetchers");
    closeQuietly(fetchClient, "fetch client");
    closeQuietly(workers, "partition workers");
    if (timer != null) {
      timer.stop();
    }
    closeQuietly(logManager, "log manager");
    closeQuietly(tlsMaterial, "TLS key material watcher");
    log.info("{} broker stopped", logPrefix);
  }

  private void closeQuietly(AutoCloseable c, String what) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      log.warn("{} closing the {} failed", logPrefix, what, e);
    }
  }
}
