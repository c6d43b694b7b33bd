package dev.spool.quorum.image;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.MetadataSnapshot;
import dev.spool.quorum.message.RecordResult;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Writes an image as records that rebuild it from the empty image, and reads it back (the
 * controller snapshot file and the full-image answer to a broker that is too far behind). The
 * record order is canonical (brokers by id, topics by name, configs by key), so the same image
 * always gives the same bytes.
 *
 * <p>Layout of a snapshot batch: FeatureLevel(metadata.version) first when finalized (a reader
 * knows the level before any other record); per broker RegisterBroker (explicit epoch), then
 * Unfence if unfenced, BrokerShutdown if shutting down and BrokerDirsOffline if a directory failed;
 * per topic Topic, its Config records, its Partition records (explicit epochs); then each SCRAM
 * credential, by user and mechanism; each ACL, by id; each client quota key, by entity and key;
 * finally ProducerIds(broker -1, expected 0, block = next producer id) when the counter is above 0.
 */
public final class ImageSnapshots {
  public static final int FORMAT_VERSION = 1;

  private ImageSnapshots() {}

  public static MetadataSnapshot toSnapshot(MetadataImage image) {
    MetadataBatch.Builder batch = MetadataBatch.newBuilder();
    if (image.metadataVersion() != MetadataVersion.UNSET) {
      batch.addRecords(Records.featureLevel(MetadataVersion.FEATURE, image.metadataVersion()));
    }
    image.brokers().values().stream()
        .sorted(Comparator.comparingInt(BrokerRegistration::id))
        .forEach(
            b -> {
              batch.addRecords(
                  Records.registerBroker(
                      b.id(),
                      b.incarnationId(),
                      b.host(),
                      b.port(),
                      b.rack(),
                      b.kafkaEndpoint(),
                      b.metadataVersions(),
                      b.epoch()));
              if (!b.fenced()) {
                batch.addRecords(Records.unfenceBroker(b.id(), b.epoch()));
              }
              if (b.inControlledShutdown()) {
                batch.addRecords(Records.brokerShutdown(b.id(), b.epoch()));
              }
              if (b.hasOfflineDirs()) {
                batch.addRecords(Records.brokerDirsOffline(b.id(), b.epoch(), b.offlineDirs()));
              }
            });
    image.topicIdsByName().keySet().stream()
        .sorted()
        .forEach(
            name -> {
              TopicImage t = image.topic(name);
              batch.addRecords(Records.topic(t.name(), t.id()));
              t.configs().entrySet().stream()
                  .sorted(Map.Entry.comparingByKey())
                  .forEach(e -> batch.addRecords(Records.config(t.id(), e.getKey(), e.getValue())));
              for (PartitionState p : t.partitions()) {
                batch.addRecords(Records.partition(p));
              }
            });
    image.scramCredentials().keySet().stream()
        .sorted()
        .forEach(
            user ->
                image.scramCredentials().get(user).entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .forEach(
                        e ->
                            batch.addRecords(
                                MetadataRecord.newBuilder().setScramCredential(e.getValue()))));
    image.acls().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> batch.addRecords(Records.acl(e.getKey(), e.getValue())));
    image.clientQuotas().entrySet().stream()
        .sorted(Map.Entry.comparingByKey(dev.spool.common.ClientQuotaEntity.ORDER))
        .forEach(
            e ->
                new java.util.TreeMap<>(e.getValue())
                    .forEach((k, v) -> batch.addRecords(Records.clientQuota(e.getKey(), k, v))));
    if (image.nextProducerId() > 0) {
      batch.addRecords(Records.producerIds(-1, 0, 0, image.nextProducerId()));
    }
    if (image.replicationThrottleBytesPerSec() > 0) {
      batch.addRecords(Records.replicationThrottle(image.replicationThrottleBytesPerSec()));
    }
    return MetadataSnapshot.newBuilder()
        .setFormatVersion(FORMAT_VERSION)
        .setOffset(image.offset())
        .setBatch(batch)
        .build();
  }

  /**
   * Rebuilds the image. Throws {@link IllegalStateException} when a record does not apply: a
   * snapshot is written from a consistent image, so that means a corrupt or foreign file.
   */
  public static MetadataImage fromSnapshot(MetadataSnapshot snapshot) {
    if (snapshot.getFormatVersion() != FORMAT_VERSION) {
      throw new IllegalStateException(
          "unknown metadata snapshot format " + snapshot.getFormatVersion());
    }
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    List<MetadataRecord> records = snapshot.getBatch().getRecordsList();
    for (int i = 0; i < records.size(); i++) {
      RecordResult r = MetadataApplier.apply(b, records.get(i), snapshot.getOffset());
      if (r.getErrorCode() != ErrorCode.NONE) {
        throw new IllegalStateException(
            "snapshot record "
                + i
                + " at offset "
                + snapshot.getOffset()
                + " does not apply: "
                + r.getErrorMessage());
      }
    }
    return b.build(snapshot.getOffset());
  }
}
