package dev.spool.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One typed configuration key: its name, type, default (with the unit in the name, e.g. {@code
 * segment.ms}), a validator and one sentence of documentation. Keys are created through {@link
 * ConfigDef}, which owns the module's set of keys.
 */
public final class ConfigKey<T> {

  /** Checks a parsed value; returns {@code null} when valid or a short reason when not. */
  @FunctionalInterface
  public interface Validator<T> {
    String check(T value);
  }

  /** The type name of password keys, whose values are never logged. */
  static final String PASSWORD_TYPE = "password";

  private final String name;
  private final String typeName;
  private final Function<String, T> parser;
  private final T defaultValue;
  private final boolean required;
  private final Validator<T> validator;
  private final String doc;

  ConfigKey(
      String name,
      String typeName,
      Function<String, T> parser,
      T defaultValue,
      boolean required,
      Validator<T> validator,
      String doc) {
    this.name = Objects.requireNonNull(name);
    this.typeName = typeName;
    this.parser = parser;
    this.defaultValue = defaultValue;
    this.required = required;
    this.validator = validator;
    this.doc = Objects.requireNonNull(doc);
  }

  public String name() {
    return name;
  }

  public String typeName() {
    return typeName;
  }

  public T defaultValue() {
    return defaultValue;
  }

  /** True for secrets (passwords): their values are hidden in logs. */
  public boolean secret() {
    return PASSWORD_TYPE.equals(typeName);
  }

  public boolean required() {
    return required;
  }

  public String doc() {
    return doc;
  }

  /**
   * Parses and validates {@code raw}; throws {@link ConfigException} naming this key on failure.
   */
  public T parse(String raw) {
    T value;
    try {
      value = parser.apply(raw.trim());
    } catch (RuntimeException e) {
      throw new ConfigException(name, "cannot parse '" + raw + "' as " + typeName);
    }
    validate(value);
    return value;
  }

  void validate(T value) {
    String problem = validator == null ? null : validator.check(value);
    if (problem != null) {
      throw new ConfigException(name, "value '" + render(value) + "' " + problem);
    }
  }

  /** Renders a value the way {@link #parse} reads it back. */
  public String render(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof List<?> list) {
      return String.join(",", list.stream().map(String::valueOf).toList());
    }
    return String.valueOf(value);
  }

  @Override
  public String toString() {
    return name;
  }

  // ---- common validators ----

  public static <N extends Comparable<N>> Validator<N> atLeast(N min) {
    return v -> v.compareTo(min) >= 0 ? null : "must be at least " + min;
  }

  public static <N extends Comparable<N>> Validator<N> between(N min, N max) {
    return v ->
        v.compareTo(min) >= 0 && v.compareTo(max) <= 0
            ? null
            : "must be between " + min + " and " + max;
  }

  public static Validator<String> oneOf(String... allowed) {
    List<String> options = List.of(allowed);
    return v -> options.contains(v) ? null : "must be one of " + options;
  }

  public static Validator<String> nonEmpty() {
    return v -> v.isEmpty() ? "must not be empty" : null;
  }
}
