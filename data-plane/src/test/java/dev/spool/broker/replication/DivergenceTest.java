package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class DivergenceTest {

  /** An epoch history: epoch -> start offset, plus the log end offset. */
  static EpochLookup history(long logEndOffset, long... epochAndStart) {
    TreeMap<Integer, Long> starts = new TreeMap<>();
    for (int i = 0; i < epochAndStart.length; i += 2) {
      starts.put((int) epochAndStart[i], epochAndStart[i + 1]);
    }
    return epoch -> {
      Map.Entry<Integer, Long> e = starts.floorEntry(epoch);
      if (e == null) {
        return EpochEndOffset.UNDEFINED;
      }
      Map.Entry<Integer, Long> next = starts.higherEntry(e.getKey());
      return new EpochEndOffset(e.getKey(), next == null ? logEndOffset : next.getValue());
    };
  }

  @Test
  void shouldAcceptAFetchThatMatchesTheLeadersEpochs() {
    EpochLookup leader = history(100, 1, 0, 3, 50);
    assertEquals(Optional.empty(), Divergence.check(leader, 3, 80));
    assertEquals(Optional.empty(), Divergence.check(leader, 1, 50));
    assertEquals(Optional.empty(), Divergence.check(leader, -1, 0));
  }

  @Test
  void shouldReportTheDivergingEpochWhenTheFollowerWentPastTheEpochsEnd() {
    EpochLookup leader = history(100, 1, 0, 3, 50);
    assertEquals(Optional.of(new EpochEndOffset(1, 50)), Divergence.check(leader, 1, 60));
  }

  @Test
  void shouldReportTheLargestLeaderEpochBelowAnEpochTheLeaderNeverHad() {
    EpochLookup leader = history(100, 1, 0, 3, 50);
    assertEquals(Optional.of(new EpochEndOffset(1, 50)), Divergence.check(leader, 2, 45));
  }

  @Test
  void shouldTruncateToTheDivergingEpochsEndOnTheFollower() {
    // Follower wrote offsets 40..59 in epoch 2, which the leader (epoch 3 from 50) never had.
    EpochLookup leader = history(100, 1, 0, 3, 50);
    EpochLookup follower = history(60, 1, 0, 2, 40);
    EpochEndOffset diverging = Divergence.check(leader, 2, 60).orElseThrow();
    assertEquals(40, Divergence.followerTruncationOffset(diverging, follower, 60));
  }

  @Test
  void shouldTruncateToTheLeadersEndWhenTheFollowerHasMoreOfTheSameEpoch() {
    EpochLookup leader = history(100, 1, 0, 2, 30);
    EpochLookup follower = history(45, 1, 0);
    EpochEndOffset diverging = Divergence.check(leader, 1, 45).orElseThrow();
    assertEquals(new EpochEndOffset(1, 30), diverging);
    assertEquals(30, Divergence.followerTruncationOffset(diverging, follower, 45));
  }

  @Test
  void shouldTruncateEverythingWhenTheFollowerSharesNoEpoch() {
    EpochLookup leader = history(100, 1, 0, 3, 50);
    EpochLookup follower = history(20, 2, 0);
    EpochEndOffset diverging = Divergence.check(leader, 2, 20).orElseThrow();
    assertEquals(0, Divergence.followerTruncationOffset(diverging, follower, 20));
  }

  @Test
  void shouldNeverTruncateAboveTheFollowersOwnEnd() {
    EpochLookup leader = history(100, 1, 0, 3, 50);
    EpochLookup follower = history(10, 1, 0, 2, 5);
    EpochEndOffset diverging = Divergence.check(leader, 2, 10).orElseThrow();
    long target = Divergence.followerTruncationOffset(diverging, follower, 10);
    assertEquals(5, target);
    assertTrue(target <= 10);
  }

  @Test
  void shouldConvergeInRoundsWhenTheFollowerHasSeveralUnknownEpochs() {
    // Leader: epoch 1 [0,30), epoch 4 [30,100). Follower: epoch 1 [0,20), 2 [20,40), 3 [40,70).
    EpochLookup leader = history(100, 1, 0, 4, 30);
    TreeMap<Integer, Long> followerStarts = new TreeMap<>(Map.of(1, 0L, 2, 20L, 3, 40L));
    long followerEnd = 70;
    int lastEpoch = 3;
    for (int round = 0; round < 5; round++) {
      Optional<EpochEndOffset> d = Divergence.check(leader, lastEpoch, followerEnd);
      if (d.isEmpty()) {
        break;
      }
      final long end = followerEnd;
      EpochLookup follower =
          epoch -> {
            Map.Entry<Integer, Long> e = followerStarts.floorEntry(epoch);
            if (e == null) {
              return EpochEndOffset.UNDEFINED;
            }
            Map.Entry<Integer, Long> next = followerStarts.higherEntry(e.getKey());
            return new EpochEndOffset(e.getKey(), next == null ? end : next.getValue());
          };
      followerEnd = Divergence.followerTruncationOffset(d.get(), follower, followerEnd);
      final long newEnd = followerEnd;
      followerStarts.entrySet().removeIf(e -> e.getValue() >= newEnd);
      lastEpoch = followerStarts.isEmpty() ? -1 : followerStarts.lastKey();
    }
    // Epoch 1 on the follower ends at 20 (epoch 2 starts there): everything above 20 differs.
    assertEquals(20, followerEnd);
    assertEquals(Optional.empty(), Divergence.check(leader, lastEpoch, followerEnd));
  }
}
