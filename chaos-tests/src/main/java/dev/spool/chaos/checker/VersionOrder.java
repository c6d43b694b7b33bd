package dev.spool.chaos.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What the history says one partition's log looks like, Jepsen's {@code version-orders}: for every
 * offset anyone saw, which value(s) were claimed there and by which ops.
 *
 * <p>The <em>index</em> of an offset is its rank among the offsets known to exist (Jepsen's "dense
 * offsets": holes we never observed are not counted). Skips and reorderings are judged by index, so
 * an offset nobody ever saw can never be called skipped.
 *
 * <p>Built once by {@link Analysis}; read-only afterwards.
 */
public final class VersionOrder {
  /** offset → value → indices of the ops that claimed this value at this offset. */
  private final NavigableMap<Long, Map<Long, List<Integer>>> log;

  private final long[] knownOffsets;
  private final Map<Long, List<Long>> offsetsOfValue;

  VersionOrder(NavigableMap<Long, Map<Long, List<Integer>>> log) {
    this.log = log;
    this.knownOffsets = log.keySet().stream().mapToLong(Long::longValue).toArray();
    Map<Long, List<Long>> ofValue = new HashMap<>();
    for (Map.Entry<Long, Map<Long, List<Integer>>> e : log.entrySet()) {
      for (Long value : e.getValue().keySet()) {
        ofValue.computeIfAbsent(value, v -> new ArrayList<>()).add(e.getKey());
      }
    }
    this.offsetsOfValue = ofValue;
  }

  static final class Builder {
    private final NavigableMap<Long, Map<Long, List<Integer>>> log = new TreeMap<>();

    void claim(long offset, long value, int opIndex) {
      log.computeIfAbsent(offset, o -> new LinkedHashMap<>())
          .computeIfAbsent(value, v -> new ArrayList<>())
          .add(opIndex);
    }

    VersionOrder build() {
      return new VersionOrder(log);
    }
  }

  /** The dense index of a known offset, or -1 if nobody saw that offset. */
  public int indexOf(long offset) {
    int i = Arrays.binarySearch(knownOffsets, offset);
    return i >= 0 ? i : -1;
  }

  public long offsetAt(int index) {
    return knownOffsets[index];
  }

  /** Values claimed at {@code offset} with the ops that claimed them; empty if unknown. */
  public Map<Long, List<Integer>> claimsAt(long offset) {
    Map<Long, List<Integer>> c = log.get(offset);
    return c == null ? Map.of() : Collections.unmodifiableMap(c);
  }

  /** All offsets at which {@code value} was seen, ascending; empty if never seen. */
  public List<Long> offsetsOf(long value) {
    return offsetsOfValue.getOrDefault(value, List.of());
  }

  /** Every value seen anywhere in this partition. */
  public Iterable<Long> values() {
    return offsetsOfValue.keySet();
  }

  /** The entries of the log in offset order. */
  public NavigableMap<Long, Map<Long, List<Integer>>> log() {
    return Collections.unmodifiableNavigableMap(log);
  }

  /** Dense index of the earliest offset holding {@code value}, or -1. */
  public int firstIndexOf(long value) {
    List<Long> offs = offsetsOf(value);
    return offs.isEmpty() ? -1 : indexOf(offs.get(0));
  }

  /** Dense index of the latest offset holding {@code value}, or -1. */
  public int lastIndexOf(long value) {
    List<Long> offs = offsetsOf(value);
    return offs.isEmpty() ? -1 : indexOf(offs.get(offs.size() - 1));
  }
}
