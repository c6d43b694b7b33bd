package dev.spool.client.internal.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.Node;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.Endpoint;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The metadata cache's rules, driven directly with answers and a made-up clock. */
@Tag("unit")
class MetadataTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  private final Metadata md =
      new Metadata(
          List.of(new Node(-1, "boot", 9092)),
          60_000,
          new ExponentialBackoff(100, 1000, 0, new Random(1)),
          3);

  /** The answer for a topic that does not exist. */
  private static MetadataResponse unknownTopic(String name) {
    return MetadataResponse.newBuilder()
        .setMetadataOffset(1)
        .addTopics(
            TopicMetadata.newBuilder()
                .setName(name)
                .setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
        .build();
  }

  private static MetadataResponse answer(
      long metadataOffset, String topicId, int leader, int epoch, int... brokers) {
    MetadataResponse.Builder b =
        MetadataResponse.newBuilder()
            .setClusterId("c")
            .setControllerId(1)
            .setMetadataOffset(metadataOffset);
    for (int id : brokers) {
      b.addBrokers(BrokerInfo.newBuilder().setNodeId(id).setHost("h" + id).setPort(9000 + id));
    }
    b.addTopics(
        TopicMetadata.newBuilder()
            .setName("t")
            .setTopicId(topicId)
            .addPartitions(
                PartitionMetadata.newBuilder()
                    .setPartition(0)
                    .setLeaderId(leader)
                    .setLeaderEpoch(epoch)
                    .addReplicas(1)
                    .addReplicas(2)));
    return b.build();
  }

  @Test
  void shouldNeverGoBackToAnOlderLeaderEpoch() {
    md.update(answer(10, "id1", 1, 5, 1, 2), Set.of("t"), 0);
    md.update(answer(9, "id1", 2, 4, 1, 2), Set.of("t"), 1);
    assertEquals(1, md.snapshot().partition(TP).leaderId());
    assertEquals(5, md.snapshot().partition(TP).leaderEpoch());
    md.update(answer(11, "id1", 2, 6, 1, 2), Set.of("t"), 2);
    assertEquals(2, md.snapshot().leaderFor(TP).id());
    assertEquals(6, md.snapshot().partition(TP).leaderEpoch());
  }

  @Test
  void shouldAcceptAnOlderEpochWhenTheTopicWasCreatedAgain() {
    md.update(answer(10, "id1", 1, 5, 1, 2), Set.of("t"), 0);
    md.update(answer(20, "id2", 2, 0, 1, 2), Set.of("t"), 1);
    assertEquals(0, md.snapshot().partition(TP).leaderEpoch());
    assertEquals(2, md.snapshot().partition(TP).leaderId());
  }

  @Test
  void shouldKeepTheBrokerListOfTheNewerMetadataOffset() {
    md.update(answer(10, "id1", 1, 5, 1, 2, 3), Set.of("t"), 0);
    md.update(answer(9, "id1", 1, 5, 1), Set.of("t"), 1);
    assertEquals(Set.of(1, 2, 3), md.snapshot().brokers().keySet());
  }

  @Test
  void shouldApplyANewerLeaderHintAtOnceAndIgnoreOlderOnes() {
    md.update(answer(10, "id1", 1, 5, 1, 2), Set.of("t"), 0);
    int version = md.updateVersion();
    assertFalse(
        md.updateLeader(TP, LeaderHint.newBuilder().setLeaderId(2).setLeaderEpoch(5).build()));
    assertTrue(
        md.updateLeader(
            TP,
            LeaderHint.newBuilder()
                .setLeaderId(7)
                .setLeaderEpoch(6)
                .setEndpoint(Endpoint.newBuilder().setHost("h7").setPort(9007))
                .build()));
    assertEquals(new Node(7, "h7", 9007), md.snapshot().leaderFor(TP));
    assertEquals(6, md.snapshot().partition(TP).leaderEpoch());
    assertTrue(md.updateVersion() > version);
    assertFalse(
        md.updateLeader(TP, LeaderHint.newBuilder().setLeaderId(-1).setLeaderEpoch(9).build()),
        "an unknown leader is no hint");
  }

  @Test
  void shouldReportATopicUnknownAfterAFewLookupsThenLookAgainLater() {
    md.addTopics(Set.of("missing"), 0);
    MetadataResponse unknown = unknownTopic("missing");
    md.update(unknown, Set.of("missing"), 0);
    md.update(unknown, Set.of("missing"), 100);
    assertNull(md.topicError("missing"));
    assertTrue(md.updateRequested(), "keeps looking");
    md.update(unknown, Set.of("missing"), 200);
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, md.topicError("missing").errorCode());
    assertFalse(md.wantedTopics().contains("missing"));
    md.addTopics(Set.of("missing"), 500);
    assertFalse(md.wantedTopics().contains("missing"), "a burst of uses fails fast");
    md.addTopics(Set.of("missing"), 5000);
    assertTrue(md.wantedTopics().contains("missing"), "looked up afresh later");
    assertNull(md.topicError("missing"));
  }

  /**
   * A subscription's topics are looked up before they are assigned; one that does not exist yet
   * must not leave an error behind for the moment it is created and assigned.
   */
  @Test
  void shouldRecordNoErrorForAPrefetchedTopicThatDoesNotExistYet() {
    md.prefetchTopics(Set.of("later"));
    assertTrue(md.wantedTopics().contains("later"));
    assertTrue(md.updateRequested());
    MetadataResponse unknown = unknownTopic("later");
    for (int i = 0; i < 3; i++) {
      md.update(unknown, Set.of("later"), 100L * i);
    }
    assertFalse(md.wantedTopics().contains("later"), "dropped after its lookups");
    assertNull(md.topicError("later"), "but no error for a later use");
    // Assigned right after (within the refresh backoff): looked up at once.
    md.addTopics(Set.of("later"), 300);
    assertTrue(md.wantedTopics().contains("later"));
    MetadataResponse created = answer(2, "id", 1, 0, 1, 2);
    created =
        created.toBuilder().setTopics(0, created.getTopics(0).toBuilder().setName("later")).build();
    md.update(created, Set.of("later"), 400);
    assertNull(md.topicError("later"));
    assertEquals(1, md.snapshot().leaderFor(new TopicPartition("later", 0)).id());
  }

  @Test
  void aPrefetchedTopicThatIsThenUsedFailsAsAnyOtherAfterItsOwnLookups() {
    MetadataResponse unknown = unknownTopic("missing");
    md.prefetchTopics(Set.of("missing"));
    md.update(unknown, Set.of("missing"), 0);
    md.update(unknown, Set.of("missing"), 100);
    md.addTopics(Set.of("missing"), 150); // now used: three lookups of its own
    md.update(unknown, Set.of("missing"), 200);
    md.update(unknown, Set.of("missing"), 300);
    assertNull(md.topicError("missing"));
    md.update(unknown, Set.of("missing"), 400);
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, md.topicError("missing").errorCode());
  }

  @Test
  void shouldBackOffBetweenFailedRefreshesAndRefreshAtMaxAge() {
    assertEquals(0, md.timeToNextUpdateMs(0), "bootstrap at once");
    md.attemptStarted(0);
    md.failedUpdate(0, null);
    assertEquals(100, md.timeToNextUpdateMs(0));
    md.failedUpdate(100, null);
    assertEquals(200, md.timeToNextUpdateMs(100));
    md.update(answer(1, "id", 1, 0, 1), Set.of(), 1000);
    assertEquals(60_000, md.timeToNextUpdateMs(1000), "fresh: wait for metadata.max.age.ms");
    md.requestUpdate();
    assertEquals(100, md.timeToNextUpdateMs(1000), "asked for: one backoff after the last attempt");
    assertEquals(0, md.timeToNextUpdateMs(1100));
  }

  @Test
  void shouldAskAgainForATopicWantedWhileARefreshWasInFlight() {
    md.attemptStarted(0); // a refresh naming no topic is on its way
    md.addTopics(Set.of("t"), 0); // meanwhile t is wanted (a consumer subscribed to it)
    MetadataResponse withoutT =
        MetadataResponse.newBuilder()
            .setClusterId("c")
            .setControllerId(1)
            .setMetadataOffset(1)
            .addBrokers(BrokerInfo.newBuilder().setNodeId(1).setHost("h1").setPort(9001))
            .build();
    md.update(withoutT, Set.of(), 5);
    assertTrue(md.updateRequested(), "t was not in that request: the next one asks for it");
    assertEquals(100, md.timeToNextUpdateMs(5), "one backoff later, not at metadata.max.age.ms");
    md.update(answer(2, "id", 1, 0, 1), Set.of("t"), 105);
    assertFalse(md.updateRequested());
    assertEquals(1, md.snapshot().leaderFor(TP).id());
  }

  @Test
  void shouldKeepAskingWhileAWantedPartitionHasNoLeader() {
    md.addTopics(Set.of("t"), 0);
    md.update(answer(1, "id", -1, 3, 1), Set.of("t"), 0);
    assertTrue(md.updateRequested());
    assertNull(md.snapshot().leaderFor(TP));
    assertEquals(100, md.timeToNextUpdateMs(0), "not a storm while the election runs");
    md.update(answer(1, "id", -1, 3, 1), Set.of("t"), 100);
    assertEquals(200, md.timeToNextUpdateMs(100), "backing off further");
    md.update(answer(2, "id", 1, 4, 1), Set.of("t"), 10);
    assertFalse(md.updateRequested());
  }
}
