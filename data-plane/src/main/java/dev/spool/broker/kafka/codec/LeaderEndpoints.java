package dev.spool.broker.kafka.codec;

import dev.spool.common.HostPort;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;

/**
 * The leaders named in an answer's leader hints (KIP-951) and their Kafka endpoints, which Produce
 * (v10+) and Fetch (v16+) answers list so a client can go to the new leader without a Metadata
 * round trip. A leader without a Kafka listener is not listed; the client then asks Metadata.
 *
 * <p>Threads: one answer being built; not shared.
 */
final class LeaderEndpoints {
  private final MetadataImage image;
  private final Set<Integer> ids = new TreeSet<>();

  LeaderEndpoints(MetadataImage image) {
    this.image = image;
  }

  void add(int leaderId) {
    if (leaderId >= 0) {
      ids.add(leaderId);
    }
  }

  ProduceResponseData.NodeEndpointCollection produceEndpoints() {
    ProduceResponseData.NodeEndpointCollection out =
        new ProduceResponseData.NodeEndpointCollection();
    for (int id : ids) {
      HostPort hp = MetadataCodec.kafkaEndpoint(image, id);
      if (hp != null) {
        out.add(
            new ProduceResponseData.NodeEndpoint()
                .setNodeId(id)
                .setHost(hp.host())
                .setPort(hp.port())
                .setRack(rack(id)));
      }
    }
    return out;
  }

  FetchResponseData.NodeEndpointCollection fetchEndpoints() {
    FetchResponseData.NodeEndpointCollection out = new FetchResponseData.NodeEndpointCollection();
    for (int id : ids) {
      HostPort hp = MetadataCodec.kafkaEndpoint(image, id);
      if (hp != null) {
        out.add(
            new FetchResponseData.NodeEndpoint()
                .setNodeId(id)
                .setHost(hp.host())
                .setPort(hp.port())
                .setRack(rack(id)));
      }
    }
    return out;
  }

  private String rack(int id) {
    BrokerRegistration b = image.broker(id);
    return b == null || !b.hasRack() ? null : b.rack();
  }
}
