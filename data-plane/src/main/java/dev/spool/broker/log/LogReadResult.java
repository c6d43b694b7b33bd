package dev.spool.broker.log;

/**
 * What {@link PartitionLog#read} returns: whole batches (possibly none) and the log's offsets at
 * the time of the read. {@code firstBatchBaseOffset} is -1 when the slice is empty.
 */
public record LogReadResult(
    FileSlice slice,
    long firstBatchBaseOffset,
    long logStartOffset,
    long logEndOffset,
    long highWatermark) {}
