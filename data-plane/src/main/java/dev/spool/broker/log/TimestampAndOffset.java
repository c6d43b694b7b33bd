package dev.spool.broker.log;

/**
 * A record found by timestamp: its timestamp, its offset and the leader epoch of its batch (-1 if
 * none).
 */
public record TimestampAndOffset(long timestampMs, long offset, int leaderEpoch) {}
