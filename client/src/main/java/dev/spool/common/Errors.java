package dev.spool.common;

import java.util.EnumMap;
import java.util.Map;

/**
 * The Java side of {@link ErrorCode}: whether an error is worth retrying and whether it means the
 * client's metadata (leaders, epochs) is stale. Client retry logic reads only these two flags
 * (docs/conventions.md#errors-are-codes). Immutable; any thread.
 */
public final class Errors {
  private Errors() {}

  private record Flags(boolean retriable, boolean refreshesMetadata) {}

  private static final Map<ErrorCode, Flags> FLAGS = new EnumMap<>(ErrorCode.class);

  static {
    Flags plain = new Flags(false, false);
    Flags retry = new Flags(true, false);
    Flags retryRefresh = new Flags(true, true);
    for (ErrorCode c : ErrorCode.values()) {
      if (c != ErrorCode.UNRECOGNIZED) {
        FLAGS.put(c, plain);
      }
    }
    for (ErrorCode c :
        new ErrorCode[] {
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          ErrorCode.FENCED_LEADER_EPOCH,
          ErrorCode.UNKNOWN_LEADER_EPOCH,
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          ErrorCode.NOT_CONTROLLER,
          ErrorCode.BROKER_NOT_AVAILABLE,
          ErrorCode.LEADER_NOT_AVAILABLE,
          ErrorCode.STORAGE_ERROR,
          ErrorCode.BROKER_SHUTTING_DOWN,
          ErrorCode.UNKNOWN_TOPIC_ID,
          ErrorCode.OFFSET_NOT_AVAILABLE,
          ErrorCode.INCONSISTENT_TOPIC_ID
        }) {
      FLAGS.put(c, retryRefresh);
    }
    for (ErrorCode c :
        new ErrorCode[] {
          ErrorCode.NOT_ENOUGH_REPLICAS,
          ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
          ErrorCode.REQUEST_TIMED_OUT,
          ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
          ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
          ErrorCode.QUORUM_UNAVAILABLE,
          ErrorCode.THROTTLING_QUOTA_EXCEEDED,
          ErrorCode.COORDINATOR_NOT_AVAILABLE,
          ErrorCode.NOT_COORDINATOR,
          ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        }) {
      FLAGS.put(c, retry);
    }
  }

  /** True when the same request may succeed later without any change by the caller. */
  public static boolean retriable(ErrorCode code) {
    Flags f = FLAGS.get(code);
    return f != null && f.retriable();
  }

  /** True when the error means the caller's view of leaders/epochs/topics is stale. */
  public static boolean refreshesMetadata(ErrorCode code) {
    Flags f = FLAGS.get(code);
    return f != null && f.refreshesMetadata();
  }
}
