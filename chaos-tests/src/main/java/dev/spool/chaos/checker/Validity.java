package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Jepsen's {@code :valid?}: true, false, or unknown when the history gave the checker nothing to
 * decide on (no reads at all, no white-box data). In JSON: {@code true}, {@code false}, {@code
 * "unknown"}.
 */
public enum Validity {
  TRUE,
  FALSE,
  UNKNOWN;

  @JsonValue
  public Object json() {
    return switch (this) {
      case TRUE -> Boolean.TRUE;
      case FALSE -> Boolean.FALSE;
      case UNKNOWN -> "unknown";
    };
  }

  @JsonCreator
  public static Validity fromJson(Object o) {
    if (o instanceof Boolean b) {
      return b ? TRUE : FALSE;
    }
    if ("unknown".equals(o)) {
      return UNKNOWN;
    }
    throw new IllegalArgumentException("not a validity: " + o);
  }

  /** Jepsen's merge: any false is false, else any unknown is unknown, else true. */
  public Validity and(Validity other) {
    if (this == FALSE || other == FALSE) {
      return FALSE;
    }
    if (this == UNKNOWN || other == UNKNOWN) {
      return UNKNOWN;
    }
    return TRUE;
  }
}
