package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A batch of many partition changes to one topic is applied on one copy of the topic's partitions
 * per build: the result is the image that replaying the records one entry at a time gives, and no
 * image published before (the base, or one built earlier by the same builder) ever changes.
 */
@Tag("unit")
class ImageBuilderPartitionsTest {
  private static final int PARTITIONS = 50;
  private ImageFixture fx;
  private String topicId;

  @BeforeEach
  void setUp() {
    fx = new ImageFixture().brokers(1, 2, 3);
    List<List<Integer>> assignment = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      assignment.add(List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3));
    }
    topicId = fx.topic("t", assignment);
  }

  private PartitionState p(MetadataImage img, int partition) {
    return img.partition(new TopicPartition("t", partition));
  }

  /** Shrinks every partition's ISR to its leader, then (in the same batch) expands it again. */
  private List<MetadataRecord> churn(MetadataImage img) {
    List<MetadataRecord> out = new ArrayList<>();
    for (int i = 0; i < PARTITIONS; i++) {
      PartitionState p = p(img, i);
      out.add(Records.partitionChange(p, p.leader(), List.of(p.leader())));
    }
    for (int i = 0; i < PARTITIONS; i += 2) {
      PartitionState p = p(img, i);
      PartitionState shrunk =
          new PartitionState(
              p.topicId(),
              p.topic(),
              p.partition(),
              p.replicas(),
              List.of(p.leader()),
              p.leader(),
              p.leaderEpoch(),
              p.partitionEpoch() + 1);
      out.add(Records.partitionChange(shrunk, p.leader(), p.replicas()));
    }
    return out;
  }

  @Test
  void shouldApplyABatchAsReplayingItsRecordsOneByOneWouldWithoutChangingTheBase() {
    MetadataImage base = fx.image();
    List<MetadataRecord> records = churn(base);

    ImageBuilder b = new ImageBuilder(base);
    List<RecordResult> results =
        MetadataApplier.apply(b, MetadataBatch.newBuilder().addAllRecords(records).build(), 100);
    results.forEach(r -> assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage()));
    MetadataImage batched = b.build(100);

    MetadataImage oneByOne = base;
    for (MetadataRecord r : records) {
      oneByOne =
          MetadataApplier.replay(oneByOne, MetadataBatch.newBuilder().addRecords(r).build(), 100);
    }
    assertEquals(oneByOne, batched);
    for (int i = 0; i < PARTITIONS; i++) {
      assertEquals(3, p(base, i).isr().size(), "the base image is untouched");
      assertEquals(i % 2 == 0 ? 3 : 1, p(batched, i).isr().size());
      assertEquals(i % 2 == 0 ? 2 : 1, p(batched, i).partitionEpoch());
    }
    MetadataDelta d = b.delta(100, false);
    assertEquals(PARTITIONS, d.changedPartitions().size());
    assertEquals(List.of("t"), List.copyOf(d.changedTopics().keySet()));
    assertThrows(
        UnsupportedOperationException.class,
        () -> batched.topic("t").partitions().set(0, p(base, 0)),
        "a published topic's partitions are read-only");
  }

  @Test
  void shouldLeaveAnImageBuiltEarlierUnchangedWhenTheSameBuilderGoesOn() {
    ImageBuilder b = new ImageBuilder(fx.image());
    PartitionState p0 = p(fx.image(), 0);
    MetadataApplier.apply(
        b,
        MetadataBatch.newBuilder()
            .addRecords(Records.partitionChange(p0, p0.leader(), List.of(p0.leader())))
            .build(),
        100);
    MetadataImage first = b.build(100);
    List<PartitionState> firstPartitions = List.copyOf(first.topic("t").partitions());

    PartitionState p1 = p(first, 1);
    PartitionState p0After = p(first, 0);
    MetadataApplier.apply(
        b,
        MetadataBatch.newBuilder()
            .addRecords(Records.partitionChange(p1, p1.leader(), List.of(p1.leader())))
            .addRecords(Records.partitionChange(p0After, p0After.leader(), p0After.replicas()))
            .build(),
        101);
    MetadataImage second = b.build(101);

    assertEquals(firstPartitions, first.topic("t").partitions(), "the first image is frozen");
    assertEquals(1, p(first, 0).isr().size());
    assertEquals(3, p(first, 1).isr().size());
    assertEquals(3, p(second, 0).isr().size());
    assertEquals(1, p(second, 1).isr().size());
  }

  @Test
  void shouldCopyAgainAfterATopicIsReplacedInTheSameBatch() {
    PartitionState p0 = p(fx.image(), 0);
    List<RecordResult> results =
        fx.apply(
            List.of(
                Records.partitionChange(p0, p0.leader(), List.of(p0.leader())),
                Records.config(topicId, "retention.ms", "1000"),
                Records.partitionChange(
                    new PartitionState(
                        p0.topicId(),
                        p0.topic(),
                        0,
                        p0.replicas(),
                        List.of(p0.leader()),
                        p0.leader(),
                        p0.leaderEpoch(),
                        p0.partitionEpoch() + 1),
                    p0.leader(),
                    p0.replicas())));
    results.forEach(r -> assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage()));
    TopicImage t = fx.image().topic("t");
    assertEquals(Map.of("retention.ms", "1000"), t.configs());
    assertEquals(3, t.partition(0).isr().size());
    assertEquals(p0.partitionEpoch() + 2, t.partition(0).partitionEpoch());
  }
}
