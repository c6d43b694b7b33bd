package dev.spool.broker.log;

/**
 * The outcome of an append. {@code logAppendTimeMs} is the broker time stamped on the batches with
 * LogAppendTime, else -1. With {@code duplicate} the batch was an idempotent retry: the offsets and
 * timestamp are those of the ORIGINAL append and nothing was written. An empty input gives {@code
 * recordCount == 0}, {@code firstOffset == lastOffset + 1 == LEO}.
 */
public record LogAppendInfo(
    long firstOffset,
    long lastOffset,
    long maxTimestamp,
    long logAppendTimeMs,
    int recordCount,
    int validBytes,
    boolean duplicate) {}
