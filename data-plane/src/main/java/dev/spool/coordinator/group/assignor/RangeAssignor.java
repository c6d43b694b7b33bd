package dev.spool.coordinator.group.assignor;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Per topic, the members subscribed to it (sorted by member id) get contiguous ranges of its
 * partitions, the first {@code P mod M} of them one partition more. Members with the same
 * subscriptions get the same partition numbers of every topic, which is what co-partitioned topics
 * (joins by key) need; balance is per topic, not across topics.
 */
public final class RangeAssignor implements PartitionAssignor {
  public static final String NAME = "range";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, Set<TopicPartition>> assign(AssignmentSpec spec) {
    Map<String, Set<TopicPartition>> out = new TreeMap<>();
    spec.members().keySet().forEach(id -> out.put(id, new HashSet<>()));
    new TreeMap<>(spec.partitionCounts())
        .forEach(
            (topic, count) -> {
              List<String> subscribed = new ArrayList<>();
              spec.members()
                  .forEach(
                      (id, m) -> {
                        if (m.topics().contains(topic)) {
                          subscribed.add(id);
                        }
                      });
              if (subscribed.isEmpty()) {
                return;
              }
              int per = count / subscribed.size();
              int extra = count % subscribed.size();
              int next = 0;
              for (int i = 0; i < subscribed.size(); i++) {
                int n = per + (i < extra ? 1 : 0);
                for (int p = next; p < next + n; p++) {
                  out.get(subscribed.get(i)).add(new TopicPartition(topic, p));
                }
                next += n;
              }
            });
    out.replaceAll((id, s) -> Set.copyOf(s));
    return out;
  }
}
