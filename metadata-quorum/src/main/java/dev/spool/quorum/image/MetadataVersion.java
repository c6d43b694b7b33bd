package dev.spool.quorum.image;

/**
 * The {@code metadata.version} feature (docs/architecture.md#versioned-metadata): a level finalized
 * in the metadata log (FeatureLevelRecord) that says which records and fields the cluster's nodes
 * may write. Level 1 is everything Spool had when the feature came; a release that adds a record or
 * field older nodes must understand adds a level, and writes the new record only once that level is
 * finalized. Each build supports one range, {@link #SUPPORTED}.
 */
public final class MetadataVersion {
  /** The feature's name, as Kafka's. */
  public static final String FEATURE = "metadata.version";

  /** The image's level before any FeatureLevelRecord was applied. */
  public static final int UNSET = 0;

  /** Level 1: every record up to and including FeatureLevelRecord. */
  public static final int V1 = 1;

  /**
   * Level 2: level 1 and BrokerDirsOfflineRecord (a broker's failed data directories,
   * docs/architecture.md#storage-errors). Below it the controller fences such a broker instead.
   */
  public static final int V2 = 2;

  /** The level that introduced BrokerDirsOfflineRecord. */
  public static final int BROKER_DIRS_OFFLINE = V2;

  /**
   * Level 3: level 2 and UnregisterBrokerRecord (a dead broker's registration removed,
   * docs/architecture.md#unregistering-a-broker). Below it the controller refuses UnregisterBroker.
   */
  public static final int V3 = 3;

  /** The level that introduced UnregisterBrokerRecord. */
  public static final int UNREGISTER_BROKER = V3;

  /**
   * Level 4: level 3 and replica reassignment: the adding and removing replicas of PartitionRecord
   * and PartitionChangeRecord, and ReplicationThrottleRecord
   * (docs/architecture.md#replica-reassignment). Below it the controller refuses
   * AlterPartitionReassignments.
   */
  public static final int V4 = 4;

  /** The level that introduced reassignment's fields and ReplicationThrottleRecord. */
  public static final int REASSIGNMENT = V4;

  /**
   * Level 5: level 4 and ACLs (AccessControlEntryRecord and RemoveAccessControlEntryRecord,
   * docs/security.md#acls). Below it the controller refuses CreateAcls and DeleteAcls.
   */
  public static final int V5 = 5;

  /** The level that introduced the ACL records. */
  public static final int ACLS = V5;

  /**
   * Level 6: level 5 and client quotas (ClientQuotaRecord, docs/security.md#quotas). Below it the
   * controller refuses AlterClientQuotas.
   */
  public static final int V6 = 6;

  /** The level that introduced ClientQuotaRecord. */
  public static final int CLIENT_QUOTAS = V6;

  /** The highest level this build supports: a fresh cluster starts here. */
  public static final int LATEST = V6;

  /** What this build reads and writes. */
  public static final Range SUPPORTED = new Range(V1, LATEST);

  private MetadataVersion() {}

  /** A closed range of levels, {@code 1 <= min <= max}. */
  public record Range(int min, int max) {
    public Range {
      if (min < V1 || max < min) {
        throw new IllegalArgumentException("bad metadata.version range " + min + ".." + max);
      }
    }

    /**
     * The range a registration names; 0 and 0 (written before the feature existed, or by an older
     * broker) is level 1 only.
     */
    public static Range ofRegistration(int min, int max) {
      return min == 0 && max == 0 ? new Range(V1, V1) : new Range(min, max);
    }

    /** Null when {@code min..max} is a legal registration range, else why not. */
    public static String check(int min, int max) {
      if (min == 0 && max == 0) {
        return null;
      }
      if (min < V1 || max < min) {
        return "metadata.version range " + min + ".." + max + " is not 1 <= min <= max";
      }
      return null;
    }

    public boolean contains(int level) {
      return level >= min && level <= max;
    }

    @Override
    public String toString() {
      return min + ".." + max;
    }
  }
}
