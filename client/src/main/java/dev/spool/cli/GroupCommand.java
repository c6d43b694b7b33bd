package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.client.ConsumerGroupDescription;
import dev.spool.client.ConsumerGroupListing;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code spool group list|describe|reset-offsets|delete}: consumer groups and their offsets. */
@Command(
    name = "group",
    mixinStandardHelpOptions = true,
    description = "List, describe, reset and delete consumer groups.",
    subcommands = {
      GroupCommand.ListGroups.class,
      GroupCommand.Describe.class,
      GroupCommand.ResetOffsets.class,
      GroupCommand.Delete.class
    })
final class GroupCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  GroupCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List consumer groups.")
  static final class ListGroups implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(names = "--json", description = "Print {\"groups\": [{group, state}]}.")
    boolean json;

    ListGroups(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      List<ConsumerGroupListing> groups;
      try (Admin a = admin.open(ctx, spec)) {
        groups = a.listConsumerGroups().join();
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeArrayFieldStart("groups");
              for (ConsumerGroupListing l : groups) {
                g.writeStartObject();
                g.writeStringField("group", l.groupId());
                g.writeStringField("state", l.state());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeEndObject();
            });
      } else {
        groups.forEach(l -> ctx.out().println(l.groupId() + "\t" + l.state()));
      }
      return ExitCodes.OK;
    }
  }

  /** One partition's committed offset, end offset and lag. */
  record Lag(TopicPartition tp, long committed, long end) {
    long lag() {
      return committed < 0 ? end : Math.max(0, end - committed);
    }
  }

  static List<Lag> lags(Admin a, Map<TopicPartition, OffsetAndMetadata> committed) {
    Map<TopicPartition, Long> specs = new HashMap<>();
    committed.keySet().forEach(tp -> specs.put(tp, -1L));
    Map<TopicPartition, Long> ends = specs.isEmpty() ? Map.of() : a.listOffsets(specs).join();
    List<Lag> out = new ArrayList<>();
    new TreeMap<>(committed)
        .forEach((tp, o) -> out.add(new Lag(tp, o.offset(), ends.getOrDefault(tp, -1L))));
    return out;
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = "A group's state, members (host, client id, epoch, assignment) and lag.")
  static final class Describe implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "GROUP")
    String group;

    @Option(
        names = "--json",
        description =
            "Print {group, state, members:[{member_id, client_id, host, member_epoch, assignment:"
                + "[{topic, partition}]}], offsets:[{topic, partition, committed, end, lag}],"
                + " total_lag}.")
    boolean json;

    Describe(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ConsumerGroupDescription d;
      List<Lag> lags;
      try (Admin a = admin.open(ctx, spec)) {
        d = a.describeConsumerGroup(group).join();
        lags = lags(a, a.listConsumerGroupOffsets(group).join());
      }
      long total = lags.stream().mapToLong(Lag::lag).sum();
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("group", group);
              g.writeStringField("state", d.state());
              g.writeNumberField("group_epoch", d.groupEpoch());
              g.writeArrayFieldStart("members");
              for (ConsumerGroupDescription.Member m : d.members()) {
                g.writeStartObject();
                g.writeStringField("member_id", m.memberId());
                g.writeStringField("client_id", m.clientId());
                g.writeStringField("host", m.host());
                g.writeNumberField("member_epoch", m.memberEpoch());
                g.writeArrayFieldStart("assignment");
                for (TopicPartition tp : new TreeSet<>(m.assignment())) {
                  g.writeStartObject();
                  g.writeStringField("topic", tp.topic());
                  g.writeNumberField("partition", tp.partition());
                  g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeArrayFieldStart("offsets");
              for (Lag l : lags) {
                g.writeStartObject();
                g.writeStringField("topic", l.tp().topic());
                g.writeNumberField("partition", l.tp().partition());
                g.writeNumberField("committed", l.committed());
                g.writeNumberField("end", l.end());
                g.writeNumberField("lag", l.lag());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeNumberField("total_lag", total);
              g.writeEndObject();
            });
        return ExitCodes.OK;
      }
      ctx.out().println("Group " + group + " is " + d.state() + " (epoch " + d.groupEpoch() + ")");
      for (ConsumerGroupDescription.Member m : d.members()) {
        ctx.out()
            .println(
                "  member "
                    + m.memberId()
                    + " client "
                    + m.clientId()
                    + " host "
                    + m.host()
                    + " epoch "
                    + m.memberEpoch()
                    + " owns "
                    + new TreeSet<>(m.assignment()));
      }
      ctx.out().println("TOPIC\tPARTITION\tCOMMITTED\tEND\tLAG");
      lags.forEach(
          l ->
              ctx.out()
                  .println(
                      l.tp().topic()
                          + "\t"
                          + l.tp().partition()
                          + "\t"
                          + l.committed()
                          + "\t"
                          + l.end()
                          + "\t"
                          + l.lag()));
      ctx.out().println("Total lag: " + total);
      return ExitCodes.OK;
    }
  }

  /** The group's description, or null when it does not exist (yet): reset may create it. */
  static ConsumerGroupDescription describeIfAny(Admin a, String group) {
    try {
      return a.describeConsumerGroup(group).join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof SpoolException s
          && s.errorCode() == ErrorCode.GROUP_ID_NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /** Where reset-offsets moves the positions; exactly one. */
  static final class Target {
    @Option(names = "--to-earliest", description = "The first offset still in the log.")
    boolean earliest;

    @Option(names = "--to-latest", description = "The end of the log (skip everything).")
    boolean latest;

    @Option(
        names = "--to-datetime",
        paramLabel = "ISO-8601",
        description = "The first record at or after this instant, e.g. 2026-12-01T10:00:00Z.")
    String datetime;

    @Option(names = "--to-offset", paramLabel = "N", description = "Offset N.")
    Long offset;

    @Option(
        names = "--shift-by",
        paramLabel = "N",
        description = "The committed offset plus N (negative goes back).")
    Long shift;
  }

  @Command(
      name = "reset-offsets",
      mixinStandardHelpOptions = true,
      description =
          "Move a group's committed offsets of a topic; prints the plan (dry run) unless"
              + " --execute. Refused while the group has members.")
  static final class ResetOffsets implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "GROUP")
    String group;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
    String topic;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Option(names = "--execute", description = "Apply the new offsets (default: dry run).")
    boolean execute;

    @Option(
        names = "--json",
        description = "Print {group, execute, offsets:[{topic, partition, from, to}]}.")
    boolean json;

    ResetOffsets(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      Map<TopicPartition, Long> plan;
      Map<TopicPartition, OffsetAndMetadata> before;
      try (Admin a = admin.open(ctx, spec)) {
        ConsumerGroupDescription d = describeIfAny(a, group);
        if (d != null && !d.members().isEmpty()) {
          throw new SpoolException(
              ErrorCode.NON_EMPTY_GROUP,
              "group "
                  + group
                  + " has "
                  + d.members().size()
                  + " active members: stop them before resetting its offsets");
        }
        before = a.listConsumerGroupOffsets(group).join();
        plan = plan(a, before);
        if (execute) {
          Map<TopicPartition, OffsetAndMetadata> commit = new TreeMap<>();
          plan.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
          a.alterConsumerGroupOffsets(group, commit).join();
        }
      }
      print(plan, before);
      return ExitCodes.OK;
    }

    private Map<TopicPartition, Long> plan(Admin a, Map<TopicPartition, OffsetAndMetadata> before) {
      int partitions = a.describeTopic(topic).join().partitions().size();
      Map<TopicPartition, Long> specs = new TreeMap<>();
      long spec = -1;
      if (target.earliest) {
        spec = -2;
      } else if (target.datetime != null) {
        try {
          spec = Instant.parse(target.datetime).toEpochMilli();
        } catch (DateTimeParseException e) {
          throw new ParameterException(
              this.spec.commandLine(),
              "--to-datetime: not an ISO-8601 instant: " + target.datetime);
        }
      }
      for (int p = 0; p < partitions; p++) {
        specs.put(new TopicPartition(topic, p), spec);
      }
      Map<TopicPartition, Long> bounds = a.listOffsets(specs).join();
      Map<TopicPartition, Long> earliest = new TreeMap<>();
      Map<TopicPartition, Long> latest = new TreeMap<>();
      if (target.offset != null || target.shift != null || target.datetime != null) {
        specs.replaceAll((tp, s) -> -2L);
        earliest.putAll(a.listOffsets(specs).join());
        specs.replaceAll((tp, s) -> -1L);
        latest.putAll(a.listOffsets(specs).join());
      }
      Map<TopicPartition, Long> out = new TreeMap<>();
      for (TopicPartition tp : specs.keySet()) {
        long to;
        if (target.offset != null) {
          to = target.offset;
        } else if (target.shift != null) {
          OffsetAndMetadata c = before.get(tp);
          to = (c == null ? earliest.get(tp) : c.offset()) + target.shift;
        } else if (target.datetime != null) {
          to = bounds.get(tp) < 0 ? latest.get(tp) : bounds.get(tp);
        } else {
          to = bounds.get(tp);
        }
        if (!earliest.isEmpty()) {
          // Kafka's rule: an out-of-range target is clamped to the log's bounds.
          to = Math.max(earliest.get(tp), Math.min(latest.get(tp), to));
        }
        out.put(tp, to);
      }
      return out;
    }

    private void print(
        Map<TopicPartition, Long> plan, Map<TopicPartition, OffsetAndMetadata> before) {
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("group", group);
              g.writeBooleanField("execute", execute);
              g.writeArrayFieldStart("offsets");
              for (Map.Entry<TopicPartition, Long> e : plan.entrySet()) {
                OffsetAndMetadata c = before.get(e.getKey());
                g.writeStartObject();
                g.writeStringField("topic", e.getKey().topic());
                g.writeNumberField("partition", e.getKey().partition());
                g.writeNumberField("from", c == null ? -1 : c.offset());
                g.writeNumberField("to", e.getValue());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeEndObject();
            });
        return;
      }
      plan.forEach(
          (tp, to) -> {
            OffsetAndMetadata c = before.get(tp);
            ctx.out().println(tp + "\t" + (c == null ? -1 : c.offset()) + " -> " + to);
          });
      ctx.out().println(execute ? "Offsets reset." : "Dry run: add --execute to apply.");
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description =
          "Delete a group and its offsets, or with --topic only its offsets of that topic."
              + " Refused while the group has members (or, with --topic, reads the topic).")
  static final class Delete implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "GROUP")
    String group;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "Delete only these offsets.")
    String topic;

    @Option(names = "--json", description = "Print {group, deleted, topic}.")
    boolean json;

    Delete(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      try (Admin a = admin.open(ctx, spec)) {
        if (topic == null) {
          a.deleteConsumerGroup(group).join();
        } else {
          List<TopicPartition> tps = new ArrayList<>();
          a.listConsumerGroupOffsets(group)
              .join()
              .keySet()
              .forEach(
                  tp -> {
                    if (tp.topic().equals(topic)) {
                      tps.add(tp);
                    }
                  });
          if (!tps.isEmpty()) {
            a.deleteConsumerGroupOffsets(group, tps).join();
          }
        }
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("group", group);
              g.writeBooleanField("deleted", true);
              JsonLines.nullableString(g, "topic", topic);
              g.writeEndObject();
            });
      } else {
        ctx.out()
            .println(
                topic == null
                    ? "Deleted group " + group + "."
                    : "Deleted the offsets of " + topic + " in group " + group + ".");
      }
      return ExitCodes.OK;
    }
  }
}
