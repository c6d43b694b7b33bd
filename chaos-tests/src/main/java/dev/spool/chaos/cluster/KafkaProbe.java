package dev.spool.chaos.cluster;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Asks one Kafka node, and only that node, what it believes: its metadata (partition leaders,
 * leader epochs, replicas, ISRs) on its broker listener, and the metadata quorum on its controller
 * listener. A Kafka {@code Admin} would route each request to whichever node it likes, so a
 * partitioned node's stale answer could not be told from a fresh one; one request per node lets the
 * harness take the newest view, as {@code ProcessCluster} does for Spool. One blocking connection
 * per call, with a short timeout; thread-safe.
 */
final class KafkaProbe {
  private static final short METADATA_VERSION = 12;
  private static final short DESCRIBE_QUORUM_VERSION = 2;
  private static final AtomicInteger CORRELATION = new AtomicInteger();

  private KafkaProbe() {}

  /** The node's metadata of {@code topics}. */
  static MetadataResponseData metadata(InetSocketAddress broker, List<String> topics, int timeoutMs)
      throws IOException {
    MetadataRequestData req = new MetadataRequestData().setAllowAutoTopicCreation(false);
    for (String t : topics) {
      req.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(t));
    }
    ByteBufferAccessor body = call(broker, req, METADATA_VERSION, timeoutMs);
    return new MetadataResponseData(body, METADATA_VERSION);
  }

  /**
   * The node's answer about the KRaft quorum on its controller listener: the leader answers with
   * its id and epoch, a follower with {@code NOT_LEADER_OR_FOLLOWER}.
   */
  static DescribeQuorumResponseData describeQuorum(InetSocketAddress controller, int timeoutMs)
      throws IOException {
    DescribeQuorumRequestData req = new DescribeQuorumRequestData();
    DescribeQuorumRequestData.TopicData t =
        new DescribeQuorumRequestData.TopicData().setTopicName("__cluster_metadata");
    t.partitions().add(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0));
    req.topics().add(t);
    ByteBufferAccessor body = call(controller, req, DESCRIBE_QUORUM_VERSION, timeoutMs);
    return new DescribeQuorumResponseData(body, DESCRIBE_QUORUM_VERSION);
  }

  private static ByteBufferAccessor call(
      InetSocketAddress to, ApiMessage body, short version, int timeoutMs) throws IOException {
    ApiKeys key = ApiKeys.forId(body.apiKey());
    int correlationId = CORRELATION.incrementAndGet();
    RequestHeaderData h =
        new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId("spool-chaos-probe");
    short hv = key.requestHeaderVersion(version);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = h.size(cache, hv) + body.size(cache, version);
    ByteBuffer b = ByteBuffer.allocate(size);
    ByteBufferAccessor w = new ByteBufferAccessor(b);
    h.write(w, cache, hv);
    body.write(w, cache, version);
    try (Socket s = new Socket()) {
      s.connect(to, timeoutMs);
      s.setSoTimeout(timeoutMs);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(size);
      out.write(b.array());
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      int len = in.readInt();
      if (len < 0 || len > 64 << 20) {
        throw new IOException("bad response size " + len + " from " + to);
      }
      byte[] resp = new byte[len];
      in.readFully(resp);
      ByteBufferAccessor r = new ByteBufferAccessor(ByteBuffer.wrap(resp));
      ResponseHeaderData rh = new ResponseHeaderData(r, key.responseHeaderVersion(version));
      if (rh.correlationId() != correlationId) {
        throw new IOException("correlation id " + rh.correlationId() + " from " + to);
      }
      return r;
    }
  }
}
