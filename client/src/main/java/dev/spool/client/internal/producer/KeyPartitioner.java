package dev.spool.client.internal.producer;

/**
 * Kafka's key partitioning, bit for bit, so a key lands on the same partition number as with a
 * Kafka producer: {@code toPositive(murmur2(key)) % numPartitions}. murmur2 is the 32-bit
 * MurmurHash2 with Kafka's seed {@code 0x9747b28c}, little-endian 4-byte blocks and the tail mixed
 * in the usual order (Kafka's {@code Utils.murmur2}).
 */
public final class KeyPartitioner {
  private static final int SEED = 0x9747b28c;
  private static final int M = 0x5bd1e995;
  private static final int R = 24;

  private KeyPartitioner() {}

  public static int partition(byte[] key, int numPartitions) {
    return toPositive(murmur2(key)) % numPartitions;
  }

  /** Clears the sign bit (not {@code Math.abs}, which keeps {@link Integer#MIN_VALUE} negative). */
  public static int toPositive(int n) {
    return n & 0x7fffffff;
  }

  public static int murmur2(byte[] data) {
    int length = data.length;
    int h = SEED ^ length;
    int blocks = length / 4;
    for (int i = 0; i < blocks; i++) {
      int i4 = i * 4;
      int k =
          (data[i4] & 0xff)
              + ((data[i4 + 1] & 0xff) << 8)
              + ((data[i4 + 2] & 0xff) << 16)
              + ((data[i4 + 3] & 0xff) << 24);
      k *= M;
      k ^= k >>> R;
      k *= M;
      h *= M;
      h ^= k;
    }
    int tail = blocks * 4;
    switch (length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= M;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h;
  }
}
