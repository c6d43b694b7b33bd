package dev.spool.broker.log;

import static dev.spool.broker.log.LogTestSupport.idempotentBatch;
import static dev.spool.broker.log.LogTestSupport.smallConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ManualClock;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Idempotent producers through the log: duplicates, ordering, restart and truncation. */
@Tag("integration")
@Timeout(60)
class IdempotentAppendTest {
  @TempDir Path tmp;
  ManualClock clock = new ManualClock(1_700_000_000_000L);
  ScheduledExecutorService scheduler = LogTestSupport.scheduler();

  @AfterEach
  void tearDown() throws Exception {
    scheduler.shutdownNow();
    scheduler.awaitTermination(5, TimeUnit.SECONDS);
  }

  private PartitionLog open(LogStartupState state) {
    return LogTestSupport.open(tmp, smallConfig(), state, clock, scheduler);
  }

  private LogAppendInfo send(PartitionLog log, int seq, int records) {
    return log.appendAsLeader(idempotentBatch(42, (short) 1, seq, records, clock.nowMs()), 0);
  }

  @Test
  void retriedBatchGetsItsOriginalOffsetsAndIsNotAppendedTwice() {
    PartitionLog log = open(LogStartupState.UNKNOWN);
    log.appendAsLeader(LogTestSupport.batch(3, clock.nowMs(), "other"), 0);
    LogAppendInfo first = send(log, 0, 2);
    send(log, 2, 2);
    long size = log.sizeInBytes();
    LogAppendInfo retry = send(log, 0, 2);
    assertTrue(retry.duplicate());
    assertEquals(first.firstOffset(), retry.firstOffset());
    assertEquals(first.lastOffset(), retry.lastOffset());
    assertEquals(7, log.logEndOffset());
    assertEquals(size, log.sizeInBytes());
    assertThrows(OutOfOrderSequenceException.class, () -> send(log, 9, 1));
    assertEquals(7, log.logEndOffset());
    log.close();
  }

  @Test
  void producerStateSurvivesACleanRestartAndACrash() {
    PartitionLog log = open(LogStartupState.UNKNOWN);
    for (int i = 0; i < 40; i++) {
      send(log, i * 3, 3); // rolls several segments: snapshots at each roll
    }
    log.close();
    PartitionLog clean = open(new LogStartupState(120, 0, 0, true));
    assertTrue(send(clean, 117, 3).duplicate());
    assertFalse(send(clean, 120, 1).duplicate());
    clean.closeForDeletion(); // crash

    PartitionLog crashed = open(new LogStartupState(0, 0, 0, false));
    LogAppendInfo dup = send(crashed, 120, 1);
    assertTrue(dup.duplicate());
    assertEquals(120, dup.firstOffset());
    assertThrows(OutOfOrderSequenceException.class, () -> send(crashed, 122, 1));
    crashed.close();
  }

  @Test
  void truncationRewindsProducerStateSoTheRemovedBatchesCanBeWrittenAgain() {
    PartitionLog log = open(LogStartupState.UNKNOWN);
    for (int i = 0; i < 30; i++) {
      send(log, i * 2, 2);
    }
    log.truncateTo(50); // removes sequences 50..59
    assertEquals(50, log.logEndOffset());
    assertEquals(49, log.producerState().entry(42).orElseThrow().lastSeq());
    LogAppendInfo again = send(log, 50, 2);
    assertFalse(again.duplicate());
    assertEquals(50, again.firstOffset());
    assertTrue(send(log, 48, 2).duplicate());
    log.close();
  }
}
