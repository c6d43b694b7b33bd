package dev.spool.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRebalanceListener;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's group API against three in-JVM brokers: groups reading one topic independently,
 * positions restored from commits, members sharing and handing over partitions without skipping a
 * record, and the commit paths (sync, async, from outside the group).
 */
@Tag("integration")
@SpoolClusterTest(
    nodes = 3,
    config = {
      "offsets.topic.num.partitions=3",
      "group.consumer.heartbeat.interval.ms=100",
      "group.consumer.session.timeout.ms=6000",
      "group.max.size=3"
    })
@Timeout(300)
class ConsumerGroupIntegrationTest {
  private static final int PARTITIONS = 3;

  static InProcessCluster cluster;
  static TestClient admin;
  static Producer producer;

  @BeforeAll
  static void start(InProcessCluster c) {
    cluster = c;
    admin = new TestClient();
    producer = new Producer(Map.of("bootstrap.servers", bootstrap(), "linger.ms", "1"));
  }

  @AfterAll
  static void stop() {
    if (producer != null) {
      producer.close();
    }
    if (admin != null) {
      admin.close();
    }
  }

  private static String bootstrap() {
    List<String> out = new ArrayList<>();
    for (int id = 1; id <= cluster.size(); id++) {
      out.add("127.0.0.1:" + cluster.broker(id).boundPort());
    }
    return String.join(",", out);
  }

  private static void createTopic(String topic) {
    Broker b = cluster.broker(1);
    assertEquals(
        ErrorCode.NONE, admin.createTopic(b, topic, PARTITIONS, 3).getTopics(0).getErrorCode());
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= cluster.size(); id++) {
                var t = cluster.broker(id).image().topic(topic);
                if (t == null || t.partitions().size() != PARTITIONS) {
                  return false;
                }
              }
              return true;
            });
  }

  /** Writes {@code count} records per partition, values "p-i". */
  private static void produce(String topic, int from, int to) throws Exception {
    List<CompletableFuture<?>> acks = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (int i = from; i < to; i++) {
        acks.add(
            producer.send(
                new ProducerRecord(
                    topic,
                    p,
                    null,
                    (p + "-" + i).getBytes(StandardCharsets.UTF_8),
                    List.of(),
                    null)));
      }
    }
    CompletableFuture.allOf(acks.toArray(new CompletableFuture[0])).get(30, TimeUnit.SECONDS);
  }

  private static Consumer consumer(String group, String... extra) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", bootstrap());
    props.put("group.id", group);
    props.put("fetch.max.wait.ms", "100");
    props.put("retry.backoff.ms", "20");
    props.put("auto.offset.reset", "earliest");
    props.put("default.api.timeout.ms", "20000");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    return new Consumer(props);
  }

  /** Polls until {@code count} records came (or fails); returns them per partition, in order. */
  private static Map<TopicPartition, List<Long>> pollUntil(Consumer c, int count) {
    Map<TopicPartition, List<Long>> out = new TreeMap<>();
    int[] seen = {0};
    Awaitility.await()
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              for (ConsumerRecord r : c.poll(Duration.ofMillis(200))) {
                out.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>()).add(r.offset());
                seen[0]++;
              }
              return seen[0] >= count;
            });
    return out;
  }

  private static void assertContiguous(List<Long> offsets, long from, long to) {
    for (int i = 0; i < offsets.size(); i++) {
      assertEquals(from + i, offsets.get(i), "offsets " + offsets);
    }
    assertEquals(to - from, offsets.size(), "offsets " + offsets);
  }

  @Test
  void shouldLetThreeGroupsReadOneTopicIndependently() throws Exception {
    createTopic("shared");
    produce("shared", 0, 50);
    List<Consumer> consumers = new ArrayList<>();
    try {
      for (String g : List.of("etl", "dashboard", "audit")) {
        Consumer c = consumer("indep-" + g);
        c.subscribe(List.of("shared"));
        consumers.add(c);
      }
      for (Consumer c : consumers) {
        Map<TopicPartition, List<Long>> got = pollUntil(c, PARTITIONS * 50);
        assertEquals(PARTITIONS, got.size());
        got.values().forEach(offsets -> assertContiguous(offsets, 0, 50));
        c.commitSync();
      }
      TopicPartition p0 = new TopicPartition("shared", 0);
      for (Consumer c : consumers) {
        assertEquals(50, c.committed(Set.of(p0)).get(p0).offset());
      }
    } finally {
      consumers.forEach(Consumer::close);
    }
  }

  @Test
  void shouldResumeFromTheCommittedOffsetWithItsLeaderEpoch() throws Exception {
    createTopic("resume");
    produce("resume", 0, 40);
    TopicPartition p1 = new TopicPartition("resume", 1);
    try (Consumer first = consumer("resumers", "enable.auto.commit", "false")) {
      first.subscribe(List.of("resume"));
      pollUntil(first, PARTITIONS * 40);
      first.commitSync(Map.of(p1, new OffsetAndMetadata(25, 0, "half way")));
      OffsetAndMetadata c = first.committed(Set.of(p1)).get(p1);
      assertEquals(new OffsetAndMetadata(25, 0, "half way"), c);
      // A commit for a partition the member does not own is refused and moves nothing.
      SpoolException e =
          assertThrows(
              SpoolException.class,
              () ->
                  first.commitSync(
                      Map.of(new TopicPartition("shared-nope", 0), new OffsetAndMetadata(3))));
      assertEquals(ErrorCode.PARTITION_NOT_ASSIGNED, e.errorCode());
    }
    try (Consumer second = consumer("resumers", "enable.auto.commit", "false")) {
      second.subscribe(List.of("resume"));
      Map<TopicPartition, List<Long>> got = new TreeMap<>();
      Awaitility.await()
          .atMost(60, TimeUnit.SECONDS)
          .until(
              () -> {
                for (ConsumerRecord r : second.poll(Duration.ofMillis(200))) {
                  got.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>()).add(r.offset());
                }
                return got.containsKey(p1) && got.get(p1).size() >= 15;
              });
      // Only p1 was committed: it resumes at 25; the others had no commit and start from zero.
      assertContiguous(got.get(p1), 25, 40);
    }
  }

  @Test
  void shouldHandPartitionsOverWithoutSkippingARecord() throws Exception {
    createTopic("handover");
    produce("handover", 0, 30);
    List<String> events = new ArrayList<>();
    ConsumerRebalanceListener recorder = counting(events);
    Map<TopicPartition, List<Long>> seen = new HashMap<>();
    try (Consumer a = consumer("movers", "auto.commit.interval.ms", "100")) {
      a.subscribe(Pattern.compile("hand.*"), recorder);
      collect(a, seen, PARTITIONS * 30);
      try (Consumer b = consumer("movers", "auto.commit.interval.ms", "100")) {
        b.subscribe(List.of("handover"));
        // Both poll until b owns something: a revokes (committing first) only what moves.
        Awaitility.await()
            .atMost(60, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(1))
            .until(
                () -> {
                  collectOnce(a, seen);
                  collectOnce(b, seen);
                  return !b.assignment().isEmpty()
                      && a.assignment().size() + b.assignment().size() == PARTITIONS;
                });
        assertTrue(events.contains("assigned " + PARTITIONS), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.startsWith("revoked")), events.toString());
        produce("handover", 30, 60);
        Awaitility.await()
            .atMost(60, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(1))
            .until(
                () -> {
                  collectOnce(a, seen);
                  collectOnce(b, seen);
                  return seen.values().stream().allMatch(l -> l.stream().distinct().count() == 60);
                });
      }
    }
    // At least once, none skipped: every partition saw every offset 0..59.
    assertEquals(PARTITIONS, seen.size());
    seen.values().forEach(l -> assertEquals(60, l.stream().distinct().count(), l.toString()));
  }

  private static void collect(Consumer c, Map<TopicPartition, List<Long>> seen, int count) {
    Awaitility.await()
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              collectOnce(c, seen);
              return seen.values().stream().mapToInt(List::size).sum() >= count;
            });
  }

  private static void collectOnce(Consumer c, Map<TopicPartition, List<Long>> seen) {
    for (ConsumerRecord r : c.poll(Duration.ofMillis(50))) {
      List<Long> l = seen.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>());
      // A member's consecutive records of a partition never skip an offset.
      if (!l.isEmpty() && r.offset() > l.get(l.size() - 1) + 1) {
        throw new AssertionError("skipped from " + l.get(l.size() - 1) + " to " + r.offset());
      }
      l.add(r.offset());
    }
  }

  @Test
  void shouldCommitFromOutsideTheGroupWithAssignAndRefuseWithoutAGroupId() throws Exception {
    createTopic("manual");
    produce("manual", 0, 10);
    TopicPartition p2 = new TopicPartition("manual", 2);
    try (Consumer c = consumer("manual-group")) {
      c.assign(List.of(p2));
      c.seekToBeginning(List.of(p2));
      pollUntil(c, 10);
      c.commitSync();
      assertEquals(10, c.committed(Set.of(p2)).get(p2).offset());
      assertNull(
          c.committed(Set.of(new TopicPartition("manual", 0)))
              .get(new TopicPartition("manual", 0)));
      assertThrows(IllegalStateException.class, () -> c.subscribe(List.of("manual")));
    }
    try (Consumer noGroup = new Consumer(Map.of("bootstrap.servers", bootstrap()))) {
      SpoolException e =
          assertThrows(SpoolException.class, () -> noGroup.subscribe(List.of("manual")));
      assertEquals(ErrorCode.INVALID_GROUP_ID, e.errorCode());
    }
  }

  /** A listener that logs "assigned N" and "revoked N" into {@code events}. */
  private static ConsumerRebalanceListener counting(List<String> events) {
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        events.add("revoked " + partitions.size());
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        events.add("assigned " + partitions.size());
      }
    };
  }

  /** Polls every consumer once per step until {@code done} holds (60 s at most). */
  private static void pollAll(List<Consumer> consumers, java.util.function.BooleanSupplier done) {
    Awaitility.await()
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              consumers.forEach(c -> c.poll(Duration.ofMillis(30)));
              return done.getAsBoolean();
            });
  }

  @Test
  void shouldGiveARestartedStaticMemberItsPartitionsBackWithoutMovingTheOthers() {
    createTopic("static");
    List<String> bEvents = new ArrayList<>();
    try (Consumer b = consumer("statics")) {
      b.subscribe(List.of("static"), counting(bEvents));
      Set<TopicPartition> first;
      try (Consumer a = consumer("statics", "group.instance.id", "host-a")) {
        a.subscribe(List.of("static"));
        pollAll(
            List.of(a, b),
            () ->
                !a.assignment().isEmpty()
                    && !b.assignment().isEmpty()
                    && a.assignment().size() + b.assignment().size() == PARTITIONS);
        first = a.assignment();
      } // a static member's close leaves "for now" (epoch -2): its partitions wait for it.
      Set<TopicPartition> bOwns = b.assignment();
      int bEventsBefore = bEvents.size();
      // A restart takes a moment; b keeps polling meanwhile and gets none of a's partitions.
      long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
      while (System.nanoTime() < until) {
        b.poll(Duration.ofMillis(50));
        assertEquals(bOwns, b.assignment(), "b took an absent static member's partitions");
      }
      try (Consumer a2 = consumer("statics", "group.instance.id", "host-a")) {
        a2.subscribe(List.of("static"));
        pollAll(List.of(a2, b), () -> a2.assignment().equals(first));
        assertEquals(bOwns, b.assignment());
        assertEquals(bEventsBefore, bEvents.size(), "b saw a rebalance: " + bEvents);
      }
    }
  }

  @Test
  void shouldMoveThePartitionsOfAMemberThatStopsPollingToTheOthers() throws Exception {
    createTopic("slow");
    try (Consumer a = consumer("pollers", "max.poll.interval.ms", "1500");
        Consumer b = consumer("pollers")) {
      a.subscribe(List.of("slow"));
      b.subscribe(List.of("slow"));
      pollAll(
          List.of(a, b),
          () ->
              !a.assignment().isEmpty()
                  && a.assignment().size() + b.assignment().size() == PARTITIONS);
      Set<TopicPartition> aHad = a.assignment();
      produce("slow", 0, 10);
      // From here only b polls: a's I/O thread must leave after max.poll.interval.ms.
      Map<TopicPartition, List<Long>> seen = new HashMap<>();
      Awaitility.await()
          .atMost(60, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(1))
          .until(
              () -> {
                collectOnce(b, seen);
                return aHad.stream().allMatch(tp -> seen.getOrDefault(tp, List.of()).size() >= 10);
              });
      assertEquals(PARTITIONS, b.assignment().size());
      // a had consumed nothing, so b reads a's partitions from the start, none skipped.
      aHad.forEach(tp -> assertContiguous(seen.get(tp), 0, 10));
    }
  }

  @Test
  void shouldPickUpATopicCreatedAfterARegexSubscription() throws Exception {
    createTopic("rx-first");
    produce("rx-first", 0, 5);
    Map<TopicPartition, List<Long>> seen = new HashMap<>();
    try (Consumer c = consumer("regexers")) {
      c.subscribe(Pattern.compile("rx-.*"), ConsumerRebalanceListener.NONE);
      collect(c, seen, PARTITIONS * 5);
      createTopic("rx-later");
      produce("rx-later", 0, 5);
      collect(c, seen, 2 * PARTITIONS * 5);
      assertEquals(2 * PARTITIONS, c.assignment().size(), c.assignment().toString());
    }
    assertEquals(2 * PARTITIONS, seen.size(), seen.keySet().toString());
    seen.values().forEach(offsets -> assertContiguous(offsets, 0, 5));
  }

  @Test
  void shouldRefuseAMemberBeyondGroupMaxSizeWithItsError() {
    createTopic("crowd");
    List<Consumer> members = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        Consumer c = consumer("crowd");
        c.subscribe(List.of("crowd"));
        members.add(c);
      }
      pollAll(members, () -> members.stream().noneMatch(c -> c.assignment().isEmpty()));
      Consumer fourth = consumer("crowd");
      members.add(fourth);
      fourth.subscribe(List.of("crowd"));
      SpoolException e =
          assertThrows(SpoolException.class, () -> pollAll(List.of(fourth), () -> false));
      assertEquals(ErrorCode.GROUP_MAX_SIZE_REACHED, e.errorCode(), e.getMessage());
      assertTrue(fourth.assignment().isEmpty());
    } finally {
      members.forEach(Consumer::close);
    }
  }

  @Test
  void shouldConsumeEveryAckedRecordWhileMembersJoinAndLeaveUnderLoad() throws Exception {
    createTopic("churn");
    Set<String> acked = ConcurrentHashMap.newKeySet();
    AtomicBoolean stop = new AtomicBoolean();
    Thread load =
        new Thread(
            () -> {
              int i = 0;
              while (!stop.get()) {
                for (int p = 0; p < PARTITIONS; p++) {
                  String v = p + "-" + i;
                  producer
                      .send(
                          new ProducerRecord(
                              "churn",
                              p,
                              null,
                              v.getBytes(StandardCharsets.UTF_8),
                              List.of(),
                              null))
                      .thenRun(() -> acked.add(v));
                }
                i++;
                try {
                  Thread.sleep(2);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "churn-load");
    Set<String> consumed = ConcurrentHashMap.newKeySet();
    List<Member> active = new ArrayList<>();
    load.start();
    try {
      Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> acked.size() > 200);
      // Join, join, join, leave, join, leave, leave: never more than group.max.size at once.
      String[] plan = {"+", "+", "+", "-", "+", "-", "-"};
      for (String step : plan) {
        if (step.equals("+")) {
          active.add(new Member(consumer("churners", "auto.commit.interval.ms", "200")));
        } else {
          active.remove(0).consumer.close();
        }
        // Poll until the rebalance is done: every member owns a share and together all partitions.
        Awaitility.await()
            .atMost(30, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(1))
            .until(
                () -> {
                  active.forEach(m -> m.pollOnce(consumed));
                  Set<TopicPartition> owned = new HashSet<>();
                  int shares = 0;
                  for (Member m : active) {
                    Set<TopicPartition> a = m.consumer.assignment();
                    if (a.isEmpty()) {
                      return false;
                    }
                    owned.addAll(a);
                    shares += a.size();
                  }
                  return owned.size() == PARTITIONS && shares == PARTITIONS;
                });
      }
      // Rebalances take well under a second each: keep the load on for a meaningful amount.
      Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> acked.size() > 1000);
      stop.set(true);
      load.join();
      producer.flush();
      Member last = active.get(0);
      Awaitility.await()
          .atMost(60, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(1))
          .until(
              () -> {
                last.pollOnce(consumed);
                return consumed.containsAll(acked);
              });
    } finally {
      stop.set(true);
      load.join();
      active.forEach(m -> m.consumer.close());
    }
    assertTrue(acked.size() > 1000, "the load ran: " + acked.size());
  }

  /**
   * A churn member: polls, and checks that its consecutive records of a partition never skip an
   * offset while it owns the partition (an ownership ends at revocation).
   */
  private static final class Member {
    final Consumer consumer;
    final Map<TopicPartition, Long> last = new HashMap<>();

    Member(Consumer c) {
      this.consumer = c;
      c.subscribe(
          List.of("churn"),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              partitions.forEach(last::remove);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
          });
    }

    void pollOnce(Set<String> consumed) {
      for (ConsumerRecord r : consumer.poll(Duration.ofMillis(30))) {
        Long prev = last.put(r.topicPartition(), r.offset());
        if (prev != null && r.offset() > prev + 1) {
          throw new AssertionError(
              consumer.clientId()
                  + " skipped "
                  + r.topicPartition()
                  + " "
                  + prev
                  + " -> "
                  + r.offset());
        }
        consumed.add(new String(r.value(), StandardCharsets.UTF_8));
      }
    }
  }
}
