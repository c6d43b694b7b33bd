package dev.spool.client.internal.producer;

/**
 * Arithmetic on idempotent-producer sequence numbers, which wrap from {@link Integer#MAX_VALUE} to
 * 0 (Kafka's rule, see {@code RecordBatch.incrementSequence}). Comparison is modular: {@code a} is
 * before {@code b} when going forward from {@code a} reaches {@code b} in under 2^30 steps, far
 * more than the at most five batches in flight can span.
 */
final class SequenceNumbers {
  private static final long MODULUS = 1L << 31;

  private SequenceNumbers() {}

  /** True when {@code a} comes strictly before {@code b}. */
  static boolean before(int a, int b) {
    long d = Math.floorMod((long) b - a, MODULUS);
    return d != 0 && d < (1L << 30);
  }

  /** {@code sequence - delta}, wrapping below 0 back to the top. */
  static int decrement(int sequence, int delta) {
    return (int) Math.floorMod((long) sequence - delta, MODULUS);
  }

  /** {@code sequence + delta}, wrapping past the top to 0. */
  static int increment(int sequence, int delta) {
    return (int) Math.floorMod((long) sequence + delta, MODULUS);
  }
}
