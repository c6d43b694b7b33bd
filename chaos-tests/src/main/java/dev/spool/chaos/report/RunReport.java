package dev.spool.chaos.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.HistoryCodec;
import dev.spool.chaos.history.HistoryEntry;
import dev.spool.chaos.history.HistoryWriter;
import dev.spool.chaos.nemesis.FaultWindow;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a run's folder:
 *
 * <pre>
 * history.jsonl   every op and white-box record (left as is if the run streamed it here already)
 * verdict.json    the {@link Verdict}, pretty-printed
 * run.json        the {@link RunInfo}: seed, re-run command, notes
 * nemesis.jsonl   the fault timeline, one {@link FaultWindow} per line
 * nodes/          copies of the node logs
 * index.html      the page a person looks at first ({@link HtmlReport})
 * </pre>
 */
public final class RunReport {
  private static final Logger LOG = LoggerFactory.getLogger(RunReport.class);
  public static final String HISTORY = "history.jsonl";
  public static final String VERDICT = "verdict.json";
  public static final String RUN = "run.json";
  public static final String NEMESIS = "nemesis.jsonl";
  public static final String NODES = "nodes";
  public static final String INDEX = "index.html";

  private RunReport() {}

  /** Writes the folder and returns the path of {@code index.html}. */
  public static Path write(
      Path dir,
      RunInfo info,
      History history,
      Verdict verdict,
      List<FaultWindow> faults,
      List<Path> nodeLogs)
      throws IOException {
    Files.createDirectories(dir);
    Path historyFile = dir.resolve(HISTORY);
    if (!Files.exists(historyFile)) {
      try (HistoryWriter w = HistoryWriter.create(historyFile)) {
        for (HistoryEntry e : history.entries()) {
          w.append(e);
        }
      }
    }
    ObjectMapper json = HistoryCodec.mapper();
    json.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(VERDICT).toFile(), verdict);
    json.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(RUN).toFile(), info);
    try (BufferedWriter w = Files.newBufferedWriter(dir.resolve(NEMESIS), StandardCharsets.UTF_8)) {
      for (FaultWindow f : faults) {
        w.write(json.writeValueAsString(f));
        w.write('\n');
      }
    }
    copyNodeLogs(dir.resolve(NODES), nodeLogs);
    Path index = dir.resolve(INDEX);
    Files.writeString(index, HtmlReport.render(info, verdict, faults), StandardCharsets.UTF_8);
    LOG.info("run report: {} ({})", index.toAbsolutePath(), verdict.valid());
    return index;
  }

  /**
   * Copies each log into {@code nodes/}, keeping its name; a repeated name gets its parent's name
   * in front.
   */
  private static void copyNodeLogs(Path nodesDir, List<Path> logs) throws IOException {
    Files.createDirectories(nodesDir);
    Set<String> used = new HashSet<>();
    for (Path log : logs) {
      if (!Files.isRegularFile(log)) {
        LOG.warn("node log {} does not exist; not copied", log);
        continue;
      }
      String name = log.getFileName().toString();
      if (!used.add(name) && log.getParent() != null) {
        name = log.getParent().getFileName() + "-" + name;
        used.add(name);
      }
      Files.copy(log, nodesDir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
