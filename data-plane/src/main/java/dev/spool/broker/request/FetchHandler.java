package dev.spool.broker.request;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.NewerRequestSignal;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.broker.quota.RequestMeter;
import dev.spool.broker.replication.FetchParams;
import dev.spool.broker.replication.FetchWaiters;
import dev.spool.broker.replication.LeaderReplicationThrottle;
import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.PartitionFetchResult;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.EpochEndOffset;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import io.netty.channel.DefaultFileRegion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fetch, for consumers (replica_id -1: up to the high watermark) and followers (replica_id ≥ 0: up
 * to the log end; the follower must be a replica, and its broker epoch must be its current
 * registration in this broker's image, else STALE_BROKER_EPOCH for the whole request). Per
 * partition the owner thread checks leadership, current_leader_epoch and last_fetched_epoch
 * (diverging_epoch, for consumers too so they detect truncation) and reads file slices; the
 * partitions of one owner thread are read in one task ({@code ReplicaManager.fetchPartitions}).
 *
 * <p>Long poll: when the first read has fewer than min_bytes, no errors and max_wait_ms allows, the
 * fetch waits on {@link FetchWaiters} until an append (followers) or a high watermark move
 * (consumers) on one of its partitions, then reads again; it answers when it has enough or at the
 * deadline. Followers learn the high watermark from each answer; a move alone does not end their
 * wait (see FetchWaiters).
 *
 * <p>A newer request on the same connection ends the wait early ({@link NewerRequestSignal}):
 * answers go out in request order, so waiting would hold the newer one back. A consumer uses this
 * to fetch a partition with data while its fetch of caught-up partitions long-polls.
 *
 * <p>Leader-side replication throttle ({@link LeaderReplicationThrottle}, Kafka's {@code
 * shouldLeaderThrottle}): in a follower fetch, a partition the follower is an adding replica of and
 * not in the ISR is answered without records while the broker's leader quota is in debt, and its
 * bytes do not count towards min_bytes; such a fetch long-polls as usual, and is also woken when
 * the quota has refilled (if that comes before its deadline), so it neither spins nor sleeps past
 * the moment it may send. The bytes sent for throttled partitions are recorded in the quota when
 * the answer is built.
 *
 * <p>Limits: partition_max_bytes per partition and max_bytes per response, with at least one whole
 * batch from the first partition that has data (so a batch bigger than the limits still makes
 * progress). A partition that would exceed the response limit is answered without records.
 *
 * <p>Records go out as {@link DefaultFileRegion}s straight from the segment files (sendfile). A
 * DefaultFileRegion built on a FileChannel closes that channel in {@code deallocate()} when its
 * reference count reaches zero; the channel belongs to the segment, which other reads and the
 * appender keep using. So each region is retained once more than the connection releases: its count
 * never reaches zero, {@code deallocate()} never runs, and the garbage collector reclaims the
 * region object. The segment keeps its channel open for file.delete.delay.ms after it leaves the
 * log, so a region written late still reads valid bytes.
 */
public final class FetchHandler implements RequestHandler {
  private final BrokerContext ctx;

  public FetchHandler(BrokerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    FetchRequest req = request.frame().parseBody(FetchRequest.parser());
    String clientId = request.header().getClientId();
    return fetch(req, request.newerRequest(), request.caller())
        .thenApply(
            r ->
                r.throttled(
                    ctx.fetchThrottleMs(req.getReplicaId(), request.caller(), clientId, r)));
  }

  /**
   * Serves one fetch: the answer's body and, per partition with data (records_size &gt; 0, in body
   * order), a file region over the segment file. Both listeners fetch through here.
   */
  public CompletableFuture<BrokerResponse> fetch(
      FetchRequest req, NewerRequestSignal newer, Caller caller) {
    if (req.getReplicaId() >= 0 && !Authz.cluster(ctx, caller, AclOperation.CLUSTER_ACTION)) {
      // A follower fetch moves the high watermark and the ISR: only a broker principal may send
      // one, so a client cannot pose as a replica (docs/security.md#acls).
      return CompletableFuture.completedFuture(
          BrokerResponse.of(
              FetchResponse.newBuilder()
                  .setErrorCode(Authz.CLUSTER)
                  .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.CLUSTER_ACTION))
                  .build()));
    }
    if (req.getReplicaId() >= 0) {
      // Replication is never a client's request time (docs/security.md#quotas).
      RequestMeter.exemptCurrent();
      BrokerRegistration b = ctx.image().broker(req.getReplicaId());
      if (b == null || b.epoch() != req.getBrokerEpoch()) {
        return CompletableFuture.completedFuture(
            BrokerResponse.of(
                FetchResponse.newBuilder()
                    .setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
                    .setErrorMessage(
                        "broker "
                            + req.getReplicaId()
                            + " fetched with broker epoch "
                            + req.getBrokerEpoch()
                            + " but its registration here has epoch "
                            + (b == null ? "(none)" : String.valueOf(b.epoch())))
                    .build()));
      }
    }
    return new FetchOperation(req, newer, caller).start();
  }

  /**
   * One read of a fetch's partitions: results in request order; {@code throttled} marks the
   * partitions under the leader-side throttle (null when none is), {@code withheldMs} is how long
   * the quota stays in debt when one of them was answered without its records (0: none was).
   */
  private record Reads(List<PartitionFetchResult> results, boolean[] throttled, long withheldMs) {}

  /** One entry of the request, in request order. */
  private record Item(
      String topic, int partition, TopicPartition tp, FetchRequest.FetchPartition req) {}

  /** One fetch request through its reads and waits. */
  private final class FetchOperation {
    private final FetchRequest req;
    private final boolean follower;
    private final List<Item> items = new ArrayList<>();
    private final List<TopicPartition> tps = new ArrayList<>();
    private final CompletableFuture<BrokerResponse> result = new CompletableFuture<>();
    private final long deadlineNs;
    private final NewerRequestSignal newerRequest;
    // Topics the caller may not READ (a consumer fetch); their partitions are refused.
    private final Set<String> unreadable = new HashSet<>();
    private final Caller caller;

    FetchOperation(FetchRequest req, NewerRequestSignal newerRequest, Caller caller) {
      this.req = req;
      this.caller = caller;
      this.newerRequest = newerRequest;
      this.follower = req.getReplicaId() >= 0;
      int waitMs = Math.max(0, Math.min(req.getMaxWaitMs(), ctx.fetchMaxWaitMs()));
      this.deadlineNs = ctx.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
      for (FetchRequest.FetchTopic t : req.getTopicsList()) {
        for (FetchRequest.FetchPartition p : t.getPartitionsList()) {
          TopicPartition tp = BrokerContext.tpOrNull(t.getName(), p.getPartition());
          items.add(new Item(t.getName(), p.getPartition(), tp, p));
          if (!follower
              && !unreadable.contains(t.getName())
              && !Authz.topic(ctx, caller, AclOperation.READ, t.getName())) {
            unreadable.add(t.getName());
          }
          if (tp != null) {
            tps.add(tp);
          }
        }
      }
    }

    CompletableFuture<BrokerResponse> start() {
      attempt();
      return result;
    }

    private void attempt() {
      readAll()
          .whenComplete(
              (reads, err) -> {
                if (err != null) {
                  result.completeExceptionally(err);
                  return;
                }
                long remainingNs = deadlineNs - ctx.clock().nanoTime();
                if (remainingNs <= 0
                    || newerRequest.fired()
                    || satisfied(reads.results())
                    || !waitFor(remainingNs, reads)) {
                  result.complete(respond(reads));
                }
              });
    }

    private CompletableFuture<Reads> readAll() {
      MetadataImage image = ctx.image();
      PartitionFetchResult[] results = new PartitionFetchResult[items.size()];
      List<TopicPartition> toRead = new ArrayList<>(items.size());
      List<FetchParams> params = new ArrayList<>(items.size());
      int[] index = new int[items.size()];
      int responseMax = req.getMaxBytes() > 0 ? req.getMaxBytes() : Integer.MAX_VALUE;
      Set<TopicPartition> seen = new HashSet<>();
      for (int i = 0; i < items.size(); i++) {
        Item it = items.get(i);
        if (it.tp() != null && !seen.add(it.tp())) {
          // Read once: a partition named many times would otherwise be sent many times over.
          results[i] =
              PartitionFetchResult.error(
                  ErrorCode.INVALID_REQUEST,
                  it.tp() + " appears more than once in the fetch; answered once",
                  null);
          continue;
        }
        if (unreadable.contains(it.topic())) {
          results[i] =
              PartitionFetchResult.error(
                  Authz.TOPIC, Authz.topicRefusal(caller, AclOperation.READ, it.topic()), null);
          continue;
        }
        if (it.tp() == null || image.partition(it.tp()) == null) {
          results[i] =
              PartitionFetchResult.error(
                  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                  "partition " + it.topic() + "-" + it.partition() + " does not exist",
                  null);
          continue;
        }
        FetchRequest.FetchPartition p = it.req();
        int max =
            Math.min(
                p.getPartitionMaxBytes() > 0 ? p.getPartitionMaxBytes() : responseMax, responseMax);
        index[toRead.size()] = i;
        toRead.add(it.tp());
        params.add(
            new FetchParams(
                req.getReplicaId(),
                p.getFetchOffset(),
                p.getCurrentLeaderEpoch(),
                p.getLastFetchedEpoch(),
                max,
                true));
      }
      return ctx.replicas()
          .fetchPartitions(toRead, params)
          .thenApply(
              read -> {
                for (int j = 0; j < read.length; j++) {
                  results[index[j]] = read[j];
                }
                return throttle(image, results);
              });
    }

    /**
     * Applies the leader-side throttle to one read (Kafka's shouldLeaderThrottle): the throttled
     * partitions of a follower fetch lose their records while the quota is in debt. Nothing is
     * allocated or asked of the quota for a consumer fetch or without a throttle.
     */
    private Reads throttle(MetadataImage image, PartitionFetchResult[] results) {
      LeaderReplicationThrottle quota = ctx.replicas().leaderThrottle();
      if (!follower || !quota.isActive()) {
        return new Reads(Arrays.asList(results), null, 0);
      }
      boolean[] throttled = null;
      long withheldMs = 0;
      long delayMs = -1; // asked once per read, when a throttled partition has records
      for (int i = 0; i < results.length; i++) {
        Item it = items.get(i);
        if (it.tp() == null || !quota.throttles(image, it.tp(), req.getReplicaId())) {
          continue;
        }
        if (throttled == null) {
          throttled = new boolean[results.length];
        }
        throttled[i] = true;
        if (results[i].slice() != null) {
          if (delayMs < 0) {
            delayMs = quota.delayMs();
          }
          if (delayMs > 0) {
            results[i] = results[i].withoutRecords();
            withheldMs = delayMs;
          }
        }
      }
      return new Reads(Arrays.asList(results), throttled, withheldMs);
    }

    private boolean satisfied(List<PartitionFetchResult> results) {
      long bytes = 0;
      for (PartitionFetchResult r : results) {
        if (r.error() != ErrorCode.NONE || r.divergingEpoch() != null) {
          return true;
        }
        bytes += r.sizeInBytes();
      }
      return items.isEmpty() || req.getMinBytes() <= 0 || bytes >= req.getMinBytes();
    }

    /** Registers a wait; false when the wait could not be registered (answer now). */
    private boolean waitFor(long remainingNs, Reads seen) {
      FetchWaiters.Waiter[] holder = new FetchWaiters.Waiter[1];
      holder[0] = new FetchWaiters.Waiter(follower, this::attempt);
      FetchWaiters waiters = ctx.replicas().fetchWaiters();
      if (!waiters.watch(tps, holder[0])) {
        return false;
      }
      ctx.timer()
          .newTimeout(
              t -> {
                if (holder[0].cancel()) {
                  attempt(); // past the deadline now: answers whatever it reads
                }
              },
              remainingNs,
              TimeUnit.NANOSECONDS);
      // A newer request on the connection waits behind this answer: stop waiting (see
      // NewerRequestSignal); the attempt it triggers sees the signal and answers.
      newerRequest.onNewerRequest(() -> holder[0].fire());
      if (seen.withheldMs() > 0) {
        // Records were held back by the leader-side throttle: read again once it has refilled,
        // rather than only at the deadline (the deadline still bounds the wait).
        long refillNs = TimeUnit.MILLISECONDS.toNanos(seen.withheldMs());
        if (refillNs < remainingNs) {
          ctx.timer()
              .newTimeout(t -> holder[0].fire(), Math.max(1, refillNs), TimeUnit.NANOSECONDS);
        }
      }
      // Something may have changed between the read and the registration: look once more.
      if (changedSince(seen.results())) {
        holder[0].fire();
      }
      return true;
    }

    private boolean changedSince(List<PartitionFetchResult> seen) {
      int i = 0;
      for (Item it : items) {
        PartitionFetchResult r = seen.get(i++);
        if (it.tp() == null) {
          continue;
        }
        Partition p = ctx.replicas().partition(it.tp()).orElse(null);
        if (p == null) {
          continue;
        }
        if (follower
            ? p.log().logEndOffset() != r.logEndOffset()
            : p.log().highWatermark() != r.highWatermark()) {
          return true;
        }
      }
      return false;
    }

    private BrokerResponse respond(Reads reads) {
      List<PartitionFetchResult> results = reads.results();
      boolean[] throttled = reads.throttled();
      long throttledBytes = 0;
      FetchResponse.Builder b = FetchResponse.newBuilder();
      List<Object> parts = new ArrayList<>();
      long remaining = req.getMaxBytes() > 0 ? req.getMaxBytes() : Long.MAX_VALUE;
      long total = 0;
      boolean anyData = false;
      FetchResponse.TopicResponse.Builder current = null;
      for (int i = 0; i < items.size(); i++) {
        Item it = items.get(i);
        PartitionFetchResult r = results.get(i);
        if (current == null || !current.getName().equals(it.topic())) {
          if (current != null) {
            b.addTopics(current);
          }
          current = FetchResponse.TopicResponse.newBuilder().setName(it.topic());
        }
        FetchResponse.PartitionResponse.Builder pr =
            FetchResponse.PartitionResponse.newBuilder()
                .setPartition(it.partition())
                .setErrorCode(r.error())
                .setErrorMessage(r.message())
                .setHighWatermark(r.highWatermark())
                .setLogStartOffset(r.logStartOffset())
                .setLogEndOffset(follower ? r.logEndOffset() : -1L);
        if (r.divergingEpoch() != null) {
          pr.setDivergingEpoch(
              EpochEndOffset.newBuilder()
                  .setEpoch(r.divergingEpoch().epoch())
                  .setEndOffset(r.divergingEpoch().endOffset()));
        }
        if ((r.error() == ErrorCode.NOT_LEADER_OR_FOLLOWER
                || r.error() == ErrorCode.FENCED_LEADER_EPOCH)
            && it.tp() != null) {
          pr.setCurrentLeader(ctx.hint(it.tp(), r.hint()));
        }
        if (r.error() != ErrorCode.NONE) {
          ctx.metrics().error("Fetch", r.error().name());
        }
        FileSlice s = r.slice();
        if (s != null && s.sizeInBytes() > 0 && (!anyData || s.sizeInBytes() <= remaining)) {
          if (!follower) {
            ctx.metrics().consumed(it.topic(), s.sizeInBytes(), s.offsets());
          }
          if (throttled != null && throttled[i]) {
            throttledBytes += s.sizeInBytes();
          }
          anyData = true;
          remaining -= s.sizeInBytes();
          total += s.sizeInBytes();
          pr.setRecordsSize(s.sizeInBytes());
          // One extra reference: see the class comment (deallocate() would close the segment's
          // channel).
          parts.add(new DefaultFileRegion(s.channel(), s.position(), s.sizeInBytes()).retain());
        }
        current.addPartitions(pr);
      }
      if (current != null) {
        b.addTopics(current);
      }
      if (throttledBytes > 0) {
        ctx.replicas().leaderThrottle().record(throttledBytes);
      }
      return BrokerResponse.withRecords(b.build(), parts, total);
    }
  }
}
