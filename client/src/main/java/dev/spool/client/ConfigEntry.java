package dev.spool.client;

/** One topic config value: explicit ({@code isDefault == false}) or the default, with its doc. */
public record ConfigEntry(String key, String value, boolean isDefault, String doc) {}
