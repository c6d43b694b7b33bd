package dev.spool.config;

import java.util.Map;
import java.util.StringJoiner;

/** Parsed, validated configuration values of one {@link ConfigDef}. Immutable. */
public final class Config {
  private final ConfigDef def;
  private final Map<ConfigKey<?>, Object> values;
  private final Map<String, String> explicit;

  Config(ConfigDef def, Map<ConfigKey<?>, Object> values, Map<String, String> explicit) {
    this.def = def;
    this.values = values;
    this.explicit = explicit;
  }

  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    if (!values.containsKey(key)) {
      if (def.contains(key.name())) {
        throw new IllegalStateException("key " + key + " is required and has no default");
      }
      throw new IllegalArgumentException("key " + key + " is not part of " + def.title());
    }
    return (T) values.get(key);
  }

  /** The values the user set explicitly, as given. */
  public Map<String, String> explicitValues() {
    return explicit;
  }

  /** One line with every effective value, for logging once at start. */
  public String toLogString() {
    StringJoiner j = new StringJoiner(", ", def.title() + " config {", "}");
    values.forEach(
        (k, v) -> j.add(k.name() + "=" + (k.secret() && !"".equals(v) ? "[hidden]" : k.render(v))));
    return j.toString();
  }
}
