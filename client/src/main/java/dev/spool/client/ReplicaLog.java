package dev.spool.client;

import dev.spool.common.TopicPartition;

/**
 * One broker's replica of a partition as that broker sees it ({@link Admin#describeLogs}): size,
 * offsets and, for a compacted topic, its cleaner's state. Replicas clean on their own, so the
 * cleaner fields differ between the brokers of one partition. Immutable.
 *
 * @param brokerId the broker holding this replica
 * @param compacted whether the topic's cleanup.policy has compact (the cleaner fields apply)
 * @param firstDirtyOffset the cleaner checkpoint: everything below it is cleaned
 * @param firstUncleanableOffset nothing at or above it may be cleaned now (the active segment, the
 *     high watermark, min.compaction.lag.ms)
 * @param cleanableBytes bytes between the two, which the next clean would read
 * @param dirtyRatio cleanable bytes over the bytes below the first uncleanable offset; the cleaner
 *     runs when it reaches min.cleanable.dirty.ratio
 * @param lastCleanTimeMs when the last clean finished, -1 never
 * @param bytesCleaned bytes the cleaner has read and rewritten here, in total
 * @param uncleanableReason why the cleaner gave up on this replica until its broker restarts (a
 *     corrupt batch, an I/O error); empty when it did not
 */
public record ReplicaLog(
    int brokerId,
    TopicPartition partition,
    long sizeBytes,
    int segments,
    long logStartOffset,
    long logEndOffset,
    long highWatermark,
    boolean compacted,
    long firstDirtyOffset,
    long firstUncleanableOffset,
    long cleanableBytes,
    double dirtyRatio,
    long lastCleanTimeMs,
    long lastCleanDurationMs,
    long bytesCleaned,
    String uncleanableReason) {}
