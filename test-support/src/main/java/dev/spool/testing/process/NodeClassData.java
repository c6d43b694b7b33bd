package dev.spool.testing.process;

import dev.spool.testing.Ports;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Class-data sharing (the JDK's AppCDS) for the node JVMs of process clusters
 * (docs/conventions.md#test-speed). The first cluster a test JVM builds starts, in the background,
 * one single-node training node with {@code -XX:ArchiveClassesAtExit}, stops it with SIGTERM once
 * it is ready and keeps the archive of the classes it loaded; every node started after that maps
 * the archive ({@code -XX:SharedArchiveFile}), and so does every {@code storage format} run,
 * instead of loading, parsing and verifying the same few thousand classes again. On 2 cores that is
 * about 0.8 s less CPU per node start, and the test suite starts hundreds of nodes. The cluster's
 * own nodes never dump, so a test's kills and stops are not slowed or changed by it; nodes started
 * before the archive exists run without it.
 *
 * <ul>
 *   <li>The JVM archives only a class path of jars (it refuses non-empty directories). Inside a
 *       Maven build the Spool modules a test depends on are jars, so nodes get the jars of the test
 *       class path, without the test module's own class directories (a node runs {@code
 *       dev.spool.node.SpoolMain} and nothing of the test). Where {@code SpoolMain} itself comes
 *       from a directory (the data-plane module's own tests, an IDE), sharing is off and the class
 *       path is unchanged.
 *   <li>The archive's name hashes the JVM's version and every jar's path, size and modification
 *       time, so a rebuilt jar gets a new archive. An archive the JVM cannot use is ignored by the
 *       JVM itself, which then loads classes as usual: sharing only ever saves time.
 *   <li>One training at a time across the test JVMs of a module (a file lock); a training that
 *       fails (the node does not get ready, or does not exit, within a minute) is not retried by
 *       that JVM, and its nodes simply run without an archive.
 * </ul>
 *
 * <p>Thread-safe: node processes of several clusters start concurrently.
 */
final class NodeClassData {
  private static final Logger LOG = LoggerFactory.getLogger(NodeClassData.class);
  private static final String MAIN_CLASS = "dev.spool.node.SpoolMain";
  private static final String MAIN_CLASS_FILE = MAIN_CLASS.replace('.', '/') + ".class";
  private static final Duration TRAINING_STEP = Duration.ofSeconds(60);
  private static final Map<String, NodeClassData> BY_CLASS_PATH = new ConcurrentHashMap<>();

  /** JVM options that keep the JVM's own CDS messages out of node logs. */
  private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");

  private final String classPath;
  private final Path archive;
  private boolean trainingStarted;

  private NodeClassData(String classPath, Path archive) {
    this.classPath = classPath;
    this.archive = archive;
  }

  /**
   * Class data for nodes started from {@code testClassPath}, with archives kept under {@code dir};
   * one instance per class path in this JVM.
   */
  static NodeClassData of(String testClassPath, Path dir) {
    return BY_CLASS_PATH.computeIfAbsent(testClassPath, cp -> create(cp, dir));
  }

  private static NodeClassData create(String testClassPath, Path dir) {
    List<String> jars = new ArrayList<>();
    boolean mainInJar = false;
    for (String entry : testClassPath.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (entry.endsWith(".jar") && Files.isRegularFile(p)) {
        jars.add(entry);
        mainInJar |= holdsMainClass(p);
      } else if (Files.isRegularFile(p.resolve(MAIN_CLASS_FILE))) {
        return new NodeClassData(testClassPath, null);
      }
    }
    if (!mainInJar) {
      return new NodeClassData(testClassPath, null);
    }
    String classPath = String.join(File.pathSeparator, jars);
    return new NodeClassData(classPath, dir.resolve("node-" + fingerprint(jars) + ".jsa"));
  }

  private static boolean holdsMainClass(Path jar) {
    try (JarFile j = new JarFile(jar.toFile())) {
      return j.getEntry(MAIN_CLASS_FILE) != null;
    } catch (IOException e) {
      return false;
    }
  }

  private static String fingerprint(List<String> jars) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(System.getProperty("java.vm.version", "").getBytes(StandardCharsets.UTF_8));
      for (String jar : jars) {
        Path p = Path.of(jar);
        String line =
            jar + '|' + Files.size(p) + '|' + Files.getLastModifiedTime(p).toMillis() + '\n';
        md.update(line.getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(md.digest(), 0, 8);
    } catch (IOException e) {
      return "unreadable-" + jars.hashCode();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** The class path node JVMs run with. */
  String classPath() {
    return classPath;
  }

  /** Options for starting a node now: the archive's, once there is one. */
  List<String> options() {
    if (archive == null || !Files.isRegularFile(archive)) {
      return List.of();
    }
    List<String> out = new ArrayList<>(QUIET);
    out.add("-XX:SharedArchiveFile=" + archive);
    return out;
  }

  /**
   * Starts the training node in the background unless there is an archive already or this JVM has
   * tried before; {@code jvmOptions} are the cluster's node JVM options.
   */
  synchronized void train(List<String> jvmOptions) {
    if (archive == null || trainingStarted || Files.isRegularFile(archive)) {
      return;
    }
    trainingStarted = true;
    Thread t = new Thread(() -> trainLocked(jvmOptions), "node-class-data-training");
    t.setDaemon(true);
    t.start();
  }

  private void trainLocked(List<String> jvmOptions) {
    Path dir = archive.resolveSibling("training-" + ProcessHandle.current().pid());
    try {
      Files.createDirectories(archive.getParent());
      try (FileChannel ch =
              FileChannel.open(
                  archive.resolveSibling("training.lock"),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE);
          FileLock lock = ch.tryLock()) {
        if (lock == null || Files.isRegularFile(archive)) {
          return; // another test JVM trains (or has trained) for this class path
        }
        trainIn(dir, jvmOptions);
      }
    } catch (IOException | RuntimeException e) {
      LOG.info("no class-data archive for nodes ({}): {}", archive, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      deleteTree(dir);
    }
  }

  private void trainIn(Path dir, List<String> jvmOptions) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Map<String, String> props = new LinkedHashMap<>();
    props.put("node.id", "1");
    props.put("process.roles", "broker,controller");
    props.put("cluster.id", "class-data-training");
    props.put("listener", "127.0.0.1:0");
    props.put("data.dir", dir.resolve("data").toString());
    props.put("controller.quorum.voters", "1@127.0.0.1:" + new Ports().next("127.0.0.1"));
    props.put("controller.quorum.bind.host", "127.0.0.1");
    props.put("controlled.shutdown.timeout.ms", "1000");
    Path config = dir.resolve("node.properties");
    StringBuilder sb = new StringBuilder();
    props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    Files.writeString(config, sb.toString(), StandardCharsets.UTF_8);
    Path dump = dir.resolve("node.jsa");
    Path log = dir.resolve("node.log");
    List<String> java = new ArrayList<>();
    java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    java.addAll(jvmOptions);
    java.addAll(QUIET);
    long started = System.nanoTime();
    List<String> format = new ArrayList<>(java);
    format.addAll(List.of("-cp", classPath, MAIN_CLASS, "storage", "format", "--config"));
    format.addAll(List.of(config.toString(), "--cluster-id", props.get("cluster.id")));
    Process f = start(format, log);
    if (!f.waitFor(TRAINING_STEP.toMillis(), TimeUnit.MILLISECONDS) || f.exitValue() != 0) {
      f.destroyForcibly();
      throw new IOException("the training node's storage format failed: " + tail(log));
    }
    List<String> cmd = new ArrayList<>(java);
    cmd.add("-XX:ArchiveClassesAtExit=" + dump);
    cmd.addAll(List.of("-cp", classPath, MAIN_CLASS, "node", "start", "--config"));
    cmd.add(config.toString());
    Process p = start(cmd, log);
    // The test JVM may end first: the training node must not outlive it.
    Thread reaper = new Thread(p::destroyForcibly, "node-class-data-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try {
      if (!awaitReady(p, log)) {
        throw new IOException("the training node did not get ready: " + tail(log));
      }
      p.destroy(); // SIGTERM: the JVM writes the archive as it exits
      if (!p.waitFor(TRAINING_STEP.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException("the training node did not exit within " + TRAINING_STEP);
      }
      if (!Files.isRegularFile(dump) || Files.size(dump) == 0) {
        throw new IOException("the training node wrote no archive: " + tail(log));
      }
      Files.move(
          dump, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      LOG.info(
          "class-data archive for nodes written in {} ms: {}",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
          archive);
    } finally {
      p.destroyForcibly();
      p.waitFor(TRAINING_STEP.toMillis(), TimeUnit.MILLISECONDS);
      try {
        Runtime.getRuntime().removeShutdownHook(reaper);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
    }
  }

  private static Process start(List<String> command, Path log) throws IOException {
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
  }

  private static boolean awaitReady(Process p, Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TRAINING_STEP.toNanos();
    while (System.nanoTime() < deadline && p.isAlive()) {
      if (Files.readString(log, StandardCharsets.UTF_8).contains("broker started")) {
        return true;
      }
      p.waitFor(100, TimeUnit.MILLISECONDS);
    }
    return false;
  }

  private static String tail(Path log) throws IOException {
    String s = Files.readString(log, StandardCharsets.UTF_8);
    return s.substring(Math.max(0, s.length() - 2000));
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.info("cannot delete {}: {}", dir, e.toString());
    }
  }
}
