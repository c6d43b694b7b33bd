package dev.spool.broker.log;

import dev.spool.common.TopicPartition;

/**
 * What opening one partition did. {@code bytesScanned} counts bytes read and CRC-checked by
 * recovery (0 after a clean shutdown, unless an index had to be rebuilt); {@code bytesTruncated}
 * counts bytes cut off the tail plus whole later segments deleted. {@code truncationReason} is null
 * when nothing was truncated. {@code corruptionBelowRecoveryPoint} means data that had been flushed
 * was found corrupt: a disk or filesystem problem, not a torn write.
 */
public record RecoveryReport(
    TopicPartition topicPartition,
    boolean cleanShutdown,
    int segmentsScanned,
    long bytesScanned,
    long bytesTruncated,
    int segmentsDeleted,
    boolean corruptionBelowRecoveryPoint,
    String truncationReason,
    long logEndOffset,
    long durationMs) {}
