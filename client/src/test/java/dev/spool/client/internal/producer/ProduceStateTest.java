package dev.spool.client.internal.producer;

import static dev.spool.client.internal.producer.ProducerFixtures.NODE_1;
import static dev.spool.client.internal.producer.ProducerFixtures.NODE_2;
import static dev.spool.client.internal.producer.ProducerFixtures.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.ProduceException;
import dev.spool.client.RecordMetadata;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.record.RecordBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The idempotent sequencing and retry-ordering rules of {@link ProduceState}, without threads. */
@Tag("unit")
class ProduceStateTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);
  private static final TopicPartition TP1 = new TopicPartition("t", 1);
  private static final long DELIVERY_TIMEOUT_MS = 10_000;

  private final MetadataSnapshot md = snapshot("t", 2, NODE_1);
  private final List<String> completions = new ArrayList<>();
  private RecordAccumulator acc;
  private ProduceState state;

  @BeforeEach
  void setUp() {
    acc = new RecordAccumulator(1024, 0, DELIVERY_TIMEOUT_MS, new BufferPool(1 << 20, 1024));
    state =
        new ProduceState(
            true,
            5,
            Integer.MAX_VALUE,
            DELIVERY_TIMEOUT_MS,
            ProducerFixtures.noJitterBackoff(),
            acc,
            new ProducerStats());
    state.setProducerId(100, (short) 0);
  }

  /** Appends {@code records} records named {@code name} to {@code tp}; returns their futures. */
  private List<CompletableFuture<RecordMetadata>> append(
      TopicPartition tp, String name, int records, long now) throws Exception {
    List<CompletableFuture<RecordMetadata>> fs = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      CompletableFuture<RecordMetadata> f =
          acc.append(tp, 1000, null, new byte[10], List.of(), 0, now).future();
      f.whenComplete(
          (m, e) -> completions.add(name + (e == null ? "@" + m.offset() : "!" + errorOf(e))));
      fs.add(f);
    }
    return fs;
  }

  private static String errorOf(Throwable e) {
    return e instanceof SpoolException se ? se.errorCode().name() : e.getClass().getSimpleName();
  }

  /** Drains the first batch of {@code tp} (if the gate allows) and marks it sent to node 1. */
  private ProducerBatch send(TopicPartition tp, long now) {
    Map<dev.spool.network.Node, List<ProducerBatch>> d =
        acc.drain(md, Set.of(NODE_1), 1 << 20, now, state);
    List<ProducerBatch> batches = d.getOrDefault(NODE_1, List.of());
    ProducerBatch b =
        batches.stream().filter(x -> x.topicPartition.equals(tp)).findFirst().orElse(null);
    if (b != null) {
      state.onSent(b, NODE_1, now);
    }
    return b;
  }

  private ProducerBatch appendAndSend(String name, int records, long now) throws Exception {
    append(TP, name, records, now);
    return send(TP, now);
  }

  private int wireSequence(ProducerBatch b) {
    return RecordBatch.at(b.bytes(), b.bytes().position()).baseSequence();
  }

  @Test
  void shouldAssignSequencesInDrainOrderAndWriteThemIntoTheBatch() throws Exception {
    ProducerBatch a = appendAndSend("a", 2, 0);
    ProducerBatch b = appendAndSend("b", 1, 0);
    assertEquals(0, a.baseSequence);
    assertEquals(2, b.baseSequence);
    assertEquals(2, wireSequence(b));
    RecordBatch view = RecordBatch.at(b.bytes(), b.bytes().position());
    assertEquals(100, view.producerId());
    assertTrue(view.isValid(), "CRC covers the producer fields");
  }

  @Test
  void shouldRetryTheFailedBatchAndEveryLaterInFlightBatchInSequenceOrder() throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    ProducerBatch b = appendAndSend("b", 1, 0);
    ProducerBatch c = appendAndSend("c", 1, 0);
    assertEquals(3, state.inFlightCount(TP));

    state.onResult(a, ErrorCode.NOT_LEADER_OR_FOLLOWER, "moved", -1, -1, 10);
    List<Integer> queued = new ArrayList<>();
    acc.forEachQueued(TP, x -> queued.add(x.baseSequence));
    assertEquals(
        List.of(0, 1, 2), queued, "a, b and c are requeued with their sequences, in order");
    assertNull(
        send(TP, 1000), "nothing is resent while the old attempts of b and c are unanswered");

    state.onResult(b, ErrorCode.NONE, "", 5, -1, 11); // the superseded attempt's answer is ignored
    state.onResult(c, ErrorCode.OUT_OF_ORDER_SEQUENCE, "", -1, -1, 12);
    assertTrue(completions.isEmpty(), "old answers complete nothing");

    assertNull(send(TP, 50), "retry backoff");
    ProducerBatch a2 = send(TP, 200);
    ProducerBatch b2 = send(TP, 200);
    ProducerBatch c2 = send(TP, 200);
    assertEquals(List.of(0, 1, 2), List.of(a2.baseSequence, b2.baseSequence, c2.baseSequence));
    state.onResult(a2, ErrorCode.NONE, "", 7, -1, 210);
    state.onResult(b2, ErrorCode.DUPLICATE_SEQUENCE, "", 8, -1, 211);
    state.onResult(c2, ErrorCode.NONE, "", 9, -1, 212);
    assertEquals(List.of("a@7", "b@8", "c@9"), completions);
    assertEquals(0, state.sequencedPending());
  }

  @Test
  void shouldSkipTheRetryBackoffOnceAnotherLeaderIsKnown() throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    state.onResult(a, ErrorCode.NOT_LEADER_OR_FOLLOWER, "moved", -1, -1, 10);
    assertNull(send(TP, 50), "the same leader: the batch waits out its backoff");
    MetadataSnapshot moved = snapshot("t", 2, NODE_2);
    assertFalse(
        acc.ready(md, 50, state).readyNodes().contains(NODE_1), "not ready for the old leader");
    assertTrue(
        acc.ready(moved, 50, state).readyNodes().contains(NODE_2), "ready at once for the new one");
    ProducerBatch a2 = acc.drain(moved, Set.of(NODE_2), 1 << 20, 50, state).get(NODE_2).get(0);
    assertEquals(0, a2.baseSequence, "the same batch, same sequence");
    state.onSent(a2, NODE_2, 50);
    state.onResult(a2, ErrorCode.NONE, "", 3, -1, 60);
    assertEquals(List.of("a@3"), completions);
  }

  @Test
  void shouldFailEveryPendingBatchOfThePartitionOnOutOfOrderSequenceOfTheNextBatch()
      throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    ProducerBatch b = appendAndSend("b", 1, 0);
    append(TP, "c", 1, 0);
    append(TP1, "other", 1, 0);

    state.onResult(a, ErrorCode.OUT_OF_ORDER_SEQUENCE, "gap", -1, -1, 1);
    assertEquals(
        List.of("a!OUT_OF_ORDER_SEQUENCE", "b!OUT_OF_ORDER_SEQUENCE", "c!OUT_OF_ORDER_SEQUENCE"),
        completions);
    assertTrue(state.needsProducerId());
    assertFalse(state.canInitProducerId(), "b's attempt is still unanswered");
    state.onResult(b, ErrorCode.OUT_OF_ORDER_SEQUENCE, "", -1, -1, 2);
    assertTrue(state.canInitProducerId());
    assertNull(send(TP1, 3), "new batches wait for the new producer id");

    state.setProducerId(101, (short) 0);
    ProducerBatch other = send(TP1, 4);
    assertEquals(0, other.baseSequence);
    assertEquals(101, other.producerId);
  }

  @Test
  void shouldGiveLaterBatchesTheSequencesOfADefinitelyRejectedBatch() throws Exception {
    ProducerBatch a = appendAndSend("a", 2, 0);
    ProducerBatch b = appendAndSend("b", 1, 0);
    assertEquals(2, b.baseSequence);

    state.onResult(a, ErrorCode.MESSAGE_TOO_LARGE, "too big", -1, -1, 1);
    assertEquals(List.of("a!MESSAGE_TOO_LARGE", "a!MESSAGE_TOO_LARGE"), completions);
    assertEquals(0, b.baseSequence);
    assertEquals(0, wireSequence(b));
    assertTrue(RecordBatch.at(b.bytes(), b.bytes().position()).isValid(), "CRC recomputed");
    assertFalse(state.needsProducerId());

    state.onResult(b, ErrorCode.OUT_OF_ORDER_SEQUENCE, "", -1, -1, 2); // superseded attempt
    ProducerBatch b2 = send(TP, 500);
    assertEquals(0, b2.baseSequence);
    append(TP, "d", 1, 500);
    state.onResult(b2, ErrorCode.NONE, "", 0, -1, 501);
    ProducerBatch d = send(TP, 502);
    assertEquals(1, d.baseSequence);
  }

  @Test
  void shouldFailTheWholePartitionAndResetWhenARetriedBatchExpires() throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    append(TP, "b", 1, 0);
    state.onResult(a, ErrorCode.REQUEST_TIMED_OUT, "", -1, -1, 1);
    assertTrue(state.mayExpire(TP));
    List<ProducerBatch> expired = acc.expiredBatches(DELIVERY_TIMEOUT_MS, state::mayExpire);
    assertEquals(2, expired.size(), "a and b, in queue order");
    expired.forEach(x -> state.onExpired(x, DELIVERY_TIMEOUT_MS));
    assertEquals(List.of("a!REQUEST_TIMED_OUT", "b!REQUEST_TIMED_OUT"), completions);
    assertTrue(state.needsProducerId());
    assertTrue(state.canInitProducerId());
  }

  @Test
  void shouldGiveUpAmbiguouslyWhenARetriableErrorArrivesAfterTheDeliveryTimeout() throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    state.onResult(a, ErrorCode.NOT_ENOUGH_REPLICAS, "", -1, -1, DELIVERY_TIMEOUT_MS + 1);
    assertEquals(List.of("a!NOT_ENOUGH_REPLICAS"), completions);
    assertTrue(state.resetPending(), "whether a was written is unknown");
  }

  @Test
  void shouldKeepAPartitionOnOneNodeWhileBatchesAreInFlight() throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    assertFalse(
        state.mayDrain(TP, NODE_2, a), "the leader moved but a is still in flight to node 1");
    assertTrue(state.mayDrain(TP, NODE_1, a));
    state.onResult(a, ErrorCode.NONE, "", 0, -1, 1);
    assertTrue(state.mayDrain(TP, NODE_2, a));
  }

  @Test
  void shouldLimitInFlightBatchesPerPartitionToFive() throws Exception {
    for (int i = 0; i < 5; i++) {
      appendAndSend("x" + i, 1, 0);
    }
    append(TP, "sixth", 1, 0);
    assertNull(send(TP, 0));
  }

  @Test
  void shouldRequeueOnlyTheFailedBatchWithoutIdempotence() throws Exception {
    state =
        new ProduceState(
            false,
            5,
            Integer.MAX_VALUE,
            DELIVERY_TIMEOUT_MS,
            ProducerFixtures.noJitterBackoff(),
            acc,
            new ProducerStats());
    ProducerBatch a = appendAndSend("a", 1, 0);
    ProducerBatch b = appendAndSend("b", 1, 0);
    assertFalse(a.hasSequence());
    state.onResult(a, ErrorCode.NOT_LEADER_OR_FOLLOWER, "", -1, -1, 1);
    state.onResult(b, ErrorCode.NONE, "", 4, -1, 2);
    assertEquals(List.of("b@4"), completions);
    ProducerBatch a2 = send(TP, 500);
    state.onResult(a2, ErrorCode.NONE, "", 5, -1, 501);
    assertEquals(List.of("b@4", "a@5"), completions);
  }

  @Test
  void shouldUseLogAppendTimeWhenTheBrokerGivesIt() throws Exception {
    List<CompletableFuture<RecordMetadata>> fs = append(TP, "a", 2, 0);
    ProducerBatch a = send(TP, 0);
    state.onResult(a, ErrorCode.NONE, "", 10, 777, 1);
    assertEquals(new RecordMetadata("t", 0, 11, 777), fs.get(1).join());
  }

  @Test
  void shouldFailNonSequencedBatchOnNonRetriableError() throws Exception {
    state =
        new ProduceState(
            false,
            5,
            0,
            DELIVERY_TIMEOUT_MS,
            ProducerFixtures.noJitterBackoff(),
            acc,
            new ProducerStats());
    List<CompletableFuture<RecordMetadata>> fs = append(TP, "a", 1, 0);
    ProducerBatch a = send(TP, 0);
    state.onResult(a, ErrorCode.NOT_LEADER_OR_FOLLOWER, "", -1, -1, 1);
    CompletionException e = assertThrows(CompletionException.class, fs.get(0)::join);
    SpoolException se = assertInstanceOf(SpoolException.class, e.getCause());
    assertTrue(se.getMessage().contains("gave up after 1 attempts"), se.getMessage());
  }

  // ---------------------------------------------------------------- may the failed batch be in a
  // log?

  private static boolean mayHaveBeenAppended(CompletableFuture<RecordMetadata> f) {
    CompletionException e = assertThrows(CompletionException.class, f::join);
    return assertInstanceOf(ProduceException.class, e.getCause()).mayHaveBeenAppended();
  }

  @Test
  void shouldSayNotAppendedWhenEveryAttemptWasRefusedBeforeAppending() throws Exception {
    List<CompletableFuture<RecordMetadata>> fs = append(TP, "a", 1, 0);
    ProducerBatch a = send(TP, 0);
    state.onResult(a, ErrorCode.NOT_ENOUGH_REPLICAS, "", -1, -1, 1);
    ProducerBatch a2 = send(TP, 500);
    state.onResult(a2, ErrorCode.FENCED_LEADER_EPOCH, "", -1, -1, 501);
    ProducerBatch a3 = send(TP, 1000);
    state.onResult(a3, ErrorCode.NOT_ENOUGH_REPLICAS, "", -1, -1, DELIVERY_TIMEOUT_MS + 1);
    assertFalse(mayHaveBeenAppended(fs.get(0)), "three definite refusals");
  }

  @Test
  void shouldSayMaybeAppendedOnceAnyAttemptTimedOutEvenIfTheLastWasRefused() throws Exception {
    List<CompletableFuture<RecordMetadata>> fs = append(TP, "a", 1, 0);
    ProducerBatch a = send(TP, 0);
    state.onResult(a, ErrorCode.REQUEST_TIMED_OUT, "", -1, -1, 1);
    ProducerBatch a2 = send(TP, 500);
    state.onResult(a2, ErrorCode.NOT_ENOUGH_REPLICAS, "", -1, -1, DELIVERY_TIMEOUT_MS + 1);
    assertTrue(mayHaveBeenAppended(fs.get(0)), "the first copy may be in the log");
  }

  @Test
  void shouldTreatNotLeaderAsMaybeAppendedOnlyWithAcksAll() throws Exception {
    state =
        new ProduceState(
            false,
            false,
            5,
            0,
            DELIVERY_TIMEOUT_MS,
            ProducerFixtures.noJitterBackoff(),
            acc,
            new ProducerStats());
    List<CompletableFuture<RecordMetadata>> acks1 = append(TP, "a", 1, 0);
    state.onResult(send(TP, 0), ErrorCode.NOT_LEADER_OR_FOLLOWER, "", -1, -1, 1);
    assertFalse(
        mayHaveBeenAppended(acks1.get(0)),
        "acks=1: nothing waits for replication, so it was a refusal");

    state =
        new ProduceState(
            false,
            true,
            5,
            0,
            DELIVERY_TIMEOUT_MS,
            ProducerFixtures.noJitterBackoff(),
            acc,
            new ProducerStats());
    List<CompletableFuture<RecordMetadata>> acksAll = append(TP, "b", 1, 2);
    state.onResult(send(TP, 2), ErrorCode.NOT_LEADER_OR_FOLLOWER, "", -1, -1, 3);
    assertTrue(
        mayHaveBeenAppended(acksAll.get(0)),
        "acks=all: a leader that lost leadership after appending says this too");
  }

  @Test
  void shouldSayMaybeAppendedForInFlightBatchesFailedWithAnEarlierOneButNotForQueuedOnes()
      throws Exception {
    List<CompletableFuture<RecordMetadata>> a = append(TP, "a", 1, 0);
    ProducerBatch sentA = send(TP, 0);
    List<CompletableFuture<RecordMetadata>> b = append(TP, "b", 1, 0);
    send(TP, 0);
    List<CompletableFuture<RecordMetadata>> c = append(TP, "c", 1, 0);
    state.onResult(sentA, ErrorCode.OUT_OF_ORDER_SEQUENCE, "gap", -1, -1, 1);
    assertFalse(mayHaveBeenAppended(a.get(0)), "refused");
    assertTrue(mayHaveBeenAppended(b.get(0)), "b's attempt was still unanswered");
    assertFalse(mayHaveBeenAppended(c.get(0)), "c was never sent");
  }

  @Test
  void shouldSayMaybeAppendedForABatchWhoseSupersededAttemptWasIgnored() throws Exception {
    ProducerBatch a = appendAndSend("a", 1, 0);
    List<CompletableFuture<RecordMetadata>> b = append(TP, "b", 1, 0);
    ProducerBatch oldB = send(TP, 0);
    state.onResult(a, ErrorCode.NOT_ENOUGH_REPLICAS, "", -1, -1, 1); // a and b are requeued
    state.onResult(oldB, ErrorCode.NONE, "", 7, -1, 2); // b's old attempt was appended; ignored
    ProducerBatch a2 = send(TP, 500);
    ProducerBatch b2 = send(TP, 500);
    state.onResult(a2, ErrorCode.NOT_ENOUGH_REPLICAS, "", -1, -1, DELIVERY_TIMEOUT_MS + 1);
    assertTrue(b2.isFinished(), "b failed with a");
    assertTrue(
        mayHaveBeenAppended(b.get(0)), "b's first attempt went out and its answer was ignored");
  }

  @Test
  void shouldSayNotAppendedForAnExpiredBatchThatWasNeverSent() throws Exception {
    List<CompletableFuture<RecordMetadata>> fs = append(TP, "a", 1, 0);
    acc.expiredBatches(DELIVERY_TIMEOUT_MS, state::mayExpire)
        .forEach(x -> state.onExpired(x, DELIVERY_TIMEOUT_MS));
    assertFalse(mayHaveBeenAppended(fs.get(0)));
  }
}
