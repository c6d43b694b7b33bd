package dev.spool.quorum;

/**
 * An original voter (its id in {@code controller.quorum.voters}) starting with no Raft storage
 * found that the running quorum no longer counts it as a member: it was removed, and starting it as
 * an original voter with an empty log could help elect a leader without committed metadata. It must
 * come back as a new member (docs/operations.md#dynamic-controller-quorum). The message names the
 * member that answered and the quorum's members.
 */
public final class NotAQuorumMemberException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NotAQuorumMemberException(String message) {
    super(message);
  }
}
