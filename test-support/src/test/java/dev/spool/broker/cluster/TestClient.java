package dev.spool.broker.cluster;

import com.google.protobuf.MessageLite;
import dev.spool.broker.Broker;
import dev.spool.common.Clock;
import dev.spool.network.ClientResponse;
import dev.spool.network.NetworkClient;
import dev.spool.network.NetworkConfig;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A minimal blocking client over the real network client, for integration tests. */
public final class TestClient implements AutoCloseable {
  public static final long TIMEOUT_MS = 20_000;

  private final NetworkClient net =
      new NetworkClient(NetworkConfig.defaults("test-client", "test-client-io"), Clock.SYSTEM);

  public static Node node(Broker b) {
    return new Node(b.brokerId(), "127.0.0.1", b.boundPort());
  }

  public CompletableFuture<ClientResponse> send(
      Broker b, ApiKey api, MessageLite body, ByteBuf records) {
    return net.send(node(b), api, body, records, TIMEOUT_MS, true);
  }

  public <T extends MessageLite> T call(Broker b, ApiKey api, MessageLite body, Class<T> type) {
    try (ClientResponse r = send(b, api, body, null).get(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
      return r.body(type);
    } catch (Exception e) {
      throw new AssertionError(api + " to broker " + b.brokerId() + " failed", e);
    }
  }

  public CreateTopicsResponse createTopic(Broker b, String name, int partitions, int rf) {
    return call(
        b,
        ApiKey.CREATE_TOPICS,
        CreateTopicsRequest.newBuilder()
            .setTimeoutMs(15_000)
            .addTopics(
                CreateTopicsRequest.Topic.newBuilder()
                    .setName(name)
                    .setNumPartitions(partitions)
                    .setReplicationFactor(rf))
            .build(),
        CreateTopicsResponse.class);
  }

  public PartitionMetadata partition(Broker b, String topic, int partition) {
    MetadataResponse m =
        call(
            b,
            ApiKey.METADATA,
            MetadataRequest.newBuilder().addTopics(topic).build(),
            MetadataResponse.class);
    return m.getTopics(0).getPartitions(partition);
  }

  public static ProduceRequest produceRequest(String topic, int partition, int acks, int size) {
    return produceRequest(topic, acks, List.of(partition), List.of(size));
  }

  /**
   * A produce request for {@code partitions} of one topic, their record data sized {@code sizes}.
   */
  public static ProduceRequest produceRequest(
      String topic, int acks, List<Integer> partitions, List<Integer> sizes) {
    ProduceRequest.TopicData.Builder data = ProduceRequest.TopicData.newBuilder().setName(topic);
    for (int i = 0; i < partitions.size(); i++) {
      data.addPartitions(
          ProduceRequest.PartitionData.newBuilder()
              .setPartition(partitions.get(i))
              .setRecordsSize(sizes.get(i))
              .setLeaderEpoch(-1));
    }
    return ProduceRequest.newBuilder().setAcks(acks).setTimeoutMs(10_000).addTopics(data).build();
  }

  public ProduceResponse.PartitionResponse produce(
      Broker b, String topic, int partition, int acks, ByteBuffer batch) {
    return produce(b, topic, acks, List.of(partition), List.of(batch)).get(0);
  }

  /**
   * One produce request carrying {@code batches[i]} for {@code partitions[i]}; the partitions'
   * answers in the broker's order.
   */
  public List<ProduceResponse.PartitionResponse> produce(
      Broker b, String topic, int acks, List<Integer> partitions, List<ByteBuffer> batches) {
    ByteBuffer[] data = batches.stream().map(ByteBuffer::duplicate).toArray(ByteBuffer[]::new);
    ProduceResponse r =
        call(
            b,
            ApiKey.PRODUCE,
            produceRequest(
                topic, acks, partitions, batches.stream().map(ByteBuffer::remaining).toList()),
            ProduceResponse.class,
            Unpooled.wrappedBuffer(data));
    return r.getTopics(0).getPartitionsList();
  }

  public <T extends MessageLite> T call(
      Broker b, ApiKey api, MessageLite body, Class<T> type, ByteBuf records) {
    try (ClientResponse r = send(b, api, body, records).get(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
      return r.body(type);
    } catch (Exception e) {
      throw new AssertionError(api + " to broker " + b.brokerId() + " failed", e);
    }
  }

  /** A fetch answer with its record data copied out. */
  public record Fetched(FetchResponse body, byte[] records) {
    public FetchResponse.PartitionResponse partition() {
      return body.getTopics(0).getPartitions(0);
    }
  }

  public static FetchRequest consumerFetch(
      String topic, int partition, long offset, int maxWaitMs) {
    return FetchRequest.newBuilder()
        .setReplicaId(-1)
        .setMaxWaitMs(maxWaitMs)
        .setMinBytes(1)
        .setMaxBytes(1 << 20)
        .addTopics(
            FetchRequest.FetchTopic.newBuilder()
                .setName(topic)
                .addPartitions(
                    FetchRequest.FetchPartition.newBuilder()
                        .setPartition(partition)
                        .setFetchOffset(offset)
                        .setCurrentLeaderEpoch(-1)
                        .setLastFetchedEpoch(-1)
                        .setPartitionMaxBytes(1 << 20)))
        .build();
  }

  public CompletableFuture<Fetched> fetchAsync(Broker b, FetchRequest req) {
    return send(b, ApiKey.FETCH, req, null)
        .thenApply(
            r -> {
              try (r) {
                byte[] data = new byte[r.recordData().readableBytes()];
                r.recordData().getBytes(r.recordData().readerIndex(), data);
                return new Fetched(r.body(FetchResponse.class), data);
              }
            });
  }

  public Fetched fetch(Broker b, FetchRequest req) {
    try {
      return fetchAsync(b, req).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("fetch from broker " + b.brokerId() + " failed", e);
    }
  }

  @Override
  public void close() {
    net.close();
  }
}
