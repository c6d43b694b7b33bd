package dev.spool.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.ProducerStateEntry.BatchMetadata;
import dev.spool.broker.log.internal.ProducerSnapshotCodec;
import dev.spool.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ProducerStateManagerTest {
  private final ProducerStateManager state = new ProducerStateManager(null, "");
  private long leo;

  private BatchMetadata append(long pid, int epoch, int seq, int records) {
    return append(pid, epoch, seq, records, 1000L);
  }

  private BatchMetadata append(long pid, int epoch, int seq, int records, long timestampMs) {
    ByteBuffer b = LogTestSupport.idempotentBatch(pid, (short) epoch, seq, records, timestampMs);
    ProducerStateManager.Staging s = state.stage();
    BatchMetadata dup = s.checkAndStage(RecordBatch.at(b, 0), leo, leo + records - 1);
    if (dup == null) {
      leo += records;
      state.commit(s, leo);
    }
    return dup;
  }

  @Test
  void retryOfAnyOfTheLastFiveBatchesIsADuplicateWithItsOriginalOffsets() {
    for (int i = 0; i < 6; i++) {
      assertNull(append(7, 0, i * 2, 2));
    }
    BatchMetadata dup = append(7, 0, 4, 2);
    assertNotNull(dup);
    assertEquals(4, dup.firstOffset());
    assertEquals(5, dup.lastOffset());
    assertThrows(
        OutOfOrderSequenceException.class,
        () -> append(7, 0, 0, 2),
        "the oldest batch fell out of the 5 kept");
  }

  @Test
  void gapInSequencesIsOutOfOrder() {
    append(7, 0, 0, 3);
    OutOfOrderSequenceException e =
        assertThrows(OutOfOrderSequenceException.class, () -> append(7, 0, 4, 1));
    assertTrue(e.getMessage().contains("expected 3"), e.getMessage());
  }

  @Test
  void olderEpochIsFencedAndANewEpochMustStartAtZero() {
    append(7, 3, 0, 1);
    assertThrows(InvalidProducerEpochException.class, () -> append(7, 2, 1, 1));
    assertThrows(OutOfOrderSequenceException.class, () -> append(7, 4, 5, 1));
    assertNull(append(7, 4, 0, 1));
    assertEquals(4, state.entry(7).orElseThrow().producerEpoch());
  }

  @Test
  void producersWhoseNewestBatchIsOlderThanTheExpirationAreForgotten() {
    append(7, 0, 0, 2, 1_000L);
    append(8, 0, 0, 2, 5_000L);
    assertEquals(0, state.removeExpiredProducers(3_999L, 3_000L), "7 is not yet 3 s old");
    assertEquals(1, state.removeExpiredProducers(4_000L, 3_000L));
    assertTrue(state.entry(7).isEmpty());
    assertTrue(state.entry(8).isPresent(), "8's newest batch is recent");
    assertNull(append(7, 0, 40, 1, 6_000L), "an expired producer's next batch is accepted");
  }

  @Test
  void unknownProducerIsAcceptedAtAnySequence() {
    assertNull(append(99, 1, 12345, 2));
    assertEquals(12346, state.entry(99).orElseThrow().lastSeq());
  }

  @Test
  void sequenceWrapsFromIntMaxToZero() {
    append(7, 0, Integer.MAX_VALUE - 1, 2);
    assertEquals(Integer.MAX_VALUE, state.entry(7).orElseThrow().lastSeq());
    assertNull(append(7, 0, 0, 1));
  }

  @Test
  void severalBatchesOfOneProducerInOneAppendAreCheckedInOrder() {
    ProducerStateManager.Staging s = state.stage();
    ByteBuffer a = LogTestSupport.idempotentBatch(5, (short) 0, 0, 2, 1L);
    ByteBuffer b = LogTestSupport.idempotentBatch(5, (short) 0, 2, 2, 1L);
    ByteBuffer gap = LogTestSupport.idempotentBatch(5, (short) 0, 9, 1, 1L);
    assertNull(s.checkAndStage(RecordBatch.at(a, 0), 0, 1));
    assertNull(s.checkAndStage(RecordBatch.at(b, 0), 2, 3));
    assertThrows(
        OutOfOrderSequenceException.class, () -> s.checkAndStage(RecordBatch.at(gap, 0), 4, 4));
    assertTrue(state.entry(5).isEmpty(), "nothing changes before commit");
  }

  @Test
  void snapshotRoundTripsAndACorruptSnapshotIsRejected() {
    append(1, 0, 0, 2);
    append(2, 3, 10, 1);
    append(1, 0, 2, 1);
    byte[] bytes = ProducerSnapshotCodec.encode(leo, state.activeProducers().values());
    ProducerSnapshotCodec.Snapshot s = ProducerSnapshotCodec.decode(bytes);
    assertEquals(leo, s.snapshotOffset());
    assertEquals(state.activeProducers().size(), s.producers().size());
    for (ProducerStateEntry e : s.producers()) {
      assertEquals(state.entry(e.producerId()).orElseThrow(), e);
    }
    bytes[bytes.length - 3] ^= 0x10;
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ProducerSnapshotCodec.decode(bytes));
    assertTrue(e.getMessage().contains("CRC"));
    assertThrows(
        IllegalArgumentException.class,
        () -> ProducerSnapshotCodec.decode(java.util.Arrays.copyOf(bytes, 12)));
    assertEquals(
        List.of(),
        ProducerSnapshotCodec.decode(ProducerSnapshotCodec.encode(0, List.of())).producers());
  }
}
