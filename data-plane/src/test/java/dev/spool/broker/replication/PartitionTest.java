package dev.spool.broker.replication;

import static dev.spool.broker.replication.ReplicaTestSupport.batch;
import static dev.spool.broker.replication.ReplicaTestSupport.bytes;
import static dev.spool.broker.replication.ReplicaTestSupport.idempotentBatch;
import static dev.spool.broker.replication.ReplicaTestSupport.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.PartitionLog;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leader and follower logic of one partition replica on a real log, with a manual clock. */
@Tag("unit")
class PartitionTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final List<Integer> REPLICAS = List.of(1, 2, 3);
  private static final long LAG_MS = 10_000;
  private static final long SILENT_MS = 2_000;

  @TempDir Path dir;

  private final ManualClock clock = new ManualClock(1_700_000_000_000L);
  private ScheduledExecutorService scheduler;
  private final List<PartitionLog> logs = new ArrayList<>();

  @BeforeEach
  void setUp() {
    scheduler = ReplicaTestSupport.scheduler();
  }

  @AfterEach
  void tearDown() {
    logs.forEach(
        l -> {
          if (!l.isClosed()) {
            l.close();
          }
        });
    scheduler.shutdownNow();
  }

  private Partition replica(int brokerId, PartitionListener listener) {
    PartitionLog log =
        ReplicaTestSupport.openLog(dir.resolve("b" + brokerId), TP, clock, scheduler);
    logs.add(log);
    return new Partition(
        TP, log, clock, listener, new ReplicationSettings(brokerId, LAG_MS, 100, 100));
  }

  private Partition leader(List<Integer> isr, int minIsr, ReplicaTestSupport.RecordingListener l) {
    Partition p = replica(1, l);
    assertEquals(
        Partition.StateChange.BECAME_LEADER,
        p.applyPartitionState(state(TP, REPLICAS, isr, 1, 1, 1), minIsr));
    return p;
  }

  private static FetchParams follower(int id, long offset, int lastEpoch) {
    return new FetchParams(id, offset, 1, lastEpoch, 1 << 20, true);
  }

  private ByteBuffer batch3() {
    return batch(3, clock.nowMs(), "v");
  }

  @Test
  void shouldCompleteAcksAllExactlyWhenTheHighWatermarkPassesTheBatch() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition p = leader(List.of(1, 2, 3), 2, l);
    CompletableFuture<ProduceResult> f = p.appendAsLeader(batch3(), -1, 1, 30_000);
    assertFalse(f.isDone());
    p.fetch(follower(2, 3, 1));
    assertFalse(f.isDone(), "follower 3 has not fetched: the high watermark holds");
    assertEquals(0, p.log().highWatermark());
    p.fetch(follower(3, 2, 1));
    assertEquals(2, p.log().highWatermark());
    assertFalse(f.isDone(), "offset 2 is not below the high watermark yet");
    p.fetch(follower(3, 3, 1));
    assertEquals(3, p.log().highWatermark());
    assertTrue(f.isDone());
    assertEquals(ErrorCode.NONE, f.join().error());
    assertEquals(0, f.join().baseOffset());
  }

  @Test
  void shouldAnswerAcksOneOnTheLeadersAppend() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    ProduceResult r = p.appendAsLeader(batch3(), 1, -1, 30_000).join();
    assertEquals(ErrorCode.NONE, r.error());
    assertEquals(3, p.log().logEndOffset());
    assertEquals(0, p.log().highWatermark());
  }

  @Test
  void shouldRefuseAcksAllWithNotEnoughReplicasAndLeaveTheLogUntouched() {
    Partition p = leader(List.of(1), 2, new ReplicaTestSupport.RecordingListener());
    ProduceResult r = p.appendAsLeader(batch3(), -1, 1, 30_000).join();
    assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, r.error());
    assertEquals(0, p.log().logEndOffset());
  }

  @Test
  void shouldAnswerNotEnoughReplicasAfterAppendWhenTheIsrShrankMeanwhile() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    CompletableFuture<ProduceResult> f = p.appendAsLeader(batch3(), -1, 1, 30_000);
    p.applyPartitionState(state(TP, REPLICAS, List.of(1), 1, 1, 2), 2);
    assertTrue(f.isDone());
    assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, f.join().error());
  }

  @Test
  void shouldFailWaitingProducesWithAHintWhenLeadershipMoves() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    CompletableFuture<ProduceResult> f = p.appendAsLeader(batch3(), -1, 1, 30_000);
    assertEquals(
        Partition.StateChange.BECAME_FOLLOWER,
        p.applyPartitionState(state(TP, REPLICAS, List.of(2, 3), 2, 2, 2), 2));
    ProduceResult r = f.join();
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, r.error());
    assertEquals(new LeaderHintInfo(2, 2), r.hint());
    assertEquals(ReplicaRole.FOLLOWER, p.role());
  }

  @Test
  void shouldTimeOutAWaitingProduce() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    CompletableFuture<ProduceResult> f = p.appendAsLeader(batch3(), -1, 1, 500);
    clock.advanceMs(499);
    p.tick();
    assertFalse(f.isDone());
    clock.advanceMs(1);
    p.tick();
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, f.join().error());
  }

  @Test
  void shouldFenceProducesWithAStaleOrUnknownLeaderEpoch() {
    Partition p = replica(1, new ReplicaTestSupport.RecordingListener());
    p.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 5, 5), 2);
    assertEquals(
        ErrorCode.FENCED_LEADER_EPOCH, p.appendAsLeader(batch3(), 1, 4, 1000).join().error());
    assertEquals(
        ErrorCode.UNKNOWN_LEADER_EPOCH, p.appendAsLeader(batch3(), 1, 6, 1000).join().error());
    assertEquals(0, p.log().logEndOffset());
    assertEquals(ErrorCode.NONE, p.appendAsLeader(batch3(), 1, 5, 1000).join().error());
  }

  @Test
  void shouldRefuseProducesAndFetchesOnAFollower() {
    Partition p = replica(2, new ReplicaTestSupport.RecordingListener());
    p.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 1, 1), 2);
    assertEquals(
        ErrorCode.NOT_LEADER_OR_FOLLOWER, p.appendAsLeader(batch3(), 1, -1, 1000).join().error());
    PartitionFetchResult r = p.fetch(new FetchParams(-1, 0, -1, -1, 1000, true));
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, r.error());
    assertEquals(1, r.hint().leaderId());
  }

  @Test
  void shouldAnswerAnIdempotentRetryWithItsOriginalOffset() {
    Partition p = leader(List.of(1), 1, new ReplicaTestSupport.RecordingListener());
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    ByteBuffer first = idempotentBatch(42, (short) 0, 0, 2, clock.nowMs());
    ByteBuffer retry = first.duplicate();
    ByteBuffer copy = ByteBuffer.allocate(retry.remaining()).put(retry).flip();
    ProduceResult r1 = p.appendAsLeader(first, -1, -1, 1000).join();
    ProduceResult r2 = p.appendAsLeader(copy, -1, -1, 1000).join();
    assertEquals(ErrorCode.NONE, r1.error());
    assertEquals(3, r1.baseOffset());
    assertEquals(ErrorCode.NONE, r2.error());
    assertEquals(3, r2.baseOffset());
    assertEquals(5, p.log().logEndOffset());
  }

  @Test
  void shouldPassThroughSequenceErrors() {
    Partition p = leader(List.of(1), 1, new ReplicaTestSupport.RecordingListener());
    p.appendAsLeader(idempotentBatch(7, (short) 0, 0, 1, clock.nowMs()), 1, -1, 1000).join();
    ProduceResult gap =
        p.appendAsLeader(idempotentBatch(7, (short) 0, 5, 1, clock.nowMs()), 1, -1, 1000).join();
    assertEquals(ErrorCode.OUT_OF_ORDER_SEQUENCE, gap.error());
    assertEquals(1, p.log().logEndOffset());
  }

  @Test
  void shouldRefuseACorruptBatchWithTheLogUntouched() {
    Partition p = leader(List.of(1), 1, new ReplicaTestSupport.RecordingListener());
    ByteBuffer b = batch3();
    b.put(b.limit() - 1, (byte) (b.get(b.limit() - 1) ^ 0x5a));
    assertEquals(ErrorCode.CORRUPT_MESSAGE, p.appendAsLeader(b, 1, -1, 1000).join().error());
    assertEquals(0, p.log().logEndOffset());
  }

  @Test
  void shouldRefuseAFetchFromABrokerThatIsNotAReplica() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    PartitionFetchResult r = p.fetch(follower(9, 0, -1));
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, r.error());
  }

  @Test
  void shouldAnswerOffsetOutOfRangeForAFollowerFetchBeyondTheLogEnd() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    PartitionFetchResult r = p.fetch(follower(2, 10, -1));
    assertEquals(ErrorCode.OFFSET_OUT_OF_RANGE, r.error());
    assertEquals(3, r.logEndOffset());
  }

  @Test
  void shouldFenceFetchesWithAStaleLeaderEpoch() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    assertEquals(
        ErrorCode.FENCED_LEADER_EPOCH, p.fetch(new FetchParams(2, 0, 0, -1, 100, true)).error());
    assertEquals(
        ErrorCode.UNKNOWN_LEADER_EPOCH, p.fetch(new FetchParams(2, 0, 2, -1, 100, true)).error());
  }

  @Test
  void shouldLetConsumersReadOnlyBelowTheHighWatermark() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    PartitionFetchResult before = p.fetch(new FetchParams(-1, 0, -1, -1, 1 << 20, true));
    assertNull(before.slice(), "nothing is committed yet");
    p.fetch(follower(2, 3, 1));
    p.fetch(follower(3, 3, 1));
    PartitionFetchResult after = p.fetch(new FetchParams(-1, 0, -1, -1, 1 << 20, true));
    assertEquals(3, after.highWatermark());
    assertNotNull(after.slice());
    assertEquals(batch3().remaining(), after.sizeInBytes(), "exactly the first batch");
  }

  @Test
  void shouldShrinkTheIsrAfterTheLagTimeAndExpandWhenCaughtUp() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition p = leader(List.of(1, 2, 3), 2, l);
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    p.fetch(follower(2, 3, 1));
    clock.advanceMs(LAG_MS + 1);
    p.fetch(follower(2, 3, 1));
    p.tick();
    assertEquals(1, l.isrChanges.size());
    IsrChange shrink = l.isrChanges.get(0);
    assertEquals(List.of(1, 2), shrink.newIsr());
    assertEquals(0, p.log().highWatermark(), "a pending shrink still counts the old ISR");
    p.onIsrChangeResult(shrink, ErrorCode.NONE, "", 1, List.of(1, 2), 1, 2);
    assertEquals(List.of(1, 2), List.copyOf(p.leaderState().isr()));
    assertEquals(3, p.log().highWatermark());
    p.fetch(follower(3, 3, 1));
    assertEquals(2, l.isrChanges.size());
    assertEquals(List.of(1, 2, 3), l.isrChanges.get(1).newIsr());
  }

  /**
   * Follower 3 is cut off from the leader (its session with the controller holds, so nobody fences
   * it): no fetch of it arrives any more. The leader drops it after replica.silent.time.max.ms, not
   * replica.lag.time.max.ms, and the waiting acks=all produce completes on the smaller ISR.
   */
  @Test
  void shouldDropAFollowerThatSentNoFetchForTheSilentTime() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition p = silentAwareLeader(List.of(1, 2, 3), 2, l);
    p.fetch(follower(2, 0, -1));
    p.fetch(follower(3, 0, -1));
    CompletableFuture<ProduceResult> f = p.appendAsLeader(batch3(), -1, 1, 30_000);
    p.fetch(follower(2, 3, 1));
    long cutAt = clock.monotonicMs();
    while (clock.monotonicMs() - cutAt <= SILENT_MS) {
      assertEquals(List.of(), l.isrChanges, "silent for " + (clock.monotonicMs() - cutAt) + " ms");
      clock.advanceMs(100);
      p.fetch(follower(2, 3, 1));
      p.tick();
    }
    assertEquals(1, l.isrChanges.size());
    IsrChange shrink = l.isrChanges.get(0);
    assertEquals(List.of(1, 2), shrink.newIsr());
    assertFalse(f.isDone(), "a pending shrink still counts 3");
    p.onIsrChangeResult(shrink, ErrorCode.NONE, "", 1, List.of(1, 2), 1, 2);
    assertEquals(3, p.log().highWatermark());
    assertEquals(ErrorCode.NONE, f.join().error());
  }

  /**
   * Both followers are cut off from the leader: dropping them would leave an ISR of the leader
   * alone, below min.insync.replicas, which takes no acks=all write and leaves the controller no
   * other replica to elect; the silence rule leaves that to the controller (the followers report
   * the leader unreachable) and the lag rule.
   */
  @Test
  void shouldNotShrinkBelowMinIsrOnSilence() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition p = silentAwareLeader(List.of(1, 2, 3), 2, l);
    p.fetch(follower(2, 0, -1));
    p.fetch(follower(3, 0, -1));
    for (int i = 0; i < (SILENT_MS * 3) / 100; i++) {
      clock.advanceMs(100);
      p.tick();
    }
    assertEquals(List.of(), l.isrChanges);
  }

  private Partition silentAwareLeader(
      List<Integer> isr, int minIsr, ReplicaTestSupport.RecordingListener l) {
    PartitionLog log = ReplicaTestSupport.openLog(dir.resolve("b1"), TP, clock, scheduler);
    logs.add(log);
    Partition p =
        new Partition(TP, log, clock, l, new ReplicationSettings(1, LAG_MS, 100, 100, SILENT_MS));
    assertEquals(
        Partition.StateChange.BECAME_LEADER,
        p.applyPartitionState(state(TP, REPLICAS, isr, 1, 1, 1), minIsr));
    return p;
  }

  /**
   * A reassignment adds broker 4 to [1, 2, 3] and drops 3: the expansion that brings 4 in sync is
   * answered with the completed state (ISR [1, 2, 4]) before the metadata brings its replica set,
   * at the same partition epoch; the leader still takes the new replica set, so 3 is no longer a
   * follower it proposes for the ISR.
   */
  @Test
  void shouldTakeTheReplicaSetOfAnIsrChangeAnsweredBeforeTheMetadata() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition p = replica(1, l);
    p.applyPartitionState(state(TP, List.of(1, 2, 3), List.of(1, 2, 3), 1, 1, 1), 2);
    assertEquals(
        Partition.StateChange.ISR_UPDATED,
        p.applyPartitionState(state(TP, List.of(4, 1, 2, 3), List.of(1, 2, 3), 1, 1, 2), 2));
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    p.fetch(follower(2, 3, 1));
    p.fetch(follower(3, 3, 1));
    p.fetch(follower(4, 3, 1));
    IsrChange expand = l.isrChanges.get(l.isrChanges.size() - 1);
    assertEquals(List.of(1, 2, 3, 4), expand.newIsr());
    p.onIsrChangeResult(expand, ErrorCode.NONE, "", 1, List.of(1, 2, 4), 1, 3);
    assertEquals(
        Partition.StateChange.ISR_UPDATED,
        p.applyPartitionState(state(TP, List.of(4, 1, 2), List.of(1, 2, 4), 1, 1, 3), 2),
        "the same partition epoch, with the replica set the answer did not carry");
    assertEquals(List.of(4, 1, 2), p.replicas());
    assertFalse(p.leaderState().isReplica(3));
    int sent = l.isrChanges.size();
    p.fetch(follower(3, 3, 1));
    assertEquals(sent, l.isrChanges.size(), "no ISR proposal for a dropped replica");
    assertEquals(
        Partition.StateChange.STALE,
        p.applyPartitionState(state(TP, List.of(4, 1, 2), List.of(1, 2, 4), 1, 1, 3), 2));
  }

  @Test
  void shouldKeepAnUnconfirmedIsrChangePendingAndResendIt() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition p = leader(List.of(1, 2), 2, l);
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    p.fetch(follower(3, 3, 1));
    IsrChange expand = l.isrChanges.get(0);
    p.onIsrChangeResult(expand, ErrorCode.QUORUM_UNAVAILABLE, "timeout", -1, List.of(), -1, -1);
    assertTrue(
        p.leaderState().pendingIsr().isPresent(),
        "the change may have been committed: the maximal ISR must still count it");
    clock.advanceMs(100);
    p.tick();
    assertEquals(2, l.isrChanges.size());
    assertEquals(expand, l.isrChanges.get(1));
  }

  @Test
  void shouldTruncateADivergingFollowerToTheLeadersEpochEnd() {
    // Broker 1 led epoch 1 and wrote 3 records that only it has; broker 2 leads epoch 2.
    Partition old = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    old.appendAsLeader(batch3(), 1, -1, 1000).join();
    Partition next = replica(2, new ReplicaTestSupport.RecordingListener());
    next.applyPartitionState(state(TP, REPLICAS, List.of(2, 3), 2, 2, 2), 2);
    next.appendAsLeader(batch(2, clock.nowMs(), "new"), 1, -1, 1000).join();
    assertEquals(
        Partition.StateChange.BECAME_FOLLOWER,
        old.applyPartitionState(state(TP, REPLICAS, List.of(2, 3), 2, 2, 2), 2));

    FollowerFetchState s = old.followerFetchState().orElseThrow();
    assertEquals(3, s.fetchOffset());
    assertEquals(1, s.lastFetchedEpoch());
    PartitionFetchResult r =
        next.fetch(new FetchParams(1, s.fetchOffset(), 2, s.lastFetchedEpoch(), 1 << 20, true));
    assertEquals(
        new EpochEndOffset(1, 0),
        r.divergingEpoch(),
        "the new leader's history starts with epoch 2 at offset 0: epoch 1 ends there");
    assertEquals(
        Partition.FollowerOutcome.TRUNCATED,
        old.processFetchResponse(
            s,
            ErrorCode.NONE,
            "",
            r.highWatermark(),
            r.logStartOffset(),
            r.logEndOffset(),
            r.divergingEpoch(),
            null));
    assertEquals(0, old.log().logEndOffset());

    FollowerFetchState s2 = old.followerFetchState().orElseThrow();
    PartitionFetchResult r2 =
        next.fetch(new FetchParams(1, s2.fetchOffset(), 2, s2.lastFetchedEpoch(), 1 << 20, true));
    assertNull(r2.divergingEpoch());
    assertEquals(
        Partition.FollowerOutcome.APPENDED,
        old.processFetchResponse(
            s2,
            ErrorCode.NONE,
            "",
            r2.highWatermark(),
            r2.logStartOffset(),
            r2.logEndOffset(),
            null,
            bytes(r2.slice())));
    assertEquals(2, old.log().logEndOffset());
    assertEquals(
        bytes(next.log().read(0, 1 << 20, Long.MAX_VALUE, true).slice()),
        bytes(old.log().read(0, 1 << 20, Long.MAX_VALUE, true).slice()));
  }

  @Test
  void shouldTruncateOnlyTheUncommittedSuffixWhenEpochsShareAPrefix() {
    Partition a = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    Partition b = replica(2, new ReplicaTestSupport.RecordingListener());
    b.applyPartitionState(state(TP, REPLICAS, List.of(1, 2, 3), 1, 1, 1), 2);
    a.appendAsLeader(batch3(), 1, -1, 1000).join();
    // b replicates the first batch
    FollowerFetchState s = b.followerFetchState().orElseThrow();
    PartitionFetchResult r =
        a.fetch(new FetchParams(2, s.fetchOffset(), 1, s.lastFetchedEpoch(), 1 << 20, true));
    b.processFetchResponse(
        s,
        ErrorCode.NONE,
        "",
        r.highWatermark(),
        r.logStartOffset(),
        r.logEndOffset(),
        null,
        bytes(r.slice()));
    assertEquals(3, b.log().logEndOffset());
    a.appendAsLeader(batch3(), 1, -1, 1000).join(); // offsets 3..5 only on a
    // b becomes leader of epoch 2 and writes 3..4; a follows
    b.applyPartitionState(state(TP, REPLICAS, List.of(2, 3), 2, 2, 2), 2);
    b.appendAsLeader(batch(2, clock.nowMs(), "b"), 1, -1, 1000).join();
    a.applyPartitionState(state(TP, REPLICAS, List.of(2, 3), 2, 2, 2), 2);
    FollowerFetchState sa = a.followerFetchState().orElseThrow();
    PartitionFetchResult d =
        b.fetch(new FetchParams(1, sa.fetchOffset(), 2, sa.lastFetchedEpoch(), 1 << 20, true));
    assertEquals(new EpochEndOffset(1, 3), d.divergingEpoch());
    a.processFetchResponse(
        sa,
        ErrorCode.NONE,
        "",
        d.highWatermark(),
        d.logStartOffset(),
        d.logEndOffset(),
        d.divergingEpoch(),
        null);
    assertEquals(3, a.log().logEndOffset(), "the common prefix stays");
  }

  @Test
  void shouldIgnoreAFetchAnswerForAnEarlierLeadership() {
    Partition f = replica(2, new ReplicaTestSupport.RecordingListener());
    f.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 1, 1), 2);
    FollowerFetchState s = f.followerFetchState().orElseThrow();
    f.applyPartitionState(state(TP, REPLICAS, REPLICAS, 3, 2, 2), 2);
    assertEquals(
        Partition.FollowerOutcome.STALE,
        f.processFetchResponse(s, ErrorCode.NONE, "", 0, 0, 0, null, batch3()));
    assertEquals(0, f.log().logEndOffset());
  }

  @Test
  void shouldStartOverAtTheLeadersLogStartWhenFarBehind() {
    Partition f = replica(2, new ReplicaTestSupport.RecordingListener());
    f.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 1, 1), 2);
    FollowerFetchState s = f.followerFetchState().orElseThrow();
    assertEquals(
        Partition.FollowerOutcome.TRUNCATED,
        f.processFetchResponse(s, ErrorCode.OFFSET_OUT_OF_RANGE, "", 100, 50, 120, null, null));
    assertEquals(50, f.log().logStartOffset());
    assertEquals(50, f.log().logEndOffset());
  }

  @Test
  void shouldIgnoreAnOlderPartitionState() {
    Partition p = leader(List.of(1, 2, 3), 2, new ReplicaTestSupport.RecordingListener());
    assertEquals(
        Partition.StateChange.STALE,
        p.applyPartitionState(state(TP, REPLICAS, List.of(2, 3), 2, 0, 0), 2));
    assertEquals(ReplicaRole.LEADER, p.role());
  }

  @Test
  void shouldAssignTheNewEpochAtTheLogEndWhenBecomingLeader() {
    Partition p = replica(1, new ReplicaTestSupport.RecordingListener());
    p.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 1, 1), 2);
    p.appendAsLeader(batch3(), 1, -1, 1000).join();
    p.applyPartitionState(state(TP, REPLICAS, REPLICAS, 2, 1, 2), 2);
    p.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 4, 3), 2);
    assertEquals(4, p.log().leaderEpochCache().latestEpoch().getAsInt());
    assertEquals(3, p.log().leaderEpochCache().latestEntry().orElseThrow().startOffset());
  }

  @Test
  void shouldGoOfflineAndStopFetchingWhenTheFollowerLogCannotBeWritten() {
    var l = new ReplicaTestSupport.RecordingListener();
    Partition f = replica(2, l);
    f.applyPartitionState(state(TP, REPLICAS, REPLICAS, 1, 1, 1), 2);
    FollowerFetchState s = f.followerFetchState().orElseThrow();
    f.log().close(); // any write now fails
    assertEquals(
        Partition.FollowerOutcome.OFFLINE,
        f.processFetchResponse(s, ErrorCode.NONE, "", 3, 0, 3, null, batch3()));
    assertEquals(ReplicaRole.OFFLINE, f.role());
    assertTrue(f.followerFetchState().isEmpty(), "an offline replica fetches nothing");
    assertFalse(f.offlineReason().isEmpty());
    assertEquals(
        Partition.StateChange.UNCHANGED,
        f.applyPartitionState(state(TP, REPLICAS, REPLICAS, 3, 2, 2), 2),
        "stays offline until restart");
  }

  /** One fetch of {@code follower} from {@code leader}, applied as the replica fetcher does. */
  private static Partition.FollowerOutcome replicate(Partition leader, Partition follower) {
    FollowerFetchState s = follower.followerFetchState().orElseThrow();
    PartitionFetchResult r = leader.fetch(follower(2, s.fetchOffset(), s.lastFetchedEpoch()));
    return follower.processFetchResponse(
        s,
        r.error(),
        r.message(),
        r.highWatermark(),
        r.logStartOffset(),
        r.logEndOffset(),
        r.divergingEpoch(),
        bytes(r.slice()));
  }

  /**
   * DeleteRecords moves the leader's log start offset, within Kafka's bounds; the follower takes it
   * from its next fetch answer, so a follower that becomes leader serves nothing deleted.
   */
  @Test
  void shouldMoveTheLogStartOnTheLeaderAndOnTheFollowerThroughFetch() {
    Partition a = leader(List.of(1, 2), 1, new ReplicaTestSupport.RecordingListener());
    a.appendAsLeader(batch3(), 1, -1, 1000).join();
    a.appendAsLeader(batch3(), 1, -1, 1000).join();
    Partition b = replica(2, new ReplicaTestSupport.RecordingListener());
    b.applyPartitionState(state(TP, REPLICAS, List.of(1, 2), 1, 1, 1), 2);
    assertEquals(Partition.FollowerOutcome.APPENDED, replicate(a, b));
    replicate(a, b); // reports offset 6: the leader's high watermark follows
    assertEquals(6, a.log().highWatermark());

    assertEquals(
        ErrorCode.NOT_LEADER_OR_FOLLOWER, RecordDeletion.onLeader(b, 3).error(), "a follower");
    assertEquals(ErrorCode.OFFSET_OUT_OF_RANGE, RecordDeletion.onLeader(a, 7).error());
    assertEquals(ErrorCode.OFFSET_OUT_OF_RANGE, RecordDeletion.onLeader(a, -2).error());
    assertEquals(0, a.log().logStartOffset(), "refusals change nothing");
    RecordDeletion.Result done = RecordDeletion.onLeader(a, 4);
    assertEquals(ErrorCode.NONE, done.error());
    assertEquals(4, done.lowWatermark());
    assertEquals(4, RecordDeletion.onLeader(a, 2).lowWatermark(), "never backwards");
    assertEquals(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        a.fetch(new FetchParams(-1, 3, 1, -1, 1 << 20, true)).error());

    assertEquals(0, b.log().logStartOffset());
    replicate(a, b);
    assertEquals(4, b.log().logStartOffset(), "the follower took the leader's log start");
    assertEquals(6, RecordDeletion.onLeader(a, RecordDeletion.HIGH_WATERMARK).lowWatermark());
    replicate(a, b);
    assertEquals(6, b.log().logStartOffset());
  }
}
