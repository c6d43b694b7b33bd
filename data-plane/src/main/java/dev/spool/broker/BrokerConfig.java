package dev.spool.broker;

import dev.spool.broker.log.CleanerConfig;
import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogManagerConfig;
import dev.spool.broker.replication.ReplicationSettings;
import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.config.ConfigKey;
import dev.spool.config.TopicConfig;
import dev.spool.coordinator.group.core.ClassicSettings;
import dev.spool.coordinator.group.core.GroupSettings;
import dev.spool.coordinator.group.runtime.CoordinatorConfig;
import java.util.List;
import java.util.Map;

/**
 * Every configuration key of the data-plane module (the broker role and the node process), with its
 * default and one sentence of documentation: the one place (docs/conventions.md#typed-config). The
 * node merges this definition with the quorum's and prints both in {@code spool node start --help}.
 */
public final class BrokerConfig {
  private BrokerConfig() {}

  public static final ConfigDef DEF = new ConfigDef("node");

  // ---- node
  public static final ConfigKey<Integer> NODE_ID =
      DEF.intKey(
          "node.id",
          null,
          ConfigKey.between(1, 1_000_000),
          "This node's id, unique in the cluster (also its controller voter id).");
  public static final ConfigKey<List<String>> PROCESS_ROLES =
      DEF.listKey(
          "process.roles",
          List.of("broker", "controller"),
          BrokerConfig::validRoles,
          "Roles this node runs: broker, controller, or both (combined, the default for small clusters).");
  public static final ConfigKey<String> CLUSTER_ID =
      DEF.stringKey(
          "cluster.id",
          "spool",
          v ->
              v.matches("[A-Za-z0-9._-]{1,64}")
                  ? null
                  : "must be 1-64 characters of [A-Za-z0-9._-]",
          "Optional: the cluster's id is read from the node's formatted directories (spool storage"
              + " format --cluster-id); when set here it must name the same id. It derives the"
              + " quorum's Raft group.");
  public static final ConfigKey<String> DATA_DIR =
      DEF.stringKey(
          "data.dir",
          "./data",
          ConfigKey.nonEmpty(),
          "Directory for partition logs (and, under __cluster_metadata/, a controller's Raft log).");
  public static final ConfigKey<String> RACK =
      DEF.stringKey(
          "broker.rack",
          "",
          null,
          "Rack (or zone) of this broker; replica placement spreads replicas over racks when set.");

  // ---- network
  public static final ConfigKey<String> LISTENER =
      DEF.stringKey(
          "listener",
          "127.0.0.1:9092",
          HostPort::problem,
          "host:port the client listener binds (0.0.0.0 for all interfaces).");
  public static final ConfigKey<String> ADVERTISED_LISTENER =
      DEF.stringKey(
          "advertised.listener",
          "",
          v -> v.isEmpty() ? null : HostPort.problem(v),
          "host:port clients and other brokers use to reach this broker; defaults to listener.");
  public static final ConfigKey<String> KAFKA_LISTENER =
      DEF.stringKey(
          "kafka.listener",
          "",
          v -> v.isEmpty() ? null : HostPort.problem(v),
          "host:port of a second listener speaking Kafka's protocol, for Kafka's own clients and tools"
              + " (bootstrap.servers); off unless set.");
  public static final ConfigKey<String> KAFKA_ADVERTISED_LISTENER =
      DEF.stringKey(
          "kafka.advertised.listener",
          "",
          v -> v.isEmpty() ? null : HostPort.problem(v),
          "host:port Kafka's clients use to reach the Kafka listener (registered with the quorum and"
              + " answered in Metadata); defaults to kafka.listener.");
  public static final ConfigKey<Integer> NUM_NETWORK_THREADS =
      DEF.intKey(
          "num.network.threads",
          2,
          ConfigKey.between(1, 64),
          "Netty event-loop threads serving client connections.");
  public static final ConfigKey<Integer> NUM_PARTITION_THREADS =
      DEF.intKey(
          "num.partition.threads",
          0,
          ConfigKey.between(0, 256),
          "Threads that own partitions (append, read, replication state); 0 = one per core.");
  public static final ConfigKey<Integer> SOCKET_REQUEST_MAX_BYTES =
      DEF.intKey(
          "socket.request.max.bytes",
          100 * 1024 * 1024,
          ConfigKey.atLeast(1024),
          "Largest request frame accepted; a longer frame closes the connection.");
  public static final ConfigKey<Integer> MAX_INFLIGHT_PER_CONNECTION =
      DEF.intKey(
          "max.inflight.requests.per.connection",
          32,
          ConfigKey.between(1, 1024),
          "Unanswered requests per connection before the broker stops reading from it.");
  public static final ConfigKey<Long> QUEUED_MAX_REQUEST_BYTES =
      DEF.longKey(
          "queued.max.request.bytes",
          100L * 1024 * 1024,
          ConfigKey.atLeast(1024L * 1024),
          "Bytes all read-but-unanswered requests may hold; beyond it the broker stops reading (backpressure).");
  public static final ConfigKey<Long> CONNECTIONS_MAX_IDLE_MS =
      DEF.longKey(
          "connections.max.idle.ms",
          600_000L,
          ConfigKey.atLeast(1_000L),
          "Close connections that sent and received nothing for this long.");
  public static final ConfigKey<Long> SOCKET_REQUEST_RECEIVE_TIMEOUT_MS =
      DEF.longKey(
          "socket.request.receive.timeout.ms",
          30_000L,
          ConfigKey.atLeast(100L),
          "A request whose first bytes arrived must arrive whole within this long, or its connection is"
              + " closed (a client that starts a frame and stalls holds no memory for long).");
  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      DEF.intKey(
          "max.connections",
          Integer.MAX_VALUE,
          ConfigKey.atLeast(1),
          "Connections the broker keeps open over all its listeners; one more is closed as soon as it"
              + " is accepted (as Kafka; the default, Kafka's, sets no limit).");
  public static final ConfigKey<Integer> MAX_CONNECTIONS_PER_IP =
      DEF.intKey(
          "max.connections.per.ip",
          Integer.MAX_VALUE,
          ConfigKey.atLeast(1),
          "Connections one client address may keep open over all listeners; one more is closed as soon"
              + " as it is accepted (the default, Kafka's, sets no limit).");
  public static final ConfigKey<List<String>> MAX_CONNECTIONS_PER_IP_OVERRIDES =
      DEF.listKey(
          "max.connections.per.ip.overrides",
          List.of(),
          BrokerConfig::validPerIpOverrides,
          "host:count pairs (a name or an address; count 0 refuses every connection from it) that"
              + " replace max.connections.per.ip for those addresses, e.g. 'loadgen.internal:500,10.0.0.9:0'.");
  public static final ConfigKey<Integer> MAX_CONNECTION_CREATION_RATE =
      DEF.intKey(
          "max.connection.creation.rate",
          Integer.MAX_VALUE,
          ConfigKey.atLeast(1),
          "New connections accepted per second over all listeners; past it the listeners stop accepting"
              + " until the rate is back under it (connections wait, none is refused; Kafka's default"
              + " sets no limit).");

  // ---- log
  public static final ConfigKey<String> LOG_FLUSH_POLICY =
      DEF.stringKey(
          "log.flush.policy",
          "none",
          ConfigKey.oneOf("none", "always"),
          "none: acknowledged = in the page cache of every ISR member (Kafka's default); always: fsync before a batch counts.");
  public static final ConfigKey<Integer> LOG_RECOVERY_THREADS =
      DEF.intKey(
          "log.recovery.threads",
          2,
          ConfigKey.between(1, 64),
          "Threads that open and recover partition logs at start-up.");
  public static final ConfigKey<Long> LOG_RETENTION_CHECK_INTERVAL_MS =
      DEF.longKey(
          "log.retention.check.interval.ms",
          300_000L,
          ConfigKey.atLeast(100L),
          "How often retention deletes expired segments.");
  public static final ConfigKey<Long> CHECKPOINT_INTERVAL_MS =
      DEF.longKey(
          "replica.high.watermark.checkpoint.interval.ms",
          5_000L,
          ConfigKey.atLeast(100L),
          "How often high watermarks, recovery points and log start offsets are checkpointed.");

  public static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_MS =
      DEF.longKey(
          "producer.id.expiration.ms",
          86_400_000L,
          ConfigKey.atLeast(1L),
          "A partition forgets an idempotent producer whose newest batch is older than this (checked"
              + " with each retention pass), so producer ids that come and go do not grow its state.");

  // ---- log cleaner (compacted topics)
  public static final ConfigKey<Boolean> LOG_CLEANER_ENABLE =
      DEF.boolKey(
          "log.cleaner.enable",
          true,
          "Run the log cleaner, which compacts topics with cleanup.policy=compact (off: they grow like delete topics without retention).");
  public static final ConfigKey<Integer> LOG_CLEANER_THREADS =
      DEF.intKey(
          "log.cleaner.threads",
          1,
          ConfigKey.between(1, 64),
          "Threads that clean compacted partitions, one partition each at a time.");
  public static final ConfigKey<Long> LOG_CLEANER_DEDUPE_BUFFER_SIZE =
      DEF.longKey(
          "log.cleaner.dedupe.buffer.size",
          128L * 1024 * 1024,
          ConfigKey.atLeast(64L * 1024),
          "Memory for the cleaners' key-to-offset maps (24 bytes per key, shared by the threads, taken on first use); a clean whose keys do not fit cleans a smaller range.");
  public static final ConfigKey<Integer> LOG_CLEANER_IO_BUFFER_SIZE =
      DEF.intKey(
          "log.cleaner.io.buffer.size",
          512 * 1024,
          ConfigKey.atLeast(1024),
          "Read and write buffer of each cleaner thread (grown for a larger batch).");
  public static final ConfigKey<Double> LOG_CLEANER_IO_MAX_BYTES_PER_SECOND =
      DEF.doubleKey(
          "log.cleaner.io.max.bytes.per.second",
          Double.MAX_VALUE,
          v -> v > 0 ? null : "must be positive",
          "Bytes the cleaners read plus write per second, all threads together.");
  public static final ConfigKey<Long> LOG_CLEANER_BACKOFF_MS =
      DEF.longKey(
          "log.cleaner.backoff.ms",
          15_000L,
          ConfigKey.atLeast(1L),
          "Pause of a cleaner thread that found no partition to clean.");

  // ---- replication
  public static final ConfigKey<Long> REPLICA_LAG_TIME_MAX_MS =
      DEF.longKey(
          "replica.lag.time.max.ms",
          10_000L,
          ConfigKey.atLeast(100L),
          "A follower not caught up with the leader for this long leaves the ISR.");
  public static final ConfigKey<Long> REPLICA_SILENT_TIME_MAX_MS =
      DEF.longKey(
          "replica.silent.time.max.ms",
          2_000L,
          ConfigKey.atLeast(0L),
          "A follower from which no fetch at all reached the leader for this long leaves the ISR,"
              + " when the ISR keeps min.insync.replicas and another follower without it (a"
              + " follower cut off from its leader, whose session with the controller holds); a"
              + " follower whose fetches went unanswered this long reports its leader unreachable,"
              + " and the controller moves a leadership most of its ISR reports. 0: neither, only"
              + " replica.lag.time.max.ms shrinks the ISR. The broker takes at least twice"
              + " replica.fetch.wait.max.ms, the longest a live follower's fetches are apart.");
  public static final ConfigKey<Integer> REPLICA_FETCH_MAX_BYTES =
      DEF.intKey(
          "replica.fetch.max.bytes",
          1024 * 1024,
          ConfigKey.atLeast(1024),
          "Bytes a follower asks for per partition per fetch.");
  public static final ConfigKey<Integer> REPLICA_FETCH_RESPONSE_MAX_BYTES =
      DEF.intKey(
          "replica.fetch.response.max.bytes",
          10 * 1024 * 1024,
          ConfigKey.atLeast(1024),
          "Bytes a follower asks for per fetch over all partitions.");
  public static final ConfigKey<Integer> REPLICA_FETCH_WAIT_MAX_MS =
      DEF.intKey(
          "replica.fetch.wait.max.ms",
          500,
          ConfigKey.between(0, 60_000),
          "How long a follower fetch waits at the leader for new data.");
  public static final ConfigKey<Integer> REPLICA_SOCKET_TIMEOUT_MS =
      DEF.intKey(
          "replica.socket.timeout.ms",
          5_000,
          ConfigKey.between(100, 600_000),
          "How long past replica.fetch.wait.max.ms a follower waits for a fetch answer before it closes the "
              + "connection and connects again (a connection whose packets a healed partition dropped can "
              + "otherwise sit in TCP retransmission backoff for many seconds).");
  public static final ConfigKey<Long> REPLICA_FETCH_BACKOFF_MS =
      DEF.longKey(
          "replica.fetch.backoff.ms",
          100L,
          ConfigKey.atLeast(0L),
          "Pause before a follower retries a failed fetch.");
  public static final ConfigKey<Integer> QUOTA_WINDOW_NUM =
      DEF.intKey(
          "quota.window.num",
          11,
          ConfigKey.between(2, 1000),
          "How many windows a client quota's rate is measured over (docs/security.md#quotas).");
  public static final ConfigKey<Integer> QUOTA_WINDOW_SIZE_SECONDS =
      DEF.intKey(
          "quota.window.size.seconds",
          1,
          ConfigKey.between(1, 3600),
          "How long each window of a client quota's rate is.");
  public static final ConfigKey<Boolean> AUTO_CREATE_TOPICS =
      DEF.boolKey(
          "auto.create.topics.enable",
          false,
          "Create a topic when a client produces to or asks metadata for an unknown one (off: explicit is safer).");
  public static final ConfigKey<Long> CONTROLLED_SHUTDOWN_TIMEOUT_MS =
      DEF.longKey(
          "controlled.shutdown.timeout.ms",
          30_000L,
          ConfigKey.atLeast(0L),
          "On SIGTERM, how long to wait for the quorum to move this broker's leaderships away.");

  // ---- replica core (partition workers, purgatories, long polls)
  public static final ConfigKey<Integer> PARTITION_WORKER_QUEUE_MAX_TASKS =
      DEF.intKey(
          "partition.worker.queue.max.tasks",
          100_000,
          ConfigKey.between(100, 10_000_000),
          "Tasks one partition worker may have queued; beyond it requests for its partitions are refused.");
  public static final ConfigKey<Long> PARTITION_TICK_INTERVAL_MS =
      DEF.longKey(
          "partition.tick.interval.ms",
          100L,
          ConfigKey.between(1L, 10_000L),
          "How often each partition checks ISR lag and expires acks=all produces that waited too long.");
  public static final ConfigKey<Integer> REPLICA_MAX_PENDING_PRODUCES =
      DEF.intKey(
          "replica.max.pending.produces.per.partition",
          10_000,
          ConfigKey.between(1, 1_000_000),
          "acks=all produces that may wait for replication per partition; more are refused before appending.");
  public static final ConfigKey<Long> REPLICA_ISR_CHANGE_RETRY_BACKOFF_MS =
      DEF.longKey(
          "replica.isr.change.retry.backoff.ms",
          100L,
          ConfigKey.between(0L, 60_000L),
          "Pause before a leader proposes or resends an ISR change after one was not confirmed.");
  public static final ConfigKey<Integer> FETCH_MAX_WAITING_REQUESTS =
      DEF.intKey(
          "fetch.max.waiting.requests",
          10_000,
          ConfigKey.between(1, 1_000_000),
          "Fetches that may wait in long poll at once; more are answered at once with what they have.");
  public static final ConfigKey<Integer> FETCH_MAX_WAIT_LIMIT_MS =
      DEF.intKey(
          "fetch.max.wait.limit.ms",
          30_000,
          ConfigKey.between(0, 600_000),
          "Cap on a fetch's max_wait_ms: no long poll holds a request longer.");
  public static final ConfigKey<Integer> REQUEST_TIMEOUT_MS =
      DEF.intKey(
          "request.timeout.ms",
          30_000,
          ConfigKey.between(100, 600_000),
          "Default wait for acks=all produces and forwarded admin requests that give no timeout.");

  // ---- group coordinator (docs/architecture.md#group-coordinator)
  public static final ConfigKey<Integer> OFFSETS_TOPIC_NUM_PARTITIONS =
      DEF.intKey(
          "offsets.topic.num.partitions",
          50,
          ConfigKey.between(1, 1000),
          "Partitions of __consumer_offsets when it is created (each is one group coordinator shard).");
  public static final ConfigKey<Integer> OFFSETS_TOPIC_REPLICATION_FACTOR =
      DEF.intKey(
          "offsets.topic.replication.factor",
          3,
          ConfigKey.between(1, 32),
          "Replication factor of __consumer_offsets when it is created (capped by the live brokers).");
  public static final ConfigKey<Integer> OFFSETS_TOPIC_SEGMENT_BYTES =
      DEF.intKey(
          "offsets.topic.segment.bytes",
          100 * 1024 * 1024,
          ConfigKey.atLeast(1024 * 1024),
          "segment.bytes of __consumer_offsets (smaller segments let compaction reclaim sooner).");
  public static final ConfigKey<Integer> OFFSETS_COMMIT_TIMEOUT_MS =
      DEF.intKey(
          "offsets.commit.timeout.ms",
          5_000,
          ConfigKey.between(1, 600_000),
          "How long a coordinator write (commit, membership change) waits for replication before it fails.");
  public static final ConfigKey<Integer> OFFSETS_LOAD_BUFFER_SIZE =
      DEF.intKey(
          "offsets.load.buffer.size",
          5 * 1024 * 1024,
          ConfigKey.atLeast(64 * 1024),
          "Bytes of an offsets partition one loading step reads (loading yields the worker between steps).");
  public static final ConfigKey<Integer> OFFSET_METADATA_MAX_BYTES =
      DEF.intKey(
          "offset.metadata.max.bytes",
          4096,
          ConfigKey.atLeast(0),
          "Largest metadata string a committed offset may carry.");
  public static final ConfigKey<Integer> GROUP_MAX_SIZE =
      DEF.intKey(
          "group.max.size",
          1000,
          ConfigKey.atLeast(1),
          "Most members a consumer group may have; the next one to join gets GROUP_MAX_SIZE_REACHED.");
  public static final ConfigKey<Integer> GROUP_CONSUMER_SESSION_TIMEOUT_MS =
      DEF.intKey(
          "group.consumer.session.timeout.ms",
          10_000,
          ConfigKey.between(100, 3_600_000),
          "A member that sends no heartbeat for this long leaves its group; its partitions move.");
  public static final ConfigKey<Integer> GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS =
      DEF.intKey(
          "group.consumer.heartbeat.interval.ms",
          300,
          ConfigKey.between(10, 600_000),
          "How often members heartbeat; a rebalance takes about two intervals.");
  public static final ConfigKey<List<String>> GROUP_CONSUMER_ASSIGNORS =
      DEF.listKey(
          "group.consumer.assignors",
          List.of("uniform", "range"),
          BrokerConfig::validAssignors,
          "Server-side assignors members may ask for (uniform, range); the first is the default.");

  public static final ConfigKey<Integer> GROUP_INITIAL_REBALANCE_DELAY_MS =
      DEF.intKey(
          "group.initial.rebalance.delay.ms",
          3_000,
          ConfigKey.between(0, 600_000),
          "How long the first rebalance of an empty classic group waits for more members to join.");
  public static final ConfigKey<Integer> GROUP_MIN_SESSION_TIMEOUT_MS =
      DEF.intKey(
          "group.min.session.timeout.ms",
          6_000,
          ConfigKey.between(1, 3_600_000),
          "Smallest session.timeout.ms a classic group member may ask for.");
  public static final ConfigKey<Integer> GROUP_MAX_SESSION_TIMEOUT_MS =
      DEF.intKey(
          "group.max.session.timeout.ms",
          1_800_000,
          ConfigKey.between(1, 3_600_000),
          "Largest session.timeout.ms a classic group member may ask for.");

  /** Parses and checks relations between keys; throws {@link ConfigException} naming the key. */
  public static Config parse(Map<String, String> props) {
    return DEF.parse(props);
  }

  /** The log manager's settings; partitions opened at startup use the topic defaults. */
  public static LogManagerConfig logManagerConfig(Config c) {
    return new LogManagerConfig(
        c.get(LOG_RECOVERY_THREADS),
        c.get(LOG_RETENTION_CHECK_INTERVAL_MS),
        c.get(CHECKPOINT_INTERVAL_MS),
        c.get(PRODUCER_ID_EXPIRATION_MS),
        LogConfig.from(TopicConfig.parse(Map.of()), c.get(LOG_FLUSH_POLICY).equals("always")),
        new CleanerConfig(
            c.get(LOG_CLEANER_ENABLE),
            c.get(LOG_CLEANER_THREADS),
            c.get(LOG_CLEANER_DEDUPE_BUFFER_SIZE),
            c.get(LOG_CLEANER_IO_BUFFER_SIZE),
            c.get(LOG_CLEANER_IO_MAX_BYTES_PER_SECOND),
            c.get(LOG_CLEANER_BACKOFF_MS)));
  }

  /** The replication settings of broker {@code brokerId}. */
  public static ReplicationSettings replicationSettings(int brokerId, Config c) {
    return new ReplicationSettings(
        brokerId,
        c.get(REPLICA_LAG_TIME_MAX_MS),
        c.get(REPLICA_MAX_PENDING_PRODUCES),
        c.get(REPLICA_ISR_CHANGE_RETRY_BACKOFF_MS),
        replicaSilentTimeMaxMs(c));
  }

  /**
   * {@link #REPLICA_SILENT_TIME_MAX_MS} as the partitions use it: {@link Long#MAX_VALUE} when off,
   * else at least twice {@link #REPLICA_FETCH_WAIT_MAX_MS} (a live follower with nothing to fetch
   * sends one fetch per wait: a shorter silence would drop it for being idle).
   */
  static long replicaSilentTimeMaxMs(Config c) {
    long configured = c.get(REPLICA_SILENT_TIME_MAX_MS);
    if (configured == 0) {
      return Long.MAX_VALUE;
    }
    return Math.max(configured, 2L * c.get(REPLICA_FETCH_WAIT_MAX_MS));
  }

  /** {@link #logManagerConfig} of a config that sets nothing: for tests and offline tools. */
  public static LogManagerConfig defaultLogManagerConfig() {
    return logManagerConfig(DEF.defaults());
  }

  /** {@link #replicationSettings} of a config that sets nothing: for tests. */
  public static ReplicationSettings defaultReplicationSettings(int brokerId) {
    return replicationSettings(brokerId, DEF.defaults());
  }

  public static boolean isBroker(Config c) {
    return c.get(PROCESS_ROLES).contains("broker");
  }

  public static boolean isController(Config c) {
    return c.get(PROCESS_ROLES).contains("controller");
  }

  /** The address other parties use for this broker: advertised.listener, else listener. */
  public static String advertisedListener(Config c) {
    String adv = c.get(ADVERTISED_LISTENER);
    return adv.isEmpty() ? c.get(LISTENER) : adv;
  }

  /** The Kafka listener's address for clients, or "" when it is off. */
  public static String kafkaAdvertisedListener(Config c) {
    String adv = c.get(KAFKA_ADVERTISED_LISTENER);
    return adv.isEmpty() ? c.get(KAFKA_LISTENER) : adv;
  }

  /** The group coordinator's settings. */
  public static CoordinatorConfig coordinatorConfig(Config c) {
    if (c.get(GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS) >= c.get(GROUP_CONSUMER_SESSION_TIMEOUT_MS)) {
      throw new ConfigException(
          GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS.name(),
          "must be below group.consumer.session.timeout.ms");
    }
    return new CoordinatorConfig(
        c.get(OFFSETS_TOPIC_NUM_PARTITIONS),
        c.get(OFFSETS_TOPIC_REPLICATION_FACTOR),
        c.get(OFFSETS_TOPIC_SEGMENT_BYTES),
        c.get(OFFSETS_COMMIT_TIMEOUT_MS),
        c.get(OFFSETS_LOAD_BUFFER_SIZE),
        new GroupSettings(
            c.get(GROUP_CONSUMER_SESSION_TIMEOUT_MS),
            c.get(GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS),
            c.get(GROUP_MAX_SIZE),
            c.get(OFFSET_METADATA_MAX_BYTES),
            GroupSettings.assignors(c.get(GROUP_CONSUMER_ASSIGNORS)),
            new ClassicSettings(
                c.get(GROUP_INITIAL_REBALANCE_DELAY_MS),
                c.get(GROUP_MIN_SESSION_TIMEOUT_MS),
                c.get(GROUP_MAX_SESSION_TIMEOUT_MS),
                // Room for the batch and record framing and the key within one batch.
                TopicConfig.MAX_MESSAGE_BYTES.defaultValue() - 1024)));
  }

  /**
   * Splits a {@code max.connections.per.ip.overrides} entry at its last ':' into host and count;
   * null when it is not {@code host:count} with a count of at least 0.
   */
  public static Map.Entry<String, Integer> perIpOverride(String entry) {
    int colon = entry.lastIndexOf(':');
    if (colon <= 0 || colon == entry.length() - 1) {
      return null;
    }
    try {
      int count = Integer.parseInt(entry.substring(colon + 1));
      return count < 0 ? null : Map.entry(entry.substring(0, colon), count);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String validPerIpOverrides(List<String> entries) {
    for (String e : entries) {
      if (perIpOverride(e) == null) {
        return "has '" + e + "': each entry must be host:count with a count of at least 0";
      }
    }
    return null;
  }

  private static String validAssignors(List<String> names) {
    if (names.isEmpty()) {
      return "must name at least one assignor";
    }
    for (String n : names) {
      if (!n.equals("uniform") && !n.equals("range")) {
        return "has unknown assignor '" + n + "' (assignors: uniform, range)";
      }
    }
    return null;
  }

  private static String validRoles(List<String> roles) {
    if (roles.isEmpty()) {
      return "must name at least one role";
    }
    for (String r : roles) {
      if (!r.equals("broker") && !r.equals("controller")) {
        return "has unknown role '" + r + "' (roles: broker, controller)";
      }
    }
    return null;
  }
}
