package dev.spool.broker.replication;

import dev.spool.broker.log.PartitionLog;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * A seeded, single-threaded simulation of one topic replicated over a few brokers (Kafka's
 * RaftEventSimulationTest, TigerBeetle's VOPR, applied to ISR replication).
 *
 * <p>What is real: every broker's {@link Partition} and {@link PartitionLog} (files in a temp
 * directory), and the quorum's own pure code ({@link SimQuorum}). What is simulated: time (a manual
 * clock moved by each step), the network between brokers and to the quorum ({@link SimNetwork}),
 * the brokers around their partitions ({@link SimBroker}: heartbeats that carry metadata, the
 * follower fetch loop, crashes and restarts), quorum isolation (the broker is fenced after its
 * session) and the clients ({@link SimClients}).
 *
 * <p>After every step the named {@link Invariant}s in {@link #INVARIANTS} are checked; a violation
 * fails with the invariant's name, the seed and the step. Everything random comes from one {@link
 * Random} seeded with the run's seed, so a seed replays the same run.
 *
 * <p>Threads: one, the caller's; it is every broker's and every partition's owner thread.
 */
final class ReplicationSimulation implements AutoCloseable {
  static final String TOPIC = "sim";
  static final String TOPIC_ID = "sim-topic-id";
  static final int RF = 3;

  // Timing (simulated ms).
  static final long SESSION_TIMEOUT_MS = 1_000;
  static final long LAG_MS = 600;
  // Shorter than LAG_MS, so that cut links drop silent followers before the lag rule would: the
  // invariants then also cover the ISR shrinking on silence.
  static final long SILENT_MS = 300;
  static final long FETCH_TIMEOUT_MS = 300;
  static final long QUORUM_TIMEOUT_MS = 400;
  static final long PRODUCE_TIMEOUT_MS = 2_000;

  /** The invariants checked after every step, each new per run (some remember earlier steps). */
  static final List<Supplier<Invariant>> INVARIANTS =
      List.of(
          SingleLeaderPerEpoch::new,
          LeaderHighWatermarkNeverDecreases::new,
          NoDuplicateBelowHighWatermark::new,
          CommittedOnEveryIsrMember::new,
          FollowerPrefixConsistentBelowHighWatermark::new,
          AcknowledgedWriteNeverLost::new);

  /** Checked once at the end, after the faults are healed and the cluster had time to settle. */
  static final List<Supplier<Invariant>> FINAL_CHECKS = List.of(ConvergesAfterHealing::new);

  final long seed;
  final Random rnd;
  final ManualClock clock = new ManualClock(1_700_000_000_000L);
  final Path root;
  final ScheduledExecutorService scheduler = ReplicaTestSupport.scheduler();
  final SimNetwork network;
  final SimQuorum quorum = new SimQuorum(clock, this::count);
  final List<SimBroker> brokers = new ArrayList<>();
  final List<TopicPartition> tps = new ArrayList<>();
  final SimClients clients = new SimClients(this);
  private final List<Invariant> invariants = INVARIANTS.stream().map(Supplier::get).toList();
  private final Map<String, Integer> stats = new TreeMap<>();
  int step;

  ReplicationSimulation(long seed, Path root, int brokerCount, int partitionCount) {
    this.seed = seed;
    this.rnd = new Random(seed);
    this.network = new SimNetwork(clock, rnd);
    this.root = root;
    for (int i = 0; i < partitionCount; i++) {
      tps.add(new TopicPartition(TOPIC, i));
    }
    for (int id = 1; id <= brokerCount; id++) {
      brokers.add(new SimBroker(this, id));
    }
    for (SimBroker b : brokers) {
      b.start();
    }
    List<MetadataRecord> records = new ArrayList<>();
    for (SimBroker b : brokers) {
      records.add(Records.unfenceBroker(b.id, b.brokerEpoch));
    }
    records.add(Records.topic(TOPIC, TOPIC_ID));
    for (TopicPartition tp : tps) {
      List<Integer> replicas = new ArrayList<>();
      for (int r = 0; r < RF; r++) {
        replicas.add(brokers.get((tp.partition() + r) % brokerCount).id);
      }
      records.add(
          Records.partition(TOPIC_ID, tp.partition(), replicas, replicas, replicas.get(0), 0, 0));
    }
    quorum.write(records);
    for (SimBroker b : brokers) {
      b.heartbeat();
    }
  }

  // ================================================================ the run

  void run(int steps) {
    for (step = 0; step < steps; step++) {
      oneStep(true);
      checkInvariants();
    }
    heal();
    for (int i = 0; i < 400; i++, step++) {
      oneStep(false);
      checkInvariants();
    }
    for (Supplier<Invariant> last : FINAL_CHECKS) {
      last.get().check(this);
    }
  }

  private void oneStep(boolean faults) {
    clock.advanceMs(1 + rnd.nextInt(20));
    network.deliverDue();
    for (SimBroker b : brokers) {
      if (b.alive) {
        b.tick();
        b.sendFetches();
        if (rnd.nextInt(10) < 3) {
          b.heartbeat();
        }
      }
    }
    quorum.duties(faults && rnd.nextInt(100) == 0);
    if (rnd.nextInt(10) < 4) {
      clients.produce();
    }
    if (rnd.nextInt(10) < 3) {
      clients.produceIdempotent();
    }
    if (faults) {
      injectFault();
    }
    for (SimBroker b : brokers) {
      b.syncShadows();
    }
  }

  void count(String what) {
    stats.merge(what, 1, Integer::sum);
  }

  SimBroker broker(int id) {
    return brokers.get(id - 1);
  }

  /** The live brokers whose replica of {@code tp} is leader (more than one is a violation). */
  List<SimBroker> leadersOf(TopicPartition tp) {
    List<SimBroker> leaders = new ArrayList<>();
    for (SimBroker b : brokers) {
      Partition p = b.alive ? b.partitions.get(tp) : null;
      if (p != null && p.role() == ReplicaRole.LEADER) {
        leaders.add(b);
      }
    }
    return leaders;
  }

  // ================================================================ faults

  private void injectFault() {
    int r = rnd.nextInt(1000);
    if (r < 4) {
      List<SimBroker> alive = brokers.stream().filter(b -> b.alive).toList();
      if (alive.size() > 1) {
        SimBroker victim = alive.get(rnd.nextInt(alive.size()));
        victim.crash();
        network.schedule(200 + rnd.nextInt(2500), victim::restart);
      }
    } else if (r < 9) {
      SimBroker b = brokers.get(rnd.nextInt(brokers.size()));
      boolean in = rnd.nextBoolean();
      boolean out = !in || rnd.nextBoolean();
      List<Long> cut = new ArrayList<>();
      for (SimBroker o : brokers) {
        if (o != b) {
          if (in) {
            cut.add(SimNetwork.link(o.id, b.id));
          }
          if (out) {
            cut.add(SimNetwork.link(b.id, o.id));
          }
        }
      }
      network.cut(cut);
      count("link cuts");
      network.schedule(100 + rnd.nextInt(2500), () -> network.restore(cut));
    } else if (r < 12) {
      SimBroker b = brokers.get(rnd.nextInt(brokers.size()));
      if (b.quorumReachable) {
        b.quorumReachable = false;
        count("quorum isolations");
        network.schedule(300 + rnd.nextInt(3000), () -> b.quorumReachable = true);
      }
    }
  }

  private void heal() {
    network.heal();
    for (SimBroker b : brokers) {
      b.quorumReachable = true;
      if (!b.alive) {
        b.restart();
      }
    }
  }

  // ================================================================ invariants

  String violation(String name, String detail) {
    return "invariant " + name + " violated at step " + step + " (seed " + seed + "): " + detail;
  }

  /** Fails the run with invariant {@code name} unless {@code ok}. */
  void check(boolean ok, String name, Supplier<String> detail) {
    if (!ok) {
      throw new AssertionError(violation(name, detail.get()));
    }
  }

  void checkInvariants() {
    for (Invariant i : invariants) {
      i.check(this);
    }
  }

  String summary() {
    return "seed "
        + seed
        + ": "
        + step
        + " steps, "
        + clients.acked.size()
        + " acknowledged, "
        + stats;
  }

  @Override
  public void close() throws IOException {
    for (SimBroker b : brokers) {
      if (b.alive) {
        b.logs.values().forEach(PartitionLog::close);
      }
    }
    scheduler.shutdownNow();
  }
}
