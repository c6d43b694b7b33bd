package dev.spool.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Parses repeatable {@code k=v} options (configs, client properties, headers). */
final class KeyValues {
  private KeyValues() {}

  static Map<String, String> parse(List<String> pairs, String option, CommandSpec spec) {
    Map<String, String> out = new LinkedHashMap<>();
    if (pairs == null) {
      return out;
    }
    for (String p : pairs) {
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new ParameterException(
            spec.commandLine(), option + " expects key=value, got '" + p + "'");
      }
      out.put(p.substring(0, eq).trim(), p.substring(eq + 1));
    }
    return out;
  }
}
