package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The table of Spool's error codes as Kafka's: a Kafka client must see the error a Kafka broker
 * would give, so every code maps to Kafka's code of the same name, apart from the listed renames
 * and the codes Kafka has no name for.
 */
@Tag("unit")
class KafkaErrorsTest {
  /**
   * The codes not mapped by name, written out here (not read from KafkaErrors' own tables) so a
   * changed entry there fails: Kafka's longer names, and what a Kafka broker answers where Kafka
   * has no such error.
   */
  private static final Map<ErrorCode, Errors> NOT_BY_NAME =
      Map.of(
          ErrorCode.DUPLICATE_SEQUENCE, Errors.DUPLICATE_SEQUENCE_NUMBER,
          ErrorCode.OUT_OF_ORDER_SEQUENCE, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
          ErrorCode.INVALID_TOPIC, Errors.INVALID_TOPIC_EXCEPTION,
          ErrorCode.STORAGE_ERROR, Errors.KAFKA_STORAGE_ERROR,
          ErrorCode.QUORUM_UNAVAILABLE, Errors.REQUEST_TIMED_OUT,
          ErrorCode.BROKER_SHUTTING_DOWN, Errors.BROKER_NOT_AVAILABLE,
          ErrorCode.PARTITION_NOT_ASSIGNED, Errors.ILLEGAL_GENERATION,
          ErrorCode.BROKER_ALIVE, Errors.INVALID_REQUEST,
          ErrorCode.BROKER_HAS_REPLICAS, Errors.INVALID_REQUEST,
          ErrorCode.INVALID_ACL, Errors.INVALID_REQUEST);

  @Test
  void shouldMapEveryCodeToKafkasCodeOfTheSameNameUnlessListed() {
    for (ErrorCode c : ErrorCode.values()) {
      if (c == ErrorCode.UNRECOGNIZED) {
        continue;
      }
      assertTrue(KafkaErrors.mapped(c), c + " has no Kafka error: add it to KafkaErrors");
      Errors k = KafkaErrors.kafka(c);
      if (NOT_BY_NAME.containsKey(c)) {
        assertEquals(NOT_BY_NAME.get(c), k, c.name());
      } else {
        assertEquals(c.name(), k.name(), "the Kafka error of " + c);
      }
      assertEquals(k.code(), KafkaErrors.code(c));
    }
  }

  @Test
  void shouldMapOneToOneExceptTheCodesKafkaHasNoNameFor() {
    Map<Errors, ErrorCode> seen = new HashMap<>();
    for (ErrorCode c : ErrorCode.values()) {
      if (c == ErrorCode.UNRECOGNIZED || KafkaErrors.NO_KAFKA_NAME.containsKey(c)) {
        continue;
      }
      ErrorCode before = seen.put(KafkaErrors.kafka(c), c);
      assertEquals(null, before, c + " and " + before + " map to the same Kafka error");
    }
  }

  @Test
  void shouldKeepTheWellKnownNumbersKafkaClientsActOn() {
    assertEquals(6, KafkaErrors.code(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    assertEquals(74, KafkaErrors.code(ErrorCode.FENCED_LEADER_EPOCH));
    assertEquals(3, KafkaErrors.code(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    assertEquals(45, KafkaErrors.code(ErrorCode.OUT_OF_ORDER_SEQUENCE));
    assertEquals(46, KafkaErrors.code(ErrorCode.DUPLICATE_SEQUENCE));
    assertEquals(7, KafkaErrors.code(ErrorCode.QUORUM_UNAVAILABLE));
    assertEquals(-1, KafkaErrors.code(ErrorCode.UNKNOWN_SERVER_ERROR));
    // Admin.alterPartitionReassignments: NoReassignmentInProgressException for a cancel.
    assertEquals(85, KafkaErrors.code(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS));
    assertEquals(39, KafkaErrors.code(ErrorCode.INVALID_REPLICA_ASSIGNMENT));
  }
}
