package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The four op types of a Jepsen history.
 *
 * <ul>
 *   <li>{@link #INVOKE}: the client is about to perform the operation.
 *   <li>{@link #OK}: the operation definitely happened (a send was acknowledged with an offset; a
 *       poll returned records).
 *   <li>{@link #FAIL}: the operation definitely did <em>not</em> happen. For a send this is a
 *       strong claim: the record is not in the log and never will be (see {@link SendErrors}).
 *   <li>{@link #INFO}: indeterminate: the operation may or may not have taken effect (timeout,
 *       connection drop, an error after an earlier attempt may already have reached a broker). The
 *       process that got it is considered crashed and never used again ({@link HistoryRecorder}).
 * </ul>
 */
public enum OpType {
  INVOKE,
  OK,
  FAIL,
  INFO;

  @JsonValue
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static OpType fromJson(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
