package dev.spool.quorum.controller;

import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataSnapshot;
import dev.spool.quorum.message.OffsetBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The latest applied image plus a bounded ring of the most recently applied metadata batches with
 * their offsets: what a controller answers a heartbeat with. Every controller keeps one (so a newly
 * elected one can serve brokers at once).
 *
 * <p>Thread-safety: written by the apply thread ({@link #publish}, {@link #reset}), read by the
 * controller thread ({@link #read}); all methods synchronize on this object and hold the lock only
 * to copy references.
 */
public final class MetadataFeed {
  /** Keeps a heartbeat answer far below gRPC's message limit, whatever the batch sizes. */
  static final long MAX_SLICE_BYTES = 4L * 1024 * 1024;

  private final int capacityBatches;
  private final ArrayDeque<OffsetBatch> ring = new ArrayDeque<>();

  /** Every batch with an offset above this one is in the ring. */
  private long ringStartOffset;

  private MetadataImage image;
  private MetadataSnapshot cachedSnapshot;

  public MetadataFeed(int capacityBatches, MetadataImage initial) {
    this.capacityBatches = capacityBatches;
    reset(initial);
  }

  /** Forget the ring (after loading a snapshot): only batches after {@code image} follow. */
  public synchronized void reset(MetadataImage initial) {
    ring.clear();
    image = initial;
    ringStartOffset = initial.offset();
    cachedSnapshot = null;
  }

  /** The apply thread publishes each applied entry; {@code batch} may be null or empty. */
  public synchronized void publish(MetadataImage newImage, MetadataBatch batch) {
    if (batch != null && batch.getRecordsCount() > 0) {
      ring.addLast(OffsetBatch.newBuilder().setOffset(newImage.offset()).setBatch(batch).build());
      while (ring.size() > capacityBatches) {
        ringStartOffset = ring.removeFirst().getOffset();
      }
    }
    image = newImage;
  }

  public synchronized MetadataImage image() {
    return image;
  }

  /**
   * What a broker at {@code fromOffset} needs: the batches after it (at most {@code maxBatches} and
   * about {@link #MAX_SLICE_BYTES}; {@code more} says whether others follow), or the full image
   * when the ring no longer reaches back that far (or the broker claims an offset this controller
   * has not reached, e.g. after the cluster's metadata was wiped).
   */
  public Slice read(long fromOffset, int maxBatches) {
    MetadataImage img;
    List<OffsetBatch> out = new ArrayList<>();
    boolean more = false;
    synchronized (this) {
      img = image;
      if (fromOffset >= ringStartOffset && fromOffset <= img.offset()) {
        Iterator<OffsetBatch> it = ring.descendingIterator();
        List<OffsetBatch> reversed = new ArrayList<>();
        while (it.hasNext()) {
          OffsetBatch b = it.next();
          if (b.getOffset() <= fromOffset) {
            break;
          }
          reversed.add(b);
        }
        long bytes = 0;
        for (int i = reversed.size() - 1; i >= 0; i--) {
          OffsetBatch b = reversed.get(i);
          bytes += b.getSerializedSize();
          if (out.size() == maxBatches || (!out.isEmpty() && bytes > MAX_SLICE_BYTES)) {
            more = true;
            break;
          }
          out.add(b);
        }
        long to = more ? out.get(out.size() - 1).getOffset() : img.offset();
        return new Slice(out, null, to, more);
      }
    }
    return new Slice(List.of(), snapshotOf(img), img.offset(), false);
  }

  private MetadataSnapshot snapshotOf(MetadataImage img) {
    synchronized (this) {
      if (cachedSnapshot != null && cachedSnapshot.getOffset() == img.offset()) {
        return cachedSnapshot;
      }
    }
    MetadataSnapshot s = ImageSnapshots.toSnapshot(img);
    synchronized (this) {
      cachedSnapshot = s;
    }
    return s;
  }

  /**
   * @param batches batches to apply in order (empty when {@code fullImage} is set)
   * @param fullImage the whole image, replacing the broker's; null otherwise
   * @param toOffset the broker's offset after applying this slice
   * @param more further batches wait
   */
  public record Slice(
      List<OffsetBatch> batches, MetadataSnapshot fullImage, long toOffset, boolean more) {}
}
