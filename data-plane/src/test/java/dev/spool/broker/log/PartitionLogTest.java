package dev.spool.broker.log;

import static dev.spool.broker.log.LogTestSupport.batch;
import static dev.spool.broker.log.LogTestSupport.bytes;
import static dev.spool.broker.log.LogTestSupport.concat;
import static dev.spool.broker.log.LogTestSupport.parse;
import static dev.spool.broker.log.LogTestSupport.readAll;
import static dev.spool.broker.log.LogTestSupport.smallConfig;
import static dev.spool.broker.log.LogTestSupport.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.LogTestSupport.Batch;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.InvalidRecordException;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordTooLargeException;
import dev.spool.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("integration")
@Timeout(60)
class PartitionLogTest extends LogFixture {
  private long now() {
    return clock.nowMs();
  }

  @Test
  void leaderAppendAssignsOffsetsFromTheLogEndAndStampsTheEpoch() {
    log = open(smallConfig());
    LogAppendInfo first = log.appendAsLeader(batch(3, now(), "a"), 5);
    LogAppendInfo second =
        log.appendAsLeader(concat(List.of(batch(2, now(), "b"), batch(1, now(), "c"))), 5);
    assertEquals(0, first.firstOffset());
    assertEquals(2, first.lastOffset());
    assertEquals(3, first.recordCount());
    assertEquals(3, second.firstOffset());
    assertEquals(5, second.lastOffset());
    assertEquals(6, log.logEndOffset());
    List<Batch> all = readAll(log, 0);
    assertEquals(List.of(0L, 3L, 5L), all.stream().map(Batch::baseOffset).toList());
    assertTrue(all.stream().allMatch(b -> b.epoch() == 5));
    assertEquals(List.of("a-0", "a-1", "a-2", "b-0", "b-1", "c-0"), values(all));
    assertEquals(List.of(new LeaderEpochCache.EpochEntry(5, 0)), log.leaderEpochCache().entries());
  }

  @Test
  void newLeaderEpochIsRecordedAtItsFirstOffsetAndOlderEpochsAreRefused() {
    log = open(smallConfig());
    log.appendAsLeader(batch(2, now(), "a"), 1);
    log.appendAsLeader(batch(2, now(), "b"), 3);
    assertEquals(
        List.of(new LeaderEpochCache.EpochEntry(1, 0), new LeaderEpochCache.EpochEntry(3, 2)),
        log.leaderEpochCache().entries());
    assertThrows(IllegalArgumentException.class, () -> log.appendAsLeader(batch(1, now(), "c"), 2));
    assertEquals(4, log.logEndOffset());
    assertEquals(new LeaderEpochCache.EpochEndOffset(1, 2), log.leaderEpochCache().endOffsetFor(2));
    assertEquals(new LeaderEpochCache.EpochEndOffset(3, 4), log.leaderEpochCache().endOffsetFor(3));
  }

  @Test
  void readStopsBeforeTheFirstBatchReachingMaxOffsetExclusive() {
    log = open(smallConfig());
    for (int i = 0; i < 5; i++) {
      log.appendAsLeader(batch(2, now(), "x" + i), 0); // offsets 2i, 2i+1
    }
    LogReadResult r = log.read(0, 1 << 20, 5, false);
    // batch [4,5] contains offset 5 -> excluded; batches [0,1],[2,3] returned
    assertEquals(List.of(0L, 2L), parse(bytes(r.slice())).stream().map(Batch::baseOffset).toList());
    assertEquals(0, r.firstBatchBaseOffset());
    assertEquals(10, r.logEndOffset());

    LogReadResult mid = log.read(3, 1 << 20, 10, false);
    assertEquals(2, mid.firstBatchBaseOffset(), "starts at the batch holding offset 3");
    assertEquals(4, parse(bytes(mid.slice())).size());

    LogReadResult nothing = log.read(4, 1 << 20, 4, false);
    assertTrue(nothing.slice().isEmpty());
    assertEquals(-1, nothing.firstBatchBaseOffset());
  }

  /**
   * The offsets a read reports covering are the records of the batches it returns, for every start,
   * size and bound, whether or not the read skipped over batches with the index (256-byte index
   * interval here, so most reads do).
   */
  @Test
  void aReadCountsTheOffsetsOfExactlyTheBatchesItReturns() {
    log = open(smallConfig());
    List<long[]> batches = new ArrayList<>(); // base offset, size
    for (int i = 0; i < 40; i++) {
      ByteBuffer b = batch(1 + i % 4, now(), "z" + i);
      batches.add(new long[] {log.logEndOffset(), b.remaining()});
      log.appendAsLeader(b, 0);
    }
    long leo = log.logEndOffset();
    int reads = 0;
    int skipping = 0;
    for (int first = 0; first < batches.size(); first++) {
      List<Integer> sizes = new ArrayList<>(List.of(0, 100, 700, 1500, 4096, 1 << 20));
      long aligned = 0; // byte limits that end exactly on a batch (and so on an index entry)
      for (int k = first; k < batches.size() && k < first + 15; k++) {
        aligned += batches.get(k)[1];
        sizes.add((int) aligned);
      }
      long base = batches.get(first)[0];
      for (long start : new long[] {base, base + 1}) {
        for (int maxBytes : sizes) {
          for (long bound : new long[] {start + 1, start + 9, leo}) {
            if (start >= leo) {
              continue;
            }
            LogReadResult r = log.read(start, maxBytes, bound, maxBytes % 7 == 0);
            List<Batch> got = parse(bytes(r.slice()));
            long records = got.stream().mapToLong(b -> b.lastOffset() - b.baseOffset() + 1).sum();
            String what = "read(" + start + ", " + maxBytes + ", " + bound + ")";
            assertEquals(records, r.slice().offsets(), what);
            if (!got.isEmpty()) {
              assertEquals(
                  got.get(got.size() - 1).lastOffset() + 1 - got.get(0).baseOffset(),
                  r.slice().offsets(),
                  what);
              reads++;
              skipping += got.size() > 4 ? 1 : 0;
            }
          }
        }
      }
    }
    assertTrue(reads > 1000 && skipping > 100, reads + " reads, " + skipping + " of many batches");
  }

  @Test
  void readHonoursMaxBytesWithWholeBatchesAndMinOneBatch() {
    log = open(smallConfig());
    for (int i = 0; i < 4; i++) {
      log.appendAsLeader(batch(3, now(), "y" + i), 0);
    }
    int batchSize = RecordBatch.at(batch(3, now(), "y0"), 0).sizeInBytes();
    LogReadResult two = log.read(0, 2 * batchSize + batchSize / 2, 100, false);
    assertEquals(2 * batchSize, two.slice().sizeInBytes());
    LogReadResult none = log.read(0, batchSize - 1, 100, false);
    assertTrue(none.slice().isEmpty());
    LogReadResult one = log.read(0, 1, 100, true);
    assertEquals(batchSize, one.slice().sizeInBytes(), "KIP-74: the first batch even if too large");
  }

  @Test
  void readOutsideTheLogIsOutOfRangeAndAtTheEndIsEmpty() {
    log = open(smallConfig());
    log.appendAsLeader(batch(2, now(), "a"), 0);
    assertThrows(OffsetOutOfRangeException.class, () -> log.read(3, 100, 10, true));
    assertThrows(OffsetOutOfRangeException.class, () -> log.read(-1, 100, 10, true));
    LogReadResult atEnd = log.read(2, 100, 10, true);
    assertTrue(atEnd.slice().isEmpty());
  }

  @Test
  void followerAppendRefusesAnOverlapAndLeavesTheLogUnchanged() {
    log = open(smallConfig());
    ByteBuffer b0 = batch(2, now(), "f0");
    RecordBatch.at(b0, 0).setBaseOffset(0);
    log.appendAsFollower(b0);
    ByteBuffer overlap = batch(1, now(), "overlap");
    RecordBatch.at(overlap, 0).setBaseOffset(1);
    InvalidOffsetException e1 =
        assertThrows(InvalidOffsetException.class, () -> log.appendAsFollower(overlap));
    assertTrue(e1.getMessage().contains("overlap"), e1.getMessage());
    ByteBuffer ok = batch(2, now(), "ok");
    ByteBuffer back = batch(1, now(), "back");
    RecordBatch.at(ok, 0).setBaseOffset(2);
    RecordBatch.at(back, 0).setBaseOffset(3);
    InvalidOffsetException e2 =
        assertThrows(
            InvalidOffsetException.class, () -> log.appendAsFollower(concat(List.of(ok, back))));
    assertTrue(e2.getMessage().contains("after the previous batch"), e2.getMessage());
    assertEquals(2, log.logEndOffset());
    assertEquals(List.of("f0-0", "f0-1"), values(readAll(log, 0)));
  }

  @Test
  void followerAppendTakesTheGapsOfACompactedLeaderAndReadsSkipThem() {
    log = open(smallConfig());
    ByteBuffer b0 = batch(2, now(), "f0");
    ByteBuffer b1 = batch(1, now(), "f1");
    ByteBuffer b2 = batch(3, now(), "f2");
    RecordBatch.at(b0, 0).setBaseOffset(0);
    RecordBatch.at(b1, 0).setBaseOffset(5); // offsets 2-4 were cleaned away on the leader
    RecordBatch.at(b2, 0).setBaseOffset(9); // and 6-8
    log.appendAsFollower(b0);
    LogAppendInfo info = log.appendAsFollower(concat(List.of(b1, b2)));
    assertEquals(5, info.firstOffset());
    assertEquals(11, info.lastOffset());
    assertEquals(12, log.logEndOffset());
    // A read from inside a gap starts at the next batch that has anything at or after it.
    List<Batch> fromGap = parse(bytes(log.read(3, 4096, 12, true).slice()));
    assertEquals(5, fromGap.get(0).baseOffset());
    assertEquals(List.of("f0-0", "f0-1", "f1-0", "f2-0", "f2-1", "f2-2"), values(readAll(log, 0)));
  }

  @Test
  void followerAppendKeepsTheLeadersEpochsAndOffsets() {
    log = open(smallConfig());
    ByteBuffer b = batch(3, now(), "f");
    RecordBatch.at(b, 0).setPartitionLeaderEpoch(7);
    LogAppendInfo info = log.appendAsFollower(b);
    assertEquals(0, info.firstOffset());
    assertEquals(2, info.lastOffset());
    assertEquals(7, readAll(log, 0).get(0).epoch());
    assertEquals(List.of(new LeaderEpochCache.EpochEntry(7, 0)), log.leaderEpochCache().entries());
  }

  @Test
  void logAppendTimeStampsTheBrokerClockAndKeepsTheCrcValid() {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                c.segmentBytes(),
                c.segmentMs(),
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                -1,
                -1,
                c.maxMessageBytes(),
                TimestampType.LOG_APPEND_TIME,
                0,
                0,
                0,
                false));
    LogAppendInfo info =
        log.appendAsLeader(batch(2, 5L, "t"), 0); // client timestamps far in the past
    assertEquals(now(), info.logAppendTimeMs());
    assertEquals(now(), info.maxTimestamp());
    ByteBuffer stored = bytes(log.read(0, 1000, 10, true).slice());
    RecordBatch b = RecordBatch.at(stored, 0).ensureValid();
    assertEquals(TimestampType.LOG_APPEND_TIME, b.timestampType());
    assertEquals(now(), b.maxTimestamp());
  }

  @Test
  void batchLargerThanMaxMessageBytesIsRefusedAndNothingIsWritten() {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                c.segmentBytes(),
                c.segmentMs(),
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                -1,
                -1,
                200,
                TimestampType.CREATE_TIME,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                0,
                false));
    ByteBuffer small = batch(1, now(), "s");
    ByteBuffer big = batch(20, now(), "big");
    RecordTooLargeException e =
        assertThrows(
            RecordTooLargeException.class,
            () -> log.appendAsLeader(concat(List.of(small, big)), 0));
    assertEquals(200, e.limitBytes());
    assertEquals(0, log.logEndOffset());
    assertEquals(0, log.sizeInBytes());
  }

  @Test
  void createTimeOutsideTheBoundsIsRefused() {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                c.segmentBytes(),
                c.segmentMs(),
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                -1,
                -1,
                c.maxMessageBytes(),
                TimestampType.CREATE_TIME,
                1000,
                5000,
                0,
                false));
    assertThrows(
        InvalidTimestampException.class, () -> log.appendAsLeader(batch(1, now() + 1001, "f"), 0));
    assertThrows(
        InvalidTimestampException.class, () -> log.appendAsLeader(batch(1, now() - 5001, "p"), 0));
    log.appendAsLeader(batch(1, now() + 1000, "edge"), 0);
    log.appendAsLeader(batch(1, now() - 5000, "edge"), 0);
    assertEquals(2, log.logEndOffset());
  }

  @Test
  void corruptOrInconsistentInputIsRefusedWithTheReason() {
    log = open(smallConfig());
    ByteBuffer bad = batch(2, now(), "c");
    bad.put(70, (byte) (bad.get(70) ^ 0x01));
    CorruptRecordException crc =
        assertThrows(CorruptRecordException.class, () -> log.appendAsLeader(bad, 0));
    assertTrue(crc.getMessage().contains("CRC"), crc.getMessage());

    ByteBuffer truncated = batch(2, now(), "t");
    truncated.limit(truncated.limit() - 3);
    assertThrows(CorruptRecordException.class, () -> log.appendAsLeader(truncated, 0));

    ByteBuffer count = batch(3, now(), "n");
    RecordBatch v = RecordBatch.at(count, 0);
    count.putInt(RecordBatch.RECORDS_COUNT_POSITION, 2);
    count.putInt(RecordBatch.CRC_POSITION, (int) v.computeChecksum());
    InvalidRecordException inv =
        assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(count, 0));
    assertTrue(inv.getMessage().contains("last offset delta"), inv.getMessage());

    ByteBuffer claimsAppendTime =
        new dev.spool.record.RecordBatchBuilder()
            .timestampType(TimestampType.LOG_APPEND_TIME)
            .append(now(), "k", "v")
            .build();
    assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(claimsAppendTime, 0));

    ByteBuffer control = batch(1, now(), "m");
    RecordBatch c = RecordBatch.at(control, 0);
    control.putShort(
        RecordBatch.ATTRIBUTES_POSITION, (short) (c.attributes() | RecordBatch.CONTROL_FLAG_MASK));
    control.putInt(RecordBatch.CRC_POSITION, (int) c.computeChecksum());
    InvalidRecordException marker =
        assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(control, 0));
    assertTrue(marker.getMessage().contains("control batch"), marker.getMessage());
    assertEquals(0, log.logEndOffset());
  }

  @Test
  void segmentsRollBySizeAndEveryOffsetIsFoundThroughTheIndexes() {
    log = open(smallConfig());
    List<String> written = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      int n = 1 + i % 4;
      log.appendAsLeader(batch(n, now() + i, "r" + i), 0);
      for (int j = 0; j < n; j++) {
        written.add("r" + i + "-" + j);
      }
    }
    assertTrue(log.numberOfSegments() >= 3, "rolled: " + log.numberOfSegments());
    assertEquals(written, values(readAll(log, 0)));
    for (long offset = 0; offset < log.logEndOffset(); offset++) {
      LogReadResult r = log.read(offset, 1, log.logEndOffset(), true);
      Batch b = parse(bytes(r.slice())).get(0);
      assertTrue(
          b.baseOffset() <= offset && offset <= b.lastOffset(), "offset " + offset + " in " + b);
    }
  }

  @Test
  void segmentRollsWhenSegmentMsHasPassedOnTheInjectedClock() {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                1 << 20,
                10_000,
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                -1,
                -1,
                c.maxMessageBytes(),
                TimestampType.CREATE_TIME,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                0,
                false));
    log.appendAsLeader(batch(1, now(), "a"), 0);
    clock.advanceMs(9_999);
    log.appendAsLeader(batch(1, now(), "b"), 0);
    assertEquals(1, log.numberOfSegments());
    clock.advanceMs(1);
    log.appendAsLeader(batch(1, now(), "c"), 0);
    assertEquals(List.of(0L, 2L), log.segmentBaseOffsets());
  }

  @Test
  void truncateRemovesWholeBatchesAndTheLogContinuesFromTheNewEnd() {
    log = open(smallConfig());
    for (int i = 0; i < 60; i++) {
      log.appendAsLeader(batch(3, now() + i, "t" + i), i < 30 ? 1 : 2);
    }
    log.updateHighWatermark(170);
    int segmentsBefore = log.numberOfSegments();
    log.truncateTo(100); // batch [99,101] contains 100 -> removed; LEO 99
    assertEquals(99, log.logEndOffset());
    assertEquals(99, log.highWatermark());
    assertTrue(log.numberOfSegments() < segmentsBefore);
    assertEquals(
        List.of(new LeaderEpochCache.EpochEntry(1, 0), new LeaderEpochCache.EpochEntry(2, 90)),
        log.leaderEpochCache().entries());
    log.appendAsLeader(batch(2, now(), "after"), 3);
    List<Batch> all = readAll(log, 0);
    assertEquals(100, all.get(all.size() - 1).lastOffset());
    assertEquals(List.of("after-0", "after-1"), all.get(all.size() - 1).values());
    for (long offset = 0; offset < log.logEndOffset(); offset++) {
      Batch b = parse(bytes(log.read(offset, 1, log.logEndOffset(), true).slice())).get(0);
      assertTrue(b.baseOffset() <= offset && offset <= b.lastOffset(), "offset " + offset);
    }
    log.truncateTo(0);
    assertEquals(0, log.logEndOffset());
    assertTrue(log.leaderEpochCache().entries().isEmpty());
  }

  @Test
  void truncateFullyStartsAnEmptyLogAtTheGivenOffset() {
    log = open(smallConfig());
    log.appendAsLeader(batch(5, now(), "old"), 0);
    log.truncateFullyAndStartAt(1000);
    assertEquals(1000, log.logStartOffset());
    assertEquals(1000, log.logEndOffset());
    assertEquals(List.of(1000L), log.segmentBaseOffsets());
    ByteBuffer b = batch(2, now(), "new");
    RecordBatch.at(b, 0).setBaseOffset(1000);
    log.appendAsFollower(b);
    assertEquals(List.of("new-0", "new-1"), values(readAll(log, 1000)));
    assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 100, 2000, true));
  }

  @Test
  void offsetForTimestampFindsTheFirstRecordAtOrAfterIt() {
    log = open(smallConfig());
    long t0 = now();
    for (int i = 0; i < 100; i++) {
      log.appendAsLeader(batch(2, t0 + 10L * i, "ts" + i), 0); // records at t0+10i, t0+10i+1
    }
    assertEquals(new TimestampAndOffset(t0, 0, 0), log.offsetForTimestamp(t0 - 100).orElseThrow());
    assertEquals(
        new TimestampAndOffset(t0 + 500, 100, 0), log.offsetForTimestamp(t0 + 500).orElseThrow());
    assertEquals(
        new TimestampAndOffset(t0 + 501, 101, 0), log.offsetForTimestamp(t0 + 501).orElseThrow());
    assertEquals(
        new TimestampAndOffset(t0 + 510, 102, 0), log.offsetForTimestamp(t0 + 502).orElseThrow());
    assertTrue(log.offsetForTimestamp(t0 + 10_000).isEmpty());
    assertTrue(log.numberOfSegments() > 1);
  }

  @Test
  void retentionByTimeDeletesOnlyOldSegmentsBelowTheHighWatermark() throws Exception {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                c.segmentBytes(),
                c.segmentMs(),
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                60_000,
                -1,
                c.maxMessageBytes(),
                TimestampType.CREATE_TIME,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                0,
                false));
    for (int i = 0; i < 80; i++) {
      log.appendAsLeader(batch(3, now(), "old" + i), 0);
    }
    clock.advanceMs(120_000);
    for (int i = 0; i < 40; i++) {
      log.appendAsLeader(batch(3, now(), "new" + i), 0);
    }
    List<Long> bases = log.segmentBaseOffsets();
    assertEquals(0, log.deleteRetainedSegments(now()), "nothing is below the high watermark yet");
    log.updateHighWatermark(log.logEndOffset());
    int deleted = log.deleteRetainedSegments(now());
    assertTrue(deleted > 0);
    long start = log.logStartOffset();
    assertEquals(bases.get(deleted), start);
    assertTrue(start <= 240, "only segments with old records go");
    assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 100, log.logEndOffset(), true));
    assertEquals(start, readAll(log, start).get(0).baseOffset());
    assertTrue(Files.exists(log.dir().resolve("00000000000000000000.log")) == false);
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(
            () -> {
              try (Stream<Path> files = Files.list(log.dir())) {
                return files.noneMatch(p -> p.toString().endsWith(".deleted"));
              }
            });
  }

  @Test
  void retentionBySizeKeepsTheNewestSegmentsWithinTheLimit() {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                c.segmentBytes(),
                c.segmentMs(),
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                -1,
                10_000,
                c.maxMessageBytes(),
                TimestampType.CREATE_TIME,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                0,
                false));
    for (int i = 0; i < 150; i++) {
      log.appendAsLeader(batch(3, now(), "s" + i), 0);
    }
    long before = log.sizeInBytes();
    log.updateHighWatermark(log.logEndOffset());
    int deleted = log.deleteRetainedSegments(now());
    assertTrue(deleted > 0);
    assertTrue(
        log.sizeInBytes() >= 10_000 - 4096 && log.sizeInBytes() < before,
        "size " + log.sizeInBytes());
    assertTrue(
        log.sizeInBytes() - 4096 < 10_000, "no further segment could go: " + log.sizeInBytes());
    assertEquals(log.segmentBaseOffsets().get(0), log.logStartOffset());
  }

  @Test
  void sliceHandedOutBeforeRetentionStillReadsUntilTheDeleteDelay() throws Exception {
    LogConfig c = smallConfig();
    log =
        open(
            new LogConfig(
                c.segmentBytes(),
                c.segmentMs(),
                c.segmentIndexBytes(),
                c.indexIntervalBytes(),
                -1,
                1,
                c.maxMessageBytes(),
                TimestampType.CREATE_TIME,
                Long.MAX_VALUE / 4,
                Long.MAX_VALUE / 4,
                60_000,
                false));
    for (int i = 0; i < 60; i++) {
      log.appendAsLeader(batch(3, now(), "d" + i), 0);
    }
    LogReadResult early = log.read(0, 4096, 1000, true);
    log.updateHighWatermark(log.logEndOffset());
    assertTrue(log.deleteRetainedSegments(now()) > 0);
    assertEquals("d0-0", parse(bytes(early.slice())).get(0).values().get(0));
  }

  @Test
  void concurrentReadersSeeOnlyWholeValidBatchesWhileTheOwnerAppends() throws Exception {
    log = open(smallConfig());
    int batches = 400;
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread reader =
        new Thread(
            () -> {
              try {
                long next = 0;
                while (!done.get() || next < log.logEndOffset()) {
                  long leo = log.logEndOffset();
                  if (next >= leo) {
                    Thread.onSpinWait();
                    continue;
                  }
                  List<Batch> got = parse(bytes(log.read(next, 8192, leo, true).slice()));
                  for (Batch b : got) {
                    if (b.baseOffset() != next) {
                      throw new AssertionError("expected batch at " + next + " got " + b);
                    }
                    next = b.lastOffset() + 1;
                  }
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    reader.start();
    for (int i = 0; i < batches; i++) {
      log.appendAsLeader(batch(1 + i % 3, now(), "c" + i), 0);
    }
    done.set(true);
    reader.join(30_000);
    if (failure.get() != null) {
      throw new AssertionError("reader failed", failure.get());
    }
    assertFalse(reader.isAlive());
  }

  @Test
  void mutationFromASecondThreadWhileTheOwnerMutatesIsRefused() throws Exception {
    log = open(smallConfig());
    log.appendAsLeader(batch(1, now(), "x"), 0);
    // Occupy the owner slot as a mutation in progress on another thread would.
    java.lang.reflect.Field f = PartitionLog.class.getDeclaredField("mutator");
    f.setAccessible(true);
    @SuppressWarnings("unchecked")
    java.util.concurrent.atomic.AtomicReference<Thread> slot =
        (java.util.concurrent.atomic.AtomicReference<Thread>) f.get(log);
    Thread other = new Thread(() -> {}, "partition-worker-7");
    slot.set(other);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> log.appendAsLeader(batch(1, now(), "y"), 0));
    assertTrue(e.getMessage().contains("partition-worker-7"), e.getMessage());
    slot.set(null);
    assertEquals(1, log.logEndOffset());
  }

  /**
   * DeleteRecords' log start offset: never past the high watermark, never backwards; reads below it
   * fail at once, and the next retention pass deletes the segments wholly below it even with
   * retention off.
   */
  @Test
  void logStartOffsetMovedByDeleteRecordsDeletesWholeSegmentsBelowIt() {
    log = open(smallConfig());
    for (int i = 0; i < 200; i++) {
      log.appendAsLeader(batch(3, now(), "r" + i), 0);
    }
    List<Long> bases = log.segmentBaseOffsets();
    assertTrue(bases.size() > 3, "several segments: " + bases);
    log.updateHighWatermark(bases.get(3));
    assertThrows(
        OffsetOutOfRangeException.class, () -> log.incrementLogStartOffset(bases.get(3) + 1));
    long target = bases.get(2) + 1;
    assertEquals(target, log.incrementLogStartOffset(target));
    assertEquals(target, log.incrementLogStartOffset(1), "never backwards");
    assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 100, target, true));
    assertEquals(bases, log.segmentBaseOffsets(), "segments go with retention, not at once");

    assertEquals(2, log.deleteRetainedSegments(now()));
    assertEquals(bases.subList(2, bases.size()), log.segmentBaseOffsets());
    assertEquals(target, log.logStartOffset(), "the start stays where it was moved");
    assertEquals(bases.get(2), readAll(log, target).get(0).baseOffset());
    assertEquals(0, log.deleteRetainedSegments(now()));
  }
}
