package dev.spool.broker.log;

import java.util.List;

/**
 * What a partition remembers of one idempotent producer: its epoch, the metadata of its newest
 * batches (oldest first, at most {@link ProducerStateManager#NUM_BATCHES_TO_RETAIN}) and the max
 * timestamp of its last batch. Immutable.
 */
public record ProducerStateEntry(
    long producerId, short producerEpoch, List<BatchMetadata> batches, long lastTimestampMs) {

  /** One appended batch of the producer. Sequences are inclusive; offsets are log offsets. */
  public record BatchMetadata(
      int firstSeq, int lastSeq, long firstOffset, long lastOffset, long maxTimestampMs) {}

  public ProducerStateEntry {
    batches = List.copyOf(batches);
  }

  public int lastSeq() {
    return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastSeq();
  }

  public long lastOffset() {
    return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastOffset();
  }

  /** The cached batch with these epoch and sequences, or null. */
  public BatchMetadata findDuplicate(short epoch, int firstSeq, int lastSeq) {
    if (epoch != producerEpoch) {
      return null;
    }
    for (BatchMetadata b : batches) {
      if (b.firstSeq() == firstSeq && b.lastSeq() == lastSeq) {
        return b;
      }
    }
    return null;
  }
}
