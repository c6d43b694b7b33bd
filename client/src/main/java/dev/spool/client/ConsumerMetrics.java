package dev.spool.client;

/**
 * A snapshot of a consumer's counters since it started.
 *
 * @param recordsConsumed records returned by poll
 * @param bytesConsumed batch bytes fetched and handed to poll
 * @param fetchRequests fetch requests answered
 * @param truncationsDetected fetch answers that reported a diverging epoch: the log was truncated
 *     under the consumer (an unclean leader change) and the position was moved back
 * @param fetchLatencyP50Ms median fetch round trip (includes the broker's long-poll wait)
 * @param fetchLatencyP99Ms 99th percentile fetch round trip
 */
public record ConsumerMetrics(
    long recordsConsumed,
    long bytesConsumed,
    long fetchRequests,
    long truncationsDetected,
    double fetchLatencyP50Ms,
    double fetchLatencyP99Ms) {}
