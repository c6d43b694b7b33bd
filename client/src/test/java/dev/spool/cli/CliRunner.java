package dev.spool.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * Runs {@code spool} commands in this JVM with captured streams, as a shell would see them: exit
 * code, stdout, stderr (tests only).
 *
 * <p>The one copy for every module's tests: the client's CLI tests, the data plane's {@code spool
 * storage} tests and the end-to-end tests. It ships in the client's test jar (this class only, see
 * client/pom.xml) rather than in test-support because test-support depends on the data plane, whose
 * tests use it too. Each {@link #run} builds a fresh command line; safe to call from any thread.
 */
public final class CliRunner {
  /** What one command did. */
  public record Result(int exitCode, String out, String err) {
    public List<String> outLines() {
      return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\R"));
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  private final Function<CliContext, CommandLine> commandLine;
  private final Map<String, String> env;
  private final Path workingDirectory;

  /** The client's {@code spool} command line with {@code env} in {@code workingDirectory}. */
  public CliRunner(Map<String, String> env, Path workingDirectory) {
    this(ctx -> SpoolCommand.commandLine(ctx, Map.of()), env, workingDirectory);
  }

  /**
   * The command line {@code commandLine} builds for a context (the node's, with its {@code node}
   * and {@code storage} subcommands, or one with test subcommands).
   */
  public CliRunner(
      Function<CliContext, CommandLine> commandLine,
      Map<String, String> env,
      Path workingDirectory) {
    this.commandLine = commandLine;
    this.env = Map.copyOf(env);
    this.workingDirectory = workingDirectory;
  }

  /** Runs {@code spool ARGS} with {@code stdin} as its input. */
  public Result run(String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx =
        new CliContext(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            env,
            workingDirectory);
    int code = commandLine.apply(ctx).execute(args);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
