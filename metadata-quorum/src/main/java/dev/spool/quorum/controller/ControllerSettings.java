package dev.spool.quorum.controller;

import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.List;

/**
 * The settings the pure controller decisions use, built from a parsed config by {@code
 * QuorumConfig.controllerSettings} (whose keys own every default). Immutable; any thread.
 *
 * @param sessionTimeoutMs a broker that has not heartbeated for this long is fenced
 * @param heartbeatIntervalMs how often brokers heartbeat (used for answers, not decisions)
 * @param defaultReplicationFactor replication factor when a create request says -1 (capped by the
 *     number of eligible brokers)
 * @param defaultNumPartitions partition count when a create request says -1
 * @param maxPartitionsPerTopic upper bound on a topic's partition count
 * @param producerIdBlockSize producer ids handed to a broker per allocation
 * @param autoLeaderRebalance move leadership back to preferred replicas periodically
 * @param leaderImbalanceCheckIntervalMs how often that balancing runs
 * @param maxRecordsPerWrite bound on records in one controller write (the rest waits a tick)
 * @param maxBatchesPerHeartbeat bound on metadata batches in one heartbeat answer
 * @param metadataVersions the metadata.version levels this controller supports: {@link
 *     MetadataVersion#SUPPORTED} but in tests (docs/architecture.md#versioned-metadata)
 * @param bootstrapMetadataVersion the level the bootstrap of a fresh cluster finalizes, as {@code
 *     spool storage format --release-version} recorded it; {@link MetadataVersion#UNSET} for the
 *     highest of {@code metadataVersions}
 * @param bootstrapCredentials the SCRAM credentials {@code spool storage format --add-scram}
 *     recorded: written with the bootstrap metadata.version, for users that have none of that
 *     mechanism yet
 */
public record ControllerSettings(
    long sessionTimeoutMs,
    long heartbeatIntervalMs,
    int defaultReplicationFactor,
    int defaultNumPartitions,
    int maxPartitionsPerTopic,
    int producerIdBlockSize,
    boolean autoLeaderRebalance,
    long leaderImbalanceCheckIntervalMs,
    int maxRecordsPerWrite,
    int maxBatchesPerHeartbeat,
    MetadataVersion.Range metadataVersions,
    int bootstrapMetadataVersion,
    List<ScramCredentialRecord> bootstrapCredentials) {

  public ControllerSettings {
    bootstrapCredentials = List.copyOf(bootstrapCredentials);
  }

  public ControllerSettings withSessionTimeoutMs(long ms) {
    return new ControllerSettings(
        ms,
        heartbeatIntervalMs,
        defaultReplicationFactor,
        defaultNumPartitions,
        maxPartitionsPerTopic,
        producerIdBlockSize,
        autoLeaderRebalance,
        leaderImbalanceCheckIntervalMs,
        maxRecordsPerWrite,
        maxBatchesPerHeartbeat,
        metadataVersions,
        bootstrapMetadataVersion,
        bootstrapCredentials);
  }

  public ControllerSettings withLeaderBalancing(boolean enabled, long intervalMs) {
    return new ControllerSettings(
        sessionTimeoutMs,
        heartbeatIntervalMs,
        defaultReplicationFactor,
        defaultNumPartitions,
        maxPartitionsPerTopic,
        producerIdBlockSize,
        enabled,
        intervalMs,
        maxRecordsPerWrite,
        maxBatchesPerHeartbeat,
        metadataVersions,
        bootstrapMetadataVersion,
        bootstrapCredentials);
  }

  /** These settings for a controller that supports {@code versions} (tests). */
  public ControllerSettings withMetadataVersions(MetadataVersion.Range versions) {
    return withFeatures(versions, bootstrapMetadataVersion);
  }

  /**
   * These settings with the bootstrap level a formatted quorum directory recorded ({@link
   * MetadataVersion#UNSET}: none).
   */
  public ControllerSettings withBootstrapMetadataVersion(int level) {
    return withFeatures(metadataVersions, level);
  }

  private ControllerSettings withFeatures(MetadataVersion.Range versions, int bootstrapLevel) {
    return withFeatures(versions, bootstrapLevel, bootstrapCredentials);
  }

  private ControllerSettings withFeatures(
      MetadataVersion.Range versions, int bootstrapLevel, List<ScramCredentialRecord> credentials) {
    return new ControllerSettings(
        sessionTimeoutMs,
        heartbeatIntervalMs,
        defaultReplicationFactor,
        defaultNumPartitions,
        maxPartitionsPerTopic,
        producerIdBlockSize,
        autoLeaderRebalance,
        leaderImbalanceCheckIntervalMs,
        maxRecordsPerWrite,
        maxBatchesPerHeartbeat,
        versions,
        bootstrapLevel,
        credentials);
  }

  /** These settings with the SCRAM credentials a formatted quorum directory recorded. */
  public ControllerSettings withBootstrapCredentials(List<ScramCredentialRecord> credentials) {
    return withFeatures(metadataVersions, bootstrapMetadataVersion, credentials);
  }
}
