package dev.spool.client.internal.consumer;

import dev.spool.client.ConsumerRecord;
import dev.spool.client.ConsumerRecords;
import dev.spool.client.OffsetAndTimestamp;
import dev.spool.client.internal.metadata.Metadata;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's fetch engine, owned by the application thread (the consumer is single-threaded, as
 * Kafka's). The I/O thread only turns answers into events on a queue; positions, buffers and
 * decisions stay here.
 *
 * <p>Fetching: one fetch in flight per broker (two in the case {@link #anyLagging} explains),
 * carrying every fetchable partition it leads, with the partition's fetch position, the cached
 * leader epoch ({@code current_leader_epoch}) and the epoch of the last fetched batch ({@code
 * last_fetched_epoch}). A partition is fetchable while it has at most one answer buffered, so the
 * next fetch is already on its way while the application works through the previous one (bounded
 * prefetch: at most two answers per partition in memory). New fetches go out in every poll right
 * after records are collected.
 *
 * <p>Errors per partition: leadership errors (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, ...) and
 * lost connections refresh metadata and retry after a backoff (at once when the answer named the
 * new leader); OFFSET_OUT_OF_RANGE resets per {@code auto.offset.reset} (or fails with {@code
 * none}); a diverging epoch moves the position back to the epoch's end offset, logs a warning and
 * counts a truncation; other errors fail the next poll.
 */
public final class Fetcher {
  private static final Logger log = LoggerFactory.getLogger(Fetcher.class);

  /** The fetch settings from the consumer config. */
  public record Settings(
      int fetchMinBytes,
      int fetchMaxWaitMs,
      int fetchMaxBytes,
      int maxPartitionFetchBytes,
      int maxPollRecords,
      PartitionFetchStateReset autoOffsetReset,
      boolean checkCrcs,
      long requestTimeoutMs) {}

  /** {@code auto.offset.reset}: EARLIEST, LATEST or NONE. */
  public enum PartitionFetchStateReset {
    EARLIEST,
    LATEST,
    NONE
  }

  private sealed interface Event permits FetchDone, ResetDone, Wakeup {}

  private record FetchDone(
      int nodeId,
      Map<TopicPartition, Integer> sent,
      List<CompletedFetch> fetched,
      SpoolException error)
      implements Event {}

  private record ResetDone(
      TopicPartition tp, int generation, OffsetAndTimestamp result, SpoolException error)
      implements Event {}

  private record Wakeup(boolean user) implements Event {}

  private final Settings settings;
  private final Metadata metadata;
  private final NetworkClient network;
  private final OffsetLookup offsets;
  private final Clock clock;
  private final ExponentialBackoff retryBackoff;
  private final long defaultApiTimeoutMs;
  private final ConsumerStats stats;
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final AtomicBoolean metadataWakeupQueued = new AtomicBoolean();
  private final Map<TopicPartition, PartitionFetchState> assigned = new LinkedHashMap<>();

  /**
   * Per node, the fetches in flight in send order (answers come in that order): true for a fetch of
   * caught-up partitions only, which the broker may hold in long poll.
   */
  private final Map<Integer, ArrayDeque<Boolean>> fetchesInFlight = new HashMap<>();

  private int collectRotation;
  private boolean wakeupRequested;

  public Fetcher(
      Settings settings,
      Metadata metadata,
      NetworkClient network,
      OffsetLookup offsets,
      Clock clock,
      ExponentialBackoff retryBackoff,
      long defaultApiTimeoutMs,
      ConsumerStats stats) {
    this.settings = settings;
    this.metadata = metadata;
    this.network = network;
    this.offsets = offsets;
    this.clock = clock;
    this.retryBackoff = retryBackoff;
    this.defaultApiTimeoutMs = defaultApiTimeoutMs;
    this.stats = stats;
    metadata.addUpdateListener(
        () -> {
          if (metadataWakeupQueued.compareAndSet(false, true)) {
            events.offer(new Wakeup(false));
          }
        });
  }

  // ------------------------------------------------------------------ assignment and positions

  public void assign(Collection<TopicPartition> partitions) {
    Set<TopicPartition> wanted = new HashSet<>(partitions);
    assigned
        .entrySet()
        .removeIf(
            e -> {
              if (!wanted.contains(e.getKey())) {
                e.getValue().dropBuffered();
                return true;
              }
              return false;
            });
    for (TopicPartition tp : partitions) {
      assigned.computeIfAbsent(
          tp,
          k -> {
            PartitionFetchState s = new PartitionFetchState();
            applyDefaultReset(s);
            return s;
          });
    }
    Set<String> topics = new HashSet<>();
    partitions.forEach(tp -> topics.add(tp.topic()));
    metadata.addTopics(topics, clock.monotonicMs());
  }

  private void applyDefaultReset(PartitionFetchState s) {
    switch (settings.autoOffsetReset()) {
      case EARLIEST -> s.requestReset(PartitionFetchState.Reset.EARLIEST);
      case LATEST -> s.requestReset(PartitionFetchState.Reset.LATEST);
      case NONE -> {
        s.requestReset(null);
        s.pendingError =
            new SpoolException(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                "no position and auto.offset.reset=none: seek first");
      }
    }
  }

  public Set<TopicPartition> assignment() {
    return Set.copyOf(assigned.keySet());
  }

  private PartitionFetchState state(TopicPartition tp) {
    PartitionFetchState s = assigned.get(tp);
    if (s == null) {
      throw new IllegalStateException(tp + " is not assigned to this consumer");
    }
    return s;
  }

  public void seek(TopicPartition tp, long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0: " + offset);
    }
    state(tp).seek(offset, -1);
  }

  /**
   * Moves to a committed position: {@code epoch} is the leader epoch of the record before it, sent
   * as the last fetched epoch so a truncation since the commit is detected.
   */
  public void seek(TopicPartition tp, long offset, int epoch) {
    state(tp).seek(offset, epoch);
  }

  /** A consumed position: the next offset poll returns and the leader epoch it came from. */
  public record Position(long offset, int epoch) {}

  /** The consumed position of every assigned partition that has one (to commit). */
  public Map<TopicPartition, Position> consumedPositions() {
    Map<TopicPartition, Position> out = new HashMap<>();
    assigned.forEach(
        (tp, s) -> {
          if (s.hasPosition()) {
            out.put(tp, new Position(s.position, s.positionEpoch));
          }
        });
    return out;
  }

  public void seekToBeginning(Collection<TopicPartition> tps) {
    tps.forEach(tp -> state(tp).requestReset(PartitionFetchState.Reset.EARLIEST));
  }

  public void seekToEnd(Collection<TopicPartition> tps) {
    tps.forEach(tp -> state(tp).requestReset(PartitionFetchState.Reset.LATEST));
  }

  /**
   * The next offset poll returns for {@code tp}, resolving a pending reset (up to the API timeout).
   */
  public long position(TopicPartition tp) throws InterruptedException {
    PartitionFetchState s = state(tp);
    long deadline = clock.monotonicMs() + defaultApiTimeoutMs;
    while (!s.hasPosition()) {
      if (s.pendingError != null) {
        throw s.pendingError;
      }
      checkTopicErrors();
      startResets();
      long left = deadline - clock.monotonicMs();
      if (left <= 0) {
        throw new SpoolException(
            ErrorCode.REQUEST_TIMED_OUT,
            "position of "
                + tp
                + " not known within default.api.timeout.ms="
                + defaultApiTimeoutMs);
      }
      Event e = events.poll(Math.min(left, 100), TimeUnit.MILLISECONDS);
      if (e != null) {
        handle(e);
        processEvents();
      }
    }
    return s.position;
  }

  /** Offsets for {@code specs} (blocking up to the API timeout). */
  public Map<TopicPartition, OffsetAndTimestamp> lookup(Map<TopicPartition, Long> specs) {
    try {
      return offsets
          .lookup(specs, clock.monotonicMs() + defaultApiTimeoutMs)
          .get(defaultApiTimeoutMs + 1000, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw MetadataRefresher.asSpoolException(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "ListOffsets did not finish in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "interrupted", e);
    }
  }

  // ------------------------------------------------------------------ poll

  /** Records, at most {@code max.poll.records}, waiting up to {@code timeoutMs} for some. */
  public ConsumerRecords poll(long timeoutMs) throws InterruptedException {
    if (assigned.isEmpty()) {
      throw new IllegalStateException("no partitions assigned: call assign first");
    }
    long deadline = clock.monotonicMs() + Math.max(0, timeoutMs);
    while (true) {
      checkTopicErrors();
      processEvents();
      startResets();
      ConsumerRecords records = collect();
      sendFetches();
      if (!records.isEmpty()) {
        return records;
      }
      throwPendingError();
      long now = clock.monotonicMs();
      long left = deadline - now;
      if (left <= 0 || wakeupRequested) {
        wakeupRequested = false;
        return ConsumerRecords.EMPTY;
      }
      Event e = events.poll(Math.min(left, nextRetryDelayMs(now)), TimeUnit.MILLISECONDS);
      if (e != null) {
        handle(e);
      }
    }
  }

  /** Makes a blocked {@link #poll} (or the next one) return early, empty. Any thread. */
  public void wakeup() {
    events.offer(new Wakeup(true));
  }

  private long nextRetryDelayMs(long now) {
    long next = 1000;
    for (PartitionFetchState s : assigned.values()) {
      if (s.retryAfterMs > now) {
        next = Math.min(next, s.retryAfterMs - now);
      }
    }
    return Math.max(1, next);
  }

  private void checkTopicErrors() {
    for (TopicPartition tp : assigned.keySet()) {
      SpoolException e = metadata.topicError(tp.topic());
      if (e != null) {
        throw e;
      }
    }
  }

  private void throwPendingError() {
    for (Map.Entry<TopicPartition, PartitionFetchState> e : assigned.entrySet()) {
      SpoolException err = e.getValue().pendingError;
      if (err != null && e.getValue().buffered.isEmpty()) {
        throw new SpoolException(err.errorCode(), e.getKey() + ": " + err.getMessage(), err);
      }
    }
  }

  private ConsumerRecords collect() {
    if (assigned.isEmpty()) {
      return ConsumerRecords.EMPTY;
    }
    List<TopicPartition> order = new ArrayList<>(assigned.keySet());
    int start = Math.floorMod(collectRotation++, order.size());
    Map<TopicPartition, List<ConsumerRecord>> out = new LinkedHashMap<>();
    int remaining = settings.maxPollRecords();
    for (int i = 0; i < order.size() && remaining > 0; i++) {
      TopicPartition tp = order.get((start + i) % order.size());
      PartitionFetchState s = assigned.get(tp);
      List<ConsumerRecord> list = new ArrayList<>();
      while (list.size() < remaining && !s.buffered.isEmpty() && s.pendingError == null) {
        CompletedFetch cf = s.buffered.peekFirst();
        boolean done;
        try {
          done = cf.drain(remaining - list.size(), s, list, settings.checkCrcs());
        } catch (SpoolException e) {
          // Records decoded before the bad batch are returned; the error comes with the next poll.
          s.pendingError = e;
          s.dropBuffered();
          break;
        }
        if (done) {
          s.buffered.pollFirst();
          cf.release();
        }
      }
      if (!list.isEmpty()) {
        out.put(tp, list);
        remaining -= list.size();
      }
    }
    int n = settings.maxPollRecords() - remaining;
    stats.recordsConsumed(n);
    return n == 0 ? ConsumerRecords.EMPTY : new ConsumerRecords(out);
  }

  // ------------------------------------------------------------------ sending

  private void sendFetches() {
    long now = clock.monotonicMs();
    MetadataSnapshot md = metadata.snapshot();
    Map<Node, List<TopicPartition>> byNode = new LinkedHashMap<>();
    boolean needMetadata = false;
    for (Map.Entry<TopicPartition, PartitionFetchState> e : assigned.entrySet()) {
      PartitionFetchState s = e.getValue();
      if (!s.hasPosition()
          || s.fetchInFlight
          || s.buffered.size() > 1
          || s.pendingError != null
          || now < s.retryAfterMs) {
        continue;
      }
      Node leader = md.leaderFor(e.getKey());
      if (leader == null) {
        needMetadata = true;
        continue;
      }
      byNode.computeIfAbsent(leader, n -> new ArrayList<>()).add(e.getKey());
    }
    if (needMetadata) {
      metadata.requestUpdate();
    }
    byNode.forEach(
        (node, tps) -> {
          ArrayDeque<Boolean> inFlight = fetchesInFlight.get(node.id());
          if (inFlight == null
              || inFlight.isEmpty()
              || (inFlight.size() == 1 && inFlight.peekFirst() && anyLagging(tps))) {
            sendFetch(node, tps, md);
          }
        });
  }

  /**
   * Whether the broker is known to hold records for one of {@code tps} (its fetch position is below
   * the high watermark of its last answer). Such a partition may be fetched while the node's one
   * fetch in flight long-polls caught-up partitions: the broker ends that wait when the newer fetch
   * arrives (answers come in request order), instead of letting the records wait for up to
   * fetch.max.wait.ms. Partitions without known records never do this, so two fetches never take
   * turns waking each other.
   */
  private boolean anyLagging(List<TopicPartition> tps) {
    for (TopicPartition tp : tps) {
      PartitionFetchState s = assigned.get(tp);
      if (s.highWatermark >= 0 && s.fetchPosition < s.highWatermark) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether every one of {@code tps} was caught up at its last answer (the broker may long-poll).
   */
  private boolean allCaughtUp(List<TopicPartition> tps) {
    for (TopicPartition tp : tps) {
      PartitionFetchState s = assigned.get(tp);
      if (s.highWatermark < 0 || s.fetchPosition < s.highWatermark) {
        return false;
      }
    }
    return true;
  }

  private void sendFetch(Node node, List<TopicPartition> tps, MetadataSnapshot md) {
    Map<String, FetchRequest.FetchTopic.Builder> topics = new LinkedHashMap<>();
    Map<TopicPartition, Integer> sent = new LinkedHashMap<>();
    Map<TopicPartition, Long> fetchOffsets = new HashMap<>();
    for (TopicPartition tp : tps) {
      PartitionFetchState s = assigned.get(tp);
      PartitionInfo p = md.partition(tp);
      topics
          .computeIfAbsent(tp.topic(), t -> FetchRequest.FetchTopic.newBuilder().setName(t))
          .addPartitions(
              FetchRequest.FetchPartition.newBuilder()
                  .setPartition(tp.partition())
                  .setFetchOffset(s.fetchPosition)
                  .setCurrentLeaderEpoch(p == null ? -1 : p.leaderEpoch())
                  .setLastFetchedEpoch(s.fetchEpoch)
                  .setLogStartOffset(-1)
                  .setPartitionMaxBytes(settings.maxPartitionFetchBytes()));
      s.fetchInFlight = true;
      sent.put(tp, s.generation);
      fetchOffsets.put(tp, s.fetchPosition);
    }
    FetchRequest.Builder req =
        FetchRequest.newBuilder()
            .setReplicaId(-1)
            .setBrokerEpoch(-1)
            .setMaxWaitMs(settings.fetchMaxWaitMs())
            .setMinBytes(settings.fetchMinBytes())
            .setMaxBytes(settings.fetchMaxBytes());
    topics.values().forEach(req::addTopics);
    fetchesInFlight.computeIfAbsent(node.id(), n -> new ArrayDeque<>()).addLast(allCaughtUp(tps));
    network
        .send(
            node,
            ApiKey.FETCH,
            req.build(),
            settings.requestTimeoutMs() + settings.fetchMaxWaitMs())
        .whenComplete(
            (response, error) -> events.offer(split(node, sent, fetchOffsets, response, error)));
  }

  /**
   * On the I/O thread: cuts the answer into per-partition pieces (each holding its own buffer
   * slice).
   */
  private FetchDone split(
      Node node,
      Map<TopicPartition, Integer> sent,
      Map<TopicPartition, Long> fetchOffsets,
      ClientResponse response,
      Throwable error) {
    if (error != null) {
      return new FetchDone(node.id(), sent, List.of(), MetadataRefresher.asSpoolException(error));
    }
    List<CompletedFetch> fetched = new ArrayList<>();
    try (ClientResponse r = response) {
      stats.fetch(r.latencyNs());
      FetchResponse body = r.body(FetchResponse.class);
      if (body.getErrorCode() != ErrorCode.NONE) {
        return new FetchDone(
            node.id(),
            sent,
            List.of(),
            new SpoolException(body.getErrorCode(), body.getErrorMessage()));
      }
      ByteBuf data = r.recordData();
      int pos = data.readerIndex();
      for (FetchResponse.TopicResponse t : body.getTopicsList()) {
        for (FetchResponse.PartitionResponse p : t.getPartitionsList()) {
          TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
          int size = p.getRecordsSize();
          if (size < 0 || pos + size > data.writerIndex()) {
            fetched.forEach(CompletedFetch::release);
            return new FetchDone(
                node.id(),
                sent,
                List.of(),
                new SpoolException(
                    ErrorCode.CORRUPT_MESSAGE,
                    "fetch answer from " + node + " declares more record bytes than it carries"));
          }
          ByteBuf slice = size == 0 ? null : data.retainedSlice(pos, size);
          pos += size;
          Integer generation = sent.get(tp);
          if (generation == null) {
            if (slice != null) {
              slice.release();
            }
            continue;
          }
          stats.bytesFetched(size);
          fetched.add(new CompletedFetch(tp, generation, fetchOffsets.get(tp), p, slice));
        }
      }
    }
    return new FetchDone(node.id(), sent, fetched, null);
  }

  // ------------------------------------------------------------------ events

  private void processEvents() {
    Event e;
    while ((e = events.poll()) != null) {
      handle(e);
    }
  }

  private void handle(Event e) {
    if (e instanceof FetchDone f) {
      onFetchDone(f);
    } else if (e instanceof ResetDone r) {
      onResetDone(r);
    } else if (e instanceof Wakeup w) {
      if (w.user()) {
        wakeupRequested = true;
      } else {
        metadataWakeupQueued.set(false);
      }
    }
  }

  private void onFetchDone(FetchDone f) {
    ArrayDeque<Boolean> inFlight = fetchesInFlight.get(f.nodeId());
    if (inFlight != null) {
      inFlight.pollFirst();
    }
    long now = clock.monotonicMs();
    for (Map.Entry<TopicPartition, Integer> e : f.sent().entrySet()) {
      PartitionFetchState s = assigned.get(e.getKey());
      if (s != null && s.generation == e.getValue()) {
        s.fetchInFlight = false;
        if (f.error() != null && f.error().retriable()) {
          backOff(s, now);
        } else if (f.error() != null) {
          s.pendingError = f.error(); // e.g. UNSUPPORTED_VERSION: retrying cannot help
        }
      }
    }
    if (f.error() != null) {
      log.debug("fetch from node {} failed: {}", f.nodeId(), f.error().getMessage());
      if (f.error().refreshesMetadata() || !f.error().retriable()) {
        metadata.requestUpdate();
      }
      return;
    }
    boolean refresh = false;
    for (CompletedFetch cf : f.fetched()) {
      PartitionFetchState s = assigned.get(cf.topicPartition);
      if (s == null || s.generation != cf.generation || cf.fetchOffset != s.fetchPosition) {
        cf.release();
        continue;
      }
      refresh |= onPartitionAnswer(cf, s, now);
    }
    if (refresh) {
      metadata.requestUpdate();
    }
  }

  /** Applies one partition's answer; returns true when metadata should be refreshed. */
  private boolean onPartitionAnswer(CompletedFetch cf, PartitionFetchState s, long now) {
    if (cf.divergingEpoch != null) {
      cf.release();
      onDiverged(cf, s);
      return false;
    }
    if (cf.error == ErrorCode.NONE) {
      s.failures = 0;
      s.highWatermark = cf.highWatermark;
      if (cf.hasData() && cf.scan()) {
        s.fetchPosition = cf.nextFetchOffset();
        s.fetchEpoch = cf.lastBatchEpoch() >= 0 ? cf.lastBatchEpoch() : s.fetchEpoch;
        s.buffered.addLast(cf);
      } else {
        cf.release();
      }
      return false;
    }
    cf.release();
    if (cf.error == ErrorCode.OFFSET_OUT_OF_RANGE) {
      switch (settings.autoOffsetReset()) {
        case EARLIEST -> s.requestReset(PartitionFetchState.Reset.EARLIEST);
        case LATEST -> s.requestReset(PartitionFetchState.Reset.LATEST);
        case NONE ->
            s.pendingError =
                new SpoolException(
                    ErrorCode.OFFSET_OUT_OF_RANGE,
                    "fetch offset "
                        + cf.fetchOffset
                        + " is out of range and auto.offset.reset=none");
      }
      log.info(
          "{} fetch offset {} out of range; auto.offset.reset={}",
          cf.topicPartition,
          cf.fetchOffset,
          settings.autoOffsetReset());
      return false;
    }
    if (cf.currentLeader != null) {
      metadata.updateLeader(cf.topicPartition, cf.currentLeader);
    }
    if (Errors.retriable(cf.error)) {
      if (cf.currentLeader == null || cf.currentLeader.getLeaderId() < 0) {
        backOff(s, now);
      }
      return Errors.refreshesMetadata(cf.error);
    }
    s.pendingError = new SpoolException(cf.error, cf.errorMessage);
    return false;
  }

  private void onDiverged(CompletedFetch cf, PartitionFetchState s) {
    long end = cf.divergingEpoch.getEndOffset();
    int epoch = cf.divergingEpoch.getEpoch();
    long newPosition = s.position < 0 ? end : Math.min(s.position, end);
    int newEpoch = newPosition == end ? epoch : s.positionEpoch;
    stats.truncation();
    log.warn(
        "{} was truncated under this consumer: leader epoch {} ends at offset {}, the consumer was at {}"
            + " (fetching at {}); moving to {}{}",
        cf.topicPartition,
        epoch,
        end,
        s.position,
        cf.fetchOffset,
        newPosition,
        s.position > end
            ? "; records from "
                + end
                + " to "
                + (s.position - 1)
                + " that were already returned are no longer in the log"
            : "");
    s.seek(Math.max(0, newPosition), newEpoch);
  }

  private void backOff(PartitionFetchState s, long now) {
    s.retryAfterMs = now + retryBackoff.backoffMs(s.failures++);
  }

  // ------------------------------------------------------------------ resets

  private void startResets() {
    long now = clock.monotonicMs();
    Map<TopicPartition, Long> specs = new HashMap<>();
    Map<TopicPartition, Integer> gens = new HashMap<>();
    for (Map.Entry<TopicPartition, PartitionFetchState> e : assigned.entrySet()) {
      PartitionFetchState s = e.getValue();
      if (s.reset != null && !s.resetInFlight && now >= s.retryAfterMs) {
        s.resetInFlight = true;
        specs.put(
            e.getKey(),
            s.reset == PartitionFetchState.Reset.EARLIEST
                ? OffsetLookup.EARLIEST
                : OffsetLookup.LATEST);
        gens.put(e.getKey(), s.generation);
      }
    }
    if (specs.isEmpty()) {
      return;
    }
    offsets
        .lookup(specs, now + defaultApiTimeoutMs)
        .whenComplete(
            (result, error) -> {
              for (TopicPartition tp : specs.keySet()) {
                if (error != null) {
                  events.offer(
                      new ResetDone(
                          tp, gens.get(tp), null, MetadataRefresher.asSpoolException(error)));
                } else {
                  events.offer(new ResetDone(tp, gens.get(tp), result.get(tp), null));
                }
              }
            });
  }

  private void onResetDone(ResetDone r) {
    PartitionFetchState s = assigned.get(r.tp());
    if (s == null || s.generation != r.generation()) {
      return;
    }
    s.resetInFlight = false;
    if (r.error() != null) {
      if (r.error().retriable() || r.error().errorCode() == ErrorCode.REQUEST_TIMED_OUT) {
        backOff(s, clock.monotonicMs());
      } else {
        s.pendingError = r.error();
      }
      return;
    }
    long offset = r.result() == null ? 0 : r.result().offset();
    s.seek(offset, -1);
    log.debug("{} position reset to {}", r.tp(), offset);
  }

  /** Releases every buffered answer (on close). */
  public void close() {
    assigned.values().forEach(PartitionFetchState::dropBuffered);
    Event e;
    while ((e = events.poll()) != null) {
      if (e instanceof FetchDone f) {
        f.fetched().forEach(CompletedFetch::release);
      }
    }
  }

  /** The last high watermark a fetch reported for {@code tp}, -1 before the first. */
  public long highWatermark(TopicPartition tp) {
    return state(tp).highWatermark;
  }
}
