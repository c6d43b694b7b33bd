package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.common.SpoolException;
import dev.spool.quorum.QuorumAdmin.Description;
import dev.spool.quorum.QuorumAdmin.Member;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The checks {@link RatisQuorumAdmin} makes on the configuration it read, before any change. */
@Tag("unit")
class RatisQuorumAdminChecksTest {
  private static final Description QUORUM =
      new Description(
          1,
          3,
          100,
          List.of(member(1, "h1:9093"), member(2, "h2:9093"), member(3, "h3:9093")),
          List.of(member(4, "h4:9093")),
          false);

  private static Member member(int id, String address) {
    return new Member(id, address, 100, 0, 0);
  }

  @Test
  void shouldAcceptANewNodeAndFinishAnUnfinishedAddOfTheSameListener() {
    assertFalse(RatisQuorumAdmin.checkJoining(QUORUM, 5, HostPort.parse("h5:9093")));
    assertTrue(RatisQuorumAdmin.checkJoining(QUORUM, 4, HostPort.parse("h4:9093")));
  }

  @Test
  void shouldRefuseAVoterIdOrAVoterAddress() {
    assertRefused("node 2 is already a voter", 2, "h9:9093");
    assertRefused("voter 3 already uses h3:9093", 7, "h3:9093");
  }

  @Test
  void shouldRefuseAListenerAtAnotherAddressOrAnotherNodeAtAListenersAddress() {
    assertRefused("node 4 is already a listener at h4:9093, not at h9:9093", 4, "h9:9093");
    assertRefused("listener 4 already uses h4:9093", 5, "h4:9093");
  }

  @Test
  void shouldCapAProbeByTheTimeLeftButKeepALastLook() {
    assertEquals(RatisQuorumAdmin.PROBE_TIMEOUT_MS, RatisQuorumAdmin.probeMs(60_000));
    assertEquals(1_000, RatisQuorumAdmin.probeMs(1_000));
    assertEquals(RatisQuorumAdmin.MIN_PROBE_MS, RatisQuorumAdmin.probeMs(0));
  }

  private static Description twoVoters(long lastContactOf2) {
    return new Description(
        1,
        3,
        100,
        List.of(member(1, "h1:9093"), new Member(2, "h2:9093", 100, 0, lastContactOf2)),
        List.of(),
        false);
  }

  @Test
  void shouldShrinkTwoVotersToOneWhenBothAnswer() {
    // either of them, the leader (1) too: it hands over to 2 first
    assertEquals(
        List.of(1),
        RatisQuorumAdmin.checkRemoval(twoVoters(50), Set.of(2)).stream()
            .map(Member::nodeId)
            .toList());
    assertEquals(
        List.of(2),
        RatisQuorumAdmin.checkRemoval(twoVoters(50), Set.of(1)).stream()
            .map(Member::nodeId)
            .toList());
  }

  @Test
  void shouldRefuseToShrinkTwoVotersUnlessBothAnswer() {
    for (long contact : new long[] {-1, RatisQuorumAdmin.REACHABLE_MS}) {
      for (int removed : new int[] {1, 2}) {
        SpoolException e =
            assertThrows(
                SpoolException.class,
                () -> RatisQuorumAdmin.checkRemoval(twoVoters(contact), Set.of(removed)));
        assertEquals(ErrorCode.QUORUM_UNAVAILABLE, e.errorCode());
        assertTrue(
            e.getMessage().contains("all voters must be reachable to shrink a 2-voter quorum"),
            e.getMessage());
      }
    }
    SpoolException both =
        assertThrows(
            SpoolException.class, () -> RatisQuorumAdmin.checkRemoval(twoVoters(50), Set.of(1, 2)));
    assertTrue(both.getMessage().contains("would leave no voter"), both.getMessage());
  }

  @Test
  void shouldStillRefuseRemovingHalfOfMoreVoters() {
    SpoolException e =
        assertThrows(
            SpoolException.class, () -> RatisQuorumAdmin.checkRemoval(QUORUM, Set.of(2, 3)));
    assertEquals(ErrorCode.INVALID_REQUEST, e.errorCode());
    assertTrue(e.getMessage().contains("remove at most 1 at a time"), e.getMessage());
    assertEquals(
        List.of(1, 2),
        RatisQuorumAdmin.checkRemoval(QUORUM, Set.of(3)).stream().map(Member::nodeId).toList());
  }

  private static void assertRefused(String message, int nodeId, String address) {
    SpoolException e =
        assertThrows(
            SpoolException.class,
            () -> RatisQuorumAdmin.checkJoining(QUORUM, nodeId, HostPort.parse(address)));
    assertEquals(ErrorCode.INVALID_REQUEST, e.errorCode());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }
}
