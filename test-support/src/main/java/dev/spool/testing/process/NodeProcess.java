package dev.spool.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's OS process: started from its config file with its own data directory, stdout and
 * stderr appended to its log file, signalled by the PID the harness recorded when it started it
 * (never by name). Restarts reuse the same config, ports and data directory. Every start and signal
 * is also written into the node's log as a {@code === harness:} line, so the log reads as a
 * timeline. Thread-safe (synchronized): nemeses, the harness and the shutdown hook may touch it.
 */
final class NodeProcess {
  private static final Logger LOG = LoggerFactory.getLogger(NodeProcess.class);

  /** How long a SIGKILLed process may take to be reaped. */
  private static final long REAP_TIMEOUT_MS = 10_000;

  private final int id;
  private final Path configFile;
  private final Path dataDir;
  private final Path logFile;
  private final List<String> command;
  private final List<String> formatCommand;
  private final NodeClassData classData;
  private final int jvmOptionsAt;
  private final boolean broker;
  private final boolean controller;
  private Process process;
  private boolean paused;
  private int starts;

  NodeProcess(
      int id,
      Path configFile,
      Path dataDir,
      Path logFile,
      List<String> command,
      List<String> formatCommand,
      NodeClassData classData,
      int jvmOptionsAt,
      boolean broker,
      boolean controller) {
    this.id = id;
    this.broker = broker;
    this.controller = controller;
    this.configFile = configFile;
    this.dataDir = dataDir;
    this.logFile = logFile;
    this.command = List.copyOf(command);
    this.formatCommand = List.copyOf(formatCommand);
    this.classData = classData;
    this.jvmOptionsAt = jvmOptionsAt;
  }

  int id() {
    return id;
  }

  boolean isBroker() {
    return broker;
  }

  boolean isController() {
    return controller;
  }

  Path dataDir() {
    return dataDir;
  }

  Path logFile() {
    return logFile;
  }

  Path configFile() {
    return configFile;
  }

  synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Running and not stopped with SIGSTOP: it can answer. */
  synchronized boolean isServing() {
    return isRunning() && !paused;
  }

  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  synchronized int starts() {
    return starts;
  }

  /** Starts the process unless it is running. */
  synchronized void start() {
    if (isRunning()) {
      return;
    }
    List<String> cmd = new ArrayList<>(command);
    cmd.addAll(jvmOptionsAt, classData.options());
    note("starting node " + id + " (start #" + (starts + 1) + "): " + String.join(" ", cmd));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start node " + id, e);
    }
    paused = false;
    starts++;
    note("node " + id + " started with pid " + process.pid());
    LOG.info("n{} started, pid {}, log {}", id, process.pid(), logFile);
  }

  /**
   * Starts {@code spool storage format} for this node (as an operator does before the first start),
   * its output appended to the node's log; the caller waits for it ({@link #awaitFormat}).
   */
  synchronized Process startFormat() {
    List<String> cmd = new ArrayList<>(formatCommand);
    cmd.addAll(1, classData.options()); // after the java binary
    note("formatting node " + id + ": " + String.join(" ", cmd));
    try {
      return new ProcessBuilder(cmd)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot format node " + id, e);
    }
  }

  /** Waits for a {@link #startFormat} process; throws unless it formatted (exit 0) in time. */
  void awaitFormat(Process format, long timeoutMs) {
    try {
      if (!format.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
        format.destroyForcibly();
        throw new IllegalStateException(
            "node " + id + ": spool storage format did not finish in " + timeoutMs + " ms");
      }
    } catch (InterruptedException e) {
      format.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while formatting node " + id, e);
    }
    if (format.exitValue() != 0) {
      throw new IllegalStateException(
          "node "
              + id
              + ": spool storage format failed with exit code "
              + format.exitValue()
              + "; its output is in "
              + logFile);
    }
    note("node " + id + " formatted");
  }

  /** Sends {@code signal} to the recorded PID; does nothing if the process is not running. */
  synchronized void signal(Signal signal) {
    if (!isRunning()) {
      return;
    }
    long pid = process.pid();
    note("sending SIG" + signal + " to node " + id + " (pid " + pid + ")");
    LOG.info("n{}: SIG{} to pid {}", id, signal, pid);
    switch (signal) {
      case KILL -> {
        process.destroyForcibly();
        awaitExit(REAP_TIMEOUT_MS);
      }
      case TERM -> process.destroy();
      case STOP, CONT -> {
        signal.sendTo(pid);
        paused = signal == Signal.STOP;
      }
    }
  }

  /** Waits up to {@code timeoutMs} for the process to exit; true if it is not running. */
  boolean awaitExit(long timeoutMs) {
    Process p;
    synchronized (this) {
      p = process;
    }
    if (p == null) {
      return true;
    }
    try {
      return p.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !p.isAlive();
    }
  }

  /**
   * SIGCONT (a paused process cannot act on SIGTERM), SIGTERM, then SIGKILL after {@code
   * timeoutMs}.
   */
  void stop(long timeoutMs) {
    if (!terminate()) {
      return;
    }
    awaitExitOrKill(timeoutMs);
  }

  /** SIGCONT if paused, then SIGTERM; false if the process was not running. */
  synchronized boolean terminate() {
    if (!isRunning()) {
      return false;
    }
    if (paused) {
      signal(Signal.CONT);
    }
    signal(Signal.TERM);
    return true;
  }

  /** Waits up to {@code timeoutMs} for the exit (after {@link #terminate}), then SIGKILL. */
  void awaitExitOrKill(long timeoutMs) {
    synchronized (this) {
      if (process == null) {
        return;
      }
    }
    if (!awaitExit(timeoutMs)) {
      LOG.warn("n{} did not stop within {} ms of SIGTERM; SIGKILL", id, timeoutMs);
      signal(Signal.KILL);
    }
    synchronized (this) {
      note("node " + id + " exited with " + (process.isAlive() ? "?" : process.exitValue()));
    }
  }

  /** Exit code of the last run, or null while running or before the first start. */
  synchronized Integer exitCode() {
    return process == null || process.isAlive() ? null : process.exitValue();
  }

  /** Appends a harness line to the node's log (the node may be writing too; lines are small). */
  private void note(String line) {
    Signal.noteInLog(logFile, line);
  }
}
