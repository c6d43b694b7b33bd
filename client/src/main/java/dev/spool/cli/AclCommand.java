package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.common.AclResourceType;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.protocol.AclMessages;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.AclFilter;
import dev.spool.protocol.message.CreateAclsResponse;
import dev.spool.protocol.message.DeleteAclsResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code spool acl add|remove|list}: the ACLs of the metadata quorum, which every broker's
 * authorizer checks (docs/security.md#acls), with the flags of Kafka's {@code kafka-acls}. Each ACL
 * is checked here as the controller checks it, so a bad one is refused (INVALID_ACL and why) before
 * anything is sent.
 */
@Command(
    name = "acl",
    mixinStandardHelpOptions = true,
    description =
        "ACLs (stored in the metadata quorum; checked when authorizer.class.name is set).",
    subcommands = {AclCommand.Add.class, AclCommand.Remove.class, AclCommand.ListAcls.class})
final class AclCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  AclCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  /** Exactly one resource: --topic, --group, --cluster or --transactional-id. */
  static final class Resource {
    @Option(names = "--topic", description = "A topic name (or prefix, or '*').")
    String topic;

    @Option(names = "--group", description = "A consumer group id (or prefix, or '*').")
    String group;

    @Option(names = "--cluster", description = "The cluster (kafka-cluster).")
    boolean cluster;

    @Option(names = "--transactional-id", description = "A transactional id (or prefix, or '*').")
    String transactionalId;

    String type() {
      return topic != null
          ? "TOPIC"
          : group != null
              ? "GROUP"
              : transactionalId != null ? "TRANSACTIONAL_ID" : cluster ? "CLUSTER" : "";
    }

    String name() {
      return topic != null
          ? topic
          : group != null
              ? group
              : transactionalId != null
                  ? transactionalId
                  : cluster ? AclResourceType.CLUSTER_NAME : "";
    }
  }

  /** The options add and remove share: who, from where, what on which resource. */
  static final class Binding {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Resource resource;

    @Option(
        names = "--resource-pattern-type",
        description = "literal (the name, or '*' for every name) or prefixed (default: literal).")
    String patternType = "literal";

    @Option(names = "--allow-principal", description = "Type:name to allow (repeatable).")
    List<String> allow = new ArrayList<>();

    @Option(names = "--deny-principal", description = "Type:name to deny (repeatable).")
    List<String> deny = new ArrayList<>();

    @Option(
        names = "--operation",
        required = true,
        description =
            "Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs,"
                + " AlterConfigs, IdempotentWrite or All (repeatable).")
    List<String> operations = new ArrayList<>();

    @Option(names = "--host", description = "An IP address, or * (default: *).")
    String host = "*";

    /** Every ACL the options name, each checked; a bad one is a usage error naming why. */
    List<Acl> acls(CommandSpec spec) {
      if (allow.isEmpty() && deny.isEmpty()) {
        throw new ParameterException(
            spec.commandLine(), "INVALID_ACL: give --allow-principal or --deny-principal");
      }
      List<Acl> out = new ArrayList<>();
      for (String[] p : principals()) {
        for (String op : operations) {
          Acl a =
              Acl.newBuilder()
                  .setResourceType(resource.type())
                  .setResourceName(resource.name())
                  .setPatternType(patternType.toUpperCase(Locale.ROOT))
                  .setPrincipal(p[0])
                  .setHost(host)
                  .setOperation(op.replaceAll("([a-z])([A-Z])", "$1_$2"))
                  .setPermission(p[1])
                  .build();
          AclMessages.Parsed parsed = AclMessages.parse(a);
          if (parsed.problem() != null) {
            throw new ParameterException(spec.commandLine(), "INVALID_ACL: " + parsed.problem());
          }
          out.add(AclMessages.toMessage("", parsed.binding()));
        }
      }
      return out;
    }

    private List<String[]> principals() {
      List<String[]> out = new ArrayList<>();
      allow.forEach(p -> out.add(new String[] {p, "ALLOW"}));
      deny.forEach(p -> out.add(new String[] {p, "DENY"}));
      return out;
    }
  }

  static void print(CliContext ctx, Acl a, String event, boolean json) {
    if (json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            if (event != null) {
              g.writeStringField("event", event);
            }
            g.writeStringField("id", a.getId());
            g.writeStringField("principal", a.getPrincipal());
            g.writeStringField("host", a.getHost());
            g.writeStringField("operation", a.getOperation());
            g.writeStringField("permission", a.getPermission());
            g.writeStringField("resource_type", a.getResourceType());
            g.writeStringField("resource_name", a.getResourceName());
            g.writeStringField("pattern_type", a.getPatternType());
            g.writeEndObject();
          });
    } else {
      ctx.out()
          .println(
              (event == null ? "" : event + " ")
                  + a.getPermission()
                  + " "
                  + a.getPrincipal()
                  + " from "
                  + a.getHost()
                  + " "
                  + a.getOperation()
                  + " on "
                  + a.getResourceType()
                  + ":"
                  + a.getPatternType()
                  + ":"
                  + a.getResourceName()
                  + "  (id "
                  + a.getId()
                  + ")");
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description =
          "Adds ACLs: each principal given with each operation on the resource. An ACL that"
              + " exists already is kept (same id).")
  static final class Add implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @ArgGroup(exclusive = false, multiplicity = "1")
    Binding binding;

    @Option(
        names = "--json",
        description = "Print one object per ACL: {event, id, principal, ...}.")
    boolean json;

    Add(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      List<Acl> acls = binding.acls(spec);
      CreateAclsResponse resp;
      try (Admin a = admin.open(ctx, spec)) {
        resp = a.createAcls(acls).join();
      }
      SpoolException failed = null;
      for (int i = 0; i < acls.size(); i++) {
        CreateAclsResponse.Result r = resp.getResults(i);
        if (r.getErrorCode() == ErrorCode.NONE) {
          print(ctx, acls.get(i).toBuilder().setId(r.getId()).build(), "added", json);
        } else if (failed == null) {
          failed = new SpoolException(r.getErrorCode(), r.getErrorMessage());
        }
      }
      if (failed != null) {
        throw failed;
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description =
          "Removes the ACLs the options name exactly; RESOURCE_NOT_FOUND when one of them does"
              + " not exist.")
  static final class Remove implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @ArgGroup(exclusive = false, multiplicity = "1")
    Binding binding;

    @Option(names = "--json", description = "Print one object per removed ACL.")
    boolean json;

    Remove(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      List<Acl> acls = binding.acls(spec);
      List<AclFilter> filters = new ArrayList<>();
      for (Acl a : acls) {
        filters.add(
            AclFilter.newBuilder()
                .setResourceType(a.getResourceType())
                .setResourceName(a.getResourceName())
                .setPatternType(a.getPatternType())
                .setPrincipal(a.getPrincipal())
                .setHost(a.getHost())
                .setOperation(a.getOperation())
                .setPermission(a.getPermission())
                .build());
      }
      DeleteAclsResponse resp;
      try (Admin a = admin.open(ctx, spec)) {
        resp = a.deleteAcls(filters).join();
      }
      SpoolException failed = null;
      for (int i = 0; i < filters.size(); i++) {
        DeleteAclsResponse.Result r = resp.getResults(i);
        if (r.getErrorCode() != ErrorCode.NONE) {
          failed =
              failed != null ? failed : new SpoolException(r.getErrorCode(), r.getErrorMessage());
        } else if (r.getMatchesCount() == 0) {
          failed =
              failed != null
                  ? failed
                  : new SpoolException(
                      ErrorCode.RESOURCE_NOT_FOUND,
                      "no such ACL: "
                          + AclMessages.parse(acls.get(i)).binding()
                          + " (spool acl list shows them)");
        }
        r.getMatchesList().forEach(m -> print(ctx, m, "removed", json));
      }
      if (failed != null) {
        throw failed;
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The ACLs, or those of one principal and/or resource.")
  static final class ListAcls implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Resource resource;

    @Option(
        names = "--resource-pattern-type",
        description =
            "any, match (every ACL that applies to the named resource), literal or prefixed"
                + " (default: any).")
    String patternType = "any";

    @Option(names = "--principal", description = "Only this principal's ACLs.")
    String principal = "";

    @Option(names = "--json", description = "Print one object per ACL: {id, principal, ...}.")
    boolean json;

    ListAcls(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      AclFilter filter =
          AclFilter.newBuilder()
              .setResourceType(resource == null ? "" : resource.type())
              .setResourceName(resource == null ? "" : resource.name())
              .setPatternType(patternType.toUpperCase(Locale.ROOT))
              .setPrincipal(principal)
              .build();
      AclMessages.ParsedFilter parsed = AclMessages.parse(filter);
      if (parsed.problem() != null) {
        throw new ParameterException(spec.commandLine(), "INVALID_ACL: " + parsed.problem());
      }
      try (Admin a = admin.open(ctx, spec)) {
        a.describeAcls(filter).join().getAclsList().forEach(acl -> print(ctx, acl, null, json));
      }
      return ExitCodes.OK;
    }
  }
}
