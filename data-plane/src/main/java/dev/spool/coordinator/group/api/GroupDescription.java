package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;
import java.util.List;

/**
 * DescribeGroups for one group; on an error only the id, code and message are set. A classic group
 * has type "classic", its protocol type and name, its generation as group and assignment epoch, and
 * the protocol name as assignor.
 */
public record GroupDescription(
    String groupId,
    ErrorCode error,
    String message,
    String state,
    int groupEpoch,
    int assignmentEpoch,
    String assignor,
    List<MemberDescription> members,
    String type,
    String protocolType) {

  /** A consumer-protocol group. */
  public GroupDescription(
      String groupId,
      ErrorCode error,
      String message,
      String state,
      int groupEpoch,
      int assignmentEpoch,
      String assignor,
      List<MemberDescription> members) {
    this(
        groupId,
        error,
        message,
        state,
        groupEpoch,
        assignmentEpoch,
        assignor,
        members,
        GroupListing.CONSUMER,
        GroupListing.CONSUMER);
  }

  public boolean isClassic() {
    return GroupListing.CLASSIC.equals(type);
  }

  public static GroupDescription error(String groupId, ErrorCode code, String message) {
    return new GroupDescription(groupId, code, message, "", -1, -1, "", List.of());
  }
}
