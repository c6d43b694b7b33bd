package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;
import java.util.List;

/** DescribeGroups for one group; on an error only the id, code and message are set. */
public record GroupDescription(
    String groupId,
    ErrorCode error,
    String message,
    String state,
    int groupEpoch,
    int assignmentEpoch,
    String assignor,
    List<MemberDescription> members) {

  public static GroupDescription error(String groupId, ErrorCode code, String message) {
    return new GroupDescription(groupId, code, message, "", -1, -1, "", List.of());
  }
}
