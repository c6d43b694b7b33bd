package dev.spool.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place where a module declares its configuration keys (docs/conventions.md#typed-config:
 * one place per module, validated at start). {@link #parse} rejects unknown keys, fills defaults,
 * and validates every value; relations between keys are checked by the module's own config class.
 */
public final class ConfigDef {
  private final String title;
  private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();

  public ConfigDef(String title) {
    this.title = title;
  }

  public String title() {
    return title;
  }

  public List<ConfigKey<?>> keys() {
    return List.copyOf(keys.values());
  }

  public boolean contains(String name) {
    return keys.containsKey(name);
  }

  /** Adds the keys of another definition (e.g. the broker includes the default topic keys). */
  public ConfigDef include(ConfigDef other) {
    other.keys.values().forEach(this::add);
    return this;
  }

  private <T> ConfigKey<T> add(ConfigKey<T> key) {
    if (keys.putIfAbsent(key.name(), key) != null) {
      throw new IllegalArgumentException("config key defined twice: " + key.name());
    }
    return key;
  }

  public ConfigKey<Integer> intKey(
      String name, Integer dflt, ConfigKey.Validator<Integer> v, String doc) {
    return add(new ConfigKey<>(name, "int", Integer::parseInt, dflt, dflt == null, v, doc));
  }

  public ConfigKey<Long> longKey(String name, Long dflt, ConfigKey.Validator<Long> v, String doc) {
    return add(new ConfigKey<>(name, "long", Long::parseLong, dflt, dflt == null, v, doc));
  }

  public ConfigKey<Double> doubleKey(
      String name, Double dflt, ConfigKey.Validator<Double> v, String doc) {
    return add(new ConfigKey<>(name, "double", Double::parseDouble, dflt, dflt == null, v, doc));
  }

  public ConfigKey<Boolean> boolKey(String name, Boolean dflt, String doc) {
    return add(
        new ConfigKey<>(name, "boolean", ConfigDef::parseBoolean, dflt, dflt == null, null, doc));
  }

  /** A string key; {@code dflt == null} makes it required, {@code ""} makes it optional-empty. */
  public ConfigKey<String> stringKey(
      String name, String dflt, ConfigKey.Validator<String> v, String doc) {
    return add(new ConfigKey<>(name, "string", s -> s, dflt, dflt == null, v, doc));
  }

  /**
   * A secret string, optional (default empty): parsed as a string key, but never written out by
   * {@link Config#toLogString}, which a node logs at start.
   */
  public ConfigKey<String> passwordKey(String name, String doc) {
    return add(new ConfigKey<>(name, ConfigKey.PASSWORD_TYPE, s -> s, "", false, null, doc));
  }

  /** A comma-separated list of strings; blanks are dropped. */
  public ConfigKey<List<String>> listKey(
      String name, List<String> dflt, ConfigKey.Validator<List<String>> v, String doc) {
    return add(new ConfigKey<>(name, "list", ConfigDef::parseList, dflt, dflt == null, v, doc));
  }

  private static Boolean parseBoolean(String s) {
    return switch (s.toLowerCase()) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> throw new IllegalArgumentException(s);
    };
  }

  private static List<String> parseList(String s) {
    if (s.isBlank()) {
      return List.of();
    }
    return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }

  /**
   * Parses {@code props}: every key must be known, every required key present, every value valid.
   */
  public Config parse(Map<String, String> props) {
    Map<ConfigKey<?>, Object> values = new LinkedHashMap<>();
    Map<String, String> explicit = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : props.entrySet()) {
      if (!keys.containsKey(e.getKey())) {
        throw new ConfigException(
            e.getKey(),
            "unknown key" + suggestion(e.getKey()) + " (see --help for the " + title + " keys)");
      }
    }
    for (ConfigKey<?> key : keys.values()) {
      String raw = props.get(key.name());
      if (raw != null) {
        values.put(key, key.parse(raw));
        explicit.put(key.name(), raw);
      } else if (key.required()) {
        throw new ConfigException(key.name(), "is required: " + key.doc());
      } else {
        values.put(key, key.defaultValue());
      }
    }
    return new Config(this, Collections.unmodifiableMap(values), explicit);
  }

  /**
   * Every key at its default, as if {@link #parse} had been given no values but required keys were
   * allowed to stay unset: the one source of the defaults that settings records built without a
   * config file (tests, offline tools) use. Reading a required key from it throws.
   */
  public Config defaults() {
    Map<ConfigKey<?>, Object> values = new LinkedHashMap<>();
    for (ConfigKey<?> key : keys.values()) {
      if (!key.required()) {
        values.put(key, key.defaultValue());
      }
    }
    return new Config(this, Collections.unmodifiableMap(values), Map.of());
  }

  private String suggestion(String unknown) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : keys.keySet()) {
      int d = editDistance(unknown, known);
      if (d < bestDistance) {
        bestDistance = d;
        best = known;
      }
    }
    return best != null && bestDistance <= 3 ? ", did you mean '" + best + "'?" : "";
  }

  private static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** A help table: one key per line with type, default and the one-sentence doc. */
  public String help() {
    StringBuilder sb = new StringBuilder(title).append(" configuration:\n");
    int width = keys.keySet().stream().mapToInt(String::length).max().orElse(10);
    List<ConfigKey<?>> sorted = new ArrayList<>(keys.values());
    for (ConfigKey<?> k : sorted) {
      String dflt = k.required() ? "(required)" : "default: " + k.render(k.defaultValue());
      sb.append(
          String.format(
              "  %-" + width + "s  %-7s %s%n  %" + width + "s  %s%n",
              k.name(),
              k.typeName(),
              k.doc(),
              "",
              dflt));
    }
    return sb.toString();
  }
}
