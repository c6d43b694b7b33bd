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
import dev.spool.broker.log.internal.Cleaner;
import dev.spool.record.Compression;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction against a model, on random keyed workloads with tombstones in batches of random codecs
 * (none, gzip, snappy, lz4, zstd): random segment sizes, key-map sizes, high watermarks, cleaning
 * points, restarts (clean and not) and delete retentions. After every clean: every batch passes its
 * CRC, offsets strictly increase, every record read is one that was written at that offset, every
 * key reads as its latest written value (or, when that is a tombstone, the tombstone or nothing),
 * and nothing at or above the first uncleanable offset changed. At the end, with every delete
 * horizon passed, no tombstone and no second record of a key is left below the active segment.
 */
@Tag("integration")
@Timeout(120)
class LogCleanerPropertyTest extends LogFixture {
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void randomWorkloadsAgreeWithTheModel(long seed) throws Exception {
    Random rnd = new Random(seed);
    long deleteRetentionMs = List.of(0L, 5_000L, 1_000_000L).get(rnd.nextInt(3));
    LogConfig cfg = compactConfig(300 + rnd.nextInt(1500), deleteRetentionMs);
    int keys = 3 + rnd.nextInt(40);
    log = open(cfg, LogStartupState.UNKNOWN);
    Map<Long, Rec> written = new HashMap<>();
    List<Rec> order = new ArrayList<>();
    int cleans = 0;
    for (int step = 0; step < 300; step++) {
      int op = rnd.nextInt(100);
      String at = "seed " + seed + " step " + step;
      if (op < 70) {
        appendRandom(rnd, keys, written, order);
      } else if (op < 90) {
        cleans += cleanAndCheck(rnd, written, order, at) ? 1 : 0;
      } else if (op < 95) {
        clock.advanceMs(rnd.nextInt(3_000));
      } else {
        restart(cfg, rnd.nextBoolean(), at);
      }
    }
    assertTrue(cleans > 0, "seed " + seed + ": no clean ran");

    // Everything in: roll past the last write, let every horizon pass, clean until done.
    log.updateHighWatermark(log.logEndOffset());
    for (int i = 0; i < 40 && log.numberOfSegments() < 2; i++) {
      appendRandom(rnd, keys, written, order);
    }
    drain(written, order, "seed " + seed + " drain 1");
    clock.advanceMs(deleteRetentionMs + 1);
    drain(written, order, "seed " + seed + " drain 2");
    List<Long> bases = log.segmentBaseOffsets();
    long activeBase = bases.get(bases.size() - 1);
    List<Rec> cleanPart =
        CompactionTestSupport.records(log).stream().filter(r -> r.offset() < activeBase).toList();
    assertTrue(
        cleanPart.stream().allMatch(r -> r.value() != null),
        "seed " + seed + ": expired tombstones remain: " + cleanPart);
    assertEquals(
        cleanPart.stream().map(Rec::key).distinct().count(),
        cleanPart.size(),
        "seed " + seed + ": a key appears twice below the active segment");
  }

  /**
   * One batch of 1-5 records over the key pool, a sixth of them tombstones, with a random codec;
   * moves the HW.
   */
  private void appendRandom(Random rnd, int keys, Map<Long, Rec> written, List<Rec> order) {
    int n = 1 + rnd.nextInt(5);
    String[] kv = new String[2 * n];
    for (int i = 0; i < n; i++) {
      kv[2 * i] = "k" + rnd.nextInt(keys);
      kv[2 * i + 1] = rnd.nextInt(6) == 0 ? null : "v" + rnd.nextInt(1_000_000);
    }
    long ts = clock.nowMs();
    List<Compression> codecs = CompactionTestSupport.allCodecs();
    Compression codec = codecs.get(rnd.nextInt(codecs.size()));
    LogAppendInfo info = log.appendAsLeader(keyed(codec, ts, kv), 0);
    for (int i = 0; i < n; i++) {
      Rec r = new Rec(info.firstOffset() + i, kv[2 * i], kv[2 * i + 1], ts);
      written.put(r.offset(), r);
      order.add(r);
    }
    long hw = log.highWatermark();
    long leo = log.logEndOffset();
    log.updateHighWatermark(rnd.nextInt(4) == 0 ? hw + rnd.nextInt((int) (leo - hw) + 1) : leo);
  }

  /** One clean with a random key-map size, and every property checked on what it left. */
  private boolean cleanAndCheck(Random rnd, Map<Long, Rec> written, List<Rec> order, String at)
      throws InterruptedException {
    long bound = LogCleaner.status(log, clock.nowMs()).firstUncleanableOffset();
    List<Bat> before = batches(log);
    int mapEntries = rnd.nextBoolean() ? 64 + rnd.nextInt(64) : 100_000;
    Cleaner cleaner =
        CompactionTestSupport.cleaner(mapEntries * CleanerConfig.OFFSET_MAP_ENTRY_BYTES, clock);
    boolean cleaned = CompactionTestSupport.inlineCleaner(log, clock).cleanFilthiest(cleaner);
    List<Bat> after = batches(log);
    check(after, written, order, at);
    assertEquals(from(before, bound), from(after, bound), at + ": changed at or above " + bound);
    return cleaned;
  }

  private void drain(Map<Long, Rec> written, List<Rec> order, String at)
      throws InterruptedException {
    Cleaner cleaner = CompactionTestSupport.cleaner(1 << 20, clock);
    LogCleaner lc = CompactionTestSupport.inlineCleaner(log, clock);
    for (int i = 0; lc.cleanFilthiest(cleaner); i++) {
      assertTrue(i < 100, at + ": the cleaner never runs out of work");
      check(batches(log), written, order, at + " clean " + i);
    }
  }

  /** A restart, after a clean shutdown or a crash; the log reads the same afterwards. */
  private void restart(LogConfig cfg, boolean cleanShutdown, String at) {
    List<Bat> before = batches(log);
    CleanerCheckpoint cp = log.cleanerCheckpoint();
    long hw = log.highWatermark();
    if (cleanShutdown) {
      log.close();
    } else {
      log.closeForDeletion(); // no flush, no snapshot: what a kill leaves (the page cache aside)
    }
    log = open(cfg, new LogStartupState(0, 0, hw, cleanShutdown, cp));
    assertEquals(before, batches(log), at + ": the log reads differently after a restart");
  }

  /** The properties every state of the log must have. */
  private static void check(List<Bat> batches, Map<Long, Rec> written, List<Rec> order, String at) {
    assertOffsetsIncrease(batches);
    List<Rec> read = batches.stream().flatMap(b -> b.records().stream()).toList();
    for (Rec r : read) {
      assertEquals(written.get(r.offset()), r, at + ": a record that was not written there");
    }
    Map<String, String> expected = latest(order);
    Map<String, String> actual = latest(read);
    for (Map.Entry<String, String> e : expected.entrySet()) {
      String key = e.getKey();
      if (e.getValue() == null) {
        assertTrue(
            !actual.containsKey(key) || actual.get(key) == null,
            at + ": deleted key " + key + " came back as " + actual.get(key));
      } else {
        assertEquals(e.getValue(), actual.get(key), at + ": key " + key);
      }
    }
    assertTrue(expected.keySet().containsAll(actual.keySet()), at + ": keys never written");
  }

  private static List<Bat> from(List<Bat> all, long offset) {
    return all.stream().filter(b -> b.baseOffset() >= offset).toList();
  }
}
