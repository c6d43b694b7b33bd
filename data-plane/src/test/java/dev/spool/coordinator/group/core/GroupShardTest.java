package dev.spool.coordinator.group.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class GroupShardTest {
  private final ShardHarness h = new ShardHarness();

  @Test
  void shouldGiveTheFirstMemberEveryPartition() {
    h.topicCounts.put("t", 4);
    HeartbeatResult r = h.join("g", "a", List.of("t"));
    assertEquals(ErrorCode.NONE, r.error());
    assertEquals(1, r.memberEpoch());
    assertEquals(h.allPartitions(), r.assignment());
    assertEquals(GroupState.STABLE, h.shard.group("g").state());
    h.assertReplayMatches("g");
  }

  @Test
  void shouldRevokeBeforeAssigningToAJoiningMember() {
    h.topicCounts.put("t", 4);
    h.join("g", "a", List.of("t"));
    HeartbeatResult b = h.join("g", "b", List.of("t"));
    // b is at the new epoch but a still owns everything: b waits for partitions to be released.
    assertEquals(2, b.memberEpoch());
    assertTrue(b.assignment().isEmpty(), b.toString());
    assertEquals(GroupState.RECONCILING, h.shard.group("g").state());
    HeartbeatResult a = h.beat("g", "a");
    assertEquals(1, a.memberEpoch(), "a keeps its epoch until it has revoked");
    assertEquals(2, a.assignment().size());
    a = h.beat("g", "a"); // reports the revocation
    assertEquals(2, a.memberEpoch());
    b = h.beat("g", "b");
    assertEquals(2, b.assignment().size());
    h.settle("g");
    assertEquals(GroupState.STABLE, h.shard.group("g").state());
    assertEquals(h.allPartitions(), h.ownedBySims());
    h.assertReplayMatches("g");
  }

  @Test
  void shouldKeepEveryPartitionWithOneOwnerUnderRandomChurn() {
    Random random = new Random(7);
    h.topicCounts.put("t", 12);
    h.topicCounts.put("u", 5);
    int next = 0;
    for (int step = 0; step < 600; step++) {
      int action = random.nextInt(10);
      if (h.sims.isEmpty() || action == 0 && h.sims.size() < 8) {
        h.join("g", "m" + next++, List.of("t", "u"));
      } else if (action == 1 && h.sims.size() > 1) {
        String id = pick(random);
        h.leave("g", id, -1);
      } else if (action == 2) {
        h.timers.advance(11_000); // every member missed its session: all leave
        h.collect();
        h.sims.clear();
      } else if (action == 3) {
        h.topicCounts.merge("u", 1, Integer::sum);
      } else {
        h.beat("g", pick(random));
      }
      h.assertNoDoubleOwnership();
      h.timers.advance(100);
      h.collect();
    }
    h.settle("g");
    assertEquals(h.sims.isEmpty() ? Set.of() : h.allPartitions(), h.ownedBySims());
    h.assertReplayMatches("g");
  }

  private String pick(Random random) {
    return h.sims.keySet().stream().skip(random.nextInt(h.sims.size())).findFirst().orElseThrow();
  }

  @Test
  void shouldMoveOnlyTheNewcomersShareWhenAMemberJoins() {
    h.topicCounts.put("t", 60);
    for (int i = 0; i < 10; i++) {
      h.join("g", "m" + i, List.of("t"));
      h.settle("g");
    }
    java.util.Map<String, Set<TopicPartition>> before = new java.util.HashMap<>();
    h.sims.forEach((id, s) -> before.put(id, Set.copyOf(s.owned)));
    h.join("g", "m10", List.of("t"));
    h.settle("g");
    int kept = 0;
    for (String id : before.keySet()) {
      Set<TopicPartition> still = new HashSet<>(before.get(id));
      still.retainAll(h.sims.get(id).owned);
      kept += still.size();
    }
    assertEquals(55, kept, "only the 5 partitions the newcomer takes move");
    assertEquals(5, h.sims.get("m10").owned.size());
  }

  @Test
  void shouldAskOnlyAMemberWaitingForReleasedPartitionsToHeartbeatSooner() {
    h.topicCounts.put("t", 4);
    h.join("g", "a", List.of("t"));
    h.settle("g");
    int interval = h.beat("g", "a").heartbeatIntervalMs();
    HeartbeatResult b = h.join("g", "b", List.of("t"));
    assertEquals(MemberState.UNRELEASED_PARTITIONS, h.shard.group("g").member("b").state());
    assertEquals(interval / GroupShard.UNRELEASED_HEARTBEAT_SPEEDUP, b.heartbeatIntervalMs());
    HeartbeatResult a = h.beat("g", "a"); // a must revoke: its client acts on that at once
    assertEquals(MemberState.UNREVOKED_PARTITIONS, h.shard.group("g").member("a").state());
    assertEquals(interval, a.heartbeatIntervalMs());
    h.settle("g");
    assertEquals(MemberState.STABLE, h.shard.group("g").member("b").state());
    assertEquals(interval, h.beat("g", "b").heartbeatIntervalMs());
    assertEquals(2, h.sims.get("b").owned.size());
  }

  @Test
  void shouldFenceANewerOrUnknownEpochAndForgiveALostResponse() {
    h.topicCounts.put("t", 2);
    h.join("g", "a", List.of("t"));
    HeartbeatResult bad =
        h.shard.heartbeat(
            new HeartbeatRequest(
                "g", "a", 7, null, null, null, null, null, null, Set.of(), null, null));
    assertEquals(ErrorCode.FENCED_MEMBER_EPOCH, bad.error());
    HeartbeatResult unknown =
        h.shard.heartbeat(
            new HeartbeatRequest(
                "g", "zz", 1, null, null, null, null, null, null, Set.of(), null, null));
    assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, unknown.error());
    // b joins; a moves to epoch 2 but pretends the answer was lost and sends epoch 1 again.
    h.join("g", "b", List.of("t"));
    h.beat("g", "a");
    h.beat("g", "a");
    assertEquals(2, h.shard.group("g").member("a").memberEpoch());
    HeartbeatResult retry =
        h.shard.heartbeat(
            new HeartbeatRequest(
                "g",
                "a",
                1,
                null,
                null,
                null,
                null,
                null,
                null,
                h.sims.get("a").owned,
                null,
                null));
    assertEquals(ErrorCode.NONE, retry.error(), retry.message());
    assertEquals(2, retry.memberEpoch());
  }

  @Test
  void shouldRemoveAMemberWhoseSessionExpires() {
    h.topicCounts.put("t", 4);
    h.join("g", "a", List.of("t"));
    h.join("g", "b", List.of("t"));
    h.settle("g");
    h.timers.advance(9_000);
    h.beat("g", "a");
    h.timers.advance(2_000); // b: 11 s without a heartbeat; a: 2 s
    h.collect();
    h.sims.remove("b");
    assertNull(h.shard.group("g").member("b"));
    h.settle("g");
    assertEquals(h.allPartitions(), h.sims.get("a").owned);
    h.assertReplayMatches("g");
  }

  @Test
  void shouldFenceAMemberThatDoesNotRevokeWithinItsRebalanceTimeout() {
    h.topicCounts.put("t", 4);
    h.join("g", "a", List.of("t"));
    h.join("g", "b", List.of("t"));
    // a learns it must revoke, then keeps heartbeating as if it still owned everything.
    HeartbeatResult a = h.beat("g", "a");
    assertEquals(MemberState.UNREVOKED_PARTITIONS, h.shard.group("g").member("a").state());
    for (int i = 0; i < 7; i++) {
      h.timers.advance(9_000);
      h.collect();
      if (h.shard.group("g").member("a") == null) {
        h.sims.remove("a"); // fenced: its client learns it with its next heartbeat
        break;
      }
      h.shard.heartbeat(
          new HeartbeatRequest(
              "g",
              "a",
              a.memberEpoch(),
              null,
              null,
              null,
              null,
              null,
              null,
              h.allPartitions(),
              null,
              null));
      h.beat("g", "b");
      h.collect();
    }
    assertNull(h.shard.group("g").member("a"), "fenced after its 60 s rebalance timeout");
  }

  @Test
  void shouldLetAStaticMemberComeBackToItsPartitions() {
    h.topicCounts.put("t", 4);
    h.join("g", "a", "inst-a", List.of("t"), null);
    h.join("g", "b", "inst-b", List.of("t"), null);
    h.settle("g");
    Set<TopicPartition> had = Set.copyOf(h.sims.get("a").owned);
    int groupEpoch = h.shard.group("g").groupEpoch();
    assertEquals(ErrorCode.NONE, h.leave("g", "a", -2).error());
    HeartbeatResult live = h.join("g", "a3", "inst-b", List.of("t"), null);
    assertEquals(ErrorCode.UNRELEASED_INSTANCE_ID, live.error());
    HeartbeatResult back = h.join("g", "a2", "inst-a", List.of("t"), null);
    assertEquals(ErrorCode.NONE, back.error(), back.message());
    assertEquals(had, back.assignment());
    assertEquals(groupEpoch, h.shard.group("g").groupEpoch(), "nothing to reassign");
    assertNull(h.shard.group("g").member("a"));
    h.assertReplayMatches("g");
  }

  @Test
  void shouldPickUpNewTopicsOfARegexAndNewPartitions() {
    h.topicCounts.put("orders-eu", 2);
    h.join("g", "a", null, List.of(), "orders-.*");
    assertEquals(2, h.sims.get("a").owned.size());
    h.topicCounts.put("orders-us", 3);
    h.topicCounts.put("other", 3);
    h.settle("g");
    assertEquals(5, h.sims.get("a").owned.size());
    h.topicCounts.put("orders-eu", 4);
    h.settle("g");
    assertEquals(7, h.sims.get("a").owned.size());
  }

  @Test
  void shouldRefuseBadHeartbeats() {
    h.topicCounts.put("t", 1);
    assertEquals(ErrorCode.INVALID_GROUP_ID, h.join("", "a", List.of("t")).error());
    assertEquals(
        ErrorCode.INVALID_REGULAR_EXPRESSION, h.join("g", "a", null, List.of(), "(").error());
    HeartbeatResult assignor =
        h.shard.heartbeat(
            new HeartbeatRequest(
                "g", "a", 0, null, null, 1000, List.of("t"), null, "sticky", null, null, null));
    assertEquals(ErrorCode.UNSUPPORTED_ASSIGNOR, assignor.error());
    HeartbeatResult noSub =
        h.shard.heartbeat(
            new HeartbeatRequest(
                "g", "a", 0, null, null, 1000, null, null, null, null, null, null));
    assertEquals(ErrorCode.INVALID_REQUEST, noSub.error());
    assertTrue(h.shard.drainRecords().isEmpty(), "nothing written for a refused heartbeat");
  }

  @Test
  void shouldRefuseMembersBeyondTheMaxGroupSize() {
    ShardHarness small =
        new ShardHarness(
            new GroupSettings(
                10_000,
                500,
                2,
                64,
                GroupSettings.assignors(List.of("uniform")),
                ShardHarness.CLASSIC));
    small.topicCounts.put("t", 1);
    small.join("g", "a", List.of("t"));
    small.join("g", "b", List.of("t"));
    HeartbeatResult c = small.join("g", "c", List.of("t"));
    assertEquals(ErrorCode.GROUP_MAX_SIZE_REACHED, c.error());
    assertFalse(small.shard.group("g").members().containsKey("c"));
  }

  @Test
  void shouldAnswerALeaveOfAnUnknownMemberAndEmptyTheGroup() {
    h.topicCounts.put("t", 1);
    h.join("g", "a", List.of("t"));
    assertEquals(ErrorCode.NONE, h.leave("g", "nobody", -1).error());
    assertEquals(ErrorCode.NONE, h.leave("g", "a", -1).error());
    assertEquals(GroupState.EMPTY, h.shard.group("g").state());
    h.assertReplayMatches("g");
  }
}
