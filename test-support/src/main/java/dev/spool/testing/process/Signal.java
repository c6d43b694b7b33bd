package dev.spool.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/** The POSIX signals a process cluster sends its nodes (by PID, by name). */
public enum Signal {
  /** Crash without any chance to clean up. */
  KILL,
  /** Freeze the process: no threads run, sockets stay open. */
  STOP,
  /** Resume a stopped process. */
  CONT,
  /** Ask for a clean shutdown. */
  TERM;

  /**
   * Sends this signal to {@code pid} with {@code kill -s}; fails with what {@code kill} printed
   * unless it exits 0 within 5 s.
   */
  public void sendTo(long pid) {
    List<String> cmd = List.of("kill", "-s", name(), Long.toString(pid));
    try {
      Process k = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      if (!k.waitFor(5, TimeUnit.SECONDS) || k.exitValue() != 0) {
        String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(String.join(" ", cmd) + " could not run", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + name(), e);
    }
  }

  /**
   * Appends {@code === harness <time>: line} to a node's log, so a reader sees what the harness did
   * between the node's own lines (the node may be writing too; lines are small).
   */
  public static void noteInLog(Path log, String line) {
    try {
      Files.writeString(
          log,
          "=== harness " + Instant.now() + ": " + line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      LoggerFactory.getLogger(Signal.class).warn("cannot write to {}: {}", log, e.toString());
    }
  }
}
