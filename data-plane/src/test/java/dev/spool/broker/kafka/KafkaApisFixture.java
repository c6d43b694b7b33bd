package dev.spool.broker.kafka;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaRequestDecoder;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.network.NewerRequestSignal;
import dev.spool.broker.network.WireProtocol;
import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.broker.request.Handlers;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.CoordinatorConfig;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import dev.spool.quorum.image.Records;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.awaitility.Awaitility;

/**
 * The Kafka listener's API layer on a real broker core ({@link HandlerTestBroker}: broker 1 leads
 * orders-0 and follows orders-1), called the way the listener calls it: a request encoded by
 * kafka-clients, decoded, served, and the answer parsed by kafka-clients. One per test; the test's
 * thread.
 */
final class KafkaApisFixture implements AutoCloseable {
  final HandlerTestBroker broker;
  final GroupCoordinator coordinator;
  final Handlers handlers;
  final KafkaApis apis;
  final KafkaRequestDecoder decoder;
  private int correlationId;

  /** {@code topicCreator}: how the coordinator creates its offsets topic (no quorum here). */
  KafkaApisFixture(Path dir, GroupCoordinator.TopicCreator topicCreator) {
    this(dir, topicCreator, BrokerConfig.coordinatorConfig(BrokerConfig.DEF.defaults()));
  }

  KafkaApisFixture(
      Path dir, GroupCoordinator.TopicCreator topicCreator, CoordinatorConfig coordinatorConfig) {
    broker = new HandlerTestBroker(dir, new ManualClock(System.currentTimeMillis()));
    coordinator =
        new GroupCoordinator(
            1,
            coordinatorConfig,
            broker.replicas(),
            broker.ctx().timer(),
            broker.ctx().clock(),
            topicCreator);
    handlers = Handlers.create(broker.ctx());
    apis = new KafkaApis(handlers, coordinator, false);
    decoder = new KafkaRequestDecoder(apis.served());
  }

  /** The answer to {@code body} at {@code version}, as the listener would write it. */
  KafkaResponse serve(ApiMessage body, short version) throws Exception {
    KafkaRequest r =
        decoder.decode(
            Unpooled.directBuffer().writeBytes(KafkaWire.request(body, version, ++correlationId)));
    if (r.immediateAnswer() != null) {
      return r.immediateAnswer();
    }
    return apis.serve(
            r,
            new WireProtocol.Connection("test", null, System.nanoTime(), new NewerRequestSignal()))
        .get(10, TimeUnit.SECONDS);
  }

  /** {@link #serve}, parsed by kafka-clients. */
  <T extends AbstractResponse> T call(ApiMessage body, short version) throws Exception {
    KafkaResponse answer = serve(body, version);
    return KafkaWire.parse(answer, KafkaWire.header(body, version, correlationId));
  }

  /** Only the leader in {@code tp}'s ISR, so acks=1 appends move the high watermark at once. */
  void leaderAloneInIsr(TopicPartition tp) {
    broker.apply(Records.partitionChange(broker.image().partition(tp), 1, List.of(1)));
    broker.publish();
    Awaitility.await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> broker.replicas().partition(tp).orElseThrow().leaderState().isr().size() == 1);
  }

  @Override
  public void close() {
    broker.close();
  }
}
