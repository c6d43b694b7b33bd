package dev.spool.record;

/**
 * Bit 3 of a batch's attributes. With {@link #LOG_APPEND_TIME} every record's timestamp is the
 * batch's max timestamp, which the broker sets on append.
 */
public enum TimestampType {
  CREATE_TIME(0, "CreateTime"),
  LOG_APPEND_TIME(1, "LogAppendTime");

  private final int id;
  private final String configName;

  TimestampType(int id, String configName) {
    this.id = id;
    this.configName = configName;
  }

  public int id() {
    return id;
  }

  /** The name used by the {@code message.timestamp.type} topic config. */
  public String configName() {
    return configName;
  }

  public static TimestampType forConfigName(String name) {
    for (TimestampType t : values()) {
      if (t.configName.equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown timestamp type: " + name);
  }
}
