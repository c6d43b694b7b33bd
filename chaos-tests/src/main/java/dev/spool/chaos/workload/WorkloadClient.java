package dev.spool.chaos.workload;

import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.OpType;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * What {@link Workload}'s workers need of one client library: Spool's ({@link SpoolClient}) or
 * Apache Kafka's ({@link KafkaWorkload}). Everything else (workers, pacing, values, the history
 * records, sessions, the drain) is {@link Workload}'s, so both systems run one worker loop.
 */
interface WorkloadClient {
  /** Prefix of the worker threads' names. */
  String threadPrefix();

  /** The system's name in log lines. */
  String system();

  /** A new producer (acks=all, idempotent) for the current process of {@code worker}. */
  Sender newSender(int worker);

  /** A new consumer with nothing assigned. */
  Session newSession();

  /** The end offsets of these partitions now, asked with a client of its own. */
  Map<TopicPartition, Long> endOffsets(List<TopicPartition> partitions);

  /** {@code fail} only when no attempt of the send that threw this may have been appended. */
  OpType classify(Throwable error);

  /** Short text of an error for the history. */
  String describe(Throwable error);

  /** One producer. */
  interface Sender {
    /**
     * Sends {@code value} (no key) to {@code tp} and waits up to {@code waitMs} for its
     * acknowledgement; returns its offset.
     */
    long send(TopicPartition tp, byte[] value, long waitMs)
        throws ExecutionException, TimeoutException, InterruptedException;

    void close(Duration timeout);
  }

  /** One consumer session. */
  interface Session {
    /** Assigns these partitions, each from its beginning. */
    void assignFromBeginning(List<TopicPartition> partitions);

    /** One poll: the (offset, value) pairs read, per partition in read order. */
    Map<TopicPartition, List<OffsetValue>> poll(Duration timeout);

    long position(TopicPartition tp);

    /** Closes the session, which is then abandoned. */
    void close();
  }
}
