package dev.spool.broker.request;

import static dev.spool.broker.request.ThrottledLeader.MOVING_0;
import static dev.spool.broker.request.ThrottledLeader.MOVING_1;
import static dev.spool.broker.request.ThrottledLeader.ORDERS_0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.metrics.BrokerGauges;
import dev.spool.broker.replication.ReplicaFetcherManager;
import dev.spool.broker.request.ThrottledLeader.Answer;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.lifecycle.BrokerState;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain seen from its leader (the drain benchmark's case: broker 1 drained into brokers 2 and 3
 * with a throttle pulled twice the throttle out of broker 1): broker 1 ({@link ThrottledLeader})
 * serves {@code moving-0} and {@code moving-1} to two adding replicas, brokers 2 and 3, each
 * fetching both as a follower does (the next fetch from the offset after the last batch it got, 4
 * KiB per partition), while broker 2 also follows {@code orders-0} as an ISR member. Time is a
 * manual clock moved 100 ms per round; every fetch answers at once (max_wait_ms 0), so the rounds
 * measure bytes, not time.
 */
class LeaderThrottleDrainTest {
  private static final long RATE = 10_000;
  private static final int PARTITION_MAX = 4096;
  private static final int ROUNDS = 50;
  private static final long ROUND_MS = 100;

  @TempDir Path dir;
  private ThrottledLeader leader;

  @BeforeEach
  void setUp() throws Exception {
    leader = new ThrottledLeader(dir, RATE);
    // About 110 KB per partition: far more than the throttle lets through in the measurement.
    leader.append(MOVING_0, 100, 10);
    leader.append(MOVING_1, 100, 10);
    leader.append(ORDERS_0, 100, 10);
  }

  @AfterEach
  void tearDown() {
    leader.close();
  }

  /** The value of an unlabelled metric in the broker's gauges, as a scrape writes it. */
  private long scraped(String name) throws IOException {
    PrometheusRegistry registry = new PrometheusRegistry();
    ReplicaFetcherManager.Settings settings =
        new ReplicaFetcherManager.Settings(500, 1, 1 << 20, 1 << 20, 100, 1000);
    BrokerGauges.register(
        registry,
        new BrokerGauges.Sources(
            1,
            leader.broker.replicas(),
            new ReplicaFetcherManager(1, settings, null, leader.broker.replicas(), leader.clock),
            () -> BrokerState.RUNNING,
            0),
        100);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create()
        .write(out, registry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    return out.toString(StandardCharsets.UTF_8)
        .lines()
        .filter(l -> l.startsWith(name + " "))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(name.length() + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not exported"));
  }

  @Test
  void aLeaderServingTwoAddingReplicasStaysWithinTheThrottle() throws Exception {
    Map<Integer, Map<TopicPartition, Long>> offsets = new LinkedHashMap<>();
    offsets.put(2, new LinkedHashMap<>(Map.of(MOVING_0, 0L, MOVING_1, 0L, ORDERS_0, 0L)));
    offsets.put(3, new LinkedHashMap<>(Map.of(MOVING_0, 0L, MOVING_1, 0L)));
    Map<Integer, Long> movedTo = new LinkedHashMap<>(Map.of(2, 0L, 3, 0L));
    long ordersBytes = 0;
    for (int round = 0; round < ROUNDS; round++) {
      leader.clock.advanceMs(ROUND_MS);
      // Take turns at going first, as two fetchers racing for one bucket would.
      for (int follower : round % 2 == 0 ? List.of(2, 3) : List.of(3, 2)) {
        Map<TopicPartition, Long> mine = offsets.get(follower);
        Map<TopicPartition, Answer> answer = leader.fetch(follower, PARTITION_MAX, mine);
        for (Map.Entry<TopicPartition, Answer> e : answer.entrySet()) {
          Answer a = e.getValue();
          assertEquals(ErrorCode.NONE, a.error());
          if (a.recordsSize() == 0) {
            continue;
          }
          mine.put(e.getKey(), a.nextOffset());
          if (e.getKey().equals(ORDERS_0)) {
            ordersBytes += a.recordsSize();
          } else {
            movedTo.merge(follower, (long) a.recordsSize(), Long::sum);
          }
        }
      }
    }
    long moved = movedTo.get(2) + movedTo.get(3);
    long elapsedMs = ROUNDS * ROUND_MS;
    // Within the rate over the measurement: one burst, plus one answer's overshoot per adding
    // replica (two partitions of at most 4 KiB each), since an answer read while the bucket was
    // not in debt is sent whole.
    long bound = RATE * elapsedMs / 1000 + RATE + 2 * 2 * PARTITION_MAX;
    assertTrue(moved <= bound, "moved " + moved + " B in " + elapsedMs + " ms, bound " + bound);
    // ...and the throttle lets the move go at about its rate, to both adding replicas.
    assertTrue(moved >= RATE * elapsedMs / 1000, "moved only " + moved + " B");
    assertTrue(movedTo.get(2) > 0 && movedTo.get(3) > 0, "moved to each: " + movedTo);
    assertEquals(moved, leader.throttle().throttledBytesTotal());
    assertEquals(moved, scraped("spool_leader_replication_throttled_bytes_total"));
    assertEquals(0, scraped("spool_replication_throttled_bytes_total")); // the follower side's
    // Without the leader's throttle each adding replica alone would have taken up to this much.
    assertTrue(ROUNDS * 2L * PARTITION_MAX > 3 * bound);
    // The ISR member's fetching of orders-0 was never held back: it has the whole log.
    assertEquals(1000, offsets.get(2).get(ORDERS_0));
    assertTrue(ordersBytes > bound);
  }
}
