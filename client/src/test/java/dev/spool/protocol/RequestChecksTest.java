package dev.spool.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RequestChecksTest {
  @Test
  void shouldTurnANegativePartitionIntoAMalformedRequestNamingIt() {
    InvalidFrameException e =
        assertThrows(InvalidFrameException.class, () -> RequestChecks.partition("orders", -3));
    assertEquals("partition -3 of topic 'orders': partitions are numbered from 0", e.getMessage());
    assertEquals(new TopicPartition("orders", 0), RequestChecks.partition("orders", 0));
  }
}
