package dev.spool.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.network.BrokerServer;
import dev.spool.broker.network.RequestDispatcher;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.core.ClassicSettings;
import dev.spool.coordinator.group.core.GroupSettings;
import dev.spool.coordinator.group.runtime.CoordinatorConfig;
import dev.spool.coordinator.group.runtime.OffsetsTopic;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.quorum.image.Records;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the classic group APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) on the Kafka
 * listener's real path: requests encoded by kafka-clients, decoded, served by a group coordinator
 * that leads a one-partition offsets topic on a real broker core, answers parsed by kafka-clients.
 * Inconsistent fields get Kafka 4's error codes; malformed frames on a live listener close only
 * their own connection. Kafka's default session limits apply (group.min.session.timeout.ms 6 s,
 * group.max.session.timeout.ms 30 min); the first rebalance does not wait for more members.
 */
@Tag("unit")
@Timeout(60)
class KafkaClassicGroupApisTest {
  private static final String OFFSETS_ID = "6b1d0c8e-2f4a-4c1e-9a7b-3d5e6f708192";
  private static final byte[] META = {0, 3, 1, 4};
  private static final short JOIN_V = 9;
  private static final short SYNC_V = 5;
  private static final short HEARTBEAT_V = 4;
  private static final short LEAVE_V = 5;

  @TempDir Path dir;
  private KafkaApisFixture fx;

  @BeforeEach
  void setUp() {
    CoordinatorConfig d = BrokerConfig.coordinatorConfig(BrokerConfig.DEF.defaults());
    GroupSettings g = d.groups();
    ClassicSettings c = g.classic();
    CoordinatorConfig noInitialDelay =
        new CoordinatorConfig(
            1,
            1,
            d.offsetsTopicSegmentBytes(),
            d.commitTimeoutMs(),
            d.loadBufferBytes(),
            new GroupSettings(
                g.sessionTimeoutMs(),
                g.heartbeatIntervalMs(),
                g.maxGroupSize(),
                g.offsetMetadataMaxBytes(),
                g.assignors(),
                new ClassicSettings(
                    0, c.minSessionTimeoutMs(), c.maxSessionTimeoutMs(), c.maxRecordBytes())));
    fx = new KafkaApisFixture(dir, (n, p, rf, cfg) -> new CompletableFuture<>(), noInitialDelay);
    // Broker 1 alone in the ISR of the offsets topic's one partition (min.insync.replicas 1): it
    // coordinates every group and its group records commit at once.
    fx.broker.replicas().setObserver(fx.coordinator);
    fx.broker.apply(
        Records.topic(OffsetsTopic.NAME, OFFSETS_ID),
        Records.partition(OFFSETS_ID, 0, List.of(1, 2, 3), List.of(1), 1, 0, 0),
        Records.config(OFFSETS_ID, "min.insync.replicas", "1"));
    fx.broker.publish();
    TopicPartition offsets = new TopicPartition(OffsetsTopic.NAME, 0);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> fx.coordinator.isLoaded(offsets));
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  // ---------------------------------------------------------------- requests

  private static JoinGroupRequestData join(
      String group, String member, String type, int sessionMs, byte[] meta, String... names) {
    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
    for (String n : names) {
      protocols.add(
          new JoinGroupRequestData.JoinGroupRequestProtocol().setName(n).setMetadata(meta));
    }
    return new JoinGroupRequestData()
        .setGroupId(group)
        .setMemberId(member)
        .setProtocolType(type)
        .setSessionTimeoutMs(sessionMs)
        .setRebalanceTimeoutMs(30_000)
        .setProtocols(protocols);
  }

  private static JoinGroupRequestData join(String group, String member) {
    return join(group, member, "consumer", 10_000, META, "range");
  }

  private static SyncGroupRequestData sync(
      String group, String member, int generation, String type, String name) {
    return new SyncGroupRequestData()
        .setGroupId(group)
        .setMemberId(member)
        .setGenerationId(generation)
        .setProtocolType(type)
        .setProtocolName(name)
        .setAssignments(
            List.of(
                new SyncGroupRequestData.SyncGroupRequestAssignment()
                    .setMemberId(member)
                    .setAssignment(new byte[] {0, 3, 0, 0, 0, 0})));
  }

  private static SyncGroupRequestData sync(String group, String member, int generation) {
    return sync(group, member, generation, "consumer", "range");
  }

  private static HeartbeatRequestData heartbeat(String group, String member, int generation) {
    return new HeartbeatRequestData()
        .setGroupId(group)
        .setMemberId(member)
        .setGenerationId(generation);
  }

  private static LeaveGroupRequestData leave(String group, String... members) {
    List<LeaveGroupRequestData.MemberIdentity> ids = new ArrayList<>();
    for (String m : members) {
      ids.add(new LeaveGroupRequestData.MemberIdentity().setMemberId(m));
    }
    return new LeaveGroupRequestData().setGroupId(group).setMembers(ids);
  }

  private Errors joinError(JoinGroupRequestData r) throws Exception {
    JoinGroupResponse resp = fx.call(r, JOIN_V);
    assertEquals(r.memberId(), resp.data().memberId(), "the member id is given back");
    return resp.error();
  }

  private Errors syncError(SyncGroupRequestData r) throws Exception {
    return fx.<SyncGroupResponse>call(r, SYNC_V).error();
  }

  private Errors heartbeatError(HeartbeatRequestData r) throws Exception {
    return fx.<HeartbeatResponse>call(r, HEARTBEAT_V).error();
  }

  /**
   * A member that joined (learning its id first, as JoinGroup v4+ asks) and synced: generation 1.
   */
  private String stableMember(String group) throws Exception {
    JoinGroupResponse first = fx.call(join(group, ""), JOIN_V);
    assertEquals(Errors.MEMBER_ID_REQUIRED, first.error());
    String id = first.data().memberId();
    JoinGroupResponse joined = fx.call(join(group, id), JOIN_V);
    assertEquals(Errors.NONE, joined.error());
    assertEquals(1, joined.data().generationId());
    assertEquals(id, joined.data().leader());
    assertEquals(Errors.NONE, syncError(sync(group, id, 1)));
    return id;
  }

  // ---------------------------------------------------------------- inconsistent fields

  @Test
  void shouldRefuseInconsistentJoinGroupFieldsWithKafkasCodes() throws Exception {
    assertEquals(Errors.INVALID_GROUP_ID, joinError(join("", "")));
    assertEquals(
        Errors.INVALID_SESSION_TIMEOUT, joinError(join("g", "", "consumer", 5_999, META, "range")));
    assertEquals(
        Errors.INVALID_SESSION_TIMEOUT,
        joinError(join("g", "", "consumer", 1_800_001, META, "range")));
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL, joinError(join("g", "", "consumer", 10_000, META)));
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL, joinError(join("g", "", "", 10_000, META, "range")));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, joinError(join("nobody-here", "ghost")));

    String m = stableMember("g");
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL,
        joinError(join("g", "", "connect", 10_000, META, "range")),
        "another protocol type");
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL,
        joinError(join("g", "", "consumer", 10_000, META, "sticky")),
        "no protocol in common with the members");
    assertEquals(Errors.UNKNOWN_MEMBER_ID, joinError(join("g", "ghost")));
    assertEquals(Errors.NONE, heartbeatError(heartbeat("g", m, 1)), "the group is untouched");
  }

  @Test
  void shouldRefuseInconsistentSyncHeartbeatAndLeaveFieldsWithKafkasCodes() throws Exception {
    String m = stableMember("g");
    assertEquals(Errors.INVALID_GROUP_ID, syncError(sync("", m, 1)));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, syncError(sync("nobody-here", m, 1)));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, syncError(sync("g", "ghost", 1)));
    assertEquals(Errors.ILLEGAL_GENERATION, syncError(sync("g", m, 2)));
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL, syncError(sync("g", m, 1, "connect", "range")));
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL, syncError(sync("g", m, 1, "consumer", "roundrobin")));

    assertEquals(Errors.INVALID_GROUP_ID, heartbeatError(heartbeat("", m, 1)));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeatError(heartbeat("nobody-here", m, 1)));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeatError(heartbeat("g", "ghost", 1)));
    assertEquals(Errors.ILLEGAL_GENERATION, heartbeatError(heartbeat("g", m, 0)));
    assertEquals(Errors.NONE, heartbeatError(heartbeat("g", m, 1)));

    assertEquals(
        Errors.INVALID_GROUP_ID, fx.<LeaveGroupResponse>call(leave("", m), LEAVE_V).error());
    // An unknown group: as Kafka 4, no group-level error and each member UNKNOWN_MEMBER_ID.
    LeaveGroupResponse none = fx.call(leave("nobody-here", m), LEAVE_V);
    assertEquals(Errors.NONE.code(), none.data().errorCode());
    assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), none.data().members().get(0).errorCode());
    LeaveGroupResponse old =
        fx.call(new LeaveGroupRequestData().setGroupId("g").setMemberId("ghost"), (short) 1);
    assertEquals(Errors.UNKNOWN_MEMBER_ID, old.error(), "v0-2: the one member's error");
    LeaveGroupResponse both = fx.call(leave("g", "ghost", m), LEAVE_V);
    assertEquals(Errors.NONE.code(), both.data().errorCode());
    assertEquals(
        List.of(Errors.UNKNOWN_MEMBER_ID.code(), Errors.NONE.code()),
        both.data().members().stream().map(r -> r.errorCode()).toList());
    assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeatError(heartbeat("g", m, 1)), "it left");
  }

  /**
   * Member metadata too large for one record of the offsets topic (max.message.bytes, 1 MiB): the
   * join is answered (Kafka's coordinator never reads the metadata), the leader's SyncGroup fails
   * UNKNOWN_SERVER_ERROR as on Kafka and the group rebalances; a rejoin with small metadata works.
   */
  @Test
  void shouldFailTheSyncOfAGroupWhoseMetadataTheOffsetsTopicCannotHold() throws Exception {
    byte[] big = new byte[1_100_000];
    JoinGroupResponse first = fx.call(join("big", ""), JOIN_V);
    String id = first.data().memberId();
    JoinGroupResponse joined = fx.call(join("big", id, "consumer", 10_000, big, "range"), JOIN_V);
    assertEquals(Errors.NONE, joined.error());
    assertEquals(big.length, joined.data().members().get(0).metadata().length);
    assertEquals(Errors.UNKNOWN_SERVER_ERROR, syncError(sync("big", id, 1)));
    assertEquals(Errors.REBALANCE_IN_PROGRESS, heartbeatError(heartbeat("big", id, 1)));
    JoinGroupResponse again = fx.call(join("big", id), JOIN_V);
    assertEquals(Errors.NONE, again.error());
    assertEquals(2, again.data().generationId());
    assertEquals(Errors.NONE, syncError(sync("big", id, 2)));
  }

  // ---------------------------------------------------------------- malformed frames

  /**
   * A live Kafka listener: each of the four APIs sent one byte short, and with the group id's
   * length (the first body field) made 2^31 - 1, closes that connection only; a member on another
   * connection is answered after each.
   */
  @Test
  void shouldCloseOnlyTheConnectionOfAMalformedGroupRequest() throws Exception {
    String m = stableMember("wire");
    BrokerServer server =
        new BrokerServer(
                new BrokerServer.Settings(
                    "127.0.0.1",
                    0,
                    1,
                    1 << 20,
                    16,
                    64L << 20,
                    60_000,
                    30_000,
                    Integer.MAX_VALUE,
                    Integer.MAX_VALUE,
                    "[test]"),
                new RequestDispatcher(ApiVersionTable.CURRENT))
            .addListener(
                KafkaProtocol.LISTENER,
                "127.0.0.1",
                0,
                new KafkaProtocol(fx.handlers, fx.coordinator, "[test]"));
    server.start();
    int port = server.boundPort(KafkaProtocol.LISTENER);
    try (Socket member = connect(port)) {
      List<ApiMessage> bodies =
          List.of(join("wire", m), sync("wire", m, 1), heartbeat("wire", m, 1), leave("wire", m));
      short[] versions = {JOIN_V, SYNC_V, HEARTBEAT_V, LEAVE_V};
      int correlation = 100;
      for (int i = 0; i < bodies.size(); i++) {
        ByteBuffer valid = KafkaWire.request(bodies.get(i), versions[i], 1);
        for (byte[] bad : List.of(oneByteShort(valid), groupIdLengthPastTheFrame(valid))) {
          try (Socket s = connect(port)) {
            s.getOutputStream().write(bad);
            assertEquals(-1, readOrReset(s), bodies.get(i).getClass().getSimpleName());
          }
          HeartbeatResponse h =
              KafkaWire.parse(
                  roundTrip(member, heartbeat("wire", m, 1), HEARTBEAT_V, ++correlation),
                  KafkaWire.header(heartbeat("wire", m, 1), HEARTBEAT_V, correlation));
          assertEquals(Errors.NONE, h.error(), "the other connection is served");
        }
      }
    } finally {
      server.close();
    }
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(5_000);
    return s;
  }

  /** -1 when the listener closed the connection (a reset counts: the close may race the write). */
  private static int readOrReset(Socket s) throws IOException {
    try {
      return s.getInputStream().read();
    } catch (SocketException reset) {
      assertThrows(IOException.class, () -> s.getOutputStream().write(new byte[64 << 10]));
      return -1;
    }
  }

  private static byte[] oneByteShort(ByteBuffer request) {
    return KafkaWire.sized(request.duplicate().limit(request.limit() - 1));
  }

  /**
   * The request with the group id's compact length (header v2 ends after the client id and one
   * tagged-field byte) replaced by the varint of 2^31 - 1.
   */
  private static byte[] groupIdLengthPastTheFrame(ByteBuffer request) {
    int header = 2 + 2 + 4 + 2 + KafkaWire.CLIENT_ID.getBytes(StandardCharsets.UTF_8).length + 1;
    ByteBuffer b = request.duplicate();
    assertEquals("wire".length() + 1, b.get(header), "the group id's length is where expected");
    ByteBuffer out = ByteBuffer.allocate(b.remaining() + 4);
    out.put(b.duplicate().limit(header));
    out.put(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07});
    out.put(b.position(header + 1));
    return KafkaWire.sized(out.flip());
  }

  private static byte[] roundTrip(Socket s, ApiMessage body, short version, int correlation)
      throws IOException {
    s.getOutputStream().write(KafkaWire.sized(KafkaWire.request(body, version, correlation)));
    DataInputStream in = new DataInputStream(s.getInputStream());
    int size = in.readInt();
    byte[] answer = new byte[4 + size];
    ByteBuffer.wrap(answer).putInt(size);
    in.readFully(answer, 4, size);
    return answer;
  }
}
