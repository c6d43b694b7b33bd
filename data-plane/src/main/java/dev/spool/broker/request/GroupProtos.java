package dev.spool.broker.request;

import dev.spool.broker.network.RequestContext;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.RequestChecks;
import dev.spool.protocol.message.TopicPartitions;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Conversions the group API handlers share between protobuf messages and the coordinator's types.
 */
final class GroupProtos {
  private GroupProtos() {}

  /** The partition a request names; a negative number is a malformed request. */
  static TopicPartition partition(String topic, int partition) {
    return RequestChecks.partition(topic, partition);
  }

  static Set<TopicPartition> toSet(List<TopicPartitions> list) {
    Set<TopicPartition> out = new HashSet<>();
    for (TopicPartitions t : list) {
      for (int p : t.getPartitionsList()) {
        out.add(partition(t.getTopic(), p));
      }
    }
    return out;
  }

  static List<TopicPartition> toList(List<TopicPartitions> list) {
    List<TopicPartition> out = new ArrayList<>();
    for (TopicPartitions t : list) {
      for (int p : t.getPartitionsList()) {
        out.add(partition(t.getTopic(), p));
      }
    }
    return out;
  }

  /** Partitions grouped by topic, both sorted. */
  static List<TopicPartitions> toProto(Collection<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<TopicPartitions> out = new ArrayList<>();
    byTopic.forEach(
        (t, ps) -> {
          ps.sort(null);
          out.add(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps).build());
        });
    return out;
  }

  /** The client's address as describe shows it. */
  static String clientHost(RequestContext request) {
    return request.remoteAddress() instanceof InetSocketAddress a
        ? a.getHostString()
        : String.valueOf(request.remoteAddress());
  }
}
