package dev.spool.broker.log.internal;

import dev.spool.broker.log.CleanerConfig;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The cleaner's key → latest offset map of one dirty range, in a fixed amount of memory (Kafka's
 * SkimpyOffsetMap idea): an open-addressing table of 24-byte entries, each the MD5 digest of a key
 * (16 bytes) and the offset (8 bytes, stored + 1 so that 0 marks an empty slot). Keys themselves
 * are not kept: two keys with the same digest would be taken for one, which for MD5's 128 bits is a
 * risk Kafka accepts as well.
 *
 * <p>The map counts as full at {@code loadFactor} of its slots ({@link #isFull()}); the cleaner
 * then stops adding and cleans only up to {@link #latestOffset()}, which it advances as it maps. A
 * slot is found by double hashing over two 8-byte halves of the digest for a few attempts, then by
 * linear probing (which visits every slot, and one slot always stays empty, so a lookup ends).
 *
 * <p>Threads: one cleaner thread owns it.
 */
public final class OffsetMap {
  private static final int HASH_BYTES = 16;
  private static final int DOUBLE_HASH_ATTEMPTS = 8;

  private final ByteBuffer table;
  private final int slots;
  private final int maxEntries;
  private final MessageDigest md5;
  private final byte[] digest = new byte[HASH_BYTES];
  private int entries;
  private long latestOffset = -1;
  private long lookups;
  private long probes;

  /** A map in {@code memoryBytes} of heap, full at {@code loadFactor} of its slots. */
  public OffsetMap(int memoryBytes, double loadFactor) {
    this.slots = memoryBytes / CleanerConfig.OFFSET_MAP_ENTRY_BYTES;
    if (slots < 2) {
      throw new IllegalArgumentException("an offset map of " + memoryBytes + " bytes holds no key");
    }
    this.maxEntries = Math.max(1, (int) (slots * loadFactor));
    this.table = ByteBuffer.allocate(slots * CleanerConfig.OFFSET_MAP_ENTRY_BYTES);
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no MD5", e);
    }
  }

  public int slots() {
    return slots;
  }

  /** Keys it may hold before it counts as full. */
  public int maxEntries() {
    return maxEntries;
  }

  public int size() {
    return entries;
  }

  public boolean isFull() {
    return entries >= maxEntries;
  }

  /** Share of the slots in use. */
  public double utilization() {
    return (double) entries / slots;
  }

  /** Average slots looked at per lookup or insert (1.0 = no collisions). */
  public double averageProbes() {
    return lookups == 0 ? 0 : (double) probes / lookups;
  }

  /** The offset up to which (inclusive) every keyed record of the dirty range is in the map. */
  public long latestOffset() {
    return latestOffset;
  }

  public void updateLatestOffset(long offset) {
    latestOffset = Math.max(latestOffset, offset);
  }

  /** Empties the map (the memory is kept). */
  public void clear() {
    java.util.Arrays.fill(table.array(), (byte) 0);
    entries = 0;
    latestOffset = -1;
    lookups = 0;
    probes = 0;
  }

  /**
   * Maps the key of {@code length} bytes at {@code position} of {@code buffer} to {@code offset}
   * (replacing an older offset). The caller checks {@link #isFull()} first.
   */
  public void put(ByteBuffer buffer, int position, int length, long offset) {
    if (entries >= slots - 1) {
      throw new IllegalStateException("offset map is full: " + entries + " of " + slots);
    }
    hash(buffer, position, length);
    int slot = findSlot();
    int at = slot * CleanerConfig.OFFSET_MAP_ENTRY_BYTES;
    if (table.getLong(at + HASH_BYTES) == 0) {
      table.put(at, digest);
      entries++;
    }
    table.putLong(at + HASH_BYTES, offset + 1);
    updateLatestOffset(offset);
  }

  /** The latest offset mapped for the key, or -1. */
  public long get(ByteBuffer buffer, int position, int length) {
    hash(buffer, position, length);
    int at = findSlot() * CleanerConfig.OFFSET_MAP_ENTRY_BYTES;
    return table.getLong(at + HASH_BYTES) - 1;
  }

  /** The slot holding {@link #digest}, or the empty slot where it would go. */
  private int findSlot() {
    long step = Math.floorMod(readLong(8), (long) slots);
    int slot = (int) Math.floorMod(readLong(0), (long) slots);
    lookups++;
    for (int attempt = 0; ; attempt++) {
      probes++;
      int at = slot * CleanerConfig.OFFSET_MAP_ENTRY_BYTES;
      if (table.getLong(at + HASH_BYTES) == 0 || sameDigest(at)) {
        return slot;
      }
      slot = (int) ((slot + (attempt < DOUBLE_HASH_ATTEMPTS ? step + 1 : 1)) % slots);
    }
  }

  private boolean sameDigest(int at) {
    return table.getLong(at) == readLong(0) && table.getLong(at + 8) == readLong(8);
  }

  private long readLong(int from) {
    long v = 0;
    for (int i = from; i < from + 8; i++) {
      v = (v << 8) | (digest[i] & 0xffL);
    }
    return v;
  }

  private void hash(ByteBuffer buffer, int position, int length) {
    md5.reset();
    if (buffer.hasArray()) {
      md5.update(buffer.array(), buffer.arrayOffset() + position, length);
    } else {
      ByteBuffer key = buffer.duplicate();
      key.limit(position + length).position(position);
      md5.update(key);
    }
    try {
      md5.digest(digest, 0, HASH_BYTES);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException(e);
    }
  }
}
