package dev.spool.broker.request;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.replication.FetchWaiters;
import dev.spool.broker.replication.PartitionWorkers;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.broker.replication.ReplicaRole;
import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.common.ManualClock;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import io.netty.util.HashedWheelTimer;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A broker core for handler tests, without sockets or a quorum: broker 1 with a real log manager,
 * partition workers and replica manager; brokers 1-3 registered (3 fenced), each with a Kafka
 * endpoint {@code kafka-N:1900N}; topic {@code orders} with partition 0 led here (ISR 1, 2) and
 * partition 1 followed here (leader 2, ISR 2, 1). Every quorum call fails with QUORUM_UNAVAILABLE.
 * Metadata changes are made with {@link #apply} and reach the replicas with {@link #publish}.
 *
 * <p>Threads: the test's; the broker's own threads run behind it.
 */
public final class HandlerTestBroker implements AutoCloseable {
  private final LogManager logs;
  private final PartitionWorkers workers;
  private final ReplicaManager replicas;
  private final HashedWheelTimer timer;
  private final BrokerContext ctx;
  private MetadataImage image = MetadataImage.EMPTY;
  private long offset;

  public HandlerTestBroker(Path dir, ManualClock clock) {
    this(dir, clock, true);
  }

  /**
   * @param awaitRoles wait until broker 1 leads orders-0 and follows orders-1 (false: a directory
   *     that goes offline at startup hosts no replica)
   */
  public HandlerTestBroker(Path dir, ManualClock clock, boolean awaitRoles) {
    logs = LogManager.open(dir, BrokerConfig.defaultLogManagerConfig(), clock);
    workers = new PartitionWorkers(1, 1000, "test-partition");
    QuorumClient quorum =
        (QuorumClient)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {QuorumClient.class},
                (p, m, a) ->
                    m.getName().equals("close")
                        ? null
                        : CompletableFuture.failedFuture(
                            new SpoolException(ErrorCode.QUORUM_UNAVAILABLE, "stub")));
    replicas =
        new ReplicaManager(
            BrokerConfig.defaultReplicationSettings(1),
            false,
            clock,
            logs,
            workers,
            quorum,
            () -> 5L,
            new FetchWaiters(100));
    timer = new HashedWheelTimer();
    ctx =
        new BrokerContext(
            1,
            "test",
            replicas,
            quorum,
            new MetadataWaiters(replicas::image, timer, 10),
            new ProducerIdManager(1, () -> 5L, quorum, 10),
            timer,
            clock,
            false,
            1000,
            1000,
            1000,
            () -> 2,
            dev.spool.broker.metrics.BrokerMetrics.DISABLED,
            dev.spool.broker.security.Authorizer.NONE,
            new dev.spool.broker.quota.ClientQuotaManager(replicas::image, 11, 1000));
    for (int id = 1; id <= 3; id++) {
      apply(
          Records.registerBroker(
              id,
              "inc-" + id,
              "host" + id,
              9000 + id,
              "",
              new HostPort("kafka-" + id, 19000 + id),
              0));
      apply(Records.unfenceBroker(id, image.broker(id).epoch()));
    }
    apply(Records.fenceBroker(3, image.broker(3).epoch()));
    apply(
        Records.topic("orders", "a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a"),
        Records.partition(
            "a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a", 0, List.of(1, 2, 3), List.of(1, 2), 1, 0, 0),
        Records.partition(
            "a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a", 1, List.of(2, 1, 3), List.of(2, 1), 2, 0, 0));
    publish();
    if (!awaitRoles) {
      return;
    }
    Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                role(new TopicPartition("orders", 0)) == ReplicaRole.LEADER
                    && role(new TopicPartition("orders", 1)) == ReplicaRole.FOLLOWER);
  }

  private ReplicaRole role(TopicPartition tp) {
    return replicas.partition(tp).map(p -> p.role()).orElse(null);
  }

  /** Applies records to this broker's view of the metadata (not yet to its replicas). */
  public void apply(MetadataRecord... records) {
    ImageBuilder b = new ImageBuilder(image);
    MetadataApplier.apply(
        b, MetadataBatch.newBuilder().addAllRecords(List.of(records)).build(), ++offset);
    image = b.build(offset);
  }

  /** Hands the current image to the replica manager (roles and logs follow). */
  public void publish() {
    replicas.applyMetadata(image, MetadataDelta.between(MetadataImage.EMPTY, image, true));
  }

  public MetadataImage image() {
    return image;
  }

  public BrokerContext ctx() {
    return ctx;
  }

  public ReplicaManager replicas() {
    return replicas;
  }

  @Override
  public void close() {
    workers.close();
    timer.stop();
    logs.close();
  }
}
