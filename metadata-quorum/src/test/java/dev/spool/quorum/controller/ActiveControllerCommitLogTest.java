package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Logger logger = (Logger) LoggerFactory.getLogger(ActiveController.class);
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
    }

    List<String> logged =
        lines.list.stream()
            .map(ILoggingEvent::getFormattedMessage)
            .filter(l -> l.contains("committed"))
            .toList();
    assertEquals(
        List.of(
            "[node=1 term=7] committed at offset "
                + fx.image().offset()
                + ": partition t-0 leader 1 -> 2 epoch 0 -> 1 isr [1, 2, 3] -> [2, 3]"),
        logged);
  }
}
