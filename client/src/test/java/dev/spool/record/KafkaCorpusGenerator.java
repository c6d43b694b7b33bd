package dev.spool.record;

import dev.spool.record.KafkaBatches.Sample;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the committed corpus of batches built by Kafka's producer-side classes (see the README in
 * {@code src/test/resources/kafka-corpus/}): one file per codec and level, plus one file of several
 * batches back to back. {@link KafkaCorpusTest} reads them. Run once when the corpus changes; the
 * files, not this program, are what the test pins.
 */
public final class KafkaCorpusGenerator {
  /** Records per corpus batch, and the seed of their sample. */
  static final int RECORDS = 50;

  static final long SEED = 90210L;

  /** File name, codec, level. */
  record Entry(String file, CompressionType type, int level) {}

  static final List<Entry> ENTRIES =
      List.of(
          new Entry("none.bin", CompressionType.NONE, 0),
          new Entry("gzip.bin", CompressionType.GZIP, -1),
          new Entry("gzip-level1.bin", CompressionType.GZIP, 1),
          new Entry("snappy.bin", CompressionType.SNAPPY, 0),
          new Entry("lz4.bin", CompressionType.LZ4, 9),
          new Entry("lz4-level17.bin", CompressionType.LZ4, 17),
          new Entry("zstd.bin", CompressionType.ZSTD, 3),
          new Entry("zstd-level19.bin", CompressionType.ZSTD, 19),
          new Entry("zstd-level-5.bin", CompressionType.ZSTD, -5));

  /** The multi-batch file: these codecs in order, each batch holding the next RECORDS samples. */
  static final List<CompressionType> MULTI =
      List.of(
          CompressionType.LZ4, CompressionType.NONE, CompressionType.ZSTD, CompressionType.GZIP);

  static final String MULTI_FILE = "multi.bin";

  private KafkaCorpusGenerator() {}

  static List<Sample> records() {
    return KafkaBatches.sample(RECORDS * MULTI.size(), SEED);
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "client/src/test/resources/kafka-corpus");
    Files.createDirectories(dir);
    List<Sample> all = records();
    for (Entry e : ENTRIES) {
      write(
          dir.resolve(e.file()),
          KafkaBatches.kafkaBatch(e.type(), e.level(), all.subList(0, RECORDS)));
    }
    List<ByteBuffer> parts = new ArrayList<>();
    int total = 0;
    for (int i = 0; i < MULTI.size(); i++) {
      CompressionType type = MULTI.get(i);
      ByteBuffer b =
          KafkaBatches.kafkaBatch(
              type, type.defaultLevel(), all.subList(i * RECORDS, (i + 1) * RECORDS));
      // Offsets as a log would hold them: each batch continues where the previous ended.
      b.putLong(RecordBatch.BASE_OFFSET_POSITION, (long) i * RECORDS);
      parts.add(b);
      total += b.remaining();
    }
    ByteBuffer multi = ByteBuffer.allocate(total);
    parts.forEach(multi::put);
    write(dir.resolve(MULTI_FILE), multi.flip());
  }

  private static void write(Path file, ByteBuffer bytes) throws IOException {
    byte[] b = new byte[bytes.remaining()];
    bytes.duplicate().get(b);
    Files.write(file, b);
    System.out.println(file + ": " + b.length + " bytes");
  }
}
