package dev.spool.broker.log;

import static dev.spool.broker.log.CompactionTestSupport.assertOffsetsIncrease;
import static dev.spool.broker.log.CompactionTestSupport.batches;
import static dev.spool.broker.log.CompactionTestSupport.compactConfig;
import static dev.spool.broker.log.CompactionTestSupport.keyed;
import static dev.spool.broker.log.CompactionTestSupport.keyedIdempotent;
import static dev.spool.broker.log.CompactionTestSupport.latest;
import static dev.spool.broker.log.CompactionTestSupport.records;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.CompactionTestSupport.Bat;
import dev.spool.broker.log.CompactionTestSupport.Rec;
import dev.spool.broker.log.internal.Cleaner;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.InvalidRecordException;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The cleaner on real logs, driven from the test thread: what it keeps, drops and leaves alone. */
@Tag("integration")
@Timeout(60)
class LogCleanerTest extends LogFixture {
  private PartitionLog reopen(LogConfig config, boolean clean) {
    return open(config, new LogStartupState(0, 0, Long.MAX_VALUE, clean));
  }

  private void append(String... kv) {
    log.appendAsLeader(keyed(clock.nowMs(), kv), 0);
    log.updateHighWatermark(log.logEndOffset());
  }

  private boolean cleanOnce(PartitionLog l) throws InterruptedException {
    return CompactionTestSupport.inlineCleaner(l, clock)
        .cleanFilthiest(CompactionTestSupport.cleaner(1 << 20, clock));
  }

  /**
   * A read of a cleaned log reports the offsets its batches span, removed ones included: the
   * records-out metric counts offsets, documented so for compacted topics.
   */
  @Test
  void aReadOfACleanedLogCountsTheOffsetsItsBatchesSpan() throws Exception {
    log = open(compactConfig(1024, 60_000));
    for (int round = 0; round < 30; round++) {
      append("k" + (round % 5), "v" + round, "k" + ((round + 1) % 5), "w" + round);
    }
    assertTrue(cleanOnce(log));
    LogReadResult r = log.read(0, 1 << 20, log.logEndOffset(), true);
    long first = -1;
    long last = -1;
    long kept = 0;
    for (RecordBatch b : MemoryRecords.wrap(LogTestSupport.bytes(r.slice()))) {
      first = first < 0 ? b.baseOffset() : first;
      last = b.lastOffset();
      kept += b.recordsCount();
    }
    assertEquals(last + 1 - first, r.slice().offsets());
    assertTrue(kept < r.slice().offsets(), kept + " records kept in " + r.slice().offsets());
  }

  @Test
  void keepsTheLatestValueOfEveryKeyAtItsOffsetAndLeavesTheActiveSegmentAlone() throws Exception {
    log = open(compactConfig(1024, 60_000));
    for (int round = 0; round < 30; round++) {
      append("k" + (round % 5), "v" + round, "k" + ((round + 1) % 5), "w" + round);
    }
    List<Rec> before = records(log);
    long activeBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);
    List<Bat> activeBefore = batchesFrom(batches(log), activeBase);
    long bytesBefore = log.sizeInBytes();

    assertTrue(cleanOnce(log));

    List<Bat> after = batches(log);
    assertCleaned(before, after, activeBase);
    assertEquals(activeBefore, batchesFrom(after, activeBase), "the active segment is untouched");
    assertTrue(log.sizeInBytes() < bytesBefore, "the log shrank");
    assertEquals(activeBase, log.cleanerCheckpoint().firstDirtyOffset());
    assertTrue(log.cleanerCheckpoint().bytesCleaned() > 0);
    assertEquals(clock.nowMs(), log.cleanerCheckpoint().lastCleanTimeMs());
    assertFalse(cleanOnce(log), "nothing dirty is left below the active segment");

    // The next clean merges the small cleaned segments into one up to segment.bytes.
    for (int round = 0; round < 30; round++) {
      append("k" + (round % 5), "v" + round, "k" + ((round + 1) % 5), "w" + round);
    }
    int grown = log.numberOfSegments();
    assertTrue(cleanOnce(log));
    assertTrue(
        log.numberOfSegments() < grown,
        "segments merged: " + grown + " -> " + log.numberOfSegments());
    assertEquals(latest(records(log)), latest(before));
  }

  /**
   * What every clean leaves: offsets strictly increasing, the latest value of every key of {@code
   * written}, fewer records, only records that were written at their offsets, and every key at most
   * once below {@code activeBase}.
   */
  private static void assertCleaned(List<Rec> written, List<Bat> after, long activeBase) {
    assertOffsetsIncrease(after);
    List<Rec> kept = after.stream().flatMap(b -> b.records().stream()).toList();
    assertEquals(latest(written), latest(kept), "the latest value of every key survives");
    assertTrue(kept.size() < written.size(), "older values go");
    for (Rec r : kept) {
      assertTrue(
          written.contains(r), "record " + r + " is not one that was written, at its offset");
    }
    List<String> cleanKeys =
        kept.stream().filter(r -> r.offset() < activeBase).map(Rec::key).toList();
    assertEquals(cleanKeys.stream().distinct().count(), cleanKeys.size(), cleanKeys.toString());
  }

  private static List<Bat> batchesFrom(List<Bat> all, long offset) {
    return all.stream().filter(b -> b.baseOffset() >= offset).toList();
  }

  @Test
  void nothingAtOrAboveTheHighWatermarkIsCleaned() throws Exception {
    log = open(compactConfig(512, 60_000));
    for (int i = 0; i < 40; i++) {
      log.appendAsLeader(keyed(clock.nowMs(), "k", "v" + i), 0);
    }
    log.updateHighWatermark(5);
    List<Bat> before = batches(log);
    cleanOnce(log);
    List<Bat> after = batches(log);
    // The segment holding offset 5 and everything after it are what they were.
    long bound = log.segmentBaseOffsets().stream().filter(b -> b <= 5).max(Long::compare).get();
    assertEquals(batchesFrom(before, bound), batchesFrom(after, bound));
  }

  @Test
  void tombstonesStayForDeleteRetentionThenGoWithTheValuesTheyDeleted() throws Exception {
    log = open(compactConfig(512, 10_000));
    for (int i = 0; i < 10; i++) {
      append("a", "a" + i, "b", "b" + i);
    }
    append("a", null);
    for (int i = 0; i < 20; i++) {
      append("c", "c" + i);
    }
    assertTrue(cleanOnce(log));
    List<Bat> first = batches(log);
    Bat withTombstone =
        first.stream()
            .filter(b -> b.records().stream().anyMatch(r -> r.key().equals("a")))
            .findFirst()
            .orElseThrow();
    assertEquals(1, withTombstone.records().size(), "only the tombstone is left of key a");
    assertEquals(null, withTombstone.records().get(0).value());
    assertEquals(clock.nowMs() + 10_000, withTombstone.deleteHorizonMs());
    assertEquals(clock.nowMs() + 10_000, log.cleanerCheckpoint().tombstoneExpiryMs());
    assertEquals("b9", latest(records(log)).get("b"));

    clock.advanceMs(9_999);
    assertFalse(cleanOnce(log), "not due: nothing dirty and the horizon is ahead");
    clock.advanceMs(1);
    assertTrue(cleanOnce(log), "the passed horizon alone makes the log due");
    Map<String, String> now = latest(records(log));
    assertFalse(now.containsKey("a"), "the tombstone is gone and no older value came back");
    assertEquals("b9", now.get("b"));
    assertEquals(-1, log.cleanerCheckpoint().tombstoneExpiryMs());
  }

  @Test
  void keylessRecordsWrittenBeforeTheTopicWasCompactedAreDropped() throws Exception {
    LogConfig compact = compactConfig(512, 60_000);
    log = open(compact.withCleanup(CleanupConfig.DELETE));
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(keyed(clock.nowMs(), null, "nokey" + i, "k", "v" + i), 0);
    }
    log.updateHighWatermark(log.logEndOffset());
    assertFalse(cleanOnce(log), "delete topics are not cleaned");
    log.updateConfig(compact);
    assertTrue(cleanOnce(log));
    long activeBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);
    assertTrue(
        records(log).stream().noneMatch(r -> r.key() == null && r.offset() < activeBase),
        "keyless records below the active segment are gone");
  }

  @Test
  void aKeylessRecordInACompactedTopicIsRefusedAndNothingIsAppended() {
    LogConfig compact = compactConfig(1024, 60_000);
    log = open(compact);
    append("k", "v");
    long leo = log.logEndOffset();
    InvalidRecordException e =
        assertThrows(
            InvalidRecordException.class,
            () -> log.appendAsLeader(keyed(clock.nowMs(), "k2", "v2", null, "nokey"), 0));
    assertTrue(e.getMessage().contains("batch 0 record 1 has no key"), e.getMessage());
    assertTrue(e.getMessage().contains("compacted"), e.getMessage());
    assertEquals(leo, log.logEndOffset(), "nothing of the batch was appended");
    assertEquals(List.of("v"), records(log).stream().map(Rec::value).toList());

    log.updateConfig(compact.withCleanup(CleanupConfig.DELETE));
    log.appendAsLeader(keyed(clock.nowMs(), "k2", "v2", null, "nokey"), 0);
    assertEquals(leo + 2, log.logEndOffset(), "a delete topic takes keyless records");
  }

  @Test
  void aKeylessRecordInsideACompressedBatchOfACompactedTopicIsRefusedToo() {
    log = open(compactConfig(1024, 60_000));
    append("k", "v");
    long leo = log.logEndOffset();
    RecordBatchBuilder b =
        new RecordBatchBuilder(256).compression(Compression.of(CompressionType.ZSTD));
    b.append(
        clock.nowMs(),
        "k2".getBytes(StandardCharsets.UTF_8),
        "v2".getBytes(StandardCharsets.UTF_8));
    b.append(clock.nowMs(), null, "nokey".getBytes(StandardCharsets.UTF_8));
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(b.build(), 0));
    assertTrue(e.getMessage().contains("batch 0 record 1 has no key"), e.getMessage());
    assertEquals(leo, log.logEndOffset(), "nothing of the batch was appended");
    assertEquals(List.of("v"), records(log).stream().map(Rec::value).toList());
  }

  @Test
  void theLastBatchOfALiveIdempotentProducerSurvivesAsAnEmptyBatch() throws Exception {
    LogConfig cfg = compactConfig(1024, 60_000);
    log = open(cfg);
    log.appendAsLeader(keyedIdempotent(7, (short) 0, 0, clock.nowMs(), "k", "p0", "j", "p1"), 0);
    // Another producer overwrites both keys afterwards, so producer 7's batch keeps no record.
    for (int i = 0; i < 30; i++) {
      log.appendAsLeader(keyed(clock.nowMs(), "k", "x" + i, "j", "y" + i), 0);
    }
    log.updateHighWatermark(log.logEndOffset());
    assertTrue(cleanOnce(log));
    Bat kept = batches(log).get(0);
    assertEquals(7, kept.producerId());
    assertEquals(0, kept.count());
    assertEquals(0, kept.baseOffset());
    assertEquals(1, kept.lastOffset(), "its last offset, hence its last sequence, survives");
    log.close();

    // After a restart the producer's state comes back from the log: a retry of its batch is a
    // duplicate, the next sequence is accepted.
    log = reopen(cfg, false);
    LogAppendInfo retry =
        log.appendAsLeader(
            keyedIdempotent(7, (short) 0, 0, clock.nowMs(), "k", "p0", "j", "p1"), 0);
    assertTrue(retry.duplicate());
    assertEquals(0, retry.firstOffset());
    LogAppendInfo next =
        log.appendAsLeader(keyedIdempotent(7, (short) 0, 2, clock.nowMs(), "k", "p2"), 0);
    assertFalse(next.duplicate());
  }

  static List<Compression> codecs() {
    return CompactionTestSupport.allCodecs();
  }

  /**
   * Compressed batches are inflated, filtered and compressed again with their own codec, as Kafka's
   * cleaner does: a batch keeps its base and last offsets, producer fields and codec; one that
   * keeps nothing goes, unless it is the last batch of a live idempotent producer, which stays as
   * an uncompressed empty header. Tombstones inside compressed batches get a delete horizon.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void compressedBatchesAreFilteredAndRecompressedWithTheirOwnCodec(Compression codec)
      throws Exception {
    log = open(compactConfig(1024, 60_000));
    log.appendAsLeader(keyedIdempotent(codec, 7, (short) 0, 0, clock.nowMs(), "a", "p0"), 0);
    for (int round = 0; round < 40; round++) {
      log.appendAsLeader(
          keyed(
              codec,
              clock.nowMs(),
              "k" + (round % 5),
              "v" + round,
              "a",
              "x" + round,
              // Early rounds delete keys never written again: their tombstones stay the latest.
              round < 8 ? "d" + round : "t" + (round % 3),
              round < 8 || round % 4 == 0 ? null : "w" + round),
          0);
    }
    log.updateHighWatermark(log.logEndOffset());
    List<Bat> before = batches(log);
    List<Rec> written = before.stream().flatMap(b -> b.records().stream()).toList();
    long activeBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);

    assertTrue(cleanOnce(log));

    List<Bat> after = batches(log);
    assertCleaned(written, after, activeBase);
    Map<Long, Bat> original = new HashMap<>();
    before.forEach(b -> original.put(b.baseOffset(), b));
    boolean rewritten = false;
    for (Bat b : after) {
      Bat o = original.get(b.baseOffset());
      assertNotNull(o, "batch at " + b.baseOffset() + " starts where a written one did");
      assertEquals(o.lastOffset(), b.lastOffset(), "its last offset stays");
      assertEquals(o.producerId(), b.producerId());
      assertEquals(o.baseSequence(), b.baseSequence());
      assertEquals(b.count() == 0 ? 0 : codec.type().id(), b.codec(), "the codec stays: " + b);
      rewritten |= b.count() > 0 && b.count() < o.count();
    }
    assertTrue(rewritten, "some batch kept only part of its records");
    Bat first = after.get(0);
    assertEquals(7, first.producerId(), "the live producer's only batch stays");
    assertEquals(0, first.count(), "as an empty header: its record was overwritten");
    assertTrue(
        after.stream()
            .filter(b -> b.baseOffset() < activeBase)
            .anyMatch(
                b ->
                    b.records().stream().anyMatch(r -> r.value() == null)
                        && b.deleteHorizonMs() > 0),
        "kept tombstones got a delete horizon");

    // Once the horizon passed, the next clean drops the tombstones from the compressed batches.
    clock.advanceMs(60_001);
    append("z", "1");
    cleanOnce(log);
    List<Rec> cleanPart =
        records(log).stream().filter(r -> r.offset() < activeBase && r.value() == null).toList();
    assertEquals(List.of(), cleanPart, "expired tombstones are gone");
  }

  @Test
  void aSmallKeyMapCleansASmallerRangeAndRepeatedCleansGetThere() throws Exception {
    log = open(compactConfig(1024, 60_000));
    for (int i = 0; i < 200; i++) {
      append("key" + i, "first", "key" + (i + 1000), "x");
    }
    for (int i = 0; i < 200; i++) {
      append("key" + i, "second");
    }
    append("tail", "t");
    Map<String, String> expected = latest(records(log));
    LogCleaner lc = CompactionTestSupport.inlineCleaner(log, clock);
    Cleaner small =
        CompactionTestSupport.cleaner(100 * CleanerConfig.OFFSET_MAP_ENTRY_BYTES, clock);
    assertTrue(small.mapCapacity() < 200);
    long activeBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);
    int cleans = 0;
    while (lc.cleanFilthiest(small)) {
      cleans++;
      assertEquals(expected, latest(records(log)), "after clean " + cleans);
      assertOffsetsIncrease(batches(log));
      assertTrue(cleans < 50, "no progress");
    }
    assertTrue(cleans > 1, "the map could not hold the dirty keys in one clean: " + cleans);
    assertEquals(activeBase, log.cleanerCheckpoint().firstDirtyOffset());
    List<String> keys =
        records(log).stream().filter(r -> r.offset() < activeBase).map(Rec::key).toList();
    assertEquals(keys.stream().distinct().count(), keys.size());
  }

  @Test
  void aTruncationDuringTheCleanMakesTheOwnerRefuseTheSwap() throws Exception {
    log = open(compactConfig(512, 60_000));
    for (int i = 0; i < 40; i++) {
      append("k" + (i % 3), "v" + i);
    }
    List<Bat> before = batches(log);
    long cut = log.segmentBaseOffsets().get(2);
    log.segmentSet()
        .setStepHook(
            step -> {
              if (step.startsWith("hand")) {
                log.truncateTo(cut); // what a follower does when its leader's log diverges
              }
            });
    assertTrue(cleanOnce(log));
    assertEquals(cut, log.logEndOffset());
    assertEquals(batchesBelow(before, cut), batches(log), "nothing was swapped in");
    assertEquals(-1, log.cleanerCheckpoint().firstDirtyOffset());
    try (Stream<Path> files = Files.list(log.dir())) {
      assertTrue(files.noneMatch(p -> p.toString().endsWith(".cleaned")), "no leftovers");
    }
  }

  private static List<Bat> batchesBelow(List<Bat> all, long offset) {
    return all.stream().filter(b -> b.lastOffset() < offset).toList();
  }

  @Test
  void theCheckpointSurvivesARestartThroughTheLogManager() throws Exception {
    Path dataDir = tmp.resolve("data");
    LogManagerConfig cfg =
        new LogManagerConfig(
            1,
            3_600_000,
            3_600_000,
            86_400_000,
            compactConfig(512, 60_000),
            LogTestSupport.cleanerConfig());
    CleanerCheckpoint afterClean;
    try (LogManager m = LogManager.open(dataDir, cfg, clock)) {
      PartitionLog l = m.getOrCreate(LogTestSupport.TP, "tid", compactConfig(512, 60_000));
      for (int i = 0; i < 40; i++) {
        l.appendAsLeader(keyed(clock.nowMs(), "k" + (i % 4), "v" + i), 0);
      }
      l.updateHighWatermark(l.logEndOffset());
      assertTrue(cleanOnce(l));
      afterClean = l.cleanerCheckpoint();
      assertTrue(afterClean.firstDirtyOffset() > 0);
    }
    try (LogManager m = LogManager.open(dataDir, cfg, clock)) {
      PartitionLog l = m.get(LogTestSupport.TP).orElseThrow();
      assertEquals(afterClean, l.cleanerCheckpoint());
      assertFalse(l.configConfirmed(), "the startup default waits for the topic's config");
      assertFalse(cleanOnce(l), "nor does the cleaner touch it");
      m.getOrCreate(LogTestSupport.TP, "tid", compactConfig(512, 60_000));
      assertTrue(l.configConfirmed());
    }
    assertNotNull(afterClean);
  }

  @Test
  void closeLetsACheckpointBeingWrittenFinishInsteadOfInterruptingIt() throws Exception {
    log = open(compactConfig(512, 60_000));
    for (int i = 0; i < 40; i++) {
      append("k" + (i % 3), "v" + i);
    }
    Path file = tmp.resolve("after-clean");
    CountDownLatch writing = new CountDownLatch(1);
    AtomicReference<Thread> closer = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean written = new AtomicBoolean();
    Runnable afterClean =
        () -> {
          writing.countDown();
          // Write only once close() is under way: blocked at the gate, or (were the write not
          // guarded) joining this thread after interrupting it.
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
          while (!closing(closer.get()) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
          }
          if (!closing(closer.get())) {
            failure.set(new AssertionError("close() never started: the race was not exercised"));
            return;
          }
          try (FileChannel ch =
              FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("checkpoint".getBytes(StandardCharsets.UTF_8)));
            written.set(true);
          } catch (IOException | RuntimeException e) {
            failure.set(e);
          }
        };
    LogCleaner cleaner = CompactionTestSupport.inlineCleaner(log, clock, afterClean);
    cleaner.start();
    assertTrue(writing.await(20, TimeUnit.SECONDS), "a clean finished");
    Thread t = new Thread(cleaner::close, "closer");
    closer.set(t);
    t.start();
    t.join(TimeUnit.SECONDS.toMillis(30));
    assertFalse(t.isAlive(), "close returned");
    assertNull(failure.get(), "the write was not interrupted");
    assertTrue(written.get());
    assertTrue(log.cleanerCheckpoint().firstDirtyOffset() > 0);
  }

  private static boolean closing(Thread t) {
    if (t == null) {
      return false;
    }
    Thread.State s = t.getState();
    return s == Thread.State.BLOCKED
        || s == Thread.State.WAITING
        || s == Thread.State.TIMED_WAITING
        || s == Thread.State.TERMINATED;
  }

  static long count(Path dir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(suffix)).count();
    }
  }
}
