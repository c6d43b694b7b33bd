package dev.spool.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.network.NewerRequestSignal;
import dev.spool.broker.network.WireProtocol;
import dev.spool.broker.request.BrokerContext;
import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.broker.security.Authorizer;
import dev.spool.broker.security.Caller;
import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas on the Kafka listener against a real broker core (docs/security.md#quotas):
 * DescribeClientQuotas from the image with Kafka's null default names, AlterClientQuotas refusing
 * an IP entity itself, and a produce over a quota answered with throttleTimeMs and a throttled
 * answer; the request quota throttling a Metadata answer through the listener's protocol, with
 * ApiVersions and cluster principals exempt.
 */
@Tag("unit")
@Timeout(30)
class KafkaClientQuotasTest {
  @TempDir Path dir;
  private KafkaApisFixture fx;
  private HandlerTestBroker broker;

  @BeforeEach
  void setUp() {
    fx = new KafkaApisFixture(dir, (name, partitions, rf, configs) -> new CompletableFuture<>());
    broker = fx.broker;
    fx.leaderAloneInIsr(new TopicPartition("orders", 0));
    broker.apply(
        Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.LATEST),
        Records.clientQuota(
            new ClientQuotaEntity(null, ClientQuotaEntity.DEFAULT),
            ClientQuotaEntity.PRODUCER_BYTE_RATE,
            10.0),
        Records.clientQuota(
            new ClientQuotaEntity("alice", null), ClientQuotaEntity.CONSUMER_BYTE_RATE, 2048.0));
    broker.publish();
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void describeAnswersFromTheImageWithKafkasDefaultNames() throws Exception {
    DescribeClientQuotasResponse r =
        fx.call(
            new DescribeClientQuotasRequestData()
                .setComponents(
                    List.of(
                        new DescribeClientQuotasRequestData.ComponentData()
                            .setEntityType("client-id")
                            .setMatchType((byte) 1)))
                .setStrict(true),
            (short) 1);
    assertEquals(Errors.NONE.code(), r.data().errorCode());
    assertEquals(1, r.data().entries().size());
    DescribeClientQuotasResponseData.EntryData e = r.data().entries().get(0);
    assertEquals("client-id", e.entity().get(0).entityType());
    assertNull(e.entity().get(0).entityName(), "Kafka names the default with null");
    assertEquals("producer_byte_rate", e.values().get(0).key());
    assertEquals(10.0, e.values().get(0).value());

    DescribeClientQuotasResponse bad =
        fx.call(
            new DescribeClientQuotasRequestData()
                .setComponents(
                    List.of(
                        new DescribeClientQuotasRequestData.ComponentData()
                            .setEntityType("ip")
                            .setMatchType((byte) 2))),
            (short) 1);
    assertEquals(Errors.INVALID_REQUEST.code(), bad.data().errorCode());
  }

  @Test
  void anIpEntityIsRefusedHere() throws Exception {
    AlterClientQuotasResponse r =
        fx.call(
            new AlterClientQuotasRequestData()
                .setEntries(
                    List.of(
                        new AlterClientQuotasRequestData.EntryData()
                            .setEntity(
                                List.of(
                                    new AlterClientQuotasRequestData.EntityData()
                                        .setEntityType("ip")
                                        .setEntityName("10.0.0.1")))
                            .setOps(
                                List.of(
                                    new AlterClientQuotasRequestData.OpData()
                                        .setKey("connection_creation_rate")
                                        .setValue(5))))),
            (short) 1);
    assertEquals(Errors.INVALID_REQUEST.code(), r.data().entries().get(0).errorCode());
    assertTrue(r.data().entries().get(0).errorMessage().contains("'ip'"));
  }

  @Test
  void aProduceOverItsQuotaIsAnsweredThrottled() throws Exception {
    ProduceRequestData.TopicProduceDataCollection topics =
        new ProduceRequestData.TopicProduceDataCollection();
    ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData();
    t.setName("orders")
        .partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(0)
                .setRecords(
                    MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(1, null, new byte[1000]))));
    topics.add(t);
    ProduceRequestData req =
        new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000).setTopicData(topics);
    KafkaResponse answer = fx.serve(req, (short) 9);
    // ~1 kB against 10 B/s measured over at least 10 s: (100 - 10) / 10 x 10 s, about 90 s.
    assertTrue(answer.throttleMs() > 60_000, "throttled " + answer.throttleMs() + " ms");
    ProduceResponse parsed = fx.call(req, (short) 9);
    assertTrue(parsed.data().throttleTimeMs() > 60_000, parsed.data().toString());
    assertEquals(
        Errors.NONE.code(),
        parsed.data().responses().iterator().next().partitionResponses().get(0).errorCode(),
        "a throttled produce is still appended");
  }

  /** {@code body} served through the listener's protocol (where request quotas apply). */
  private KafkaResponse viaListener(KafkaProtocol protocol, ApiMessage body, short version) {
    KafkaRequest r =
        protocol.decode(
            io.netty.buffer.Unpooled.directBuffer()
                .writeBytes(KafkaWire.request(body, version, 1)));
    return protocol
        .serve(
            r,
            new WireProtocol.Connection(
                "test", null, System.nanoTime(), new NewerRequestSignal(), null, "User:alice"))
        .join();
  }

  @Test
  void aRequestQuotaThrottlesAnyApiButApiVersionsAndSparesClusterPrincipals() {
    // A share so small that any request exceeds it: the throttle is bounded by one window (1 s).
    broker.apply(
        Records.clientQuota(
            new ClientQuotaEntity(ClientQuotaEntity.DEFAULT, null),
            ClientQuotaEntity.REQUEST_PERCENTAGE,
            1e-9));
    broker.publish();
    KafkaProtocol protocol = new KafkaProtocol(fx.handlers, fx.coordinator, "test");
    KafkaResponse metadata =
        viaListener(protocol, new MetadataRequestData().setTopics(List.of()), (short) 12);
    assertEquals(1000, metadata.throttleMs());
    MetadataResponse parsed =
        KafkaWire.parse(metadata, KafkaWire.header(new MetadataRequestData(), (short) 12, 1));
    assertEquals(1000, parsed.data().throttleTimeMs(), "Metadata carries it");
    assertEquals(
        0,
        viaListener(protocol, new ApiVersionsRequestData(), (short) 3).throttleMs(),
        "ApiVersions is exempt");
    assertTrue(
        broker.ctx().quotas().requestSeconds() > 0, "the Metadata request's time was metered");

    // With an authorizer, a principal allowed CLUSTER_ACTION (a broker, a super user) is exempt.
    BrokerContext secured =
        broker.ctx().withAuthorizer(new Authorizer(true, Set.of("User:broker"), false, Map::of));
    assertNull(secured.requestMeter(new Caller("User:broker", "127.0.0.1", "test"), "any"));
    assertNotNull(secured.requestMeter(new Caller("User:alice", "127.0.0.1", "test"), "any"));
  }
}
