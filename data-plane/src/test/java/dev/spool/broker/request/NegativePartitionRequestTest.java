package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import dev.spool.protocol.InvalidFrameException;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.MetadataImage;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Requests naming a negative partition (found by the Spool-listener fuzzer: they failed with
 * UNKNOWN_SERVER_ERROR and a stack trace) are bad input: a malformed request for the group APIs,
 * nothing moving for ListPartitionReassignments.
 */
@Tag("unit")
class NegativePartitionRequestTest {

  @Test
  void shouldRefuseANegativePartitionInAGroupRequestAsMalformed() {
    List<TopicPartitions> named =
        List.of(
            TopicPartitions.newBuilder()
                .setTopic("orders")
                .addPartitions(2)
                .addPartitions(-1)
                .build());
    InvalidFrameException e =
        assertThrows(InvalidFrameException.class, () -> GroupProtos.toList(named));
    assertTrue(e.getMessage().contains("partition -1 of topic 'orders'"), e.getMessage());
    assertThrows(InvalidFrameException.class, () -> GroupProtos.toSet(named));
    assertEquals(new TopicPartition("orders", 2), GroupProtos.partition("orders", 2));
  }

  @Test
  void shouldListNothingMovingForANegativePartition() {
    ListPartitionReassignmentsResponse r =
        ListPartitionReassignmentsHandler.answer(
            ListPartitionReassignmentsRequest.newBuilder()
                .addPartitions(TopicPartitions.newBuilder().setTopic("orders").addPartitions(-1))
                .build(),
            MetadataImage.EMPTY);
    assertEquals(0, r.getPartitionsCount());
  }
}
