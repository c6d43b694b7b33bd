package dev.spool.chaos.workload;

import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.history.SendErrors;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.ConsumerRecords;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link Workload}'s client for Spool: Spool's own {@link Producer} and {@link Consumer}. Each new
 * producer also records {@code client-leader} entries ({@link #watchLeaders}), and a failed send is
 * classified by {@link SendErrors}.
 */
final class SpoolClient implements WorkloadClient {
  private final WorkloadConfig config;
  private final HistoryRecorder recorder;

  SpoolClient(WorkloadConfig config, HistoryRecorder recorder) {
    this.config = config;
    this.recorder = recorder;
  }

  @Override
  public String threadPrefix() {
    return "chaos";
  }

  @Override
  public String system() {
    return "Spool";
  }

  Map<String, String> producerProps() {
    return Workload.producerSettings(config, Map.of());
  }

  Map<String, String> consumerProps() {
    return Workload.consumerSettings(config, Map.of());
  }

  @Override
  public Sender newSender(int worker) {
    Producer producer = new Producer(producerProps());
    watchLeaders(worker, producer);
    return new Sender() {
      @Override
      public long send(TopicPartition tp, byte[] value, long waitMs)
          throws ExecutionException, TimeoutException, InterruptedException {
        return producer
            .send(new ProducerRecord(tp.topic(), tp.partition(), null, value, List.of(), null))
            .get(waitMs, TimeUnit.MILLISECONDS)
            .offset();
      }

      @Override
      public void close(Duration timeout) {
        producer.close(timeout);
      }
    };
  }

  /**
   * Records a {@code client-leader} entry whenever this producer's cached leader or epoch of one of
   * the workload's partitions changes (its first metadata included), so the fault timelines can
   * tell when the client learned of a new leader. The listener runs on the producer's I/O thread;
   * the first look runs here, in case the first metadata arrived before the listener was added.
   */
  private void watchLeaders(int worker, Producer producer) {
    long process = recorder.processOf(worker);
    Map<TopicPartition, LeaderAtEpoch> seen = new HashMap<>();
    Runnable look =
        () -> {
          synchronized (seen) {
            for (TopicPartition tp : config.partitions()) {
              producer
                  .cachedPartition(tp)
                  .ifPresent(
                      p -> {
                        LeaderAtEpoch view = new LeaderAtEpoch(p.leader(), p.leaderEpoch());
                        if (!view.equals(seen.put(tp, view))) {
                          recorder.clientLeaderView(
                              worker, process, tp, p.leader(), p.leaderEpoch());
                        }
                      });
            }
          }
        };
    producer.addMetadataListener(look);
    look.run();
  }

  private record LeaderAtEpoch(int leader, int epoch) {}

  @Override
  public Session newSession() {
    Consumer consumer = new Consumer(consumerProps());
    return new Session() {
      @Override
      public void assignFromBeginning(List<TopicPartition> partitions) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
      }

      @Override
      public Map<TopicPartition, List<OffsetValue>> poll(Duration timeout) {
        ConsumerRecords records = consumer.poll(timeout);
        Map<TopicPartition, List<OffsetValue>> reads = new LinkedHashMap<>();
        for (TopicPartition tp : records.partitions()) {
          List<OffsetValue> pairs = new ArrayList<>();
          for (ConsumerRecord r : records.records(tp)) {
            pairs.add(new OffsetValue(r.offset(), Long.parseLong(r.valueAsString())));
          }
          reads.put(tp, pairs);
        }
        return reads;
      }

      @Override
      public long position(TopicPartition tp) {
        return consumer.position(tp);
      }

      @Override
      public void close() {
        consumer.close();
      }
    };
  }

  @Override
  public Map<TopicPartition, Long> endOffsets(List<TopicPartition> partitions) {
    try (Consumer probe = new Consumer(consumerProps())) {
      return new LinkedHashMap<>(probe.endOffsets(partitions));
    }
  }

  @Override
  public OpType classify(Throwable error) {
    return SendErrors.classify(error);
  }

  @Override
  public String describe(Throwable error) {
    return SendErrors.describe(error);
  }
}
