package dev.spool.client;

import java.util.Objects;

/**
 * A committed position of a consumer group in one partition: {@code offset} is the next record to
 * consume; {@code leaderEpoch} the leader epoch of the last consumed record (-1 unknown), which
 * lets the next owner detect a log truncation across the handover; {@code metadata} is free text
 * (at most the broker's {@code offset.metadata.max.bytes}). Immutable.
 */
public record OffsetAndMetadata(long offset, int leaderEpoch, String metadata) {
  public OffsetAndMetadata {
    if (offset < 0) {
      throw new IllegalArgumentException("a committed offset must be >= 0, not " + offset);
    }
    Objects.requireNonNull(metadata, "metadata");
  }

  public OffsetAndMetadata(long offset) {
    this(offset, -1, "");
  }
}
