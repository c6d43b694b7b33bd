package dev.spool.chaos.workload;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the chaos workload does.
 *
 * @param bootstrapServers where clients connect (the proxies in proxy mode)
 * @param partitions the partitions written and read (RF-3 topics the harness created)
 * @param producers producer workers; each runs one Jepsen process at a time, one send at a time
 * @param consumers consumer workers; each runs one consumer session at a time, assigned every
 *     partition from the beginning
 * @param sendsPerSecondPerProducer pacing of each producer worker (it also waits for each ack)
 * @param producerOverrides producer config on top of the workload's defaults (e.g. acks=1)
 * @param seed seeds each worker's partition choice
 * @param clientSecurity TLS client keys of every producer and consumer (security.protocol, ssl.*;
 *     docs/security.md), empty for plaintext
 */
public record WorkloadConfig(
    String bootstrapServers,
    List<TopicPartition> partitions,
    int producers,
    int consumers,
    double sendsPerSecondPerProducer,
    Map<String, String> producerOverrides,
    long seed,
    Map<String, String> clientSecurity) {
  public WorkloadConfig {
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    partitions = List.copyOf(partitions);
    producerOverrides = Map.copyOf(producerOverrides);
    clientSecurity = Map.copyOf(clientSecurity);
    if (partitions.isEmpty() || producers < 1 || consumers < 0 || sendsPerSecondPerProducer <= 0) {
      throw new IllegalArgumentException(
          "need partitions, at least one producer and a positive rate");
    }
  }
}
