package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;

/** The outcome for one partition of a commit or an offset deletion. */
public record PartitionResult(ErrorCode error, String message) {
  public static final PartitionResult OK = new PartitionResult(ErrorCode.NONE, "");
}
