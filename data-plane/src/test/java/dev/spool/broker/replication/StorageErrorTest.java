package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.LogManager;
import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.Records;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real I/O error on one partition's files takes the broker's data directory offline
 * (docs/architecture.md#storage-errors): the partition directory is replaced by a file, so the next
 * segment roll fails in the file system (ENOTDIR), as root too.
 */
@Tag("integration")
@Timeout(60)
class StorageErrorTest {
  private static final String TOPIC_ID = "a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a";
  private static final TopicPartition LED = new TopicPartition("orders", 0);
  private static final TopicPartition FOLLOWED = new TopicPartition("orders", 1);

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(1_700_000_000_000L);

  private static ProduceResult produce(ReplicaManager replicas, int records) throws Exception {
    return replicas
        .appendRecords(LED, ReplicaTestSupport.batch(records, 1_700_000_000_000L, "v"), 1, -1, 1000)
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void aFailedRollTakesTheWholeDirectoryOfflineAndEveryReplicaAnswersStorageError()
      throws Exception {
    HandlerTestBroker broker = new HandlerTestBroker(dir, clock);
    ReplicaManager replicas = broker.replicas();
    LogManager logs = replicas.logManager();
    broker.apply(Records.config(TOPIC_ID, "segment.bytes", "1024"));
    broker.publish();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> replicas.partition(LED).orElseThrow().log().config().segmentBytes() == 1024);
    assertEquals(ErrorCode.NONE, produce(replicas, 5).error());

    Path partitionDir = dir.resolve("orders-0");
    Files.move(partitionDir, dir.resolve("set-aside"));
    Files.writeString(partitionDir, "not a directory");
    ProduceResult failed = produce(replicas, 200); // more than a segment: the roll must fail
    assertEquals(ErrorCode.STORAGE_ERROR, failed.error(), failed.message());

    assertTrue(logs.isOffline());
    assertEquals(List.of(dir.toString()), logs.offlineDirs(), "what the heartbeat reports");
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                replicas.partition(FOLLOWED).orElseThrow().role() == ReplicaRole.OFFLINE
                    && replicas.partition(LED).orElseThrow().role() == ReplicaRole.OFFLINE);
    ProduceResult again = produce(replicas, 1);
    assertEquals(ErrorCode.STORAGE_ERROR, again.error(), again.message());
    assertTrue(again.message().contains("offline"), again.message());
    PartitionFetchResult[] fetched =
        replicas
            .fetchPartitions(
                List.of(LED, FOLLOWED),
                List.of(
                    new FetchParams(-1, 0, -1, -1, 1024, true),
                    new FetchParams(2, 0, -1, -1, 1024, true)))
            .get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.STORAGE_ERROR, fetched[0].error(), fetched[0].message());
    assertEquals(ErrorCode.STORAGE_ERROR, fetched[1].error(), fetched[1].message());

    broker.close();
    assertFalse(
        Files.exists(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)),
        "a failed directory is not marked clean: the next start recovers every log");
  }

  @Test
  void aReplicaThatCannotOpenAtStartupTakesTheDirectoryOfflineSoTheHeartbeatReportsIt()
      throws Exception {
    try (HandlerTestBroker first = new HandlerTestBroker(dir, clock)) {
      assertEquals(ErrorCode.NONE, produce(first.replicas(), 5).error());
    }
    Files.write(dir.resolve("orders-1").resolve("not-a-number-000000.log"), new byte[10]);

    try (HandlerTestBroker broker = new HandlerTestBroker(dir, clock, false)) {
      ReplicaManager replicas = broker.replicas();
      LogManager logs = replicas.logManager();
      assertTrue(logs.isOffline());
      assertEquals(List.of(dir.toString()), logs.offlineDirs(), "what the heartbeat reports");
      assertTrue(logs.offlineReason().contains("orders-1"), logs.offlineReason());
      ProduceResult refused = produce(replicas, 1);
      assertEquals(ErrorCode.STORAGE_ERROR, refused.error(), refused.message());
      PartitionFetchResult[] fetched =
          replicas
              .fetchPartitions(List.of(LED), List.of(new FetchParams(-1, 0, -1, -1, 1024, true)))
              .get(10, TimeUnit.SECONDS);
      assertEquals(ErrorCode.STORAGE_ERROR, fetched[0].error(), fetched[0].message());
    }
  }

  @Test
  void aNewReplicaWhoseLeftoverDirectoryCannotOpenTakesTheDirectoryOffline() throws Exception {
    try (HandlerTestBroker broker = new HandlerTestBroker(dir, clock)) {
      ReplicaManager replicas = broker.replicas();
      Path leftover = Files.createDirectories(dir.resolve("fresh-0"));
      Files.write(leftover.resolve("not-a-number-000000.log"), new byte[10]);
      String freshId = "0b7e1c2d-3f4a-4b5c-8d6e-7f8091a2b3c4";
      broker.apply(
          Records.topic("fresh", freshId),
          Records.partition(freshId, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0));
      broker.publish();

      Awaitility.await().atMost(Duration.ofSeconds(10)).until(replicas.logManager()::isOffline);
      assertTrue(
          replicas.logManager().offlineReason().contains("cannot open the log of fresh-0"),
          replicas.logManager().offlineReason());
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> replicas.partition(LED).orElseThrow().role() == ReplicaRole.OFFLINE);
    }
  }
}
