package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Records whose names or sizes are illegal on their own are refused on replay and leave the image
 * as it was: the defence behind the controller's own checks, for records a hostile writer got into
 * the log.
 */
@Tag("unit")
class RecordChecksTest {
  private final ImageFixture fx = new ImageFixture();

  private void assertRefused(ErrorCode code, MetadataRecord r) {
    MetadataImage before = fx.image();
    List<RecordResult> results = fx.apply(r);
    assertEquals(code, results.get(0).getErrorCode(), results.toString());
    assertEquals(
        before.withOffset(fx.image().offset()), fx.image(), "a refused record changed the image");
  }

  @Test
  void shouldRefuseTopicNamesThatAreNotKafkaTopicNames() {
    for (String name :
        List.of("", ".", "..", "../../etc", "a/b", "a\\b", "white space", "x".repeat(250), "é")) {
      assertRefused(ErrorCode.INVALID_TOPIC, Records.topic(name, "id-1"));
    }
    String longest = "x".repeat(RecordChecks.MAX_TOPIC_NAME_CHARS);
    assertEquals(ErrorCode.NONE, fx.apply(Records.topic(longest, "id-1")).get(0).getErrorCode());
    assertEquals(ErrorCode.NONE, fx.apply(Records.topic("a.b_c-D9", "id-2")).get(0).getErrorCode());
    assertEquals(2, fx.image().topics().size());
  }

  @Test
  void shouldRefuseTopicIdsThatCouldBePaths() {
    assertRefused(ErrorCode.INVALID_RECORD, Records.topic("orders", "../x"));
    assertRefused(ErrorCode.INVALID_RECORD, Records.topic("orders", ""));
    assertRefused(ErrorCode.INVALID_RECORD, Records.topic("orders", "i".repeat(65)));
    assertNull(fx.image().topic("orders"));
  }

  @Test
  void shouldRefuseOversizedConfigsRegistrationsAndReplicaLists() {
    fx.brokers(1);
    String id = fx.topic("orders", List.of(List.of(1)));
    assertRefused(
        ErrorCode.INVALID_CONFIG,
        Records.config(id, "retention.ms", "1".repeat(RecordChecks.MAX_CONFIG_VALUE_CHARS + 1)));
    assertRefused(ErrorCode.INVALID_CONFIG, Records.config(id, "k".repeat(256), "1"));
    assertRefused(
        ErrorCode.INVALID_REQUEST, Records.registerBroker(2, "inc", "h".repeat(256), 9092, "", 0));
    List<Integer> many = java.util.stream.IntStream.range(0, 1025).boxed().toList();
    assertRefused(ErrorCode.INVALID_RECORD, Records.partition(id, 1, many, many, 0, 0, 0));
    assertEquals(java.util.Map.of(), fx.image().topic("orders").configs());
    assertEquals(1, fx.image().topic("orders").partitionCount());
  }

  @Test
  void shouldApplyTheRecordsAroundARefusedOneInTheSameBatch() {
    List<RecordResult> results =
        fx.apply(
            Records.topic("before", "id-a"),
            Records.topic("../escape", "id-b"),
            Records.topic("after", "id-c"));
    assertEquals(ErrorCode.NONE, results.get(0).getErrorCode());
    assertEquals(ErrorCode.INVALID_TOPIC, results.get(1).getErrorCode());
    assertEquals(ErrorCode.NONE, results.get(2).getErrorCode());
    assertTrue(fx.image().topic("before") != null && fx.image().topic("after") != null);
    assertEquals(2, fx.image().topics().size());
  }

  /** The hand-written name check accepts exactly what [a-zA-Z0-9._-]+ matches. */
  @Test
  void shouldAcceptExactlyTheLegalCharacters() {
    java.util.regex.Pattern legal = java.util.regex.Pattern.compile("[a-zA-Z0-9._-]+");
    for (char c = 0; c < 0x250; c++) {
      for (String s : List.of(String.valueOf(c), "a" + c, c + "-z9")) {
        assertEquals(legal.matcher(s).matches(), RecordChecks.legalName(s), "'" + s + "'");
      }
    }
    assertEquals(false, RecordChecks.legalName(""));
  }
}
