package dev.spool.broker.log;

import static dev.spool.broker.log.CompactionTestSupport.assertOffsetsIncrease;
import static dev.spool.broker.log.CompactionTestSupport.batches;
import static dev.spool.broker.log.CompactionTestSupport.compactConfig;
import static dev.spool.broker.log.CompactionTestSupport.keyed;
import static dev.spool.broker.log.CompactionTestSupport.latest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.log.CompactionTestSupport.Bat;
import dev.spool.broker.log.CompactionTestSupport.Rec;
import dev.spool.common.ManualClock;
import dev.spool.record.Compression;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill at every step of clean-and-swap of a log with batches of every codec (write the cleaned
 * segment, flush it, hand it over, commit it as {@code .swap}, rename each old segment to {@code
 * .deleted}, rename the swap to its final name): a step hook throws before step N and the directory
 * is reopened without a clean shutdown, which is what a kill -9 there leaves. After recovery every
 * old segment's offset range holds either exactly its old batches or exactly what the uncrashed
 * clean made of it, never a mix and never a hole; no {@code .cleaned} or {@code .swap} file is
 * left; the log reads whole; and a clean after the restart gets to the same records as the
 * uncrashed one.
 */
@Tag("integration")
@Timeout(120)
class CleanerCrashTest {
  @TempDir Path tmp;
  ScheduledExecutorService scheduler;
  final List<PartitionLog> opened = new ArrayList<>();

  /** What a step hook throws: the simulated kill. */
  static final class Killed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Killed(String step) {
      super("killed before: " + step);
    }
  }

  @BeforeEach
  void setUp() {
    scheduler = LogTestSupport.scheduler();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (PartitionLog l : opened) {
      if (!l.isClosed()) {
        l.close();
      }
    }
    scheduler.shutdownNow();
    scheduler.awaitTermination(5, TimeUnit.SECONDS);
  }

  private static final LogConfig CONFIG = compactConfig(700, 1_000_000);

  /** Every codec, none first. */
  private static final List<Compression> CODECS = CompactionTestSupport.allCodecs();

  /**
   * The same log in {@code dir} every time: keyed values and tombstones over several segments,
   * cleaned once (which leaves small segments, so the next clean merges several into one group and
   * its swap replaces several segments), then more of the same.
   */
  private PartitionLog build(Path dir, ManualClock clock) throws InterruptedException {
    PartitionLog l = open(dir, clock, LogStartupState.UNKNOWN);
    write(l, clock, 0);
    assertTrue(cleanOnce(l, clock));
    write(l, clock, 60);
    return l;
  }

  private static void write(PartitionLog l, ManualClock clock, int from) {
    for (int i = from; i < from + 60; i++) {
      String value = i % 11 == 10 ? null : "value-" + i;
      // Every fourth batch compressed, rotating through the codecs: each swap carries
      // recompressed batches while the kill loop (one rebuild per step) stays short.
      Compression codec =
          i % 4 == 0 ? CODECS.get(1 + (i / 4) % (CODECS.size() - 1)) : Compression.NONE;
      l.appendAsLeader(
          keyed(codec, clock.nowMs(), "k" + (i % 7), value, "j" + (i % 3), "w" + i), 0);
    }
    l.updateHighWatermark(l.logEndOffset());
  }

  private PartitionLog open(Path dir, ManualClock clock, LogStartupState state) {
    PartitionLog l = LogTestSupport.open(dir, CONFIG, state, clock, scheduler);
    opened.add(l);
    return l;
  }

  private static boolean cleanOnce(PartitionLog l, ManualClock clock) throws InterruptedException {
    return CompactionTestSupport.inlineCleaner(l, clock)
        .cleanFilthiest(CompactionTestSupport.cleaner(1 << 20, clock));
  }

  @Test
  void aKillAtAnyStepRecoversToTheOldOrTheCleanedSegmentsOfEachRange() throws Exception {
    ManualClock refClock = new ManualClock(1_700_000_000_000L);
    PartitionLog ref = build(tmp.resolve("ref"), refClock);
    List<Bat> before = batches(ref);
    List<Long> oldBases = ref.segmentBaseOffsets();
    long end = ref.logEndOffset();
    List<String> steps = new ArrayList<>();
    ref.segmentSet().setStepHook(steps::add);
    assertTrue(cleanOnce(ref, refClock));
    List<Bat> cleaned = batches(ref);
    assertTrue(cleaned.size() < before.size(), "the reference clean removed batches");
    assertTrue(
        ref.numberOfSegments() < oldBases.size(),
        "a swap replaced several segments: " + oldBases + " -> " + ref.segmentBaseOffsets());
    assertTrue(steps.stream().anyMatch(s -> s.startsWith("commit")), steps.toString());
    assertTrue(steps.stream().anyMatch(s -> s.contains("to its final name")), steps.toString());

    for (int killAt = 0; killAt < steps.size(); killAt++) {
      String step = steps.get(killAt);
      String at = "killed before step " + killAt + " (" + step + ")";
      Path dir = tmp.resolve("run" + killAt);
      ManualClock clock = new ManualClock(1_700_000_000_000L);
      PartitionLog l = build(dir, clock);
      AtomicInteger n = new AtomicInteger();
      final int target = killAt;
      l.segmentSet()
          .setStepHook(
              s -> {
                if (n.getAndIncrement() == target) {
                  throw new Killed(s);
                }
              });
      try {
        cleanOnce(l, clock);
        throw new AssertionError(at + ": the clean finished");
      } catch (Killed expected) {
        // the kill
      }
      l.closeForDeletion(); // no flush, no snapshot, no renames: the process is gone
      CleanerCheckpoint cp = l.cleanerCheckpoint();
      PartitionLog back = open(dir, clock, new LogStartupState(0, 0, end, false, cp));

      assertEquals(List.of(), leftovers(back.dir()), at);
      assertEquals(end, back.logEndOffset(), at);
      List<Bat> recovered = batches(back);
      assertOffsetsIncrease(recovered);
      for (int i = 0; i < oldBases.size(); i++) {
        long from = oldBases.get(i);
        long to = i + 1 < oldBases.size() ? oldBases.get(i + 1) : Long.MAX_VALUE;
        List<Bat> got = range(recovered, from, to);
        assertTrue(
            got.equals(range(before, from, to)) || got.equals(range(cleaned, from, to)),
            at + ": offsets [" + from + ", " + to + ") hold a mix: " + got);
      }
      assertEquals(latest(records(before)), latest(records(recovered)), at);

      // The next clean finishes the job: the same records as the uncrashed clean.
      cleanOnce(back, clock);
      assertEquals(records(cleaned), records(batches(back)), at + ": after the next clean");
    }
  }

  private static List<Bat> range(List<Bat> all, long from, long to) {
    return all.stream().filter(b -> b.baseOffset() >= from && b.baseOffset() < to).toList();
  }

  private static List<Rec> records(List<Bat> batches) {
    return batches.stream().flatMap(b -> b.records().stream()).toList();
  }

  private static List<String> leftovers(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(
              name ->
                  name.endsWith(".cleaned") || name.endsWith(".swap") || name.endsWith(".deleted"))
          .toList();
    }
  }
}
