package dev.spool.coordinator.group.api;

/**
 * A committed position: the next offset to consume, the leader epoch of the last consumed record
 * (-1 unknown; it lets the next owner detect a truncation), free-form metadata and when it was
 * committed.
 */
public record OffsetAndMetadata(
    long offset, int leaderEpoch, String metadata, long commitTimestampMs) {}
