package dev.spool.client;

/**
 * An offset found by time: the first record with a timestamp at or after the one asked for.
 *
 * @param timestamp that record's timestamp in milliseconds since the epoch (-1 if not given)
 * @param leaderEpoch the leader epoch of that record's batch, -1 if unknown
 */
public record OffsetAndTimestamp(long offset, long timestamp, int leaderEpoch) {}
