package dev.spool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shell scripts users run first ({@code scripts/quickstart.sh}, {@code scripts/cluster.sh},
 * {@code scripts/spool}, the release's {@code bin/}) are not run by the Java tests, so a script
 * that no longer parses would pass the build: every shell script must pass {@code bash -n}, and no
 * file of the repository may hold a merge-conflict marker.
 */
@Tag("unit")
class ScriptsTest {
  private static final Set<String> TEXT_EXTENSIONS =
      Set.of("java", "proto", "xml", "sh", "py", "md", "properties", "yml", "json", "txt", "html");
  private static final Pattern CONFLICT_MARKER = Pattern.compile("^(<{7} |>{7} |={7}$)");

  private final Path root = DocsLinksTest.repositoryRoot();

  /** The repository's files outside build output and run directories. */
  private List<Path> files() {
    return DocsLinksTest.repositoryFiles(
        root,
        p -> {
          for (Path part : root.relativize(p)) {
            if (DocsLinksTest.GENERATED_DIRECTORIES.contains(part.toString())) {
              return false;
            }
          }
          return true;
        });
  }

  private static boolean isShellScript(Path p) throws IOException {
    if (p.getFileName().toString().endsWith(".sh")) {
      return true;
    }
    if (Files.size(p) < 2) {
      return false;
    }
    byte[] head = new byte[64];
    int n;
    try (var in = Files.newInputStream(p)) {
      n = in.read(head);
    }
    String first = new String(head, 0, Math.max(n, 0), StandardCharsets.ISO_8859_1).split("\n")[0];
    return first.startsWith("#!") && (first.contains("bash") || first.endsWith("/sh"));
  }

  @Test
  void shouldParseEveryShellScript() throws Exception {
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (Path p : files()) {
      if (!isShellScript(p)) {
        continue;
      }
      checked++;
      Process proc =
          new ProcessBuilder("bash", "-n", p.toString()).redirectErrorStream(true).start();
      String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (proc.waitFor() != 0) {
        failures.add(root.relativize(p) + ":\n" + out);
      }
    }
    assertTrue(checked >= 10, "found only " + checked + " shell scripts under " + root);
    assertEquals(List.of(), failures, "scripts that bash cannot parse");
  }

  @Test
  void shouldHoldNoMergeConflictMarker() throws Exception {
    List<String> found = new ArrayList<>();
    for (Path p : files()) {
      String name = p.getFileName().toString();
      int dot = name.lastIndexOf('.');
      boolean text =
          (dot >= 0 && TEXT_EXTENSIONS.contains(name.substring(dot + 1))) || isShellScript(p);
      if (!text) {
        continue;
      }
      List<String> lines = Files.readAllLines(p, StandardCharsets.ISO_8859_1);
      for (int i = 0; i < lines.size(); i++) {
        if (CONFLICT_MARKER.matcher(lines.get(i)).find()) {
          found.add(root.relativize(p) + ":" + (i + 1) + ": " + lines.get(i));
        }
      }
    }
    assertEquals(List.of(), found, "merge-conflict markers left in files");
  }
}
