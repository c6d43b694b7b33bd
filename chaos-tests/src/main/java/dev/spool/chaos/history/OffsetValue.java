package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One record a poll returned: its offset and its value. Written as a two-element JSON array {@code
 * [offset, value]}, as Jepsen writes polled pairs.
 */
@JsonFormat(shape = JsonFormat.Shape.ARRAY)
@JsonPropertyOrder({"offset", "value"})
public record OffsetValue(long offset, long value) {
  @Override
  public String toString() {
    return "[" + offset + " " + value + "]";
  }
}
