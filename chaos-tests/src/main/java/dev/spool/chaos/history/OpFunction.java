package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What an op does, Jepsen's {@code :f}. Every op sends or polls exactly one thing so the checkers
 * stay simple; Jepsen's multi-send {@code :txn} ops are not used because Spool has no transactions.
 */
public enum OpFunction {
  /** Produce one record ({@link Op#value()}) to one partition; on {@code ok} the offset it got. */
  SEND,
  /** One {@code Consumer.poll}: on {@code ok}, per partition the [offset, value] pairs returned. */
  POLL,
  /**
   * Replace the consumer's partition assignment ({@link Op#assignment()}); with {@link
   * Op#seekToBeginning()} the consumer also rewinds those partitions to their start.
   */
  ASSIGN;

  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static OpFunction fromJson(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
