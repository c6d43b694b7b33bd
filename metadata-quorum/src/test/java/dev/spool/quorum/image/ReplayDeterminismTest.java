package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.MetadataSnapshot;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replay is deterministic: the same records give the same image and the same per-record results,
 * whether applied entry by entry (a controller) or many entries per build (a broker), and a
 * snapshot plus the tail equals a full replay. Random but seeded record streams; the seed is in
 * every failure message.
 */
@Tag("unit")
class ReplayDeterminismTest {

  static Stream<Long> seeds() {
    long now = System.nanoTime();
    return Stream.of(1L, 2L, 3L, 42L, 20261129L, now);
  }

  record Entry(long offset, MetadataBatch batch) {}

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void shouldGiveIdenticalImagesForIdenticalRecords(long seed) {
    List<Entry> entries = RandomRecords.stream(new Random(seed), 400);
    List<List<RecordResult>> results1 = new ArrayList<>();
    List<List<RecordResult>> results2 = new ArrayList<>();
    MetadataImage a = replayPerEntry(entries, results1);
    MetadataImage b = replayPerEntry(entries, results2);
    assertEquals(a, b, "seed " + seed);
    assertEquals(results1, results2, "seed " + seed);
    long rejected =
        results1.stream()
            .flatMap(List::stream)
            .filter(r -> r.getErrorCode() != dev.spool.common.ErrorCode.NONE)
            .count();
    long total = results1.stream().mapToLong(List::size).sum();
    // The generator must exercise both paths, or this test proves little.
    org.junit.jupiter.api.Assertions.assertTrue(
        rejected > 0 && rejected < total,
        "seed " + seed + ": " + rejected + " of " + total + " rejected");
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void shouldGiveTheSameImageWhenABrokerAppliesManyEntriesPerBuild(long seed) {
    List<Entry> entries = RandomRecords.stream(new Random(seed), 400);
    MetadataImage perEntry = replayPerEntry(entries, new ArrayList<>());
    Random chunks = new Random(seed + 1);
    MetadataImage image = MetadataImage.EMPTY;
    int i = 0;
    while (i < entries.size()) {
      int n = 1 + chunks.nextInt(50);
      ImageBuilder b = new ImageBuilder(image);
      long last = image.offset();
      for (int k = i; k < Math.min(entries.size(), i + n); k++) {
        MetadataApplier.apply(b, entries.get(k).batch(), entries.get(k).offset());
        last = entries.get(k).offset();
      }
      image = b.build(last);
      i += n;
    }
    assertEquals(perEntry, image, "seed " + seed);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void shouldEqualFullReplayWhenLoadingASnapshotAndReplayingTheTail(long seed) throws Exception {
    List<Entry> entries = RandomRecords.stream(new Random(seed), 400);
    MetadataImage full = replayPerEntry(entries, new ArrayList<>());
    int cut = new Random(seed + 7).nextInt(entries.size());
    MetadataImage head = replayPerEntry(entries.subList(0, cut), new ArrayList<>());
    byte[] bytes = ImageSnapshots.toSnapshot(head).toByteArray();
    MetadataImage loaded = ImageSnapshots.fromSnapshot(MetadataSnapshot.parseFrom(bytes));
    assertEquals(head, loaded, "seed " + seed + " cut " + cut);
    assertEquals(
        ImageSnapshots.toSnapshot(head),
        ImageSnapshots.toSnapshot(loaded),
        "snapshot bytes are canonical; seed " + seed);
    MetadataImage image = loaded;
    for (Entry e : entries.subList(cut, entries.size())) {
      image = MetadataApplier.replay(image, e.batch(), e.offset());
    }
    assertEquals(full, image, "seed " + seed + " cut " + cut);
  }

  private static MetadataImage replayPerEntry(List<Entry> entries, List<List<RecordResult>> out) {
    MetadataImage image = MetadataImage.EMPTY;
    for (Entry e : entries) {
      ImageBuilder b = new ImageBuilder(image);
      out.add(MetadataApplier.apply(b, e.batch(), e.offset()));
      image = b.build(e.offset());
    }
    return image;
  }

  /** Plausible record streams: mostly valid against the evolving image, some deliberately not. */
  static final class RandomRecords {
    static List<Entry> stream(Random rnd, int entries) {
      List<Entry> out = new ArrayList<>();
      MetadataImage image = MetadataImage.EMPTY;
      long offset = 0;
      for (int i = 0; i < entries; i++) {
        offset += 1 + rnd.nextInt(3); // gaps: entries without metadata (leader no-ops)
        MetadataBatch.Builder batch = MetadataBatch.newBuilder();
        int n = 1 + rnd.nextInt(4);
        for (int k = 0; k < n; k++) {
          batch.addRecords(next(rnd, image));
        }
        MetadataBatch b = batch.build();
        out.add(new Entry(offset, b));
        image = MetadataApplier.replay(image, b, offset);
      }
      return out;
    }

    private static MetadataRecord next(Random rnd, MetadataImage img) {
      int brokerId = rnd.nextInt(6);
      var broker = img.broker(brokerId);
      long epoch = broker == null ? 0 : broker.epoch() + (rnd.nextInt(8) == 0 ? 1 : 0);
      List<TopicImage> topics = new ArrayList<>(img.topics());
      topics.sort((x, y) -> x.name().compareTo(y.name()));
      TopicImage t = topics.isEmpty() ? null : topics.get(rnd.nextInt(topics.size()));
      switch (rnd.nextInt(12)) {
        case 0:
          return Records.registerBroker(
              brokerId,
              "inc-" + rnd.nextInt(1000),
              "h" + brokerId,
              9000 + brokerId,
              rnd.nextBoolean() ? "" : "rack" + rnd.nextInt(2),
              null,
              rnd.nextBoolean() ? null : new MetadataVersion.Range(1, 1 + rnd.nextInt(3)),
              0);
        case 1:
          return Records.fenceBroker(brokerId, epoch);
        case 2:
          return Records.unfenceBroker(brokerId, epoch);
        case 3:
          return Records.brokerShutdown(brokerId, epoch);
        case 4:
          if (rnd.nextInt(8) == 0) {
            // A hostile writer's names: refused on every replica alike, never applied.
            String[] hostile = {"../escape", "a/b", "..", ".", "", "x".repeat(250), "t b"};
            return Records.topic(hostile[rnd.nextInt(hostile.length)], "id-h" + rnd.nextInt(3));
          }
          return Records.topic("t" + rnd.nextInt(8), "id-" + rnd.nextInt(12));
        case 5:
          {
            if (t == null) {
              return Records.removeTopic("none");
            }
            List<Integer> replicas = randomReplicas(rnd);
            return Records.partition(
                t.id(),
                t.partitionCount() + (rnd.nextInt(6) == 0 ? 1 : 0),
                replicas,
                replicas,
                replicas.get(0),
                0,
                0);
          }
        case 6:
        case 7:
          {
            if (t == null || t.partitionCount() == 0) {
              return Records.config("none", "k", "v");
            }
            PartitionState p = t.partition(rnd.nextInt(t.partitionCount()));
            List<Integer> isr = new ArrayList<>(p.replicas());
            Collections.shuffle(isr, rnd);
            isr = isr.subList(0, 1 + rnd.nextInt(isr.size()));
            int leader = rnd.nextInt(5) == 0 ? -1 : isr.get(0);
            if (rnd.nextInt(10) == 0) {
              leader = 99; // not in the ISR: structurally invalid
            }
            var rec = Records.partitionChange(p, leader, isr);
            if (rnd.nextInt(5) == 0) {
              rec =
                  rec.toBuilder()
                      .setPartitionChange(
                          rec.getPartitionChange().toBuilder()
                              .setExpectedPartitionEpoch(p.partitionEpoch() - 1))
                      .build();
            }
            return rec;
          }
        case 8:
          return t == null || rnd.nextInt(3) > 0
              ? Records.removeTopic("id-" + rnd.nextInt(12))
              : Records.removeTopic(t.id());
        case 9:
          if (t == null) {
            return Records.config("id-x", "retention.ms", "1");
          }
          return rnd.nextBoolean()
              ? Records.config(t.id(), "retention.ms", "" + rnd.nextInt(1000))
              : Records.deleteConfig(t.id(), "retention.ms");
        case 10:
          // Levels go up, sometimes down (refused), sometimes a feature nobody knows (refused).
          return Records.featureLevel(
              rnd.nextInt(8) == 0 ? "no.such.feature" : MetadataVersion.FEATURE,
              Math.max(0, img.metadataVersion() + rnd.nextInt(3) - 1));
        default:
          long next = img.nextProducerId() - (rnd.nextInt(4) == 0 ? 1 : 0);
          return Records.producerIds(brokerId, epoch, next, 1000);
      }
    }

    private static List<Integer> randomReplicas(Random rnd) {
      List<Integer> all = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5));
      Collections.shuffle(all, rnd);
      return List.copyOf(all.subList(0, 1 + rnd.nextInt(3)));
    }
  }
}
