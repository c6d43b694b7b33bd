package dev.spool.client;

/**
 * A snapshot of a producer's counters since it started.
 *
 * @param recordsSent records acknowledged (or written, with acks=0)
 * @param bytesSent batch bytes of those records
 * @param batchesSent batches acknowledged
 * @param recordsFailed records whose future failed
 * @param retries batch resends (a batch retried twice counts twice)
 * @param produceRequests produce requests answered or written
 * @param requestLatencyP50Ms median produce-request round trip
 * @param requestLatencyP99Ms 99th percentile produce-request round trip
 * @param requestLatencyMaxMs slowest produce-request round trip
 */
public record ProducerMetrics(
    long recordsSent,
    long bytesSent,
    long batchesSent,
    long recordsFailed,
    long retries,
    long produceRequests,
    double requestLatencyP50Ms,
    double requestLatencyP99Ms,
    double requestLatencyMaxMs) {}
