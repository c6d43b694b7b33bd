package dev.spool.chaos.history;

import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Records a run's history as it happens: stamps each op with its index and the time since the run
 * started (from an injected {@link Clock}), and hands it to a {@link HistorySink}.
 *
 * <p>Processes follow Jepsen: a worker thread runs one process at a time, one op at a time. When a
 * process's op completes as {@code info} the process is crashed: the worker continues under a fresh
 * process number, so a new producer and a new consumer (a new consumer session, with no position)
 * are implied. The workload must then really close and reopen its client, since the old one's state
 * is unknown. {@link #processOf(int)} gives the current process of a worker.
 *
 * <p>Thread-safe: workers call it concurrently; one lock keeps index order and file order equal.
 */
public final class HistoryRecorder {
  private final Clock clock;
  private final long startNs;
  private final long startWallMs;
  private final HistorySink sink;
  private final Map<Integer, Long> processOfWorker = new HashMap<>();
  private long nextProcess;
  private int nextIndex;

  public HistoryRecorder(Clock clock, HistorySink sink) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.startNs = clock.nanoTime();
    this.startWallMs = clock.nowMs();
  }

  /**
   * The wall clock when {@code timeNs} was 0, ms since the epoch: turns history times into the
   * times of the node logs (all processes of a run share one machine's clock).
   */
  public long startWallMs() {
    return startWallMs;
  }

  /** The process a worker currently runs; a new worker gets the next unused process number. */
  public synchronized long processOf(int worker) {
    return processOfWorker.computeIfAbsent(worker, w -> nextProcess++);
  }

  /** Nanoseconds since this recorder was created (the run's start). */
  public long elapsedNs() {
    return clock.nanoTime() - startNs;
  }

  public Op invokeSend(int worker, TopicPartition partition, long value) {
    return record(
        worker, -1, OpType.INVOKE, OpFunction.SEND, partition, value, null, null, null, null, null);
  }

  public Op invokePoll(int worker) {
    return record(
        worker, -1, OpType.INVOKE, OpFunction.POLL, null, null, null, null, null, null, null);
  }

  public Op invokeAssign(int worker, List<TopicPartition> partitions, boolean seekToBeginning) {
    return record(
        worker,
        -1,
        OpType.INVOKE,
        OpFunction.ASSIGN,
        null,
        null,
        null,
        null,
        partitions,
        seekToBeginning,
        null);
  }

  /** The send was acknowledged at {@code offset}. */
  public Op sendOk(Op invoke, long offset) {
    return complete(invoke, OpType.OK, offset, null, null);
  }

  /** The poll returned these records (possibly none). */
  public Op pollOk(Op invoke, Map<TopicPartition, List<OffsetValue>> reads) {
    return complete(invoke, OpType.OK, null, Objects.requireNonNull(reads, "reads"), null);
  }

  /** An assign (or any op without a result) completed. */
  public Op ok(Op invoke) {
    return complete(invoke, OpType.OK, null, null, null);
  }

  /**
   * The op definitely did not happen. For a send, only use this when {@link
   * SendErrors#isDefiniteFailure} says so.
   */
  public Op fail(Op invoke, String error) {
    return complete(invoke, OpType.FAIL, null, null, Objects.requireNonNull(error, "error"));
  }

  /** Indeterminate outcome; crashes the process (the worker continues as a new process). */
  public Op info(Op invoke, String error) {
    Op op = complete(invoke, OpType.INFO, null, null, Objects.requireNonNull(error, "error"));
    synchronized (this) {
      processOfWorker.put(invoke.worker(), nextProcess++);
    }
    return op;
  }

  /** White-box: records what a replica holds below its high watermark. */
  public synchronized ReplicaSnapshot replicaSnapshot(
      int node,
      TopicPartition partition,
      long highWatermark,
      long logStartOffset,
      List<BatchSummary> batches) {
    ReplicaSnapshot s =
        new ReplicaSnapshot(elapsedNs(), node, partition, highWatermark, logStartOffset, batches);
    sink.append(s);
    return s;
  }

  /** White-box: records a node's view of a partition's leader and epoch. */
  public synchronized EpochObservation epochObservation(
      int observer, TopicPartition partition, int leader, int leaderEpoch) {
    EpochObservation o =
        new EpochObservation(elapsedNs(), observer, partition, leader, leaderEpoch);
    sink.append(o);
    return o;
  }

  /** White-box: records what a producer now believes leads a partition. */
  public synchronized ClientLeaderView clientLeaderView(
      int worker, long process, TopicPartition partition, int leader, int leaderEpoch) {
    ClientLeaderView v =
        new ClientLeaderView(elapsedNs(), worker, process, partition, leader, leaderEpoch);
    sink.append(v);
    return v;
  }

  private Op complete(
      Op invoke,
      OpType type,
      Long offset,
      Map<TopicPartition, List<OffsetValue>> reads,
      String error) {
    if (invoke.type() != OpType.INVOKE) {
      throw new IllegalArgumentException("not an invocation: " + invoke.describe());
    }
    return record(
        invoke.worker(),
        invoke.process(),
        type,
        invoke.f(),
        invoke.partition(),
        invoke.value(),
        offset,
        reads,
        invoke.assignment(),
        invoke.seekToBeginning(),
        error);
  }

  private synchronized Op record(
      int worker,
      long process,
      OpType type,
      OpFunction f,
      TopicPartition partition,
      Long value,
      Long offset,
      Map<TopicPartition, List<OffsetValue>> reads,
      List<TopicPartition> assignment,
      Boolean seekToBeginning,
      String error) {
    long p = process >= 0 ? process : processOf(worker);
    Op op =
        new Op(
            nextIndex,
            elapsedNs(),
            p,
            worker,
            type,
            f,
            partition,
            value,
            offset,
            reads,
            assignment,
            seekToBeginning,
            error);
    sink.append(op);
    nextIndex++;
    return op;
  }
}
