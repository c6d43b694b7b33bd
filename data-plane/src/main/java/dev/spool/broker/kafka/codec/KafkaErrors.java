package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * Spool's error codes as Kafka's. Spool's numbers differ from Kafka's, but its names are Kafka's:
 * every code maps to the Kafka error of the same name, except where Kafka spells it differently
 * ({@link #RENAMED}) and the codes Kafka has no counterpart for ({@link #NO_KAFKA_NAME}), which map
 * to what a Kafka broker answers in the same situation. {@code KafkaErrorsTest} holds the table to
 * that and fails on any new code that has no mapping.
 *
 * <p>Threads: immutable; any thread.
 */
public final class KafkaErrors {
  private KafkaErrors() {}

  /** Codes whose Kafka name differs from Spool's; the meaning is the same. */
  static final Map<ErrorCode, Errors> RENAMED =
      Map.of(
          ErrorCode.DUPLICATE_SEQUENCE, Errors.DUPLICATE_SEQUENCE_NUMBER,
          ErrorCode.OUT_OF_ORDER_SEQUENCE, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
          ErrorCode.INVALID_TOPIC, Errors.INVALID_TOPIC_EXCEPTION,
          ErrorCode.STORAGE_ERROR, Errors.KAFKA_STORAGE_ERROR);

  /**
   * Codes Kafka has no name for. QUORUM_UNAVAILABLE: a Kafka broker whose forwarded request gets no
   * answer from the controller quorum answers REQUEST_TIMED_OUT. BROKER_SHUTTING_DOWN: Kafka's
   * clients only know that the broker is not available. PARTITION_NOT_ASSIGNED (a member commits a
   * partition it no longer owns; Kafka's coordinator does not check ownership): ILLEGAL_GENERATION,
   * which both of Kafka's consumers turn into CommitFailedException ("the group moved on"): the
   * commit did not happen and the member's next heartbeat brings the assignment it now has.
   * BROKER_ALIVE and BROKER_HAS_REPLICAS (UnregisterBroker refusals Kafka does not make):
   * INVALID_REQUEST, with Spool's message. INVALID_ACL: INVALID_REQUEST, as Kafka answers a bad ACL
   * binding or filter.
   */
  static final Map<ErrorCode, Errors> NO_KAFKA_NAME =
      Map.of(
          ErrorCode.QUORUM_UNAVAILABLE, Errors.REQUEST_TIMED_OUT,
          ErrorCode.BROKER_SHUTTING_DOWN, Errors.BROKER_NOT_AVAILABLE,
          ErrorCode.PARTITION_NOT_ASSIGNED, Errors.ILLEGAL_GENERATION,
          ErrorCode.BROKER_ALIVE, Errors.INVALID_REQUEST,
          ErrorCode.BROKER_HAS_REPLICAS, Errors.INVALID_REQUEST,
          ErrorCode.INVALID_ACL, Errors.INVALID_REQUEST);

  private static final Map<ErrorCode, Errors> TABLE = new EnumMap<>(ErrorCode.class);

  static {
    for (ErrorCode c : ErrorCode.values()) {
      if (c == ErrorCode.UNRECOGNIZED) {
        continue;
      }
      Errors e = RENAMED.get(c);
      if (e == null) {
        e = NO_KAFKA_NAME.get(c);
      }
      if (e == null) {
        e = byName(c.name());
      }
      if (e != null) {
        TABLE.put(c, e);
      }
    }
  }

  private static Errors byName(String name) {
    try {
      return Errors.valueOf(name);
    } catch (IllegalArgumentException e) {
      return null; // reported by KafkaErrorsTest: every code must map
    }
  }

  /** Kafka's error code for {@code code}; UNKNOWN_SERVER_ERROR for one without a mapping. */
  public static short code(ErrorCode code) {
    return kafka(code).code();
  }

  static Errors kafka(ErrorCode code) {
    Errors e = TABLE.get(code);
    return e == null ? Errors.UNKNOWN_SERVER_ERROR : e;
  }

  /** Whether {@code code} has a Kafka counterpart (tests). */
  static boolean mapped(ErrorCode code) {
    return TABLE.containsKey(code);
  }

  /** A Kafka error message, or null for none (Kafka's clients then print the code's own text). */
  static String message(String spoolMessage) {
    return spoolMessage == null || spoolMessage.isEmpty() ? null : spoolMessage;
  }
}
