package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.common.ScramMechanism;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spool user create|delete|list}: the SCRAM credentials of the metadata quorum, which the
 * Kafka listener's SASL checks (docs/security.md#sasl). The password is salted here; only the
 * salted password is sent, as Kafka's {@code kafka-configs --alter --add-config SCRAM-SHA-256=...}
 * does.
 */
@Command(
    name = "user",
    mixinStandardHelpOptions = true,
    description = "SASL/SCRAM users (credentials stored in the metadata quorum).",
    subcommands = {UserCommand.Create.class, UserCommand.Delete.class, UserCommand.ListUsers.class})
final class UserCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  UserCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  static List<ScramMechanism> mechanisms(CommandSpec spec, List<String> names) {
    List<ScramMechanism> out = new ArrayList<>();
    for (String n : names) {
      out.add(
          ScramMechanism.forName(n.trim())
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(),
                          "unknown mechanism '" + n + "' (SCRAM-SHA-256, SCRAM-SHA-512)")));
    }
    return out;
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Adds a user's SCRAM credentials, or replaces them (a new password): the user then has"
              + " exactly the named mechanisms, with this password; its other mechanisms are"
              + " deleted in the same request. The password comes from --password, else from a"
              + " prompt on a terminal, else from the first line of stdin; it must not be empty.")
  static final class Create implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "USER", description = "The user name.")
    String user;

    @Option(
        names = "--password",
        description = "The password (visible in the process list: prefer the prompt or stdin).")
    String password;

    @Option(
        names = "--mechanism",
        split = ",",
        description = "SCRAM-SHA-256, SCRAM-SHA-512 or both (default: both).")
    List<String> mechanisms = List.of("SCRAM-SHA-256", "SCRAM-SHA-512");

    @Option(
        names = "--iterations",
        description = "Hi() iterations, 4096..16384 (default: ${DEFAULT-VALUE}).")
    int iterations = ScramMechanism.MIN_ITERATIONS;

    @Option(
        names = "--json",
        description = "Print {user, mechanisms: [..], iterations, removed: [..]}.")
    boolean json;

    Create(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws IOException {
      List<ScramMechanism> ms = mechanisms(spec, mechanisms);
      if (password != null && password.isEmpty()) {
        throw new ParameterException(spec.commandLine(), "empty password: --password needs one");
      }
      String pw = password != null ? password : readPassword();
      List<ScramMechanism> removed = new ArrayList<>();
      try (Admin a = admin.open(ctx, spec)) {
        Map<String, Integer> has = a.describeScramCredentials().join().getOrDefault(user, Map.of());
        for (String name : has.keySet()) {
          ScramMechanism.forName(name).filter(m -> !ms.contains(m)).ifPresent(removed::add);
        }
        a.replaceScramCredentials(user, ms, pw, iterations, removed).join();
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("user", user);
              g.writeArrayFieldStart("mechanisms");
              for (ScramMechanism m : ms) {
                g.writeString(m.mechanismName());
              }
              g.writeEndArray();
              g.writeNumberField("iterations", iterations);
              g.writeArrayFieldStart("removed");
              for (ScramMechanism m : removed) {
                g.writeString(m.mechanismName());
              }
              g.writeEndArray();
              g.writeEndObject();
            });
      } else {
        ctx.out()
            .println(
                "Set "
                    + String.join(", ", ms.stream().map(ScramMechanism::mechanismName).toList())
                    + " credentials of user '"
                    + user
                    + "' ("
                    + iterations
                    + " iterations)"
                    + (removed.isEmpty()
                        ? ""
                        : "; removed its "
                            + String.join(
                                ", ", removed.stream().map(ScramMechanism::mechanismName).toList())
                            + " credentials"));
      }
      return ExitCodes.OK;
    }

    private String readPassword() throws IOException {
      Console console = System.console();
      if (console != null && ctx.in() == System.in) {
        char[] pw = console.readPassword("Password for %s: ", user);
        if (pw != null) {
          return new String(pw);
        }
      }
      String line =
          new BufferedReader(new InputStreamReader(ctx.in(), StandardCharsets.UTF_8)).readLine();
      if (line == null || line.isEmpty()) {
        throw new ParameterException(
            spec.commandLine(), "no password: give --password, or one line on stdin");
      }
      return line;
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Deletes a user's SCRAM credentials (every mechanism unless --mechanism).")
  static final class Delete implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "USER", description = "The user name.")
    String user;

    @Option(
        names = "--mechanism",
        split = ",",
        description = "SCRAM-SHA-256, SCRAM-SHA-512 or both (default: every one the user has).")
    List<String> mechanisms;

    @Option(names = "--json", description = "Print {user, deleted: [..]}.")
    boolean json;

    Delete(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      List<String> deleted = new ArrayList<>();
      try (Admin a = admin.open(ctx, spec)) {
        List<ScramMechanism> ms;
        if (mechanisms != null) {
          ms = mechanisms(spec, mechanisms);
        } else {
          Map<String, Integer> has =
              a.describeScramCredentials().join().getOrDefault(user, Map.of());
          if (has.isEmpty()) {
            throw new dev.spool.common.SpoolException(
                dev.spool.common.ErrorCode.RESOURCE_NOT_FOUND,
                "user '" + user + "' has no SCRAM credential");
          }
          ms = mechanisms(spec, List.copyOf(has.keySet()));
        }
        for (ScramMechanism m : ms) {
          a.deleteScramCredential(user, m).join();
          deleted.add(m.mechanismName());
        }
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("user", user);
              g.writeArrayFieldStart("deleted");
              for (String m : deleted) {
                g.writeString(m);
              }
              g.writeEndArray();
              g.writeEndObject();
            });
      } else {
        ctx.out()
            .println(
                "Deleted " + String.join(", ", deleted) + " credentials of user '" + user + "'");
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Users with SCRAM credentials, their mechanisms and iteration counts.")
  static final class ListUsers implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(
        names = "--json",
        description = "Print one object per user: {user, credentials: [{mechanism, iterations}]}.")
    boolean json;

    ListUsers(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      Map<String, Map<String, Integer>> users;
      try (Admin a = admin.open(ctx, spec)) {
        users = a.describeScramCredentials().join();
      }
      for (Map.Entry<String, Map<String, Integer>> e : users.entrySet()) {
        if (json) {
          JsonLines.write(
              ctx.out(),
              g -> {
                g.writeStartObject();
                g.writeStringField("user", e.getKey());
                g.writeArrayFieldStart("credentials");
                for (Map.Entry<String, Integer> c : e.getValue().entrySet()) {
                  g.writeStartObject();
                  g.writeStringField("mechanism", c.getKey());
                  g.writeNumberField("iterations", c.getValue());
                  g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
              });
        } else {
          List<String> parts = new ArrayList<>();
          e.getValue().forEach((m, i) -> parts.add(m + " (" + i + " iterations)"));
          ctx.out().println(e.getKey() + "  " + String.join(", ", parts));
        }
      }
      return ExitCodes.OK;
    }
  }
}
