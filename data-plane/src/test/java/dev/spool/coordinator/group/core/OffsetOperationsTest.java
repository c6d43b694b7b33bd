package dev.spool.coordinator.group.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class OffsetOperationsTest {
  private final ShardHarness h = new ShardHarness();
  private static final TopicPartition T0 = new TopicPartition("t", 0);
  private static final TopicPartition T1 = new TopicPartition("t", 1);

  private Map<TopicPartition, PartitionResult> commit(
      String member, int epoch, Map<TopicPartition, OffsetAndMetadata> offsets) {
    Map<TopicPartition, PartitionResult> r =
        h.shard.offsets().commit(new OffsetCommitRequest("g", member, epoch, offsets), 1000);
    h.collect();
    return r;
  }

  private static OffsetAndMetadata at(long offset) {
    return new OffsetAndMetadata(offset, 3, "", -1);
  }

  @Test
  void shouldCommitOnlyWhatTheMemberOwnsAtItsEpoch() {
    h.topicCounts.put("t", 2);
    h.join("g", "a", List.of("t"));
    h.join("g", "b", List.of("t"));
    h.settle("g");
    ShardHarness.Sim a = h.sims.get("a");
    TopicPartition mine = a.owned.iterator().next();
    TopicPartition theirs = mine.equals(T0) ? T1 : T0;
    Map<TopicPartition, PartitionResult> r =
        commit("a", a.epoch, Map.of(mine, at(10), theirs, at(5)));
    assertEquals(ErrorCode.NONE, r.get(mine).error());
    assertEquals(ErrorCode.PARTITION_NOT_ASSIGNED, r.get(theirs).error());
    assertEquals(
        ErrorCode.FENCED_MEMBER_EPOCH,
        commit("a", a.epoch + 1, Map.of(mine, at(11))).get(mine).error());
    assertEquals(
        ErrorCode.UNKNOWN_MEMBER_ID, commit("x", 1, Map.of(mine, at(11))).get(mine).error());
    assertEquals(ErrorCode.NON_EMPTY_GROUP, commit("", -1, Map.of(mine, at(11))).get(mine).error());
    OffsetFetchResult f = h.shard.offsets().fetch(new OffsetFetchRequest("g", "", -1, null));
    assertEquals(Map.of(mine, new OffsetAndMetadata(10, 3, "", 1000)), f.offsets());
    h.assertReplayMatches("g");
  }

  @Test
  void shouldRefuseAnOlderEpochThanThePrevious() {
    h.topicCounts.put("t", 4);
    h.join("g", "a", List.of("t"));
    for (int i = 0; i < 3; i++) {
      h.join("g", "m" + i, List.of("t"));
      h.settle("g");
    }
    ShardHarness.Sim a = h.sims.get("a");
    TopicPartition mine = a.owned.iterator().next();
    assertEquals(
        ErrorCode.STALE_MEMBER_EPOCH, commit("a", 1, Map.of(mine, at(1))).get(mine).error());
  }

  @Test
  void shouldRefuseMetadataOverTheLimitAndNegativeOffsets() {
    Map<TopicPartition, PartitionResult> r =
        commit("", -1, Map.of(T0, new OffsetAndMetadata(1, -1, "x".repeat(65), -1), T1, at(-5)));
    assertEquals(ErrorCode.OFFSET_METADATA_TOO_LARGE, r.get(T0).error());
    assertEquals(ErrorCode.INVALID_REQUEST, r.get(T1).error());
    assertTrue(h.log.isEmpty(), "nothing written");
    assertEquals(
        ErrorCode.INVALID_GROUP_ID,
        h.shard
            .offsets()
            .commit(new OffsetCommitRequest("", "", -1, Map.of(T0, at(1))), 0)
            .get(T0)
            .error());
  }

  @Test
  void shouldDeleteOnlyEmptyGroupsAndUnsubscribedOffsets() {
    h.topicCounts.put("t", 2);
    h.topicCounts.put("old", 1);
    TopicPartition old = new TopicPartition("old", 0);
    commit("", -1, Map.of(T0, at(4), old, at(9)));
    h.join("g", "a", List.of("t"));
    assertEquals(ErrorCode.NON_EMPTY_GROUP, h.shard.offsets().deleteGroup("g").error());
    var del = h.shard.offsets().deleteOffsets("g", List.of(T0, old));
    h.collect();
    assertEquals(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, del.partitions().get(T0).error());
    assertEquals(ErrorCode.NONE, del.partitions().get(old).error());
    assertNull(h.shard.group("g").offsets().get(old));
    h.leave("g", "a", -1);
    assertEquals(ErrorCode.NONE, h.shard.offsets().deleteGroup("g").error());
    h.collect();
    assertNull(h.shard.group("g"));
    GroupDescription d = h.shard.offsets().describe("g");
    assertEquals(ErrorCode.GROUP_ID_NOT_FOUND, d.error());
    assertEquals(ErrorCode.GROUP_ID_NOT_FOUND, h.shard.offsets().deleteGroup("g").error());
    h.assertReplayMatches("g");
  }

  @Test
  void shouldDescribeMembersWithTheirAssignment() {
    h.topicCounts.put("t", 2);
    h.join("g", "a", List.of("t"));
    GroupDescription d = h.shard.offsets().describe("g");
    assertEquals("Stable", d.state());
    assertEquals(1, d.members().size());
    assertEquals(h.allPartitions(), d.members().get(0).assignment());
    assertEquals("uniform", d.assignor());
    assertEquals(1, h.shard.offsets().list(List.of("stable")).size());
    assertEquals(0, h.shard.offsets().list(List.of("Empty")).size());
  }
}
