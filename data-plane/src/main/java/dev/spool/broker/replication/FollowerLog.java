package dev.spool.broker.replication;

import dev.spool.broker.log.InvalidOffsetException;
import dev.spool.broker.log.PartitionLog;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.RecordTooLargeException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower side of one replica's log: applies what its leader's fetch answer says to the local
 * log. Data is appended and the follower's high watermark becomes min(leader high watermark, own
 * log end offset); a diverging epoch truncates to where the two histories agree ({@link
 * Divergence}); an offset below the leader's log start starts the log over there, one beyond the
 * leader's log end truncates to it. Never truncates by the high watermark.
 *
 * <p>Threads: owned by the partition's owner thread, like the {@link Partition} that holds it,
 * which drops answers to a fetch from an earlier leadership or log state before they get here and
 * handles the log's storage failures; nothing here locks.
 */
final class FollowerLog {
  private static final Logger log = LoggerFactory.getLogger(FollowerLog.class);

  private final PartitionLog replicaLog;
  private final EpochLookup epochs;
  private final Supplier<String> prefix;

  FollowerLog(PartitionLog replicaLog, EpochLookup epochs, Supplier<String> prefix) {
    this.replicaLog = replicaLog;
    this.epochs = epochs;
    this.prefix = prefix;
  }

  /** A fetch answer without error from {@code leaderId}; {@code records} may be null or empty. */
  Partition.FollowerOutcome onData(
      int leaderId,
      long leaderHw,
      long leaderLogStart,
      EpochEndOffset diverging,
      ByteBuffer records) {
    if (diverging != null) {
      long leo = replicaLog.logEndOffset();
      long to = Divergence.followerTruncationOffset(diverging, epochs, leo);
      if (to < leo) {
        log.info(
            "{}log diverges from leader {} at epoch {} (end offset {}): truncating {} -> {}",
            prefix.get(),
            leaderId,
            diverging.epoch(),
            diverging.endOffset(),
            leo,
            to);
        replicaLog.truncateTo(to);
        return Partition.FollowerOutcome.TRUNCATED;
      }
      // Nothing to cut but the epoch history: the next fetch carries an older epoch.
      replicaLog.leaderEpochCache().truncateFromEnd(Math.max(to, 0));
      return Partition.FollowerOutcome.TRUNCATED;
    }
    Partition.FollowerOutcome outcome = Partition.FollowerOutcome.NOTHING;
    if (records != null && records.hasRemaining()) {
      try {
        replicaLog.appendAsFollower(records);
        outcome = Partition.FollowerOutcome.APPENDED;
      } catch (InvalidOffsetException | CorruptRecordException | RecordTooLargeException e) {
        log.warn(
            "{}cannot append what leader {} sent: {}; fetching again",
            prefix.get(),
            leaderId,
            e.getMessage());
        return Partition.FollowerOutcome.RETRY_LATER;
      }
    }
    long hw = Math.min(leaderHw, replicaLog.logEndOffset());
    if (hw > replicaLog.highWatermark()) {
      replicaLog.updateHighWatermark(hw);
    }
    // The leader's log start offset (moved by DeleteRecords or its retention) is the follower's
    // too, as on Kafka, so a follower that becomes leader serves no deleted record; it is at or
    // below the follower's high watermark once the follower reached it, hence the clamp is only a
    // guard.
    long start = Math.min(leaderLogStart, replicaLog.highWatermark());
    if (start > replicaLog.logStartOffset()) {
      replicaLog.incrementLogStartOffset(start);
    }
    return outcome;
  }

  /** An OFFSET_OUT_OF_RANGE answer from {@code leaderId} with its log start and end offsets. */
  Partition.FollowerOutcome onOutOfRange(int leaderId, long leaderLogStart, long leaderLeo) {
    long leo = replicaLog.logEndOffset();
    if (leaderLogStart >= 0 && leo < leaderLogStart) {
      log.info(
          "{}log end offset {} is below leader {}'s log start {}: starting over there",
          prefix.get(),
          leo,
          leaderId,
          leaderLogStart);
      replicaLog.truncateFullyAndStartAt(leaderLogStart);
      return Partition.FollowerOutcome.TRUNCATED;
    }
    if (leaderLeo >= 0 && leo > leaderLeo) {
      log.info(
          "{}log end offset {} is beyond leader {}'s log end {}: truncating",
          prefix.get(),
          leo,
          leaderId,
          leaderLeo);
      replicaLog.truncateTo(leaderLeo);
      return Partition.FollowerOutcome.TRUNCATED;
    }
    return Partition.FollowerOutcome.RETRY_LATER;
  }
}
