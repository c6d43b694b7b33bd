package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.OffsetBatch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class MetadataFeedTest {

  /** Publishes one registration per entry at offsets 1..n (with a no-op entry every 5th). */
  private static MetadataFeed feed(int capacity, int n) {
    MetadataFeed f = new MetadataFeed(capacity, MetadataImage.EMPTY);
    MetadataImage img = MetadataImage.EMPTY;
    for (int i = 1; i <= n; i++) {
      if (i % 5 == 0) {
        img = img.withOffset(i);
        f.publish(img, null);
        continue;
      }
      MetadataBatch b =
          MetadataBatch.newBuilder()
              .addRecords(Records.registerBroker(i, "inc", "h", 1, "", 0))
              .build();
      img = MetadataApplier.replay(img, b, i);
      f.publish(img, b);
    }
    return f;
  }

  @Test
  void shouldServeTheBatchesAfterTheBrokersOffset() {
    MetadataFeed f = feed(100, 20);
    MetadataFeed.Slice s = f.read(12, 100);
    assertNull(s.fullImage());
    assertEquals(20, s.toOffset());
    assertEquals(
        java.util.List.of(13L, 14L, 16L, 17L, 18L, 19L),
        s.batches().stream().map(OffsetBatch::getOffset).toList());
    assertFalse(s.more());
  }

  @Test
  void shouldBoundTheAnswerAndSayThatMoreWaits() {
    MetadataFeed.Slice s = feed(100, 20).read(0, 3);
    assertEquals(3, s.batches().size());
    assertEquals(3, s.toOffset());
    assertTrue(s.more());
  }

  @Test
  void shouldAnswerWithAFullImageWhenTheBrokerIsOlderThanTheRing() {
    MetadataFeed f = feed(5, 20);
    MetadataFeed.Slice s = f.read(3, 100);
    assertNotNull(s.fullImage());
    assertEquals(f.image(), ImageSnapshots.fromSnapshot(s.fullImage()));
    assertNull(f.read(14, 100).fullImage(), "the ring still covers offset 14");
    assertNotNull(f.read(25, 100).fullImage(), "an offset from the future gets the full image");
  }

  @Test
  void shouldAnswerNothingToABrokerThatIsUpToDate() {
    MetadataFeed.Slice s = feed(100, 20).read(20, 100);
    assertTrue(s.batches().isEmpty());
    assertNull(s.fullImage());
    assertEquals(20, s.toOffset());
  }
}
