package dev.spool;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The design documents live in the repository ({@code docs/*.md} and the README files), and code
 * comments point at them by page and section. This test fails when such a link, or a repository
 * path a document names, no longer exists, so the documents cannot silently rot as files move or
 * headings change. It reads files only (no build output) and finds the repository root by walking
 * up to the directory holding {@code mvnw}.
 *
 * <p>What is checked:
 *
 * <ul>
 *   <li>in every source, build, script and Markdown file: each link to a docs page with an optional
 *       section anchor names an existing page and an existing heading of it;
 *   <li>in the Markdown files: each backticked repository path (first segment a module, {@code
 *       docs}, {@code scripts}, {@code .ci} or {@code .mvn}; in a module README also {@code
 *       src/...} relative to the module) exists, and each relative Markdown link resolves.
 * </ul>
 *
 * Anchors are GitHub's: the heading in lower case, punctuation other than {@code -} and {@code _}
 * removed, spaces turned into {@code -}, repeated headings suffixed {@code -1}, {@code -2}, ...
 */
@Tag("unit")
class DocsLinksTest {
  static final Set<String> GENERATED_DIRECTORIES =
      Set.of("target", ".spool-cluster", "bench-results", "chaos-reports", "chaos-runs");

  private static final Pattern DOCS_LINK =
      Pattern.compile("docs/([A-Za-z0-9_-]+\\.md)(?:#([A-Za-z0-9_-]+))?");
  private static final Pattern BACKTICKED = Pattern.compile("`([^`\\s]+)`");
  private static final Pattern MARKDOWN_LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Set<String> SOURCE_EXTENSIONS =
      Set.of("java", "proto", "xml", "sh", "py", "md", "properties");

  private final Path root = repositoryRoot();
  private final Map<Path, Set<String>> anchorCache = new HashMap<>();

  @Test
  void shouldResolveEveryDocsLinkInSourcesAndDocuments() {
    List<String> problems = new ArrayList<>();
    int links = 0;
    for (Path file : files(f -> SOURCE_EXTENSIONS.contains(extension(f)) || inScripts(f))) {
      List<String> lines = lines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = DOCS_LINK.matcher(lines.get(i));
        while (m.find()) {
          links++;
          String problem = checkDoc(root.resolve("docs").resolve(m.group(1)), m.group(2));
          if (problem != null) {
            problems.add(where(file, i) + m.group() + ": " + problem);
          }
        }
      }
    }
    assertTrue(links > 0, "no docs links found under " + root + ": is the root right?");
    assertTrue(problems.isEmpty(), "broken docs links:\n" + String.join("\n", problems));
  }

  @Test
  void shouldNameOnlyExistingPathsInTheDocuments() {
    Set<String> topLevel = topLevelEntries();
    List<String> problems = new ArrayList<>();
    int paths = 0;
    for (Path doc : markdownDocuments()) {
      List<String> lines = lines(doc);
      boolean inFence = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.trim().startsWith("```")) {
          inFence = !inFence;
        }
        if (inFence) {
          continue;
        }
        Matcher m = BACKTICKED.matcher(line);
        while (m.find()) {
          Path target = repositoryPath(doc, m.group(1), topLevel);
          if (target == null) {
            continue;
          }
          paths++;
          String problem = checkTarget(target, anchorOf(m.group(1)));
          if (problem != null) {
            problems.add(where(doc, i) + "`" + m.group(1) + "`: " + problem);
          }
        }
        Matcher l = MARKDOWN_LINK.matcher(line);
        while (l.find()) {
          String problem = checkMarkdownLink(doc, l.group(1));
          if (problem != null) {
            problems.add(where(doc, i) + "(" + l.group(1) + "): " + problem);
          }
        }
      }
    }
    assertTrue(paths > 0, "no repository paths found in the documents: is the root right?");
    assertTrue(problems.isEmpty(), "paths named in the docs are missing:\n" + problems(problems));
  }

  // ---------------------------------------------------------------- resolving

  /** A backticked token as a repository path, or null when it does not look like one of ours. */
  private Path repositoryPath(Path doc, String token, Set<String> topLevel) {
    String path = withoutAnchor(token);
    if (!path.contains("/") || path.startsWith("/") || path.matches(".*[*<>{}$|…].*")) {
      return null;
    }
    if (path.contains("...") || path.contains("://")) {
      return null;
    }
    // Build output and run folders are not in a fresh clone (the client module's tests run before
    // any other module is built), so the docs may name them without them existing.
    for (String segment : path.split("/", -1)) {
      if (GENERATED_DIRECTORIES.contains(segment)) {
        return null;
      }
    }
    String first = path.substring(0, path.indexOf('/'));
    if (topLevel.contains(first)) {
      return root.resolve(path);
    }
    Path dir = doc.getParent();
    if (first.equals("src") && !dir.equals(root) && Files.exists(dir.resolve("pom.xml"))) {
      return dir.resolve(path);
    }
    return null;
  }

  private String checkMarkdownLink(Path doc, String target) {
    if (target.matches("^[a-z]+:.*")) {
      return null; // http:, https:, mailto:
    }
    String path = withoutAnchor(target);
    Path resolved = path.isEmpty() ? doc : doc.getParent().resolve(path).normalize();
    if (!resolved.startsWith(root)) {
      return "points outside the repository";
    }
    return checkTarget(resolved, anchorOf(target));
  }

  private String checkTarget(Path target, String anchor) {
    if (!Files.exists(target)) {
      return "no such file or directory " + root.relativize(target);
    }
    if (anchor != null && target.toString().endsWith(".md")) {
      return checkDoc(target, anchor);
    }
    return null;
  }

  private String checkDoc(Path doc, String anchor) {
    if (!Files.isRegularFile(doc)) {
      return "no such document " + root.relativize(doc);
    }
    if (anchor != null && !anchors(doc).contains(anchor)) {
      return "no heading with anchor #" + anchor + " in " + root.relativize(doc);
    }
    return null;
  }

  /** The anchors of a Markdown file's headings, as GitHub renders them. */
  private Set<String> anchors(Path doc) {
    return anchorCache.computeIfAbsent(
        doc,
        d -> {
          Set<String> out = new HashSet<>();
          Map<String, Integer> seen = new HashMap<>();
          boolean inFence = false;
          for (String line : lines(d)) {
            if (line.trim().startsWith("```")) {
              inFence = !inFence;
            }
            if (inFence || !line.startsWith("#")) {
              continue;
            }
            String slug = slug(line.replaceFirst("^#+\\s*", ""));
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
          }
          return out;
        });
  }

  static String slug(String heading) {
    String text = heading.trim().toLowerCase(Locale.ROOT);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        b.append(c);
      } else if (c == ' ') {
        b.append('-');
      }
    }
    return b.toString();
  }

  // ---------------------------------------------------------------- files

  /** The checkout this test runs in: the nearest directory up from here holding {@code mvnw}. */
  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "no mvnw in " + Path.of("").toAbsolutePath() + " or any parent: not in the repository");
    }
    return dir;
  }

  /** Modules (directories with a pom.xml) plus the non-module directories documents may name. */
  private Set<String> topLevelEntries() {
    Set<String> out = new HashSet<>(Set.of("docs", "scripts", ".ci", ".mvn"));
    try (Stream<Path> s = Files.list(root)) {
      s.filter(p -> Files.isRegularFile(p.resolve("pom.xml")))
          .forEach(p -> out.add(p.getFileName().toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private List<Path> markdownDocuments() {
    return files(
        f ->
            f.getFileName().toString().equals("README.md")
                || (extension(f).equals("md") && f.getParent().equals(root.resolve("docs"))));
  }

  private List<Path> files(Predicate<Path> wanted) {
    return repositoryFiles(root, wanted);
  }

  /** Files of the repository (no build output, no VCS or hidden run directories) that match. */
  static List<Path> repositoryFiles(Path root, Predicate<Path> wanted) {
    List<Path> out = new ArrayList<>();
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
              return !dir.equals(root) && skipped(dir.getFileName().toString())
                  ? FileVisitResult.SKIP_SUBTREE
                  : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (attrs.isRegularFile() && wanted.test(file)) {
                out.add(file);
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.sort(null);
    return out;
  }

  private static boolean skipped(String dir) {
    return dir.equals("target")
        || dir.equals("node_modules")
        || (dir.startsWith(".") && !dir.equals(".ci") && !dir.equals(".mvn"));
  }

  private boolean inScripts(Path f) {
    return f.getParent().equals(root.resolve("scripts"));
  }

  private static String extension(Path f) {
    String name = f.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "" : name.substring(dot + 1);
  }

  private static List<String> lines(Path f) {
    try {
      return Files.readAllLines(f, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + f, e);
    }
  }

  private static String withoutAnchor(String target) {
    int hash = target.indexOf('#');
    return hash < 0 ? target : target.substring(0, hash);
  }

  private static String anchorOf(String target) {
    int hash = target.indexOf('#');
    return hash < 0 || hash == target.length() - 1 ? null : target.substring(hash + 1);
  }

  private String where(Path file, int lineIndex) {
    return root.relativize(file) + ":" + (lineIndex + 1) + ": ";
  }

  private static String problems(List<String> problems) {
    return String.join("\n", problems);
  }
}
