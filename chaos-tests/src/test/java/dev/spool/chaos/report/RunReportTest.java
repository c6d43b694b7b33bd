package dev.spool.chaos.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.history.HistoryCodec;
import dev.spool.chaos.history.HistoryReader;
import dev.spool.chaos.nemesis.FaultWindow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class RunReportTest {
  private static RunInfo info() {
    return new RunInfo(
        "20261129-101500-s20261129",
        SampleRun.SEED,
        1_795_000_000_000L,
        "scripts/chaos.sh --seed 20261129 --time-limit 120 --nemesis kill,pause,partition,proxy",
        "3 nodes, combined roles, topic orders: 3 partitions, RF 3",
        "kill,pause,partition,proxy",
        List.of("<script>alert('notes are escaped')</script>"));
  }

  @Test
  void shouldFindTheInjectedBugsInTheSampleRun() {
    SampleRun run = new SampleRun();
    Verdict v = CheckerSuite.standard().check(run.history, run.faults);
    assertEquals(Validity.FALSE, v.valid());
    assertEquals(
        1,
        v.results().get("lost-write").anomalyCount(),
        () -> v.results().get("lost-write").toString());
    assertEquals(
        List.of(SampleRun.LOST_VALUE), v.results().get("lost-write").anomalies().get(0).values());
    assertEquals(1, v.results().get("duplicate").anomalyCount());
    assertEquals(
        List.of(SampleRun.DUPLICATED_VALUE),
        v.results().get("duplicate").anomalies().get(0).values());
    for (String clean :
        List.of(
            "inconsistent-offsets",
            "nonmonotonic-send",
            "nonmonotonic-poll",
            "aborted-read",
            "replica-divergence",
            "leader-epoch-monotonic")) {
      assertEquals(
          Validity.TRUE,
          v.results().get(clean).valid(),
          () -> clean + ": " + v.results().get(clean));
    }
    assertTrue(
        v.availability().faults().get(1).longestGap().durationNs() >= 6 * SampleRun.S,
        "the split stalled writes ~6 s");
  }

  @Test
  void shouldWriteAFolderThatParsesBackAndAPageWithTheAnomaliesAndThePlot(@TempDir Path dir)
      throws IOException {
    SampleRun run = new SampleRun();
    Verdict v = CheckerSuite.standard().check(run.history, run.faults);
    Path log =
        Files.writeString(
            Files.createDirectories(dir.resolve("n1")).resolve("node.log"), "started\n");
    Path out = dir.resolve("run");

    Path index = RunReport.write(out, info(), run.history, v, run.faults, List.of(log));

    assertEquals(
        run.history.entries(),
        HistoryReader.read(out.resolve(RunReport.HISTORY)).history().entries());
    Verdict back =
        HistoryCodec.mapper().readValue(out.resolve(RunReport.VERDICT).toFile(), Verdict.class);
    // JSON numbers come back as the narrowest type in free-form details, so compare as JSON.
    assertEquals(
        HistoryCodec.mapper().writeValueAsString(v),
        HistoryCodec.mapper().writeValueAsString(back));
    assertEquals(v.counts(), back.counts());
    assertEquals(v.valid(), back.valid());
    JsonNode raw = HistoryCodec.mapper().readTree(out.resolve(RunReport.VERDICT).toFile());
    assertFalse(raw.get("valid").asBoolean());
    assertEquals(
        "lost-write",
        raw.get("results").get("lost-write").get("anomalies").get(0).get("kind").asText());
    List<String> timeline = Files.readAllLines(out.resolve(RunReport.NEMESIS));
    assertEquals(run.faults.size(), timeline.size());
    assertEquals(
        run.faults.get(1), HistoryCodec.mapper().readValue(timeline.get(1), FaultWindow.class));
    assertEquals("started\n", Files.readString(out.resolve(RunReport.NODES).resolve("node.log")));

    String html = Files.readString(index);
    assertTrue(html.startsWith("<!DOCTYPE html>"));
    assertTrue(html.contains("<svg"), "the plot is inline SVG");
    assertTrue(html.contains(">INVALID<"), "the verdict is the first thing");
    assertTrue(
        html.contains("value " + SampleRun.LOST_VALUE + " acknowledged at"),
        "the lost write is listed");
    assertTrue(
        html.contains("value " + SampleRun.DUPLICATED_VALUE + " appears at 2 offsets"),
        "the duplicate is listed");
    assertTrue(html.contains("scripts/chaos.sh --seed 20261129"), "the re-run command is shown");
    assertTrue(
        html.contains("split") && html.contains("client latency"), "fault windows are labelled");
    assertFalse(html.contains("<script>"), "text is escaped");
    assertFalse(html.contains("http://") && html.contains("src=\"http"), "no external assets");
  }

  @Test
  void shouldSayValidAndNoneFoundForACleanRun(@TempDir Path dir) throws IOException {
    Verdict v =
        CheckerSuite.standard().check(dev.spool.chaos.history.History.of(List.of()), List.of());
    String html =
        Files.readString(
            RunReport.write(
                dir,
                info(),
                dev.spool.chaos.history.History.of(List.of()),
                v,
                List.of(),
                List.of()));
    assertTrue(html.contains(">UNKNOWN<"), "an empty history proves nothing");
    assertTrue(html.contains("None found."));
    assertTrue(html.contains("No faults were injected."));
  }
}
