package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;

/**
 * The answer of a replica to an offset query ({@link Partition#listOffset}, {@link
 * Partition#endOffsetForEpoch}): an error, or an offset with its timestamp (-1 when the query was
 * not by time) and the leader epoch it was written in. {@code hint} names the leader on
 * NOT_LEADER_OR_FOLLOWER and the fencing errors, else null.
 */
public record ListOffsetResult(
    ErrorCode error,
    String message,
    long timestamp,
    long offset,
    int leaderEpoch,
    LeaderHintInfo hint) {}
