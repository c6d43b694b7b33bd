package dev.spool.broker.replication;

/**
 * One partition of a fetch as the leader sees it. Immutable; any thread.
 *
 * @param replicaId -1 for consumers, the follower's broker id otherwise
 * @param fetchOffset the first offset wanted
 * @param currentLeaderEpoch the fetcher's leader epoch, -1 = do not check
 * @param lastFetchedEpoch the epoch of the fetcher's last batch, -1 = none (no divergence check)
 * @param maxBytes bytes for this partition
 * @param minOneBatch return a whole first batch even when it is larger than {@code maxBytes}
 */
public record FetchParams(
    int replicaId,
    long fetchOffset,
    int currentLeaderEpoch,
    int lastFetchedEpoch,
    int maxBytes,
    boolean minOneBatch) {

  public boolean isFollower() {
    return replicaId >= 0;
  }
}
