package dev.spool.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.record.KafkaBatches.Sample;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The committed corpus of batches Kafka's classes wrote (src/test/resources/kafka-corpus, made by
 * {@link KafkaCorpusGenerator}): Spool must keep reading every one of them, whatever changes in its
 * codecs. The expected records come from the same seeded sample that made the files.
 */
@Tag("unit")
class KafkaCorpusTest {
  private static final List<Sample> RECORDS = KafkaCorpusGenerator.records();

  @Test
  void spoolReadsEverySingleBatchFileOfTheCorpus() throws IOException {
    for (KafkaCorpusGenerator.Entry e : KafkaCorpusGenerator.ENTRIES) {
      ByteBuffer batch = load(e.file());
      KafkaOracleTest.assertSpoolReads(
          batch, e.type(), RECORDS.subList(0, KafkaCorpusGenerator.RECORDS), e.file());
    }
  }

  @Test
  void spoolReadsTheMultiBatchFileWithContinuingOffsets() throws IOException {
    ByteBuffer all = load(KafkaCorpusGenerator.MULTI_FILE);
    MemoryRecords.BatchIterator batches = MemoryRecords.wrap(all).batches();
    RecordCursor cursor = new RecordCursor();
    int n = 0;
    for (CompressionType type : KafkaCorpusGenerator.MULTI) {
      assertTrue(batches.hasNext());
      RecordBatch b = batches.next();
      assertEquals(type, b.compressionType());
      cursor.reset(b);
      while (cursor.next()) {
        Sample s = RECORDS.get(n);
        assertEquals(n, cursor.offset());
        assertEquals(s.timestamp(), cursor.timestamp());
        assertTrue(KafkaBatches.sameBytes(s.value(), cursor.value()), "record " + n);
        n++;
      }
    }
    assertFalse(batches.hasNext());
    assertEquals(RECORDS.size(), n);
  }

  @Test
  void everyCompressedFileIsActuallyCompressedAndSmall() throws IOException {
    int plain = load("none.bin").remaining();
    for (KafkaCorpusGenerator.Entry e : KafkaCorpusGenerator.ENTRIES) {
      int size = load(e.file()).remaining();
      assertTrue(size < 64 * 1024, e.file() + " is " + size + " bytes");
      if (e.type() != CompressionType.NONE) {
        assertTrue(size < plain * 3 / 4, e.file() + ": " + size + " of " + plain);
      }
    }
  }

  private static ByteBuffer load(String file) throws IOException {
    try (InputStream in = KafkaCorpusTest.class.getResourceAsStream("/kafka-corpus/" + file)) {
      assertNotNull(in, "corpus file " + file + " is missing");
      return ByteBuffer.wrap(in.readAllBytes());
    }
  }
}
