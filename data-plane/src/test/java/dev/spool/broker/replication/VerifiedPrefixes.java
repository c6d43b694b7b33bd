package dev.spool.broker.replication;

import java.util.HashMap;
import java.util.Map;

/**
 * Remembers, for pairs of {@link LogShadow}s, below which offset they were last found equal, so a
 * per-step comparison only reads the batches added since. A remembered bound holds only while
 * neither shadow was read afresh (its {@link LogShadow#generation}); otherwise the whole prefix is
 * compared again. This is exact: while a shadow's generation is unchanged, the batches it held
 * stayed as they were (a log changes below its end only by truncation, which rebuilds the shadow).
 * Without it the invariants re-read every committed batch after every step, and the simulation's
 * cost grew with the square of its steps.
 *
 * <p>Threads: the simulation's single thread.
 */
final class VerifiedPrefixes {
  private record Pair(LogShadow a, LogShadow b) {}

  private record Verified(int generationA, int generationB, long bound) {}

  private final Map<Pair, Verified> verified = new HashMap<>();

  /** Whether {@code a} and {@code b} hold the same batches below {@code bound}. */
  boolean equalBelow(LogShadow a, LogShadow b, long bound) {
    Pair key = new Pair(a, b);
    Verified v = verified.get(key);
    long from =
        v != null && v.generationA() == a.generation && v.generationB() == b.generation
            ? v.bound()
            : Long.MIN_VALUE;
    if (from >= bound) {
      return true;
    }
    boolean equal =
        from == Long.MIN_VALUE
            ? a.below(bound).equals(b.below(bound))
            : a.between(from, bound).equals(b.between(from, bound));
    if (equal) {
      verified.put(key, new Verified(a.generation, b.generation, bound));
    }
    return equal;
  }
}
