package dev.spool.chaos.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.chaos.checker.CompactedKeys.Outcome;
import dev.spool.chaos.checker.CompactedKeys.Read;
import dev.spool.chaos.checker.CompactedKeys.Write;
import dev.spool.common.TopicPartition;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The compacted-topic checker on hand-made histories: each anomaly found, a clean one passes. */
@Tag("unit")
class CompactedKeysTest {
  private static final TopicPartition TP = new TopicPartition("compacted", 0);

  private static final List<Write> WRITES =
      List.of(
          new Write("a", 1, Outcome.OK),
          new Write("a", 2, Outcome.OK),
          new Write("a", 3, Outcome.INFO),
          new Write("b", 1, Outcome.OK),
          new Write("b", 2, Outcome.FAIL));

  private static List<String> kinds(List<Anomaly> anomalies) {
    return anomalies.stream().map(Anomaly::kind).toList();
  }

  @Test
  void aCompactedLogWithTheLatestValuesIsClean() {
    // a's unknown send 3 landed; b's failed one did not; older values of a are gone (gaps).
    List<Read> read = List.of(new Read(TP, 3, "b", 1), new Read(TP, 7, "a", 3));
    assertEquals(List.of(), CompactedKeys.check(WRITES, read));
    // Not yet cleaned: older values still there, in order, are fine too.
    List<Read> uncleaned =
        List.of(new Read(TP, 0, "a", 1), new Read(TP, 1, "a", 2), new Read(TP, 3, "b", 1));
    assertEquals(List.of(), CompactedKeys.check(WRITES, uncleaned));
  }

  @Test
  void anOlderValueAfterANewerOneIsAResurrection() {
    List<Read> read =
        List.of(new Read(TP, 1, "a", 2), new Read(TP, 3, "b", 1), new Read(TP, 5, "a", 1));
    List<Anomaly> found = CompactedKeys.check(WRITES, read);
    assertEquals(List.of(CompactedKeys.RESURRECTED, CompactedKeys.STALE), kinds(found));
    assertEquals(List.of(1L, 5L), found.get(0).offsets());
    assertEquals(List.of(2L, 1L), found.get(0).values());
  }

  @Test
  void aFinalValueOlderThanTheLastAcknowledgedOneIsStale() {
    List<Read> read = List.of(new Read(TP, 0, "a", 1), new Read(TP, 3, "b", 1));
    List<Anomaly> found = CompactedKeys.check(WRITES, read);
    assertEquals(List.of(CompactedKeys.STALE), kinds(found));
    assertEquals(List.of(2L, 1L), found.get(0).values());
  }

  @Test
  void anAcknowledgedKeyThatIsGoneIsLost() {
    List<Anomaly> found = CompactedKeys.check(WRITES, List.of(new Read(TP, 1, "a", 2)));
    assertEquals(List.of(CompactedKeys.LOST), kinds(found));
    assertEquals("b", found.get(0).details().get("key"));
  }

  @Test
  void aValueThatFailedOrWasNeverSentIsAPhantom() {
    List<Read> read =
        List.of(new Read(TP, 1, "a", 2), new Read(TP, 4, "b", 2), new Read(TP, 6, "c", 1));
    assertEquals(
        List.of(CompactedKeys.PHANTOM, CompactedKeys.PHANTOM),
        kinds(CompactedKeys.check(WRITES, read)));
  }
}
