package dev.spool.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads sample values out of a Prometheus text exposition, for assertions in tests. The format's
 * validity is {@link Promtool}'s job; this only looks values up: lines {@code name value} and
 * {@code name{label="value",...} value}, escaped quotes in label values included.
 *
 * <p>Threads: immutable after construction.
 */
public final class MetricsText {
  private record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples = new ArrayList<>();

  public MetricsText(String exposition) {
    for (String line : exposition.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      samples.add(parse(line));
    }
  }

  private static Sample parse(String line) {
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    Map<String, String> labels = new LinkedHashMap<>();
    String name;
    if (brace >= 0 && brace < space) {
      name = line.substring(0, brace);
      int i = brace + 1;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String key = line.substring(i, eq).replace(",", "").trim();
        StringBuilder v = new StringBuilder();
        int j = eq + 2; // past ="
        while (line.charAt(j) != '"') {
          char c = line.charAt(j);
          if (c == '\\') {
            j++;
            c = line.charAt(j) == 'n' ? '\n' : line.charAt(j);
          }
          v.append(c);
          j++;
        }
        labels.put(key, v.toString());
        i = j + 1;
        if (line.charAt(i) == ',') {
          i++;
        }
      }
    } else {
      name = line.substring(0, space);
    }
    return new Sample(name, labels, Double.parseDouble(line.substring(space + 1).trim()));
  }

  /**
   * The sum of the samples named {@code name} that carry every given label ({@code "k1", "v1",
   * "k2", "v2", ...}); fails when there is none.
   */
  public double value(String name, String... labelPairs) {
    double sum = 0;
    boolean any = false;
    for (Sample s : samples) {
      if (s.name().equals(name) && matches(s.labels(), labelPairs)) {
        sum += s.value();
        any = true;
      }
    }
    if (!any) {
      throw new AssertionError("no sample " + name + " " + List.of(labelPairs));
    }
    return sum;
  }

  /** True when a sample named {@code name} with these labels exists. */
  public boolean has(String name, String... labelPairs) {
    return samples.stream().anyMatch(s -> s.name().equals(name) && matches(s.labels(), labelPairs));
  }

  private static boolean matches(Map<String, String> labels, String[] pairs) {
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      if (!pairs[i + 1].equals(labels.get(pairs[i]))) {
        return false;
      }
    }
    return true;
  }
}
