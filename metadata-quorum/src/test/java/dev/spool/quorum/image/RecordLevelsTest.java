package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.quorum.message.MetadataRecord;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every metadata record type names the metadata.version level that introduced it
 * (docs/architecture.md#versioned-metadata): a new case of {@code MetadataRecord}'s oneof does not
 * compile here until it is given a level, and that level must be one this build supports. The
 * applier refuses a record below its level (for BrokerDirsOfflineRecord:
 * ClusterDutiesTest.atLevel1TheBrokerIsFencedInsteadAndTheRecordWaitsForLevel2; for
 * UnregisterBrokerRecord:
 * UnregisterBrokerTest.atLevel2TheControllerRefusesAndReplayRefusesTheRecord; for
 * ReplicationThrottleRecord and the reassignment fields of PartitionRecord and
 * PartitionChangeRecord: ReassignmentTest.atLevel3TheControllerRefusesAndReplayRefusesTheRecords),
 * so an older node never meets a record it cannot read.
 */
@Tag("unit")
class RecordLevelsTest {

  /** The level that introduced {@code c} (exhaustive: no default). */
  static int introducedAt(MetadataRecord.RecordCase c) {
    return switch (c) {
      case REGISTER_BROKER,
          FENCE_BROKER,
          UNFENCE_BROKER,
          BROKER_SHUTDOWN,
          TOPIC,
          PARTITION,
          PARTITION_CHANGE,
          REMOVE_TOPIC,
          CONFIG,
          PRODUCER_IDS,
          ADD_PARTITIONS,
          SCRAM_CREDENTIAL,
          REMOVE_SCRAM_CREDENTIAL,
          FEATURE_LEVEL ->
          MetadataVersion.V1;
      case BROKER_DIRS_OFFLINE -> MetadataVersion.BROKER_DIRS_OFFLINE;
      case UNREGISTER_BROKER -> MetadataVersion.UNREGISTER_BROKER;
      case REPLICATION_THROTTLE -> MetadataVersion.REASSIGNMENT;
      case ACL, REMOVE_ACL -> MetadataVersion.ACLS;
      case CLIENT_QUOTA -> MetadataVersion.CLIENT_QUOTAS;
      case RECORD_NOT_SET -> MetadataVersion.UNSET;
    };
  }

  private static List<MetadataRecord.RecordCase> recordTypes() {
    return List.of(MetadataRecord.RecordCase.values()).stream()
        .filter(c -> c != MetadataRecord.RecordCase.RECORD_NOT_SET)
        .toList();
  }

  @Test
  void everyRecordTypeWasIntroducedAtALevelThisBuildSupports() {
    for (MetadataRecord.RecordCase c : recordTypes()) {
      assertTrue(MetadataVersion.SUPPORTED.contains(introducedAt(c)), c + " at " + introducedAt(c));
    }
    assertEquals(
        MetadataVersion.LATEST,
        recordTypes().stream().mapToInt(RecordLevelsTest::introducedAt).max().orElseThrow(),
        "the highest level introduced some record (else it needs no level)");
  }
}
