package dev.spool.broker.replication;

/**
 * What a follower puts in its next fetch for one partition: read on the fetcher thread from
 * volatile state, re-checked on the owner thread when the answer comes back.
 */
public record FollowerFetchState(
    int leaderId, int leaderEpoch, long fetchOffset, int lastFetchedEpoch, long logStartOffset) {}
