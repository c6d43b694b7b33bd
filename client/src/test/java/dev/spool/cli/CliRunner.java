package dev.spool.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Runs {@code spool} commands in-process with captured streams (tests only). */
final class CliRunner {
  record Result(int exitCode, String out, String err) {
    List<String> outLines() {
      return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\R"));
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  private final Map<String, String> env;
  private final Path workingDirectory;

  CliRunner(Map<String, String> env, Path workingDirectory) {
    this.env = env;
    this.workingDirectory = workingDirectory;
  }

  Result run(String stdin, String... args) {
    return run(stdin, Map.of(), args);
  }

  Result run(String stdin, Map<String, Object> extraSubcommands, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext ctx =
        new CliContext(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            env,
            workingDirectory);
    int code = SpoolCommand.commandLine(ctx, extraSubcommands).execute(args);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
