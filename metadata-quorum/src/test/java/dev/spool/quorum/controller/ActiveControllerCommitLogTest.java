package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The line the active controller logs per committed leader or ISR change, word for word: the chaos
 * report's fault timelines read it (chaos-tests/README.md, fault timelines), so a change of wording
 * must change both.
 */
@Tag("unit")
class ActiveControllerCommitLogTest {
  @Test
  void shouldLogEachCommittedLeaderOrIsrChangeAndNothingElse() {
    ImageFixture fx = new ImageFixture().brokers(1, 2, 3);
    fx.topic("t", List.of(List.of(1, 2, 3), List.of(2, 3, 1)));
    MetadataImage before = fx.image();
    MetadataRecord moved =
        Records.partitionChange(before.partition(new TopicPartition("t", 0)), 2, List.of(2, 3));
    MetadataRecord unchanged = Records.fenceBroker(1, before.broker(1).epoch());
    MetadataBatch batch =
        MetadataBatch.newBuilder().addRecords(unchanged).addRecords(moved).build();
    fx.apply(batch.getRecordsList());

    List<ILoggingEvent> logged = noteCommitted(fx, before, batch);

    assertEquals(
        List.of(
            "INFO [node=1 term=7] committed at offset "
                + fx.image().offset()
                + ": partition t-0 leader 1 -> 2 epoch 0 -> 1 isr [1, 2, 3] -> [2, 3]"),
        lines(logged));
  }

  @Test
  void shouldSumUpABatchOfManyChangesInOneInfoLineAndLogEachAtDebug() {
    int partitions = ActiveController.LOGGED_CHANGES_PER_BATCH + 1;
    ImageFixture fx = new ImageFixture().brokers(1, 2, 3);
    fx.topic("t", java.util.Collections.nCopies(partitions, List.of(1, 2, 3)));
    MetadataImage before = fx.image();
    MetadataBatch.Builder b = MetadataBatch.newBuilder();
    for (int p = 0; p < partitions; p++) {
      // every ISR shrinks, the first partition's leader moves too
      b.addRecords(
          Records.partitionChange(
              before.partition(new TopicPartition("t", p)), p == 0 ? 2 : 1, List.of(1, 2)));
    }
    MetadataBatch batch = b.build();
    fx.apply(batch.getRecordsList());

    List<String> logged = lines(noteCommitted(fx, before, batch));

    long offset = fx.image().offset();
    assertEquals(partitions + 1, logged.size());
    assertEquals(
        "INFO [node=1 term=7] committed at offset "
            + offset
            + ": "
            + partitions
            + " partition changes (1 leader moves); each at DEBUG",
        logged.get(0));
    assertEquals(
        "DEBUG [node=1 term=7] committed at offset "
            + offset
            + ": partition t-0 leader 1 -> 2 epoch 0 -> 1 isr [1, 2, 3] -> [1, 2]",
        logged.get(1));
    assertEquals(
        partitions, logged.stream().filter(l -> l.startsWith("DEBUG")).count(), "one per change");
  }

  private static List<String> lines(List<ILoggingEvent> events) {
    return events.stream()
        .map(e -> e.getLevel() + " " + e.getFormattedMessage())
        .filter(l -> l.contains("committed"))
        .toList();
  }

  /** Runs noteCommitted with DEBUG on, and returns what it logged. */
  private static List<ILoggingEvent> noteCommitted(
      ImageFixture fx, MetadataImage before, MetadataBatch batch) {
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Logger logger = (Logger) LoggerFactory.getLogger(ActiveController.class);
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    logger.addAppender(lines);
    try (ActiveController a =
        new ActiveController(
            1,
            7,
            Decisions.SETTINGS,
            100,
            new ManualClock(1_000),
            new MetadataFeed(16, before),
            (term, reason, b) -> new CompletableFuture<>(),
            () -> true)) {
      a.noteCommitted(fx.image().offset(), before, fx.image(), batch);
    } finally {
      logger.detachAppender(lines);
      logger.setLevel(level);
    }
    return lines.list;
  }
}
