package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LeaseQuorumTest {
  private static final long WINDOW = 300;
  private static final long FRESH = 10;
  private static final long STALE = 5_000;

  @Test
  void shouldNotCountAListenerAsAVoter() {
    // 3 voters + listener 4: the leader is cut off from both other voters but still reaches the
    // listener. Counting the listener would give 2 of 3; the others may elect a new leader.
    Map<String, Long> contact = Map.of("2", STALE, "3", STALE, "4", FRESH);
    assertFalse(LeaseQuorum.freshMajority("1", List.of("1", "2", "3"), List.of(), contact, WINDOW));
  }

  @Test
  void shouldConfirmWithOneFreshVoterOfThreeEvenWithAStaleListener() {
    Map<String, Long> contact = Map.of("2", FRESH, "3", STALE, "4", STALE);
    assertTrue(LeaseQuorum.freshMajority("1", List.of("1", "2", "3"), List.of(), contact, WINDOW));
  }

  @Test
  void shouldNotCountFollowersAnsweringAtTheWindowOrNeverAnswering() {
    Map<String, Long> contact = Map.of("2", WINDOW, "3", -1L);
    assertFalse(LeaseQuorum.freshMajority("1", List.of("1", "2", "3"), List.of(), contact, WINDOW));
    assertFalse(
        LeaseQuorum.freshMajority("1", List.of("1", "2", "3"), List.of(), Map.of(), WINDOW));
  }

  @Test
  void shouldConfirmASingleVoter() {
    assertTrue(LeaseQuorum.freshMajority("1", List.of("1"), List.of(), Map.of("4", STALE), WINDOW));
  }

  @Test
  void shouldNotConfirmWithoutVoters() {
    assertFalse(LeaseQuorum.freshMajority("1", List.of(), List.of(), Map.of(), WINDOW));
  }

  @Test
  void shouldNotCountTheLeaderForASetItIsNotIn() {
    // Joint consensus {1,2,3} -> {2,3,4}: leader 1 is leaving. It reaches 2 only: 2 of 3 old
    // voters, but 1 of 3 new voters (itself does not count there).
    Map<String, Long> contact = Map.of("2", FRESH, "3", STALE, "4", STALE);
    assertFalse(
        LeaseQuorum.freshMajority(
            "1", List.of("2", "3", "4"), List.of("1", "2", "3"), contact, WINDOW));
    Map<String, Long> both = Map.of("2", FRESH, "3", STALE, "4", FRESH);
    assertTrue(
        LeaseQuorum.freshMajority(
            "1", List.of("2", "3", "4"), List.of("1", "2", "3"), both, WINDOW));
  }

  @Test
  void shouldRequireAFreshMajorityOfTheOldVotersInJointConsensus() {
    // {1,2,3} -> {1,4,5}: leader 1 reaches the new voters 4 and 5 only; 2 and 3 (a majority of the
    // old set) may still elect a leader of their own.
    Map<String, Long> contact = Map.of("2", STALE, "3", STALE, "4", FRESH, "5", FRESH);
    assertFalse(
        LeaseQuorum.freshMajority(
            "1", List.of("1", "4", "5"), List.of("1", "2", "3"), contact, WINDOW));
    Map<String, Long> all = Map.of("2", FRESH, "3", STALE, "4", FRESH, "5", STALE);
    assertTrue(
        LeaseQuorum.freshMajority(
            "1", List.of("1", "4", "5"), List.of("1", "2", "3"), all, WINDOW));
  }
}
