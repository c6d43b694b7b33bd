package dev.spool.client.testing;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.Endpoint;
import dev.spool.protocol.message.EpochEndOffset;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.record.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-JVM cluster of {@link FakeBroker}s sharing one in-memory model: topics with partitions
 * whose leader and leader epoch a test can move, {@link InMemoryPartitionLog}s with idempotent
 * deduplication, Metadata / Produce / Fetch (long poll) / ListOffsets / InitProducerId /
 * CreateTopics / DeleteTopics handlers that behave like a Spool broker would, and hooks to inject
 * produce errors. Non-leaders answer NOT_LEADER_OR_FOLLOWER with a KIP-951 leader hint.
 */
public final class FakeCluster implements AutoCloseable {
  /** What a produce fault hook decides for one partition's batch. */
  public enum Fault {
    NONE,
    ERROR_BEFORE_APPEND,
    ERROR_AFTER_APPEND,
    CLOSE_CONNECTION
  }

  /** Decides a fault for a produce of {@code tp}; {@code error} is used for the two error kinds. */
  public interface ProduceHook {
    Fault decide(TopicPartition tp, int brokerId, byte[] batch);

    default ErrorCode error() {
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    }
  }

  private static final class PartitionState {
    volatile int leader;
    volatile int epoch;
    final InMemoryPartitionLog log = new InMemoryPartitionLog();
  }

  private final List<FakeBroker> brokers = new ArrayList<>();
  private final Map<String, List<PartitionState>> topics = new ConcurrentHashMap<>();
  private final Map<String, String> topicIds = new ConcurrentHashMap<>();
  private final AtomicLong nextProducerId = new AtomicLong(1000);
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fake-cluster-timer");
            t.setDaemon(true);
            return t;
          });
  private volatile ProduceHook produceHook = (tp, b, batch) -> Fault.NONE;
  private volatile boolean leaderHints = true;

  public static FakeCluster start(int brokerCount) {
    FakeCluster c = new FakeCluster();
    for (int i = 0; i < brokerCount; i++) {
      FakeBroker b = new FakeBroker(i + 1).start();
      c.brokers.add(b);
      c.install(b);
    }
    return c;
  }

  public List<FakeBroker> brokers() {
    return brokers;
  }

  public FakeBroker broker(int id) {
    return brokers.get(id - 1);
  }

  public String bootstrap() {
    return String.join(",", brokers.stream().map(FakeBroker::address).toList());
  }

  public void createTopic(String name, int partitions) {
    List<PartitionState> parts = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      PartitionState p = new PartitionState();
      p.leader = brokers.get(i % brokers.size()).nodeId();
      parts.add(p);
    }
    topics.put(name, parts);
    topicIds.put(name, name + "-id-" + System.nanoTime());
  }

  public InMemoryPartitionLog log(TopicPartition tp) {
    return topics.get(tp.topic()).get(tp.partition()).log;
  }

  public int leader(TopicPartition tp) {
    return topics.get(tp.topic()).get(tp.partition()).leader;
  }

  public int epoch(TopicPartition tp) {
    return topics.get(tp.topic()).get(tp.partition()).epoch;
  }

  /** Moves leadership and bumps the leader epoch. */
  public void moveLeader(TopicPartition tp, int brokerId) {
    PartitionState p = topics.get(tp.topic()).get(tp.partition());
    synchronized (p) {
      p.leader = brokerId;
      p.epoch++;
    }
  }

  /** An unclean leader change: the log loses everything from {@code offset}, a new epoch starts. */
  public void truncate(TopicPartition tp, long offset) {
    PartitionState p = topics.get(tp.topic()).get(tp.partition());
    synchronized (p) {
      p.epoch++;
      p.log.truncateAndStartEpoch(offset, p.epoch);
    }
  }

  public void produceHook(ProduceHook hook) {
    this.produceHook = hook;
  }

  public void leaderHints(boolean enabled) {
    this.leaderHints = enabled;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    brokers.forEach(FakeBroker::close);
  }

  // ------------------------------------------------------------------ handlers

  private void install(FakeBroker b) {
    b.handle(ApiKey.METADATA, (r, out) -> out.reply(metadata(r.body(MetadataRequest.class))));
    b.handle(
        ApiKey.INIT_PRODUCER_ID,
        (r, out) ->
            out.reply(
                InitProducerIdResponse.newBuilder()
                    .setProducerId(nextProducerId.getAndIncrement())
                    .setProducerEpoch(0)
                    .build()));
    b.handle(ApiKey.PRODUCE, (r, out) -> produce(b, r, out));
    b.handle(
        ApiKey.FETCH, (r, out) -> fetch(b, r.body(FetchRequest.class), out, System.nanoTime()));
    b.handle(
        ApiKey.LIST_OFFSETS,
        (r, out) -> out.reply(listOffsets(b, r.body(ListOffsetsRequest.class))));
    b.handle(
        ApiKey.CREATE_TOPICS,
        (r, out) -> out.reply(createTopics(r.body(CreateTopicsRequest.class))));
    b.handle(
        ApiKey.DELETE_TOPICS,
        (r, out) -> out.reply(deleteTopics(r.body(DeleteTopicsRequest.class))));
  }

  private List<Integer> brokerIds() {
    return brokers.stream().map(FakeBroker::nodeId).toList();
  }

  public MetadataResponse metadata(MetadataRequest req) {
    MetadataResponse.Builder resp =
        MetadataResponse.newBuilder()
            .setClusterId("fake-cluster")
            .setControllerId(1)
            .setMetadataOffset(100);
    for (FakeBroker fb : brokers) {
      resp.addBrokers(
          BrokerInfo.newBuilder()
              .setNodeId(fb.nodeId())
              .setHost("127.0.0.1")
              .setPort(fb.port())
              .setBrokerEpoch(10 + fb.nodeId()));
    }
    List<String> names =
        req.getAllTopics() ? new ArrayList<>(new TreeMap<>(topics).keySet()) : req.getTopicsList();
    for (String name : names) {
      List<PartitionState> parts = topics.get(name);
      if (parts == null) {
        resp.addTopics(
            TopicMetadata.newBuilder()
                .setName(name)
                .setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      TopicMetadata.Builder t =
          TopicMetadata.newBuilder().setName(name).setTopicId(topicIds.get(name));
      for (int i = 0; i < parts.size(); i++) {
        PartitionState p = parts.get(i);
        t.addPartitions(
            PartitionMetadata.newBuilder()
                .setPartition(i)
                .setLeaderId(p.leader)
                .setLeaderEpoch(p.epoch)
                .addAllReplicas(brokerIds())
                .addAllIsr(brokerIds()));
      }
      resp.addTopics(t);
    }
    return resp.build();
  }

  private LeaderHint hint(PartitionState p) {
    if (!leaderHints) {
      return null;
    }
    FakeBroker leader = broker(p.leader);
    return LeaderHint.newBuilder()
        .setLeaderId(p.leader)
        .setLeaderEpoch(p.epoch)
        .setEndpoint(Endpoint.newBuilder().setHost("127.0.0.1").setPort(leader.port()))
        .build();
  }

  /**
   * Leadership and epoch check shared by produce/fetch/list-offsets; NONE when this broker may
   * serve.
   */
  private ErrorCode checkLeader(FakeBroker b, PartitionState p, int requestEpoch) {
    if (p.leader != b.nodeId()) {
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    }
    if (requestEpoch >= 0 && requestEpoch < p.epoch) {
      return ErrorCode.FENCED_LEADER_EPOCH;
    }
    if (requestEpoch > p.epoch) {
      return ErrorCode.UNKNOWN_LEADER_EPOCH;
    }
    return ErrorCode.NONE;
  }

  private void produce(FakeBroker b, FakeBroker.Request r, FakeBroker.Responder out) {
    ProduceRequest req = r.body(ProduceRequest.class);
    ProduceResponse.Builder resp = ProduceResponse.newBuilder();
    int dataPos = 0;
    boolean close = false;
    for (ProduceRequest.TopicData td : req.getTopicsList()) {
      ProduceResponse.TopicResponse.Builder tr =
          ProduceResponse.TopicResponse.newBuilder().setName(td.getName());
      for (ProduceRequest.PartitionData pd : td.getPartitionsList()) {
        byte[] data = Arrays.copyOfRange(r.recordData(), dataPos, dataPos + pd.getRecordsSize());
        dataPos += pd.getRecordsSize();
        ProduceResponse.PartitionResponse.Builder pr =
            ProduceResponse.PartitionResponse.newBuilder()
                .setPartition(pd.getPartition())
                .setLogAppendTimeMs(-1)
                .setBaseOffset(-1);
        List<PartitionState> parts = topics.get(td.getName());
        if (parts == null || pd.getPartition() >= parts.size()) {
          tr.addPartitions(pr.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
          continue;
        }
        PartitionState p = parts.get(pd.getPartition());
        TopicPartition tp = new TopicPartition(td.getName(), pd.getPartition());
        synchronized (p) {
          ErrorCode leaderError = checkLeader(b, p, pd.getLeaderEpoch());
          if (leaderError != ErrorCode.NONE) {
            LeaderHint h = hint(p);
            if (h != null) {
              pr.setCurrentLeader(h);
            }
            tr.addPartitions(pr.setErrorCode(leaderError));
            continue;
          }
          ProduceHook hook = produceHook;
          Fault fault = hook.decide(tp, b.nodeId(), data);
          if (fault == Fault.CLOSE_CONNECTION) {
            close = true;
            continue;
          }
          if (fault == Fault.ERROR_BEFORE_APPEND) {
            tr.addPartitions(pr.setErrorCode(hook.error()));
            continue;
          }
          ErrorCode err = ErrorCode.NONE;
          long base = -1;
          int pos = 0;
          while (pos < data.length) {
            int size =
                ByteBuffer.wrap(data, pos, data.length - pos)
                        .getInt(pos + RecordBatch.BATCH_LENGTH_POSITION)
                    + RecordBatch.LOG_OVERHEAD;
            InMemoryPartitionLog.AppendResult res =
                p.log.append(Arrays.copyOfRange(data, pos, pos + size), p.epoch);
            if (res.error() != ErrorCode.NONE) {
              err = res.error();
              break;
            }
            if (base < 0) {
              base = res.baseOffset();
            }
            pos += size;
          }
          if (fault == Fault.ERROR_AFTER_APPEND && err == ErrorCode.NONE) {
            err = hook.error();
          }
          pr.setErrorCode(err).setBaseOffset(err == ErrorCode.NONE ? base : -1);
        }
        tr.addPartitions(pr);
      }
      resp.addTopics(tr);
    }
    if (close) {
      out.closeConnection();
    } else if (req.getAcks() == 0) {
      out.noReply();
    } else {
      out.reply(resp.build());
    }
  }

  private void fetch(FakeBroker b, FetchRequest req, FakeBroker.Responder out, long startNs) {
    FetchResponse.Builder resp = FetchResponse.newBuilder();
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    int total = 0;
    for (FetchRequest.FetchTopic ft : req.getTopicsList()) {
      FetchResponse.TopicResponse.Builder tr =
          FetchResponse.TopicResponse.newBuilder().setName(ft.getName());
      for (FetchRequest.FetchPartition fp : ft.getPartitionsList()) {
        FetchResponse.PartitionResponse.Builder pr =
            FetchResponse.PartitionResponse.newBuilder().setPartition(fp.getPartition());
        List<PartitionState> parts = topics.get(ft.getName());
        if (parts == null || fp.getPartition() >= parts.size()) {
          tr.addPartitions(pr.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
          continue;
        }
        PartitionState p = parts.get(fp.getPartition());
        synchronized (p) {
          ErrorCode leaderError = checkLeader(b, p, fp.getCurrentLeaderEpoch());
          long leo = p.log.logEndOffset();
          pr.setHighWatermark(leo).setLogStartOffset(0).setLogEndOffset(leo);
          if (leaderError != ErrorCode.NONE) {
            LeaderHint h = hint(p);
            if (h != null) {
              pr.setCurrentLeader(h);
            }
            tr.addPartitions(pr.setErrorCode(leaderError));
            continue;
          }
          long[] div = p.log.divergence(fp.getLastFetchedEpoch(), fp.getFetchOffset());
          if (div != null) {
            tr.addPartitions(
                pr.setDivergingEpoch(
                    EpochEndOffset.newBuilder().setEpoch((int) div[0]).setEndOffset(div[1])));
            continue;
          }
          if (fp.getFetchOffset() > leo || fp.getFetchOffset() < 0) {
            tr.addPartitions(pr.setErrorCode(ErrorCode.OFFSET_OUT_OF_RANGE));
            continue;
          }
          int budget = Math.max(1, Math.min(fp.getPartitionMaxBytes(), req.getMaxBytes() - total));
          byte[] bytes =
              fp.getFetchOffset() == leo ? new byte[0] : p.log.read(fp.getFetchOffset(), budget);
          data.writeBytes(bytes);
          total += bytes.length;
          tr.addPartitions(pr.setRecordsSize(bytes.length));
        }
      }
      resp.addTopics(tr);
    }
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    if (total < Math.max(1, req.getMinBytes()) && waitedMs < req.getMaxWaitMs()) {
      timer.schedule(() -> fetch(b, req, out, startNs), 5, TimeUnit.MILLISECONDS);
      return;
    }
    out.reply(resp.build(), data.toByteArray());
  }

  private ListOffsetsResponse listOffsets(FakeBroker b, ListOffsetsRequest req) {
    ListOffsetsResponse.Builder resp = ListOffsetsResponse.newBuilder();
    for (ListOffsetsRequest.Topic t : req.getTopicsList()) {
      ListOffsetsResponse.Topic.Builder tr =
          ListOffsetsResponse.Topic.newBuilder().setName(t.getName());
      for (ListOffsetsRequest.Partition lp : t.getPartitionsList()) {
        ListOffsetsResponse.Partition.Builder pr =
            ListOffsetsResponse.Partition.newBuilder()
                .setPartition(lp.getPartition())
                .setTimestamp(-1)
                .setOffset(-1);
        List<PartitionState> parts = topics.get(t.getName());
        if (parts == null || lp.getPartition() >= parts.size()) {
          tr.addPartitions(pr.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
          continue;
        }
        PartitionState p = parts.get(lp.getPartition());
        ErrorCode leaderError = checkLeader(b, p, lp.getCurrentLeaderEpoch());
        if (leaderError != ErrorCode.NONE) {
          LeaderHint h = hint(p);
          if (h != null) {
            pr.setCurrentLeader(h);
          }
          tr.addPartitions(pr.setErrorCode(leaderError));
          continue;
        }
        long ts = lp.getTimestamp();
        if (ts == -2) {
          pr.setOffset(0);
        } else if (ts == -1) {
          pr.setOffset(p.log.logEndOffset());
        } else {
          long off = p.log.offsetForTimestamp(ts);
          pr.setOffset(off).setTimestamp(off < 0 ? -1 : p.log.timestampAt(off));
        }
        tr.addPartitions(pr.setLeaderEpoch(p.epoch));
      }
      resp.addTopics(tr);
    }
    return resp.build();
  }

  private CreateTopicsResponse createTopics(CreateTopicsRequest req) {
    CreateTopicsResponse.Builder resp = CreateTopicsResponse.newBuilder();
    for (CreateTopicsRequest.Topic t : req.getTopicsList()) {
      CreateTopicsResponse.Result.Builder r =
          CreateTopicsResponse.Result.newBuilder().setName(t.getName());
      if (topics.containsKey(t.getName())) {
        r.setErrorCode(ErrorCode.TOPIC_ALREADY_EXISTS)
            .setErrorMessage("topic '" + t.getName() + "' already exists");
      } else {
        int n = t.getNumPartitions() < 0 ? 1 : t.getNumPartitions();
        int rf =
            t.getReplicationFactor() < 0 ? Math.min(3, brokers.size()) : t.getReplicationFactor();
        if (!req.getValidateOnly()) {
          createTopic(t.getName(), n);
        }
        r.setNumPartitions(n)
            .setReplicationFactor(rf)
            .setTopicId(String.valueOf(topicIds.get(t.getName())));
      }
      resp.addTopics(r);
    }
    return resp.build();
  }

  private DeleteTopicsResponse deleteTopics(DeleteTopicsRequest req) {
    DeleteTopicsResponse.Builder resp = DeleteTopicsResponse.newBuilder();
    for (String name : req.getNamesList()) {
      DeleteTopicsResponse.Result.Builder r =
          DeleteTopicsResponse.Result.newBuilder().setName(name);
      if (topics.remove(name) == null) {
        r.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      }
      resp.addTopics(r);
    }
    return resp.build();
  }
}
