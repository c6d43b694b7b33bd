package dev.spool.client.internal.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class StickyPartitionerTest {
  private static List<PartitionInfo> partitions(int n) {
    List<PartitionInfo> parts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      parts.add(
          new PartitionInfo(
              new TopicPartition("t", i), 1, 0, List.of(1), List.of(1), List.of(), ErrorCode.NONE));
    }
    return parts;
  }

  @Test
  void movesOnlyToPartitionsWithQueueRoomWhileThereAreAny() {
    Set<Integer> roomy = Set.of(2, 4);
    StickyPartitioner sticky = new StickyPartitioner(1000, tp -> roomy.contains(tp.partition()));
    List<PartitionInfo> parts = partitions(6);
    for (int i = 0; i < 200; i++) {
      int p = sticky.partition("t", parts);
      assertEquals(true, roomy.contains(p), "picked " + p);
      sticky.onAppend("t", p, 1000, parts);
    }
  }

  @Test
  void fallsBackToAnyPartitionWhenNoneHasRoom() {
    StickyPartitioner sticky = new StickyPartitioner(1000, tp -> false);
    List<PartitionInfo> parts = partitions(3);
    boolean[] seen = new boolean[3];
    for (int i = 0; i < 300; i++) {
      int p = sticky.partition("t", parts);
      seen[p] = true;
      sticky.onAppend("t", p, 1000, parts);
    }
    assertEquals(true, seen[0] && seen[1] && seen[2]);
  }
}
