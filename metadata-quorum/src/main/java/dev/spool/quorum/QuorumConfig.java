package dev.spool.quorum;

import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.config.ConfigKey;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.image.MetadataVersion;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every configuration key of the metadata quorum module, in one place
 * (docs/conventions.md#typed-config): the controller role (Raft timing, snapshots, controller
 * duties, topic-creation defaults) and the broker side of broker↔quorum communication (heartbeats,
 * sessions, client timeouts). The node merges {@link #DEF} into {@code spool node start --help} and
 * passes the parsed {@link Config} to {@link #validate}, then to {@link QuorumSettings} / {@link
 * QuorumClientSettings}.
 *
 * <p>Timing defaults and why (metadata-quorum/README.md, "Timing";
 * docs/ratis.md#p6-election-timeouts): the failover target is a committed write within 2 s (p99) of
 * a SIGKILL of the active controller. Ratis' measured failover on a loaded 2-core machine is about
 * 1–1.5 × the maximum election timeout plus one client retry round, so the election timeout is
 * 400–800 ms (the 150–300 ms Ratis default churned under CPU load). Partition-leader failover must
 * finish within 3 s: session 1500 ms + one heartbeat (250 ms) + a tick (100 ms) + a commit + one
 * heartbeat to spread the news ≈ 2.2 s.
 */
public final class QuorumConfig {
  private QuorumConfig() {}

  public static final ConfigDef DEF = new ConfigDef("metadata quorum");

  // ---------------------------------------------------------------- the quorum itself

  public static final ConfigKey<String> VOTERS =
      DEF.stringKey(
          "controller.quorum.voters",
          null,
          QuorumConfig::checkVoters,
          "The controllers of the metadata quorum as id@host:port,id@host:port,... (every node lists the same).");
  public static final ConfigKey<String> LISTENER =
      DEF.stringKey(
          "controller.quorum.listener",
          "",
          QuorumConfig::checkListener,
          "host:port of this controller's Raft server when its node.id is not among"
              + " controller.quorum.voters: a new controller that joins the running quorum (as a"
              + " listener, then a voter through spool quorum add-voter) and starts with an empty"
              + " group. Empty: the node's own voters entry (docs/operations.md#dynamic-controller-quorum).");
  public static final ConfigKey<String> BIND_HOST =
      DEF.stringKey(
          "controller.quorum.bind.host",
          "127.0.0.1",
          ConfigKey.nonEmpty(),
          "Address a controller listens on for Raft traffic (loopback unless set: the port accepts"
              + " controller writes from anyone who reaches it); the port is its own voters entry's port.");
  public static final ConfigKey<String> METADATA_LOG_DIR =
      DEF.stringKey(
          "metadata.log.dir",
          "",
          null,
          "Directory of a controller's Raft log and snapshots; required on controllers.");
  public static final ConfigKey<Integer> ELECTION_TIMEOUT_MIN_MS =
      DEF.intKey(
          "controller.quorum.election.timeout.min.ms",
          400,
          ConfigKey.between(50, 60_000),
          "Lower bound of the randomised Raft election timeout.");
  public static final ConfigKey<Integer> ELECTION_TIMEOUT_MAX_MS =
      DEF.intKey(
          "controller.quorum.election.timeout.max.ms",
          800,
          ConfigKey.between(100, 120_000),
          "Upper bound of the randomised Raft election timeout.");
  public static final ConfigKey<Integer> SERVER_RPC_TIMEOUT_MS =
      DEF.intKey(
          "controller.quorum.server.rpc.timeout.ms",
          3000,
          ConfigKey.between(100, 60_000),
          "Timeout of one controller-to-controller Raft request.");
  public static final ConfigKey<Integer> SNAPSHOT_THRESHOLD_ENTRIES =
      DEF.intKey(
          "metadata.snapshot.threshold.entries",
          20_000,
          ConfigKey.between(100, 10_000_000),
          "Take a snapshot of the metadata image after this many log entries since the last one.");
  public static final ConfigKey<Integer> SNAPSHOT_RETENTION_FILES =
      DEF.intKey(
          "metadata.snapshot.retention.files",
          2,
          ConfigKey.between(1, 100),
          "Snapshot files a controller keeps.");
  public static final ConfigKey<Integer> LOG_SEGMENT_BYTES =
      DEF.intKey(
          "metadata.log.segment.bytes",
          4 * 1024 * 1024,
          ConfigKey.between(64 * 1024, 1 << 30),
          "Size of a Raft log segment; logs are purged after snapshots per closed segment.");

  // ---------------------------------------------------------------- controller duties

  public static final ConfigKey<Integer> TICK_INTERVAL_MS =
      DEF.intKey(
          "controller.tick.interval.ms",
          100,
          ConfigKey.between(10, 10_000),
          "How often the active controller checks broker sessions and repairs partitions.");
  public static final ConfigKey<Boolean> AUTO_LEADER_REBALANCE =
      DEF.boolKey(
          "auto.leader.rebalance.enable",
          true,
          "Move partition leadership back to the preferred (first) replica when it is in sync.");
  public static final ConfigKey<Long> LEADER_IMBALANCE_CHECK_INTERVAL_MS =
      DEF.longKey(
          "leader.imbalance.check.interval.ms",
          30_000L,
          ConfigKey.between(100L, 86_400_000L),
          "How often the active controller moves leaders back to preferred replicas.");
  public static final ConfigKey<Integer> DEFAULT_REPLICATION_FACTOR =
      DEF.intKey(
          "default.replication.factor",
          3,
          ConfigKey.between(1, 32),
          "Replication factor of topics created with -1, capped by the number of live brokers.");
  public static final ConfigKey<Integer> NUM_PARTITIONS =
      DEF.intKey(
          "num.partitions",
          1,
          ConfigKey.between(1, 10_000),
          "Partition count of topics created with -1.");
  public static final ConfigKey<Integer> MAX_PARTITIONS_PER_TOPIC =
      DEF.intKey(
          "controller.max.partitions.per.topic",
          10_000,
          ConfigKey.between(1, 1_000_000),
          "Largest partition count a topic may be created with.");
  public static final ConfigKey<Integer> PRODUCER_ID_BLOCK_SIZE =
      DEF.intKey(
          "producer.id.block.size",
          1000,
          ConfigKey.between(1, 1_000_000),
          "Producer ids handed to a broker per allocation.");
  public static final ConfigKey<Integer> MAX_REQUEST_BYTES =
      DEF.intKey(
          "controller.max.request.bytes",
          1024 * 1024,
          ConfigKey.between(1024, 64 * 1024 * 1024),
          "Largest request the quorum accepts; larger ones are refused with INVALID_REQUEST.");
  public static final ConfigKey<Integer> MAX_RECORDS_PER_WRITE =
      DEF.intKey(
          "controller.max.records.per.write",
          2000,
          ConfigKey.between(10, 100_000),
          "Most records one controller write (fencing, repairs, balancing) carries; the rest waits a tick.");
  public static final ConfigKey<Integer> RING_BATCHES =
      DEF.intKey(
          "controller.metadata.ring.batches",
          10_000,
          ConfigKey.between(10, 10_000_000),
          "Recent metadata batches each controller keeps for brokers; older brokers get a full image.");
  public static final ConfigKey<Integer> MAX_BATCHES_PER_HEARTBEAT =
      DEF.intKey(
          "broker.heartbeat.max.batches",
          1000,
          ConfigKey.between(1, 100_000),
          "Most metadata batches in one heartbeat answer; the broker asks again at once for the rest.");

  // ---------------------------------------------------------------- brokers <-> quorum

  public static final ConfigKey<Integer> HEARTBEAT_INTERVAL_MS =
      DEF.intKey(
          "broker.heartbeat.interval.ms",
          250,
          ConfigKey.between(10, 60_000),
          "How often a broker heartbeats the active controller (and so receives new metadata).");
  public static final ConfigKey<Integer> SESSION_TIMEOUT_MS =
      DEF.intKey(
          "broker.session.timeout.ms",
          1500,
          ConfigKey.between(50, 600_000),
          "A broker without a heartbeat for this long is fenced and its partitions get new leaders;"
              + " a broker whose heartbeats went unanswered for this long stops leading first.");
  public static final ConfigKey<Integer> CLIENT_REQUEST_TIMEOUT_MS =
      DEF.intKey(
          "controller.quorum.request.timeout.ms",
          1500,
          ConfigKey.between(50, 120_000),
          "Timeout of one attempt of a broker's request to the quorum before it tries another controller.");
  public static final ConfigKey<Integer> CLIENT_RETRY_BACKOFF_MS =
      DEF.intKey(
          "controller.quorum.retry.backoff.ms",
          50,
          ConfigKey.between(1, 60_000),
          "Pause between attempts of a broker's request to the quorum.");
  public static final ConfigKey<Integer> CLIENT_TOTAL_TIMEOUT_MS =
      DEF.intKey(
          "controller.quorum.total.timeout.ms",
          10_000,
          ConfigKey.between(100, 600_000),
          "How long a broker's request to the quorum retries before failing with QUORUM_UNAVAILABLE.");
  public static final ConfigKey<Integer> REGISTRATION_BACKOFF_MAX_MS =
      DEF.intKey(
          "broker.registration.backoff.max.ms",
          2000,
          ConfigKey.between(10, 600_000),
          "Longest pause between a broker's registration attempts (the pause doubles up to this).");

  public static final ConfigKey<String> METADATA_VERSIONS_FOR_TESTING =
      DEF.stringKey(
          "controller.metadata.version.range.for.testing",
          "",
          QuorumConfig::checkRangeForTesting,
          "TESTS ONLY, never set in production: the metadata.version range MIN..MAX this controller"
              + " claims to support, a part of this build's own range, so that a test can run a"
              + " controller that acts like an older release. Empty: this build's range.");

  /** Checks the relations between keys; throws {@link ConfigException} naming the keys. */
  public static Config validate(Config c) {
    if (c.get(SESSION_TIMEOUT_MS) <= 2 * c.get(HEARTBEAT_INTERVAL_MS)) {
      throw new ConfigException(
          null,
          SESSION_TIMEOUT_MS.name()
              + " ("
              + c.get(SESSION_TIMEOUT_MS)
              + ") must be more than twice "
              + HEARTBEAT_INTERVAL_MS.name()
              + " ("
              + c.get(HEARTBEAT_INTERVAL_MS)
              + ")");
    }
    if (c.get(ELECTION_TIMEOUT_MAX_MS) <= c.get(ELECTION_TIMEOUT_MIN_MS)) {
      throw new ConfigException(
          null,
          ELECTION_TIMEOUT_MAX_MS.name()
              + " must be larger than "
              + ELECTION_TIMEOUT_MIN_MS.name());
    }
    if (c.get(CLIENT_TOTAL_TIMEOUT_MS) < c.get(CLIENT_REQUEST_TIMEOUT_MS)) {
      throw new ConfigException(
          null,
          CLIENT_TOTAL_TIMEOUT_MS.name() + " must be at least " + CLIENT_REQUEST_TIMEOUT_MS.name());
    }
    if (c.get(TICK_INTERVAL_MS) >= c.get(SESSION_TIMEOUT_MS)) {
      throw new ConfigException(
          null, TICK_INTERVAL_MS.name() + " must be below " + SESSION_TIMEOUT_MS.name());
    }
    return c;
  }

  /** Parses and validates (unknown keys are rejected). */
  public static Config parse(Map<String, String> props) {
    return validate(DEF.parse(props));
  }

  /** Parses {@code id@host:port,id@host:port}; ids unique, at least one voter. */
  public static Map<Integer, HostPort> parseVoters(String s) {
    Map<Integer, HostPort> voters = new LinkedHashMap<>();
    for (String part : s.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      int at = p.indexOf('@');
      if (at <= 0) {
        throw new IllegalArgumentException("voter '" + p + "' is not id@host:port");
      }
      int id;
      try {
        id = Integer.parseInt(p.substring(0, at));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("voter '" + p + "' has a bad id");
      }
      if (id < 0) {
        throw new IllegalArgumentException("voter id must be >= 0: " + p);
      }
      if (voters.put(id, HostPort.parse(p.substring(at + 1))) != null) {
        throw new IllegalArgumentException("voter id " + id + " appears twice");
      }
    }
    if (voters.isEmpty()) {
      throw new IllegalArgumentException("no voters");
    }
    return voters;
  }

  /** The range {@link #METADATA_VERSIONS_FOR_TESTING} names, or this build's when it is empty. */
  static MetadataVersion.Range metadataVersions(Config c) {
    String s = c.get(METADATA_VERSIONS_FOR_TESTING);
    if (s.isEmpty()) {
      return MetadataVersion.SUPPORTED;
    }
    String[] minMax = s.split("\\.\\.", -1);
    return new MetadataVersion.Range(
        Integer.parseInt(minMax[0].trim()), Integer.parseInt(minMax[1].trim()));
  }

  private static String checkRangeForTesting(String s) {
    if (s.isEmpty()) {
      return null;
    }
    String[] minMax = s.split("\\.\\.", -1);
    try {
      if (minMax.length == 2) {
        MetadataVersion.Range r =
            new MetadataVersion.Range(
                Integer.parseInt(minMax[0].trim()), Integer.parseInt(minMax[1].trim()));
        if (MetadataVersion.SUPPORTED.contains(r.min())
            && MetadataVersion.SUPPORTED.contains(r.max())) {
          return null;
        }
      }
    } catch (IllegalArgumentException e) {
      // not numbers, or not 1 <= min <= max: refused below
    }
    return "is not MIN..MAX within this build's range " + MetadataVersion.SUPPORTED;
  }

  private static String checkListener(String s) {
    if (s.isEmpty()) {
      return null;
    }
    try {
      HostPort.parse(s);
      return null;
    } catch (IllegalArgumentException e) {
      return "is not host:port (" + e.getMessage() + ")";
    }
  }

  private static String checkVoters(String s) {
    try {
      parseVoters(s);
      return null;
    } catch (IllegalArgumentException e) {
      return "is not a voter list (" + e.getMessage() + ")";
    }
  }

  /** The controller settings of a config that sets nothing: the keys' defaults, for tests. */
  public static ControllerSettings defaultControllerSettings() {
    return controllerSettings(DEF.defaults());
  }

  /** The settings the pure controller decisions use. */
  public static ControllerSettings controllerSettings(Config c) {
    return new ControllerSettings(
        c.get(SESSION_TIMEOUT_MS),
        c.get(HEARTBEAT_INTERVAL_MS),
        c.get(DEFAULT_REPLICATION_FACTOR),
        c.get(NUM_PARTITIONS),
        c.get(MAX_PARTITIONS_PER_TOPIC),
        c.get(PRODUCER_ID_BLOCK_SIZE),
        c.get(AUTO_LEADER_REBALANCE),
        c.get(LEADER_IMBALANCE_CHECK_INTERVAL_MS),
        c.get(MAX_RECORDS_PER_WRITE),
        c.get(MAX_BATCHES_PER_HEARTBEAT),
        metadataVersions(c),
        MetadataVersion.UNSET,
        List.of());
  }
}
