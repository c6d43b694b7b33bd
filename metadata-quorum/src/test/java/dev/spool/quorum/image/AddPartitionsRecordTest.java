package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The record that grows a topic: applied whole and only on the partition count it was decided on,
 * refused whole otherwise, and seen by brokers as new partitions in the delta.
 */
@Tag("unit")
class AddPartitionsRecordTest {
  private final ImageFixture fx = new ImageFixture();
  private String id;

  @BeforeEach
  void setUp() {
    fx.brokers(1, 2, 3);
    id = fx.topic("orders", List.of(List.of(1, 2), List.of(2, 3)));
  }

  private void assertRefused(ErrorCode code, String messagePart, MetadataRecord r) {
    MetadataImage before = fx.image();
    RecordResult result = fx.apply(r).get(0);
    assertEquals(code, result.getErrorCode(), result.toString());
    assertTrue(result.getErrorMessage().contains(messagePart), result.getErrorMessage());
    assertEquals(before.withOffset(fx.image().offset()), fx.image(), "nothing added");
  }

  @Test
  void shouldAppendEveryPartitionAndListThemInTheDelta() {
    MetadataImage before = fx.image();
    MetadataRecord r = Records.addPartitions(id, 2, List.of(List.of(3, 1), List.of(1, 2)));
    ImageBuilder b = new ImageBuilder(before);
    List<RecordResult> results =
        MetadataApplier.apply(b, MetadataBatch.newBuilder().addRecords(r).build(), 100);
    assertEquals(ErrorCode.NONE, results.get(0).getErrorCode(), results.toString());
    MetadataImage after = b.build(100);
    TopicImage t = after.topic("orders");
    assertEquals(4, t.partitionCount());
    PartitionState p2 = t.partition(2);
    assertEquals(List.of(3, 1), p2.replicas());
    assertEquals(List.of(3, 1), p2.isr());
    assertEquals(3, p2.leader());
    MetadataDelta delta = b.delta(100, false);
    assertEquals(
        java.util.Set.of(new TopicPartition("orders", 2), new TopicPartition("orders", 3)),
        delta.changedPartitions().keySet(),
        "brokers learn of the new partitions, and only of them");
    MetadataImage restored = ImageSnapshots.fromSnapshot(ImageSnapshots.toSnapshot(after));
    assertTrue(restored.sameContent(after), "a snapshot keeps the grown topic");
  }

  @Test
  void shouldRefuseAGrowthDecidedOnAnotherPartitionCount() {
    assertRefused(
        ErrorCode.INVALID_PARTITIONS,
        "not the 1 this growth was decided on",
        Records.addPartitions(id, 1, List.of(List.of(1, 2), List.of(2, 3))));
    assertRefused(
        ErrorCode.UNKNOWN_TOPIC_ID,
        "no topic",
        Records.addPartitions("other-id", 2, List.of(List.of(1, 2))));
    assertRefused(
        ErrorCode.INVALID_PARTITIONS, "no partitions", Records.addPartitions(id, 2, List.of()));
  }

  @Test
  void shouldRefuseTheWholeRecordWhenOnePartitionIsMalformed() {
    MetadataRecord dup = Records.addPartitions(id, 2, List.of(List.of(1, 3), List.of(2, 2)));
    assertRefused(ErrorCode.INVALID_REQUEST, "duplicate replicas", dup);
    MetadataRecord good = Records.addPartitions(id, 2, List.of(List.of(1, 3)));
    MetadataRecord gap =
        good.toBuilder()
            .setAddPartitions(
                good.getAddPartitions().toBuilder()
                    .setPartitions(
                        0, good.getAddPartitions().getPartitions(0).toBuilder().setPartition(3)))
            .build();
    assertRefused(ErrorCode.INVALID_PARTITIONS, "is not the next one (2)", gap);
    MetadataRecord foreign =
        good.toBuilder()
            .setAddPartitions(
                good.getAddPartitions().toBuilder()
                    .setPartitions(
                        0, good.getAddPartitions().getPartitions(0).toBuilder().setTopicId("x")))
            .build();
    assertRefused(ErrorCode.INVALID_REQUEST, "carries topic id x", foreign);
    MetadataRecord badId = Records.addPartitions("../etc", 2, List.of(List.of(1, 3)));
    assertRefused(ErrorCode.INVALID_RECORD, "topic id", badId);
  }
}
