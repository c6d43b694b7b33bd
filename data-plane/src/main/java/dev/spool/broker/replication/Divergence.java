package dev.spool.broker.replication;

import java.util.Optional;

/**
 * Leader-epoch based log divergence (Kafka KIP-101/KIP-279/KIP-595), pure.
 *
 * <p>A fetcher (follower or consumer) tells the leader the epoch of the last batch it holds ({@code
 * lastFetchedEpoch}) and the offset it wants next. Its log matches the leader's below {@code
 * fetchOffset} only if the leader's history has that epoch lasting at least to {@code fetchOffset}.
 * Otherwise the leader answers with the largest epoch it has at or below {@code lastFetchedEpoch}
 * and that epoch's end offset, and the fetcher truncates. Truncation is always decided by epochs,
 * never by the high watermark alone: a high watermark can lag (it is propagated lazily) and
 * truncating to it could drop records a new leader already committed, or keep records it never had.
 */
public final class Divergence {
  private Divergence() {}

  /**
   * Leader side: empty when the fetch is consistent with the leader's log, else the diverging epoch
   * and end offset to send back. {@code lastFetchedEpoch < 0} (an empty fetcher log, or a fetcher
   * that does not track epochs) is never diverging.
   */
  public static Optional<EpochEndOffset> check(
      EpochLookup leaderLog, int lastFetchedEpoch, long fetchOffset) {
    if (lastFetchedEpoch < 0) {
      return Optional.empty();
    }
    EpochEndOffset leader = leaderLog.endOffsetFor(lastFetchedEpoch);
    if (leader.isUndefined()
        || leader.epoch() < lastFetchedEpoch
        || leader.endOffset() < fetchOffset) {
      return Optional.of(leader);
    }
    return Optional.empty();
  }

  /**
   * Follower side: the offset to truncate to after the leader answered {@code diverging}.
   *
   * <p>The follower looks up the same epoch in its own history. If it has exactly that epoch, the
   * logs agree up to the smaller of both end offsets. If its largest epoch at or below is an older
   * one, the logs agree at most up to where that older epoch ends on the follower (and never past
   * the leader's end offset); the next fetch carries that older epoch and the leader checks again,
   * so a few rounds converge on the true divergence point. An undefined answer from the leader (it
   * has no epoch that old, e.g. after retention) truncates to the leader's end offset, which is
   * then its log start (a follower fetching below it gets OFFSET_OUT_OF_RANGE and starts over).
   */
  public static long followerTruncationOffset(
      EpochEndOffset diverging, EpochLookup followerLog, long followerLogEndOffset) {
    if (diverging.isUndefined()) {
      return 0L;
    }
    EpochEndOffset mine = followerLog.endOffsetFor(diverging.epoch());
    if (mine.isUndefined()) {
      // The follower has no batch in any epoch <= the leader's answer: nothing in common.
      return 0L;
    }
    // Same epoch: both logs hold it up to the smaller end. An older epoch on the follower: the
    // logs can agree at most up to where it ends here, and never past the leader's end.
    return Math.min(Math.min(diverging.endOffset(), mine.endOffset()), followerLogEndOffset);
  }
}
