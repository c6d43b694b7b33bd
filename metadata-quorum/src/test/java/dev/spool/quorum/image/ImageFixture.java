package dev.spool.quorum.image;

import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import java.util.UUID;

/** Builds images for tests by applying records, one entry per call, offsets counting up. */
public final class ImageFixture {
  private MetadataImage image = MetadataImage.EMPTY;
  private long offset = 0;

  public MetadataImage image() {
    return image;
  }

  public List<RecordResult> apply(MetadataRecord... records) {
    return apply(List.of(records));
  }

  public List<RecordResult> apply(List<MetadataRecord> records) {
    offset++;
    ImageBuilder b = new ImageBuilder(image);
    List<RecordResult> results =
        MetadataApplier.apply(b, MetadataBatch.newBuilder().addAllRecords(records).build(), offset);
    image = b.build(offset);
    return results;
  }

  /** Registers and unfences a broker; returns its epoch. */
  public long broker(int id, String rack) {
    apply(
        Records.registerBroker(id, UUID.randomUUID().toString(), "host" + id, 9000 + id, rack, 0));
    long epoch = image.broker(id).epoch();
    apply(Records.unfenceBroker(id, epoch));
    return epoch;
  }

  public ImageFixture brokers(int... ids) {
    for (int id : ids) {
      broker(id, "");
    }
    return this;
  }

  public void fence(int id) {
    apply(Records.fenceBroker(id, image.broker(id).epoch()));
  }

  /** A topic whose partitions have the given replicas; ISR = replicas, leader = first. */
  public String topic(String name, List<List<Integer>> assignment) {
    String id = UUID.nameUUIDFromBytes(name.getBytes()).toString();
    apply(Records.topic(name, id));
    for (int p = 0; p < assignment.size(); p++) {
      List<Integer> r = assignment.get(p);
      apply(Records.partition(id, p, r, r, r.get(0), 0, 0));
    }
    return id;
  }
}
