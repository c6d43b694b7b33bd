package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.PartitionState;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated clients of a {@link ReplicationSimulation}: producers with acks=all and acks=1 that
 * send to whichever broker they believe leads (usually the quorum's leader, sometimes any broker,
 * sometimes with a stale or no leader epoch), and one idempotent producer per partition that
 * retries a failed batch as the same bytes. What the cluster acknowledged with acks=all is recorded
 * for the durability invariants; two checks run when an answer arrives: an acknowledged batch is
 * readable at its offset on the broker that acknowledged it (AckedBatchReadable), and an idempotent
 * retry is acknowledged at its first offset (IdempotentRetryKeepsItsOffset).
 *
 * <p>Threads: the simulation's single thread (answers complete on it too).
 */
final class SimClients {
  /** An acks=all write the cluster acknowledged. */
  record Acked(TopicPartition tp, long baseOffset, long lastOffset, long crc, int step) {}

  /**
   * One idempotent producer per partition, one batch in flight: a failed or unanswered batch is
   * retried as the same bytes (same producer id and sequence) until acknowledged, so retries after
   * leader changes exercise duplicate detection on the new leader.
   */
  private static final class IdempotentProducer {
    final long producerId;
    int nextSequence;
    ByteBuffer pristine; // the batch being sent, never modified (appends stamp offsets in place)
    int records;
    int attemptsOfThisBatch;
    long attempt;
    boolean inFlight;

    IdempotentProducer(long producerId) {
      this.producerId = producerId;
    }
  }

  private final ReplicationSimulation sim;

  /** Every acks=all write the cluster acknowledged, in the order of the answers. */
  final List<Acked> acked = new ArrayList<>();

  private final Map<TopicPartition, IdempotentProducer> idempotent = new HashMap<>();
  private final Map<String, Long> idempotentAckOffsets = new HashMap<>();
  private int valueSeq;

  SimClients(ReplicationSimulation sim) {
    this.sim = sim;
  }

  /** An acks=all or acks=1 produce of a fresh batch to a broker that is probably the leader. */
  void produce() {
    TopicPartition tp = sim.tps.get(sim.rnd.nextInt(sim.tps.size()));
    PartitionState st = sim.quorum.image.partition(tp);
    SimBroker target =
        sim.rnd.nextInt(5) > 0 && st.leader() > 0
            ? sim.broker(st.leader())
            : sim.brokers.get(sim.rnd.nextInt(sim.brokers.size()));
    if (!target.alive) {
      return;
    }
    Partition p = target.partitions.get(tp);
    if (p == null) {
      return;
    }
    int acks = sim.rnd.nextInt(5) > 0 ? -1 : 1;
    PartitionState known = target.image.partition(tp);
    int epoch = sim.rnd.nextBoolean() && known != null ? known.leaderEpoch() : -1;
    RecordBatchBuilder bb = new RecordBatchBuilder(128);
    int n = 1 + sim.rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      bb.append(sim.clock.nowMs(), null, ("r" + (valueSeq++)).getBytes());
    }
    sim.count("produce attempts");
    int at = sim.step;
    p.appendAsLeader(bb.build(), acks, epoch, ReplicationSimulation.PRODUCE_TIMEOUT_MS)
        .thenAccept(
            res -> {
              if (res.error() == ErrorCode.NONE && acks == -1) {
                RecordBatch batch = target.batchAt(tp, res.baseOffset());
                if (batch == null) {
                  throw new AssertionError(
                      sim.violation(
                          "AckedBatchReadable",
                          "broker "
                              + target.id
                              + " acknowledged offset "
                              + res.baseOffset()
                              + " of "
                              + tp
                              + " but cannot read it"));
                }
                acked.add(
                    new Acked(tp, batch.baseOffset(), batch.lastOffset(), batch.checksum(), at));
                sim.count("acked (acks=all)");
              } else {
                sim.count("produce " + res.error());
              }
            });
  }

  /**
   * The next attempt of the partition's idempotent producer, unless one is in flight: a new batch,
   * or the same bytes again after a failure or a lost answer.
   */
  void produceIdempotent() {
    TopicPartition tp = sim.tps.get(sim.rnd.nextInt(sim.tps.size()));
    IdempotentProducer ip =
        idempotent.computeIfAbsent(tp, t -> new IdempotentProducer(1000 + t.partition()));
    if (ip.inFlight) {
      return;
    }
    if (ip.pristine == null) {
      RecordBatchBuilder bb =
          new RecordBatchBuilder(128).producer(ip.producerId, (short) 0, ip.nextSequence);
      ip.records = 1 + sim.rnd.nextInt(3);
      for (int i = 0; i < ip.records; i++) {
        bb.append(sim.clock.nowMs(), null, ("i" + (valueSeq++)).getBytes());
      }
      ip.pristine = bb.build();
    }
    PartitionState st = sim.quorum.image.partition(tp);
    SimBroker target =
        sim.rnd.nextInt(5) > 0 && st.leader() > 0
            ? sim.broker(st.leader())
            : sim.brokers.get(sim.rnd.nextInt(sim.brokers.size()));
    Partition p = target.alive ? target.partitions.get(tp) : null;
    if (p == null) {
      return;
    }
    long attempt = ++ip.attempt;
    ip.attemptsOfThisBatch++;
    ip.inFlight = true;
    int sequence = ip.nextSequence;
    int at = sim.step;
    ByteBuffer copy =
        ByteBuffer.allocate(ip.pristine.remaining()).put(ip.pristine.duplicate()).flip();
    sim.count("idempotent attempts");
    // A crashed broker never answers: the producer gives up on this attempt and retries.
    sim.network.schedule(
        ReplicationSimulation.PRODUCE_TIMEOUT_MS + 500,
        () -> {
          if (ip.attempt == attempt) {
            ip.inFlight = false;
          }
        });
    p.appendAsLeader(copy, -1, -1, ReplicationSimulation.PRODUCE_TIMEOUT_MS)
        .thenAccept(
            res -> {
              if (ip.attempt != attempt) {
                return;
              }
              ip.inFlight = false;
              sim.count("idempotent " + res.error());
              if (res.error() != ErrorCode.NONE) {
                return; // retried later with the same bytes
              }
              String key = tp + "/" + ip.producerId + "/" + sequence;
              Long before = idempotentAckOffsets.putIfAbsent(key, res.baseOffset());
              sim.check(
                  before == null || before == res.baseOffset(),
                  "IdempotentRetryKeepsItsOffset",
                  () ->
                      key
                          + " acknowledged at offset "
                          + before
                          + " and again at "
                          + res.baseOffset());
              RecordBatch batch = target.batchAt(tp, res.baseOffset());
              sim.check(
                  batch != null
                      && batch.producerId() == ip.producerId
                      && batch.baseSequence() == sequence,
                  "AckedBatchReadable",
                  () ->
                      "broker "
                          + target.id
                          + " acknowledged "
                          + key
                          + " at offset "
                          + res.baseOffset()
                          + " but holds "
                          + batch);
              acked.add(
                  new Acked(tp, batch.baseOffset(), batch.lastOffset(), batch.checksum(), at));
              if (ip.attemptsOfThisBatch > 1) {
                sim.count("idempotent acknowledged after retries");
              }
              ip.attemptsOfThisBatch = 0;
              ip.nextSequence += ip.records;
              ip.pristine = null;
            });
  }
}
