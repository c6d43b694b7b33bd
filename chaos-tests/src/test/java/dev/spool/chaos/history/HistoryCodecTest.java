package dev.spool.chaos.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.ProduceException;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class HistoryCodecTest {
  private static final TopicPartition TP = new TopicPartition("orders-eu", 3);

  @TempDir Path dir;

  private static List<HistoryEntry> sample(HistorySink sink, ManualClock clock) {
    List<HistoryEntry> out = new ArrayList<>();
    HistorySink both =
        e -> {
          out.add(e);
          sink.append(e);
        };
    HistoryRecorder rec = new HistoryRecorder(clock, both);
    Op send = rec.invokeSend(0, TP, 42);
    clock.advanceMs(3);
    rec.sendOk(send, 17);
    Op assign = rec.invokeAssign(1, List.of(TP), true);
    rec.ok(assign);
    Op poll = rec.invokePoll(1);
    clock.advanceMs(2);
    rec.pollOk(poll, Map.of(TP, List.of(new OffsetValue(17, 42))));
    Op lost = rec.invokeSend(0, TP, 43);
    rec.info(lost, "REQUEST_TIMED_OUT");
    rec.replicaSnapshot(2, TP, 18, 0, List.of(new BatchSummary(17, 17, 4, 0xCAFEBABEL)));
    rec.epochObservation(2, TP, 1, 4);
    return out;
  }

  @Test
  void shouldRoundTripEveryEntryKindThroughJsonLines() throws IOException {
    Path file = dir.resolve("history.jsonl");
    List<HistoryEntry> written;
    try (HistoryWriter w = HistoryWriter.create(file)) {
      written = sample(w, new ManualClock(0));
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(written.size(), lines.size());
    assertTrue(lines.get(1).contains("\"partition\":\"orders-eu-3\""), lines.get(1));
    assertTrue(lines.get(5).contains("\"reads\":{\"orders-eu-3\":[[17,42]]}"), lines.get(5));
    assertTrue(lines.get(0).startsWith("{\"kind\":\"op\""), lines.get(0));

    HistoryReader.Result r = HistoryReader.read(file);
    assertNull(r.tornTail());
    assertEquals(written, r.history().entries());
  }

  @Test
  void shouldKeepEveryCompleteLineOfACrashedRun() throws IOException {
    Path file = dir.resolve("history.jsonl");
    HistoryWriter w = HistoryWriter.create(file);
    List<HistoryEntry> written = sample(w, new ManualClock(0));
    // No close(): the run "crashed". Then a half-written line, as a kill -9 mid-write leaves.
    Files.writeString(
        file,
        "{\"kind\":\"op\",\"index\":8,\"ti",
        StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);

    HistoryReader.Result r = HistoryReader.read(file);
    assertEquals("{\"kind\":\"op\",\"index\":8,\"ti", r.tornTail());
    assertEquals(written, r.history().entries());
  }

  @Test
  void shouldRejectACorruptLineInTheMiddle() throws IOException {
    Path file = dir.resolve("history.jsonl");
    try (HistoryWriter w = HistoryWriter.create(file)) {
      sample(w, new ManualClock(0));
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(file));
    lines.set(2, "garbage");
    Files.write(file, lines);
    IOException e = assertThrows(IOException.class, () -> HistoryReader.read(file));
    assertTrue(e.getMessage().contains(":3:"), e.getMessage());
  }

  @Test
  void shouldStampTimesSinceStartAndPairCompletionsWithInvocations() {
    ManualClock clock = new ManualClock(1_700_000_000_000L);
    clock.advanceMs(500); // before the run starts: not counted
    List<HistoryEntry> entries = sample(e -> {}, clock);
    History h = History.of(entries);
    assertEquals(0, h.op(0).timeNs());
    assertEquals(3_000_000L, h.op(1).timeNs());
    assertEquals(3_000_000L, h.latencyNs(h.op(1)));
    assertEquals(h.op(4), h.invocationOf(h.op(5)));
    assertEquals(2_000_000L, h.latencyNs(h.op(5)));
  }

  @Test
  void shouldMoveWorkerToANewProcessAfterAnIndeterminateOp() {
    HistoryRecorder rec = new HistoryRecorder(new ManualClock(0), e -> {});
    long before = rec.processOf(0);
    Op send = rec.invokeSend(0, TP, 1);
    Op info = rec.info(send, "connection reset");
    assertEquals(before, info.process(), "the completion belongs to the crashed process");
    long after = rec.processOf(0);
    assertNotEquals(before, after);
    assertEquals(after, rec.invokePoll(0).process());
    assertNotEquals(rec.processOf(1), after, "process numbers are never reused");
  }

  @Test
  void shouldRefuseAnOffsetOnAnythingButAnOkSend() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Op(0, 0, 0, 0, OpType.INFO, OpFunction.SEND, TP, 1L, 5L, null, null, null, "x"));
  }

  @Test
  void shouldClassifyOnlyProvablyRejectedSendsAsFailed() {
    assertEquals(OpType.FAIL, SendErrors.classify("NOT_ENOUGH_REPLICAS", false));
    assertEquals(
        OpType.INFO,
        SendErrors.classify("NOT_LEADER_OR_FOLLOWER", false),
        "with acks=all a leader losing leadership says this after appending");
    assertEquals(OpType.FAIL, SendErrors.classify(SendErrors.NOT_SENT, false));
    assertEquals(
        OpType.INFO,
        SendErrors.classify("NOT_ENOUGH_REPLICAS", true),
        "an earlier attempt may have landed");
    assertEquals(OpType.INFO, SendErrors.classify("REQUEST_TIMED_OUT", false));
    assertEquals(OpType.INFO, SendErrors.classify("DUPLICATE_SEQUENCE", false));
    assertFalse(SendErrors.isDefiniteFailure("SOMETHING_NEW", false));
  }

  @Test
  void shouldClassifyAFailedSendByWhatTheClientKnowsOfItsAttempts() {
    SpoolException refused = new SpoolException(ErrorCode.NOT_ENOUGH_REPLICAS, "isr too small");
    assertEquals(
        OpType.FAIL,
        SendErrors.classify(new ExecutionException(new ProduceException(refused, false))));
    assertEquals(
        OpType.INFO,
        SendErrors.classify(new CompletionException(new ProduceException(refused, true))));
    assertEquals(
        OpType.INFO,
        SendErrors.classify(refused),
        "a bare SpoolException says nothing about attempts");
    assertEquals(OpType.INFO, SendErrors.classify(new TimeoutException()), "our own wait ran out");
    assertEquals(
        "NOT_ENOUGH_REPLICAS",
        SendErrors.describe(new ExecutionException(new ProduceException(refused, false))));
  }
}
