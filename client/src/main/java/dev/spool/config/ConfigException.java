package dev.spool.config;

/**
 * A configuration value is missing, unknown, unparsable or out of range. The message names the key.
 */
public final class ConfigException extends RuntimeException {
  private final String key;

  public ConfigException(String key, String message) {
    super(key == null ? message : "config '" + key + "': " + message);
    this.key = key;
  }

  /** The offending key, or {@code null} when the problem spans several keys. */
  public String key() {
    return key;
  }
}
