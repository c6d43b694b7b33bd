package dev.spool.quorum;

import dev.spool.common.HostPort;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.ratis.RatisQuorumAdmin;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Operator access to the controller quorum's membership
 * (docs/operations.md#dynamic-controller-quorum): describe it, add a voter (caught up as a
 * non-voting listener first), remove voters. Talks to the controllers' Raft ports directly, not
 * through a broker, so it works while brokers are down.
 *
 * <p>Every refusal is a {@link dev.spool.common.SpoolException} whose code says why
 * (INVALID_REQUEST for bad input, QUORUM_UNAVAILABLE when the quorum cannot be reached or would
 * lose its majority, REQUEST_TIMED_OUT when a step did not finish in time) and leaves the
 * membership as it was. Used by one thread.
 */
public interface QuorumAdmin extends AutoCloseable {

  /**
   * Connects through {@code bootstrap} (any controllers of the cluster, id to Raft address, e.g.
   * {@code controller.quorum.voters}); {@code timeoutMs} bounds each operation.
   */
  static QuorumAdmin connect(Map<Integer, HostPort> bootstrap, long timeoutMs) {
    return new RatisQuorumAdmin(bootstrap, timeoutMs);
  }

  /**
   * As {@link #connect(Map, long)}, over the quorum's mutual TLS with {@code tls}'s certificate
   * (null: plaintext).
   */
  static QuorumAdmin connect(Map<Integer, HostPort> bootstrap, long timeoutMs, QuorumTls tls) {
    return new RatisQuorumAdmin(bootstrap, timeoutMs, tls);
  }

  /**
   * The quorum as its leader sees it, with the metadata.version range each member reported to the
   * active controller (docs/architecture.md#versioned-metadata) where it knows one.
   */
  Description describe();

  /**
   * Adds controller {@code nodeId}, running at {@code address} and started as a new member (not in
   * {@code controller.quorum.voters}, {@code controller.quorum.listener} set), as a voter: first as
   * a listener until it has caught up with the leader's commit index, then as a voter.
   *
   * @return the quorum afterwards
   */
  Description addVoter(int nodeId, HostPort address);

  /**
   * Removes {@code nodeIds} from the voters (or listeners) in one configuration change. If the
   * active controller is among them, leadership moves to a staying voter first.
   *
   * @return the quorum afterwards
   */
  Description removeVoters(Set<Integer> nodeIds);

  @Override
  void close();

  /**
   * One member of the quorum.
   *
   * @param nodeId its node id
   * @param address its Raft address
   * @param commitIndex its commit index as the leader last heard it (-1 unknown)
   * @param lag the leader's commit index minus {@code commitIndex} (-1 unknown)
   * @param lastContactMsAgo ms since the leader last heard from it (0 for the leader, -1 unknown)
   * @param metadataVersions the metadata.version range it reported to the active controller, null
   *     when unknown (not reported yet, or a describe that does not ask: add-voter, remove-voter)
   */
  record Member(
      int nodeId,
      String address,
      long commitIndex,
      long lag,
      long lastContactMsAgo,
      MetadataVersion.Range metadataVersions) {
    /** A member whose range is unknown. */
    public Member(int nodeId, String address, long commitIndex, long lag, long lastContactMsAgo) {
      this(nodeId, address, commitIndex, lag, lastContactMsAgo, null);
    }

    public Member withMetadataVersions(MetadataVersion.Range range) {
      return new Member(nodeId, address, commitIndex, lag, lastContactMsAgo, range);
    }
  }

  /**
   * The quorum as its leader sees it.
   *
   * @param leaderId the active controller's node id
   * @param term the Raft term
   * @param commitIndex the leader's commit index
   * @param voters the voting members
   * @param listeners the non-voting members (joining controllers catching up)
   * @param changing true while a configuration change is in joint consensus
   */
  record Description(
      int leaderId,
      long term,
      long commitIndex,
      List<Member> voters,
      List<Member> listeners,
      boolean changing) {}
}
