package dev.spool.client.internal.consumer;

import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRebalanceListener;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.testing.FakeCluster;
import dev.spool.client.testing.ScriptedCoordinator;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;

/**
 * The fixture of the group client tests: a fake cluster with topic {@code t} (3 partitions), a
 * {@link ScriptedCoordinator}, and consumers in group {@code g} whose rebalance listener writes its
 * callbacks into the coordinator's event log. Threading: the test thread only.
 */
final class GroupTestClients implements AutoCloseable {
  static final TopicPartition T0 = new TopicPartition("t", 0);
  static final TopicPartition T1 = new TopicPartition("t", 1);
  static final TopicPartition T2 = new TopicPartition("t", 2);

  final FakeCluster cluster = FakeCluster.start(2);
  final ScriptedCoordinator coordinator = ScriptedCoordinator.install(cluster);
  private final List<AutoCloseable> clients = new ArrayList<>();

  GroupTestClients() {
    cluster.createTopic("t", 3);
  }

  /** A consumer in group g; {@code extra} are key, value pairs of more settings. */
  Consumer consumer(String... extra) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.bootstrap());
    props.put("group.id", "g");
    props.put("fetch.max.wait.ms", "50");
    props.put("retry.backoff.ms", "10");
    props.put("auto.offset.reset", "earliest");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    Consumer c = new Consumer(props);
    clients.add(c);
    return c;
  }

  /** A listener that logs "assigned [..]", "revoked [..]" and "lost [..]", sorted. */
  ConsumerRebalanceListener listener() {
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        coordinator.event("revoked " + sorted(partitions));
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        coordinator.event("assigned " + sorted(partitions));
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        coordinator.event("lost " + sorted(partitions));
      }
    };
  }

  static List<String> sorted(Collection<TopicPartition> partitions) {
    return partitions.stream().map(TopicPartition::toString).sorted().toList();
  }

  void produce(TopicPartition tp, int count) {
    Producer p = new Producer(Map.of("bootstrap.servers", cluster.bootstrap(), "linger.ms", "1"));
    clients.add(p);
    for (int i = 0; i < count; i++) {
      p.send(
          new ProducerRecord(tp.topic(), tp.partition(), null, ("v" + i).getBytes(), null, null));
    }
    p.flush();
  }

  /** Polls {@code c} until {@code done} holds (up to 15 s); returns every record polled. */
  static List<ConsumerRecord> pollUntil(Consumer c, BooleanSupplier done) {
    List<ConsumerRecord> seen = new ArrayList<>();
    Awaitility.await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              c.poll(Duration.ofMillis(20)).forEach(seen::add);
              return done.getAsBoolean();
            });
    return seen;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    cluster.close();
  }
}
