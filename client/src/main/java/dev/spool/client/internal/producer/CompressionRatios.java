package dev.spool.client.internal.producer;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Per topic, the compressed-to-uncompressed size ratio the producer expects of its next batches, so
 * a compressed batch fills to about {@code batch.size} bytes compressed rather than uncompressed
 * (Kafka's producer does the same; without it compressed batches would be several times smaller
 * than configured). Starts at 1; after each built batch it moves to the observed ratio at once when
 * that is worse (a batch should not overshoot twice) and by small steps when it is better (one
 * unusually compressible batch should not make the next ones huge).
 *
 * <p>Threads: read by application threads (appends) and updated by the I/O thread (builds); a stale
 * read only sizes one batch a little differently.
 */
final class CompressionRatios {
  static final float INITIAL = 1.0f;
  private static final float IMPROVING_STEP = 0.005f;
  private static final float DETERIORATING_STEP = 0.05f;

  private final ConcurrentHashMap<String, Float> byTopic = new ConcurrentHashMap<>();

  float estimate(String topic) {
    return byTopic.getOrDefault(topic, INITIAL);
  }

  void observe(String topic, float observed) {
    byTopic.compute(
        topic,
        (t, current) -> {
          float c = current == null ? INITIAL : current;
          if (observed > c) {
            return Math.max(c + DETERIORATING_STEP, observed);
          }
          return Math.max(c - IMPROVING_STEP, observed);
        });
  }
}
