package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.SpoolException;
import dev.spool.protocol.ClientQuotaMessages;
import dev.spool.protocol.message.AlterClientQuotasRequest;
import dev.spool.protocol.message.AlterClientQuotasResponse;
import dev.spool.protocol.message.DescribeClientQuotasRequest;
import dev.spool.protocol.message.DescribeClientQuotasResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code spool quota alter|describe}: the client quotas of the metadata quorum, which every broker
 * enforces (docs/security.md#quotas), with the entity flags of Kafka's {@code kafka-configs}. A
 * change is checked here as the controller checks it, so a bad one is refused (INVALID_REQUEST and
 * why) before anything is sent.
 */
@Command(
    name = "quota",
    mixinStandardHelpOptions = true,
    description = "Client quotas per user and client id (stored in the metadata quorum).",
    subcommands = {QuotaCommand.Alter.class, QuotaCommand.Describe.class})
final class QuotaCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  QuotaCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  static void print(
      CliContext ctx,
      dev.spool.protocol.message.ClientQuotaEntity e,
      Map<String, Double> values,
      boolean json) {
    Map<String, Double> sorted = new TreeMap<>(values);
    if (json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            if (e.hasUser()) {
              g.writeStringField("user", e.getUser());
            }
            if (e.hasClientId()) {
              g.writeStringField("client_id", e.getClientId());
            }
            g.writeObjectFieldStart("values");
            for (Map.Entry<String, Double> v : sorted.entrySet()) {
              g.writeNumberField(v.getKey(), v.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
          });
    } else {
      StringBuilder s = new StringBuilder(ClientQuotaMessages.entity(e).toString());
      sorted.forEach((k, v) -> s.append(' ').append(k).append('=').append(number(v)));
      ctx.out().println(s);
    }
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.valueOf(v);
  }

  @Command(
      name = "alter",
      mixinStandardHelpOptions = true,
      description =
          "Sets (--add) or removes (--delete) quota keys of a user, a client id or both;"
              + " '<default>' names the default user or client id. Keys: producer_byte_rate,"
              + " consumer_byte_rate (bytes/s), request_percentage (percent of one"
              + " thread's time).")
  static final class Alter implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(names = "--user", description = "A user name, or <default>.")
    String user;

    @Option(names = "--client-id", description = "A client id, or <default>.")
    String clientId;

    @Option(
        names = "--add",
        split = ",",
        description = "key=value to set (repeatable, or comma-separated).")
    List<String> add = new ArrayList<>();

    @Option(names = "--delete", split = ",", description = "A key to remove (repeatable).")
    List<String> delete = new ArrayList<>();

    Alter(CliContext ctx) {
      this.ctx = ctx;
    }

    private ParameterException invalid(String why) {
      return new ParameterException(spec.commandLine(), "INVALID_REQUEST: " + why);
    }

    AlterClientQuotasRequest request() {
      String problem = new ClientQuotaEntity(user, clientId).check();
      if (problem != null) {
        throw invalid(problem + " (--user, --client-id)");
      }
      if (add.isEmpty() && delete.isEmpty()) {
        throw invalid("give --add key=value or --delete key");
      }
      AlterClientQuotasRequest.Entry.Builder e =
          AlterClientQuotasRequest.Entry.newBuilder()
              .setEntity(ClientQuotaMessages.toMessage(new ClientQuotaEntity(user, clientId)));
      for (String kv : add) {
        int eq = kv.indexOf('=');
        if (eq < 0) {
          throw invalid("--add takes key=value, not '" + kv + "'");
        }
        String key = kv.substring(0, eq).trim();
        double value;
        try {
          value = Double.parseDouble(kv.substring(eq + 1).trim());
        } catch (NumberFormatException ex) {
          throw invalid("the value of " + key + " is not a number: '" + kv.substring(eq + 1) + "'");
        }
        problem = ClientQuotaEntity.checkValue(key, value);
        if (problem != null) {
          throw invalid(problem);
        }
        e.addOps(AlterClientQuotasRequest.Op.newBuilder().setKey(key).setValue(value));
      }
      for (String key : delete) {
        problem = ClientQuotaEntity.checkKey(key.trim());
        if (problem != null) {
          throw invalid(problem);
        }
        e.addOps(AlterClientQuotasRequest.Op.newBuilder().setKey(key.trim()).setRemove(true));
      }
      return AlterClientQuotasRequest.newBuilder().addEntries(e).build();
    }

    @Override
    public Integer call() {
      AlterClientQuotasRequest req = request();
      AlterClientQuotasResponse resp;
      try (Admin a = admin.open(ctx, spec)) {
        resp = a.alterClientQuotas(req).join();
      }
      AlterClientQuotasResponse.Result r = resp.getResults(0);
      if (r.getErrorCode() != dev.spool.common.ErrorCode.NONE) {
        throw new SpoolException(r.getErrorCode(), r.getErrorMessage());
      }
      ctx.out().println("altered " + new ClientQuotaEntity(user, clientId));
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "The client quotas, or those of a user and/or client id (<default> names the default).")
  static final class Describe implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(names = "--user", description = "Only quotas whose entity has this user.")
    String user;

    @Option(names = "--client-id", description = "Only quotas whose entity has this client id.")
    String clientId;

    @Option(
        names = "--json",
        description = "Print one object per entity: {user, client_id, values}.")
    boolean json;

    Describe(CliContext ctx) {
      this.ctx = ctx;
    }

    private static void component(DescribeClientQuotasRequest.Builder b, String type, String name) {
      if (name != null) {
        boolean dflt = ClientQuotaEntity.DEFAULT.equals(name);
        b.addComponents(
            DescribeClientQuotasRequest.Component.newBuilder()
                .setEntityType(type)
                .setMatchType(dflt ? "DEFAULT" : "EXACT")
                .setMatch(dflt ? "" : name));
      }
    }

    @Override
    public Integer call() {
      DescribeClientQuotasRequest.Builder b = DescribeClientQuotasRequest.newBuilder();
      component(b, "user", user);
      component(b, "client-id", clientId);
      DescribeClientQuotasResponse resp;
      try (Admin a = admin.open(ctx, spec)) {
        resp = a.describeClientQuotas(b.build()).join();
      }
      for (DescribeClientQuotasResponse.Entry e : resp.getEntriesList()) {
        print(ctx, e.getEntity(), e.getValuesMap(), json);
      }
      return ExitCodes.OK;
    }
  }
}
