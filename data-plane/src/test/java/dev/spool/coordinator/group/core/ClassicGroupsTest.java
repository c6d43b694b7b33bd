package dev.spool.coordinator.group.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.PartitionResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The classic group state machine on a shard with manual time: join rounds, the initial-rebalance
 * delay, sync, heartbeats, leaves, session/rebalance/sync timeouts, static members, generation and
 * protocol checks, offsets, and a reload from the records written.
 */
class ClassicGroupsTest {
  private static final int DELAY_MS = 100;
  private static final int SESSION_MS = 10_000;
  private static final int REBALANCE_MS = 30_000;
  private static final String G = "g";

  private final ManualTimers timers = new ManualTimers();
  private final AtomicInteger ids = new AtomicInteger();
  private final List<CoordinatorRecord> log = new ArrayList<>();
  private GroupShard shard = shard(settings(50, 1_000_000), timers);

  private GroupShard shard(GroupSettings s, CoordinatorTimers t) {
    return new GroupShard(s, t, this::topics, () -> "id" + ids.incrementAndGet());
  }

  private static GroupSettings settings(int maxSize, int maxRecordBytes) {
    return new GroupSettings(
        10_000,
        500,
        maxSize,
        64,
        GroupSettings.assignors(List.of("uniform")),
        new ClassicSettings(DELAY_MS, 1_000, 60_000, maxRecordBytes));
  }

  private TopicsView topics() {
    return new TopicsView() {
      @Override
      public int partitionCount(String topic) {
        return topic.equals("t") ? 4 : -1;
      }

      @Override
      public Collection<String> topicNames() {
        return List.of("t");
      }
    };
  }

  /** Ends an operation as the runtime does once its records are committed. */
  private void commit() {
    log.addAll(shard.drainRecords());
    shard.drainReplies().forEach(GroupShard.Reply::complete);
  }

  private void advance(long ms) {
    timers.advance(ms);
    commit();
  }

  private static Classic.Protocol range(String meta) {
    return new Classic.Protocol("range", meta.getBytes(StandardCharsets.UTF_8), List.of("t"));
  }

  private CompletableFuture<Classic.JoinResult> join(String memberId, String instanceId) {
    return join(memberId, instanceId, "consumer", List.of(range("m")), SESSION_MS);
  }

  private CompletableFuture<Classic.JoinResult> join(
      String memberId,
      String instanceId,
      String type,
      List<Classic.Protocol> protocols,
      int sessionMs) {
    CompletableFuture<Classic.JoinResult> f =
        shard
            .classic()
            .join(
                new Classic.JoinRequest(
                    G,
                    memberId,
                    instanceId,
                    type,
                    protocols,
                    sessionMs,
                    REBALANCE_MS,
                    true,
                    "c",
                    "/127.0.0.1"));
    commit();
    return f;
  }

  /** A dynamic member through the MEMBER_ID_REQUIRED round; its JoinGroup is then held. */
  private String newMember() {
    Classic.JoinResult first = join("", null).getNow(null);
    assertEquals(ErrorCode.MEMBER_ID_REQUIRED, first.error());
    assertTrue(first.memberId().startsWith("c-"), first.memberId());
    CompletableFuture<Classic.JoinResult> second = join(first.memberId(), null);
    pending.add(second);
    return first.memberId();
  }

  private final List<CompletableFuture<Classic.JoinResult>> pending = new ArrayList<>();

  private CompletableFuture<Classic.SyncResult> sync(
      String memberId, int generation, Map<String, byte[]> assignments) {
    CompletableFuture<Classic.SyncResult> f =
        shard
            .classic()
            .sync(
                new Classic.SyncRequest(
                    G, memberId, null, generation, "consumer", "range", assignments, Map.of()));
    commit();
    return f;
  }

  private ErrorCode beat(String memberId, int generation) {
    ErrorCode e =
        shard
            .classic()
            .heartbeat(new Classic.HeartbeatRequest(G, memberId, null, generation))
            .error();
    commit();
    return e;
  }

  private ClassicGroup group() {
    return shard.classic().group(G);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Two members join within the initial delay, the leader assigns, both become Stable. */
  private String[] stableGroupOfTwo() {
    String a = newMember();
    String b = newMember();
    assertFalse(pending.get(0).isDone(), "the initial rebalance waits for the delay");
    advance(DELAY_MS); // b joined during the first delay: extended once
    advance(DELAY_MS);
    Classic.JoinResult ja = pending.get(0).getNow(null);
    Classic.JoinResult jb = pending.get(1).getNow(null);
    assertEquals(1, ja.generation());
    assertEquals(a, ja.leader());
    assertEquals(2, ja.members().size(), "the leader gets every member's metadata");
    assertArrayEquals(bytes("m"), ja.members().get(0).metadata());
    assertEquals(0, jb.members().size());
    assertEquals("range", jb.protocolName());
    assertEquals("CompletingRebalance", group().state().displayName);
    CompletableFuture<Classic.SyncResult> follower = sync(b, 1, Map.of());
    assertFalse(follower.isDone(), "a follower waits for the leader's assignment");
    CompletableFuture<Classic.SyncResult> leader = sync(a, 1, Map.of(a, bytes("A"), b, bytes("B")));
    assertArrayEquals(bytes("A"), leader.getNow(null).assignment());
    assertArrayEquals(bytes("B"), follower.getNow(null).assignment());
    assertEquals("Stable", group().state().displayName);
    pending.clear();
    return new String[] {a, b};
  }

  @Test
  void joinSyncAndReloadFromTheRecords() {
    String[] m = stableGroupOfTwo();
    assertEquals(ErrorCode.NONE, beat(m[0], 1));
    GroupShard reloaded = shard(settings(50, 1_000_000), new ManualTimers());
    log.forEach(reloaded::replay);
    reloaded.onLoaded();
    GroupDescription before = shard.offsets().describe(G);
    GroupDescription after = reloaded.offsets().describe(G);
    assertEquals("Stable", after.state());
    assertEquals(before.groupEpoch(), after.groupEpoch());
    assertEquals(before.members().size(), after.members().size());
    assertArrayEquals(bytes("B"), after.members().get(1).assignmentBytes().toByteArray());
    assertEquals("classic", after.type());
    assertEquals("consumer", after.protocolType());
    shard = reloaded;
    assertEquals(ErrorCode.NONE, beat(m[1], 1), "members keep heartbeating on a new coordinator");
  }

  @Test
  void heartbeatErrors() {
    String[] m = stableGroupOfTwo();
    assertEquals(ErrorCode.ILLEGAL_GENERATION, beat(m[0], 7));
    assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, beat("nobody", 1));
    newMember(); // a third member starts a rebalance
    assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, beat(m[0], 1));
    assertEquals("PreparingRebalance", group().state().displayName);
    CompletableFuture<Classic.JoinResult> ra = join(m[0], null);
    CompletableFuture<Classic.JoinResult> rb = join(m[1], null);
    assertEquals(2, ra.getNow(null).generation(), "the join phase ends once every member rejoined");
    assertEquals(3, ra.getNow(null).members().size());
    assertTrue(rb.isDone());
    assertEquals(
        ErrorCode.ILLEGAL_GENERATION,
        sync(m[1], 1, Map.of()).getNow(null).error(),
        "old generation");
  }

  @Test
  void leaveBatchRebalancesTheOthers() {
    String[] m = stableGroupOfTwo();
    Classic.LeaveResult r =
        shard
            .classic()
            .leave(
                G,
                List.of(
                    new Classic.LeaveMember(m[1], null), new Classic.LeaveMember("ghost", null)));
    commit();
    assertEquals(ErrorCode.NONE, r.members().get(0).error());
    assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, r.members().get(1).error());
    assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, beat(m[0], 1));
    Classic.JoinResult j = join(m[0], null).getNow(null);
    assertEquals(2, j.generation());
    assertEquals(List.of(m[0]), j.members().stream().map(Classic.JoinMember::memberId).toList());
  }

  @Test
  void sessionTimeoutRemovesASilentMember() {
    String[] m = stableGroupOfTwo();
    advance(SESSION_MS / 2);
    assertEquals(ErrorCode.NONE, beat(m[0], 1));
    advance(SESSION_MS / 2 + 1);
    assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, beat(m[0], 1), "m1's session expired");
    assertEquals(1, group().size());
    assertEquals(1, join(m[0], null).getNow(null).members().size());
  }

  @Test
  void rebalanceTimeoutDropsMembersThatDoNotRejoin() {
    String[] m = stableGroupOfTwo();
    CompletableFuture<Classic.JoinResult> ra = join(m[0], null); // the leader asks to rebalance
    assertFalse(ra.isDone());
    assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, beat(m[1], 1));
    advance(REBALANCE_MS); // m1 heartbeats but never rejoins
    assertEquals(2, ra.getNow(null).generation());
    assertEquals(1, ra.getNow(null).members().size());
    assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, beat(m[1], 2));
  }

  @Test
  void syncTimeoutDropsMembersThatDoNotSync() {
    String a = newMember();
    String b = join("", null, "consumer", List.of(range("m")), 60_000).getNow(null).memberId();
    join(b, null, "consumer", List.of(range("m")), 60_000);
    advance(2 * DELAY_MS);
    sync(a, 1, Map.of(a, bytes("A"), b, bytes("B"))).getNow(null);
    for (int i = 0; i < 4; i++) {
      advance(REBALANCE_MS / 4 + 1); // b's session is longer than this: only the sync timeout fires
      beat(a, group().generation());
    }
    assertEquals(1, group().size(), "b never sent SyncGroup");
    assertEquals("PreparingRebalance", group().state().displayName);
  }

  @Test
  void staticMemberReplacement() {
    CompletableFuture<Classic.JoinResult> f = join("", "inst-1");
    advance(DELAY_MS);
    String old = f.getNow(null).memberId();
    sync(old, 1, Map.of(old, bytes("A"))).getNow(null);
    Classic.JoinResult back = join("", "inst-1").getNow(null);
    assertEquals(ErrorCode.NONE, back.error());
    assertEquals(1, back.generation(), "no rebalance");
    assertTrue(back.skipAssignment(), "the returning leader keeps the assignment");
    assertEquals("Stable", group().state().displayName);
    assertArrayEquals(bytes("A"), sync(back.memberId(), 1, Map.of()).getNow(null).assignment());
    ErrorCode fenced =
        shard.classic().heartbeat(new Classic.HeartbeatRequest(G, old, "inst-1", 1)).error();
    assertEquals(ErrorCode.FENCED_INSTANCE_ID, fenced);
  }

  @Test
  void protocolMismatchesAndSizeLimits() {
    String[] m = stableGroupOfTwo();
    assertEquals(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        join("", null, "connect", List.of(range("m")), SESSION_MS).getNow(null).error());
    assertEquals(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        join(
                "",
                null,
                "consumer",
                List.of(new Classic.Protocol("sticky", bytes("x"), List.of())),
                SESSION_MS)
            .getNow(null)
            .error());
    assertEquals(
        ErrorCode.INVALID_SESSION_TIMEOUT,
        join("", null, "consumer", List.of(range("m")), 999).getNow(null).error());
    assertEquals(2, group().size());
    assertEquals(ErrorCode.NONE, beat(m[0], 1), "refused joins change nothing");
  }

  @Test
  void groupMaxSize() {
    shard = shard(settings(2, 1_000_000), timers);
    stableGroupOfTwo();
    // Kafka refuses before the MEMBER_ID_REQUIRED round once the group is full.
    assertEquals(ErrorCode.GROUP_MAX_SIZE_REACHED, join("", null).getNow(null).error());
  }

  @Test
  void oversizedAssignmentFailsTheSync() {
    shard = shard(settings(50, 400), timers);
    String a = newMember();
    advance(DELAY_MS);
    Classic.SyncResult r = sync(a, 1, Map.of(a, new byte[1000])).getNow(null);
    assertEquals(ErrorCode.UNKNOWN_SERVER_ERROR, r.error());
    assertEquals("PreparingRebalance", group().state().displayName);
  }

  @Test
  void offsetCommitChecksGenerationAndMember() {
    String[] m = stableGroupOfTwo();
    TopicPartition tp = new TopicPartition("t", 0);
    Map<TopicPartition, OffsetAndMetadata> o = Map.of(tp, new OffsetAndMetadata(5, -1, "", 0));
    assertEquals(ErrorCode.NONE, commit(m[0], 1, o));
    assertEquals(ErrorCode.ILLEGAL_GENERATION, commit(m[0], 2, o));
    assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, commit("ghost", 1, o));
    assertEquals(ErrorCode.UNKNOWN_MEMBER_ID, commit("", -1, o), "not empty");
    assertEquals(5, shard.group(G).offsets().get(tp).offset());
  }

  private ErrorCode commit(
      String memberId, int generation, Map<TopicPartition, OffsetAndMetadata> o) {
    Map<TopicPartition, PartitionResult> r =
        shard.offsets().commit(new OffsetCommitRequest(G, memberId, generation, o), 0);
    commit();
    return r.values().iterator().next().error();
  }

  @Test
  void classicAndConsumerProtocolsDoNotMix() {
    stableGroupOfTwo();
    var hb =
        shard.heartbeat(
            new HeartbeatRequest(
                G, "", 0, null, null, 60_000, List.of("t"), null, null, Set.of(), "c", "h"));
    assertEquals(ErrorCode.GROUP_ID_NOT_FOUND, hb.error());
    var ok =
        shard.heartbeat(
            new HeartbeatRequest(
                "k", "", 0, null, null, 60_000, List.of("t"), null, null, Set.of(), "c", "h"));
    assertEquals(ErrorCode.NONE, ok.error());
    CompletableFuture<Classic.JoinResult> j =
        shard
            .classic()
            .join(
                new Classic.JoinRequest(
                    "k",
                    "",
                    null,
                    "consumer",
                    List.of(range("m")),
                    SESSION_MS,
                    REBALANCE_MS,
                    true,
                    "c",
                    "h"));
    commit();
    assertEquals(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, j.getNow(null).error());
  }

  @Test
  void emptyGroupIsDeletable() {
    String[] m = stableGroupOfTwo();
    assertEquals(ErrorCode.NON_EMPTY_GROUP, shard.offsets().deleteGroup(G).error());
    shard
        .classic()
        .leave(
            G, List.of(new Classic.LeaveMember(m[0], null), new Classic.LeaveMember(m[1], null)));
    commit();
    assertEquals("Empty", group().state().displayName);
    assertEquals("Empty", shard.offsets().list(List.of()).get(0).state());
    assertEquals(ErrorCode.NONE, shard.offsets().deleteGroup(G).error());
    commit();
    assertEquals(ErrorCode.GROUP_ID_NOT_FOUND, shard.offsets().describe(G).error());
  }
}
