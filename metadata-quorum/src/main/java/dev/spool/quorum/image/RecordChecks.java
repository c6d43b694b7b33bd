package dev.spool.quorum.image;

import dev.spool.common.AclBinding;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.message.AccessControlEntryRecord;
import dev.spool.quorum.message.AddPartitionsRecord;
import dev.spool.quorum.message.ConfigRecord;
import dev.spool.quorum.message.FeatureLevelRecord;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.PartitionChangeRecord;
import dev.spool.quorum.message.PartitionRecord;
import dev.spool.quorum.message.RecordResult;
import dev.spool.quorum.message.RegisterBrokerRecord;
import dev.spool.quorum.message.ReplicationThrottleRecord;
import dev.spool.quorum.message.ScramCredentialRecord;
import dev.spool.quorum.message.TopicRecord;
import java.util.List;

/**
 * The checks a metadata record must pass on its own, whatever the image: names that become paths (a
 * topic's name is its partitions' directory names on every broker) and sizes that become memory on
 * every replica. The controller's decisions never propose a record that fails them; they are
 * checked again where a record is proposed raw (a controller write) and where every record is
 * replayed ({@link MetadataApplier}), because the quorum's port has no authentication yet and a
 * record that got into the Raft log by any path must still not become a directory outside the data
 * dir. Pure functions of the record, so every replica refuses the same records.
 *
 * <p>Stateless; thread-safe.
 */
public final class RecordChecks {
  /** Kafka's limit: a partition directory {@code <topic>-<partition>} fits in 255 bytes. */
  public static final int MAX_TOPIC_NAME_CHARS = 249;

  /** Topic ids are UUID strings (36 characters); the limit leaves room and no more. */
  static final int MAX_TOPIC_ID_CHARS = 64;

  static final int MAX_CONFIG_KEY_CHARS = 255;
  static final int MAX_CONFIG_VALUE_CHARS = 32 * 1024;

  /** A DNS name is at most 253 characters. */
  static final int MAX_HOST_CHARS = 255;

  static final int MAX_RACK_CHARS = 255;
  static final int MAX_INCARNATION_ID_CHARS = 64;

  /** Far above any replication factor (its config is capped at 32), far below harm. */
  public static final int MAX_REPLICAS = 1024;

  /** The controller's own bound on a topic's partition count is far lower (its config). */
  static final int MAX_ADDED_PARTITIONS = 100_000;

  /** A SCRAM user name: as Kafka's principal names are bounded in practice, and no further. */
  public static final int MAX_USER_NAME_CHARS = 255;

  /** Salts are 32 bytes when Spool's clients make them; room for other tools, no more. */
  static final int MAX_SALT_BYTES = 1024;

  /** A path as Linux bounds it (PATH_MAX). */
  static final int MAX_DIR_CHARS = 4096;

  /** Far above the directories a broker has. */
  static final int MAX_OFFLINE_DIRS = 64;

  /**
   * Whether {@code s} is one or more of [a-zA-Z0-9._-]. A loop, not a regex: every replica checks
   * the topic id of every partition record it replays, and a matcher per record showed in profiles.
   */
  static boolean legalName(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private RecordChecks() {}

  /** Null when {@code name} is a legal Kafka topic name, else why not. */
  public static String checkTopicName(String name) {
    if (name == null || name.isEmpty()) {
      return "topic name is empty";
    }
    if (name.equals(".") || name.equals("..")) {
      return "topic name cannot be '.' or '..'";
    }
    if (name.length() > MAX_TOPIC_NAME_CHARS) {
      return "topic name is longer than " + MAX_TOPIC_NAME_CHARS + " characters";
    }
    if (!legalName(name)) {
      return "topic name '"
          + name
          + "' has characters other than ASCII letters, digits, '.', '_' and '-'";
    }
    return null;
  }

  /**
   * Null when {@code user} is a legal SCRAM user name, else why not: 1 to {@link
   * #MAX_USER_NAME_CHARS} characters, none of them a control character (PLAIN separates fields with
   * NUL; a newline would forge log lines). ',' and '=' are allowed: SCRAM escapes them.
   */
  public static String checkUserName(String user) {
    if (user == null || user.isEmpty()) {
      return "user name is empty";
    }
    if (user.length() > MAX_USER_NAME_CHARS) {
      return "user name is longer than " + MAX_USER_NAME_CHARS + " characters";
    }
    if (user.chars().anyMatch(Character::isISOControl)) {
      return "user name '"
          + truncate(user.replaceAll("\\p{Cntrl}", "?"))
          + "' has control characters";
    }
    return null;
  }

  /** Null when {@code iterations} is within SCRAM's bounds, else why not. */
  public static String checkIterations(int iterations) {
    if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
      return "iterations "
          + iterations
          + " is outside "
          + ScramMechanism.MIN_ITERATIONS
          + ".."
          + ScramMechanism.MAX_ITERATIONS;
    }
    return null;
  }

  /** Null when {@code r} passes every record-local check, else the refusal to answer. */
  public static RecordResult check(MetadataRecord r) {
    return switch (r.getRecordCase()) {
      case TOPIC -> topic(r.getTopic());
      case PARTITION -> partition(r.getPartition());
      case ADD_PARTITIONS -> addPartitions(r.getAddPartitions());
      case PARTITION_CHANGE -> partitionChange(r.getPartitionChange());
      case REPLICATION_THROTTLE -> replicationThrottle(r.getReplicationThrottle());
      case CONFIG -> config(r.getConfig());
      case REGISTER_BROKER -> registerBroker(r.getRegisterBroker());
      case REMOVE_TOPIC -> topicId(r.getRemoveTopic().getTopicId());
      case SCRAM_CREDENTIAL -> scramCredential(r.getScramCredential());
      case REMOVE_SCRAM_CREDENTIAL ->
          userAndMechanism(
              r.getRemoveScramCredential().getUser(), r.getRemoveScramCredential().getMechanism());
      case FEATURE_LEVEL -> featureLevel(r.getFeatureLevel());
      case BROKER_DIRS_OFFLINE -> offlineDirs(r.getBrokerDirsOffline().getDirectoriesList());
      case ACL -> acl(r.getAcl());
      case REMOVE_ACL -> aclId(r.getRemoveAcl().getId());
      case CLIENT_QUOTA -> clientQuota(r.getClientQuota());
      default -> null;
    };
  }

  /**
   * Whether {@code dirs} may go into a record of offline directories: 1 to 64 of them, each 1 to
   * 4096 characters (the controller checks a heartbeat's report with it before writing one).
   */
  public static boolean validOfflineDirs(List<String> dirs) {
    return offlineDirs(dirs) == null;
  }

  /** At least one directory, each a non-empty path of bounded length, a bounded count. */
  private static RecordResult offlineDirs(List<String> dirs) {
    if (dirs.isEmpty() || dirs.size() > MAX_OFFLINE_DIRS) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_RECORD,
          "an offline-directories record names 1-"
              + MAX_OFFLINE_DIRS
              + " directories, not "
              + dirs.size());
    }
    for (String d : dirs) {
      if (d.isEmpty() || d.length() > MAX_DIR_CHARS) {
        return MetadataApplier.reject(
            ErrorCode.INVALID_RECORD,
            "offline directory '" + truncate(d) + "' is not 1-" + MAX_DIR_CHARS + " characters");
      }
    }
    return null;
  }

  /** The only feature is metadata.version; levels start at 1 (docs/architecture.md). */
  private static RecordResult featureLevel(FeatureLevelRecord f) {
    if (!f.getName().equals(MetadataVersion.FEATURE)) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_RECORD,
          "unknown feature '"
              + truncate(f.getName())
              + "' (known: "
              + MetadataVersion.FEATURE
              + ")");
    }
    if (f.getFeatureLevel() < MetadataVersion.V1) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_RECORD,
          MetadataVersion.FEATURE + " level " + f.getFeatureLevel() + " is below 1");
    }
    return null;
  }

  private static RecordResult topic(TopicRecord t) {
    String problem = checkTopicName(t.getName());
    if (problem != null) {
      return MetadataApplier.reject(ErrorCode.INVALID_TOPIC, problem);
    }
    return topicId(t.getTopicId());
  }

  /** An ACL's own checks (AclBinding#check), its enums by name and its id as a topic id's. */
  private static RecordResult acl(AccessControlEntryRecord r) {
    RecordResult idProblem = aclId(r.getId());
    if (idProblem != null) {
      return idProblem;
    }
    AclBinding a = Records.aclBinding(r);
    String problem =
        a == null
            ? "unknown resource type, pattern type, operation or permission in ACL: "
                + truncate(
                    r.getResourceType()
                        + " "
                        + r.getPatternType()
                        + " "
                        + r.getOperation()
                        + " "
                        + r.getPermission())
            : a.check();
    return problem == null
        ? null
        : MetadataApplier.reject(ErrorCode.INVALID_ACL, "ACL " + r.getId() + ": " + problem);
  }

  /** The entity's names and the key, and a value above 0 unless the key is removed. */
  private static RecordResult clientQuota(dev.spool.quorum.message.ClientQuotaRecord r) {
    var entity = Records.clientQuotaEntity(r);
    String problem = entity.check();
    if (problem == null) {
      problem =
          r.getRemove()
              ? dev.spool.common.ClientQuotaEntity.checkKey(r.getKey())
              : dev.spool.common.ClientQuotaEntity.checkValue(r.getKey(), r.getValue());
    }
    return problem == null
        ? null
        : MetadataApplier.reject(ErrorCode.INVALID_REQUEST, "client quota: " + problem);
  }

  private static RecordResult aclId(String id) {
    RecordResult r = topicId(id);
    return r == null
        ? null
        : MetadataApplier.reject(
            ErrorCode.INVALID_ACL, "ACL id '" + truncate(id) + "' is not legal");
  }

  /** Topic ids are only compared and written into files, but they are names all the same. */
  private static RecordResult topicId(String id) {
    if (id.isEmpty()
        || id.length() > MAX_TOPIC_ID_CHARS
        || id.equals(".")
        || id.equals("..")
        || !legalName(id)) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_RECORD,
          "topic id '"
              + truncate(id)
              + "' is not 1-"
              + MAX_TOPIC_ID_CHARS
              + " characters of [a-zA-Z0-9._-]");
    }
    return null;
  }

  private static RecordResult partition(PartitionRecord p) {
    RecordResult idProblem = topicId(p.getTopicId());
    return idProblem != null ? idProblem : replicas(p.getReplicasList(), p.getIsrList());
  }

  private static RecordResult replicationThrottle(ReplicationThrottleRecord t) {
    return t.getBytesPerSec() < 0
        ? MetadataApplier.reject(
            ErrorCode.INVALID_RECORD, "replication throttle " + t.getBytesPerSec() + " B/s")
        : null;
  }

  private static RecordResult addPartitions(AddPartitionsRecord a) {
    if (a.getPartitionsCount() > MAX_ADDED_PARTITIONS) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_RECORD,
          a.getPartitionsCount() + " partitions added at once: at most " + MAX_ADDED_PARTITIONS);
    }
    RecordResult problem = topicId(a.getTopicId());
    for (int i = 0; problem == null && i < a.getPartitionsCount(); i++) {
      PartitionRecord p = a.getPartitions(i);
      problem =
          p.getAddingReplicasCount() + p.getRemovingReplicasCount() > 0
              ? MetadataApplier.reject(
                  ErrorCode.INVALID_RECORD, "a partition added to a topic is being reassigned")
              : partition(p);
    }
    return problem;
  }

  private static RecordResult partitionChange(PartitionChangeRecord p) {
    RecordResult idProblem = topicId(p.getTopicId());
    return idProblem != null ? idProblem : replicas(p.getReplicasList(), p.getIsrList());
  }

  private static RecordResult replicas(List<Integer> replicas, List<Integer> isr) {
    if (replicas.size() > MAX_REPLICAS || isr.size() > MAX_REPLICAS) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_RECORD,
          replicas.size() + " replicas (" + isr.size() + " in sync): at most " + MAX_REPLICAS);
    }
    return null;
  }

  private static RecordResult config(ConfigRecord c) {
    RecordResult idProblem = topicId(c.getTopicId());
    if (idProblem != null) {
      return idProblem;
    }
    if (c.getKey().length() > MAX_CONFIG_KEY_CHARS
        || c.getValue().length() > MAX_CONFIG_VALUE_CHARS) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_CONFIG,
          "config key '"
              + truncate(c.getKey())
              + "' or its value is too long (at most "
              + MAX_CONFIG_KEY_CHARS
              + " and "
              + MAX_CONFIG_VALUE_CHARS
              + " characters)");
    }
    return null;
  }

  private static RecordResult registerBroker(RegisterBrokerRecord r) {
    if (r.getHost().length() > MAX_HOST_CHARS
        || r.getKafkaHost().length() > MAX_HOST_CHARS
        || r.getRack().length() > MAX_RACK_CHARS
        || r.getIncarnationId().length() > MAX_INCARNATION_ID_CHARS) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_REQUEST,
          "registration of broker "
              + r.getBrokerId()
              + " has a host, rack or incarnation id longer than allowed");
    }
    String range =
        MetadataVersion.Range.check(r.getMinMetadataVersion(), r.getMaxMetadataVersion());
    if (range != null) {
      return MetadataApplier.reject(
          ErrorCode.INVALID_REQUEST, "registration of broker " + r.getBrokerId() + ": " + range);
    }
    return null;
  }

  private static RecordResult userAndMechanism(String user, String mechanism) {
    String problem = checkUserName(user);
    if (problem != null) {
      return MetadataApplier.reject(ErrorCode.UNACCEPTABLE_CREDENTIAL, problem);
    }
    if (ScramMechanism.forName(mechanism).isEmpty()) {
      return MetadataApplier.reject(
          ErrorCode.UNSUPPORTED_SASL_MECHANISM,
          "unknown SCRAM mechanism '" + truncate(mechanism) + "' (SCRAM-SHA-256, SCRAM-SHA-512)");
    }
    return null;
  }

  private static RecordResult scramCredential(ScramCredentialRecord r) {
    RecordResult refused = userAndMechanism(r.getUser(), r.getMechanism());
    if (refused != null) {
      return refused;
    }
    ScramMechanism m = ScramMechanism.forName(r.getMechanism()).orElseThrow();
    String problem = checkIterations(r.getIterations());
    if (problem == null && (r.getSalt().isEmpty() || r.getSalt().size() > MAX_SALT_BYTES)) {
      problem = "salt of " + r.getSalt().size() + " bytes (1.." + MAX_SALT_BYTES + ")";
    }
    if (problem == null
        && (r.getStoredKey().size() != m.hashBytes() || r.getServerKey().size() != m.hashBytes())) {
      problem =
          "stored and server keys of "
              + m.mechanismName()
              + " must be "
              + m.hashBytes()
              + " bytes, not "
              + r.getStoredKey().size()
              + " and "
              + r.getServerKey().size();
    }
    return problem == null
        ? null
        : MetadataApplier.reject(
            ErrorCode.UNACCEPTABLE_CREDENTIAL,
            "credential of user '" + truncate(r.getUser()) + "': " + problem);
  }

  /** Enough of a hostile string to recognise it in a log line, not the whole of it. */
  static String truncate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...(" + s.length() + " characters)";
  }
}
