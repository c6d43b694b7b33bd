package dev.spool.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.LeaderEpochCache.EpochEndOffset;
import dev.spool.broker.log.LeaderEpochCache.EpochEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class LeaderEpochCacheTest {
  private long leo = 100;
  private final LeaderEpochCache cache = new LeaderEpochCache(() -> leo);

  private void history() {
    cache.assign(2, 10);
    cache.assign(4, 30);
    cache.assign(7, 60);
  }

  @Test
  void endOffsetOfTheLatestEpochIsTheLogEnd() {
    history();
    assertEquals(new EpochEndOffset(7, 100), cache.endOffsetFor(7));
  }

  @Test
  void endOffsetOfAnEarlierEpochIsTheNextEpochsStart() {
    history();
    assertEquals(new EpochEndOffset(2, 30), cache.endOffsetFor(2));
    assertEquals(new EpochEndOffset(4, 60), cache.endOffsetFor(4));
  }

  @Test
  void unknownEpochBetweenKnownOnesAnswersWithTheLargestSmallerEpoch() {
    history();
    assertEquals(new EpochEndOffset(4, 60), cache.endOffsetFor(5));
    assertEquals(new EpochEndOffset(2, 30), cache.endOffsetFor(3));
  }

  @Test
  void epochBelowAllKnownAnswersWithTheFirstStartAndAboveAllIsUndefined() {
    history();
    assertEquals(new EpochEndOffset(1, 10), cache.endOffsetFor(1));
    assertEquals(new EpochEndOffset(-1, -1), cache.endOffsetFor(9));
    assertEquals(new EpochEndOffset(-1, -1), new LeaderEpochCache(() -> 0).endOffsetFor(3));
  }

  @Test
  void assignIgnoresALaterStartForTheLatestEpochAndRemovesConflictingEntries() {
    history();
    cache.assign(7, 80);
    assertEquals(new EpochEntry(7, 60), cache.latestEntry().orElseThrow());
    cache.assign(5, 40); // conflicts with (7, 60) by epoch and with nothing else
    assertEquals(
        List.of(new EpochEntry(2, 10), new EpochEntry(4, 30), new EpochEntry(5, 40)),
        cache.entries());
    cache.assign(8, 35); // conflicts by offset with (5, 40)
    assertEquals(
        List.of(new EpochEntry(2, 10), new EpochEntry(4, 30), new EpochEntry(8, 35)),
        cache.entries());
    assertThrows(IllegalArgumentException.class, () -> cache.assign(-1, 0));
  }

  @Test
  void truncationFromTheEndAndFromTheStartKeepsTheHistoryConsistent() {
    history();
    cache.truncateFromEnd(60);
    assertEquals(List.of(new EpochEntry(2, 10), new EpochEntry(4, 30)), cache.entries());
    cache.truncateFromStart(35);
    assertEquals(List.of(new EpochEntry(4, 35)), cache.entries());
    assertEquals(4, cache.epochForOffset(50).getAsInt());
    assertTrue(cache.epochForOffset(20).isEmpty());
  }

  @Test
  void checkpointUsesKafkasTextFormatAndAnUnparsableFileIsTreatedAsEmpty(@TempDir Path dir)
      throws Exception {
    LeaderEpochCache persisted = LeaderEpochCache.load(dir, () -> 0, "");
    persisted.assign(3, 0);
    persisted.assign(5, 42);
    assertEquals(
        "0\n2\n3 0\n5 42\n", Files.readString(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE)));
    assertEquals(persisted.entries(), LeaderEpochCache.load(dir, () -> 0, "").entries());

    Files.writeString(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE), "0\n2\n3 0\n");
    assertTrue(
        LeaderEpochCache.load(dir, () -> 0, "").entries().isEmpty(), "count says 2, one line");
    Files.writeString(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE), "0\n2\n5 10\n3 20\n");
    assertTrue(LeaderEpochCache.load(dir, () -> 0, "").entries().isEmpty(), "not monotonic");
  }
}
