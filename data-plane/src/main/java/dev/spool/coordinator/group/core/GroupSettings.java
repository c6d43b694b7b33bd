package dev.spool.coordinator.group.core;

import dev.spool.coordinator.group.assignor.PartitionAssignor;
import dev.spool.coordinator.group.assignor.RangeAssignor;
import dev.spool.coordinator.group.assignor.UniformAssignor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's group settings (from the broker config's {@code group.*} and {@code offset*}
 * keys). Immutable.
 *
 * @param assignors by name; the first is the default when members ask for none
 * @param classic the settings of classic groups
 */
public record GroupSettings(
    int sessionTimeoutMs,
    int heartbeatIntervalMs,
    int maxGroupSize,
    int offsetMetadataMaxBytes,
    Map<String, PartitionAssignor> assignors,
    ClassicSettings classic) {

  /** Every assignor this code has, by name, in the order of {@code names} (first = default). */
  public static Map<String, PartitionAssignor> assignors(List<String> names) {
    Map<String, PartitionAssignor> out = new LinkedHashMap<>();
    for (String n : names) {
      switch (n) {
        case UniformAssignor.NAME -> out.put(n, new UniformAssignor());
        case RangeAssignor.NAME -> out.put(n, new RangeAssignor());
        default -> throw new IllegalArgumentException("unknown assignor " + n);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no assignor configured");
    }
    return out;
  }

  public String defaultAssignor() {
    return assignors.keySet().iterator().next();
  }
}
