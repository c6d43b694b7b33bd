package dev.spool.broker.log;

import static dev.spool.broker.log.LogTestSupport.batch;
import static dev.spool.broker.log.LogTestSupport.cleanerConfig;
import static dev.spool.broker.log.LogTestSupport.smallConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.internal.OffsetCheckpoints;
import dev.spool.broker.log.internal.PartitionMetadataFile;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
@Timeout(60)
class LogManagerTest {
  @TempDir Path dataDir;
  ManualClock clock = new ManualClock(1_700_000_000_000L);
  LogManagerConfig config =
      new LogManagerConfig(2, 3_600_000, 3_600_000, 86_400_000, smallConfig(), cleanerConfig());

  private static TopicPartition tp(String topic, int p) {
    return new TopicPartition(topic, p);
  }

  @Test
  void reopensEveryPartitionWithItsOffsetsAfterACleanShutdown() throws Exception {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      for (int p = 0; p < 6; p++) {
        PartitionLog log = m.getOrCreate(tp("multi-part-topic", p), "id-" + p, smallConfig());
        for (int i = 0; i <= p; i++) {
          log.appendAsLeader(batch(2, clock.nowMs(), "v"), 0);
        }
        log.updateHighWatermark(p);
      }
    }
    assertEquals(
        "0\n6\nmulti-part-topic 0 0\nmulti-part-topic 1 1\nmulti-part-topic 2 2\n"
            + "multi-part-topic 3 3\nmulti-part-topic 4 4\nmulti-part-topic 5 5\n",
        Files.readString(dataDir.resolve(OffsetCheckpoints.HIGH_WATERMARK_FILE)));
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      assertEquals(6, m.all().size());
      for (int p = 0; p < 6; p++) {
        PartitionLog log = m.get(tp("multi-part-topic", p)).orElseThrow();
        assertEquals(2L * (p + 1), log.logEndOffset());
        assertEquals(p, log.highWatermark());
        assertEquals(2L * (p + 1), log.recoveryPoint());
        assertEquals("id-" + p, log.topicId());
      }
    }
  }

  @Test
  void everyLogFlushIsTimedForLogsOpenedBeforeAndAfterTheObserverIsSet() throws Exception {
    List<Long> flushes = new CopyOnWriteArrayList<>();
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      PartitionLog before = m.getOrCreate(tp("timed", 0), "id-0", smallConfig());
      m.observeFlushes(flushes::add);
      PartitionLog after = m.getOrCreate(tp("timed", 1), "id-1", smallConfig());
      before.appendAsLeader(batch(2, clock.nowMs(), "v"), 0);
      after.appendAsLeader(batch(2, clock.nowMs(), "v"), 0);
      before.flush();
      assertEquals(1, flushes.size());
      after.flush();
      assertEquals(2, flushes.size());
      assertTrue(flushes.stream().allMatch(ns -> ns >= 0), flushes.toString());
    }
  }

  @Test
  void refusesAPartitionWhoseDirectoryWouldLieOutsideTheDataDir() throws Exception {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      for (String name : new String[] {"../escape", "a/b", "../../x"}) {
        IllegalArgumentException e =
            org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class,
                () -> m.getOrCreate(tp(name, 0), "id-1", smallConfig()));
        assertTrue(e.getMessage().contains("outside"), e.getMessage());
      }
      assertEquals(0, m.all().size());
    }
    try (Stream<Path> siblings = Files.list(dataDir.getParent())) {
      assertFalse(
          siblings.anyMatch(p -> p.getFileName().toString().startsWith("escape")),
          "a directory was created outside the data dir");
    }
  }

  @Test
  void sameNameWithANewTopicIdReplacesTheStaleLog() {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      PartitionLog old = m.getOrCreate(tp("t", 0), "old-id", smallConfig());
      old.appendAsLeader(batch(3, clock.nowMs(), "stale"), 0);
      PartitionLog fresh = m.getOrCreate(tp("t", 0), "new-id", smallConfig());
      assertNotSame(old, fresh);
      assertEquals(0, fresh.logEndOffset());
      assertEquals("new-id", fresh.topicId());
      assertEquals(fresh, m.getOrCreate(tp("t", 0), "new-id", smallConfig()));
    }
  }

  @Test
  void aLogWithoutATopicIdAdoptsTheFirstOneGiven() throws Exception {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      m.getOrCreate(tp("legacy", 0), "id-1", smallConfig())
          .appendAsLeader(batch(1, clock.nowMs(), "l"), 0);
    }
    Files.delete(dataDir.resolve("legacy-0").resolve(PartitionMetadataFile.FILE_NAME));
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      PartitionLog log = m.getOrCreate(tp("legacy", 0), "id-2", smallConfig());
      assertEquals(1, log.logEndOffset());
      assertEquals("id-2", log.topicId());
      assertEquals(
          "version: 0\ntopic_id: id-2\n",
          Files.readString(dataDir.resolve("legacy-0").resolve(PartitionMetadataFile.FILE_NAME)));
    }
  }

  @Test
  void deleteRenamesTheDirectoryAtOnceAndRemovesTheFilesAfterTheDelay() throws Exception {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      PartitionLog log = m.getOrCreate(tp("gone", 1), "id", smallConfig());
      log.appendAsLeader(batch(2, clock.nowMs(), "x"), 0);
      m.delete(tp("gone", 1));
      assertTrue(m.get(tp("gone", 1)).isEmpty());
      assertFalse(Files.exists(dataDir.resolve("gone-1")));
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                try (Stream<Path> s = Files.list(dataDir)) {
                  return s.noneMatch(
                      p -> p.getFileName().toString().endsWith(LogManager.DELETE_DIR_SUFFIX));
                }
              });
    }
  }

  @Test
  void leftoverDeleteDirectoriesAreRemovedAtOpen() throws Exception {
    Path leftover = dataDir.resolve("old-0.abc123-delete");
    Files.createDirectories(leftover);
    Files.write(leftover.resolve("00000000000000000000.log"), new byte[100]);
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      assertFalse(Files.exists(leftover));
      assertTrue(m.all().isEmpty());
    }
  }

  @Test
  void aPartitionThatCannotOpenIsReportedAndTakesTheDirectoryOffline() throws Exception {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      m.getOrCreate(tp("good", 0), "g", smallConfig())
          .appendAsLeader(batch(1, clock.nowMs(), "g"), 0);
    }
    Path bad = dataDir.resolve("bad-0");
    Files.createDirectories(bad);
    Files.write(bad.resolve("not-a-number-000000.log"), new byte[10]);
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      assertEquals(1, m.all().size());
      Map<TopicPartition, Throwable> failed = m.failedPartitions();
      assertTrue(failed.containsKey(tp("bad", 0)));
      assertTrue(
          failed.get(tp("bad", 0)).getMessage().contains("unexpected file name"),
          failed.get(tp("bad", 0)).getMessage());
      assertEquals(1, m.get(tp("good", 0)).orElseThrow().logEndOffset());
      assertTrue(m.isOffline(), "an unopenable replica is a storage error of its directory");
      assertEquals(List.of(dataDir.toString()), m.offlineDirs(), "what the heartbeat reports");
      assertTrue(
          m.offlineReason().contains("bad-0: [partition=bad-0] unexpected file name"),
          m.offlineReason());
    }
    assertFalse(
        Files.exists(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)),
        "a failed partition makes the shutdown unclean");
  }

  @Test
  void unparsableCheckpointFilesAreTreatedAsAbsent() throws Exception {
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      PartitionLog log = m.getOrCreate(tp("cp", 0), "id", smallConfig());
      log.appendAsLeader(batch(4, clock.nowMs(), "c"), 0);
      log.updateHighWatermark(4);
    }
    Files.writeString(dataDir.resolve(OffsetCheckpoints.HIGH_WATERMARK_FILE), "0\n1\ncp zero 4\n");
    Files.writeString(dataDir.resolve(OffsetCheckpoints.RECOVERY_POINT_FILE), "7\n");
    Files.writeString(dataDir.resolve(OffsetCheckpoints.LOG_START_OFFSET_FILE), "");
    Files.delete(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
    try (LogManager m = LogManager.open(dataDir, config, clock)) {
      PartitionLog log = m.get(tp("cp", 0)).orElseThrow();
      assertEquals(4, log.logEndOffset(), "recovered from offset 0 instead");
      assertEquals(0, log.highWatermark(), "unknown high watermark starts at the log start");
      assertTrue(log.recoveryReport().bytesScanned() > 0);
    }
  }

  @Test
  void checkpointFileRoundTripsInKafkaFormat() throws Exception {
    OffsetCheckpoints cp = new OffsetCheckpoints(dataDir, "test-checkpoint");
    cp.write(Map.of(tp("b", 1), 5L, tp("a", 0), 7L));
    assertEquals("0\n2\na 0 7\nb 1 5\n", Files.readString(cp.file()));
    assertEquals(Map.of(tp("a", 0), 7L, tp("b", 1), 5L), cp.read());
    Files.writeString(cp.file(), "0\n1\na 0 -3\n");
    assertTrue(cp.read().isEmpty());
  }
}
