package dev.spool.broker.kafka.codec;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterClientQuotasRequest;
import dev.spool.protocol.message.AlterClientQuotasResponse;
import dev.spool.protocol.message.DescribeClientQuotasRequest;
import dev.spool.protocol.message.DescribeClientQuotasResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;

/**
 * Kafka's AlterClientQuotas and DescribeClientQuotas as Spool's messages of the same names, so
 * Kafka's Admin and {@code kafka-configs.sh --entity-type users|clients} manage Spool's client
 * quotas (docs/security.md#quotas). Kafka names the default entity with a null name; Spool with
 * {@code <default>}. An entity type other than {@code user} and {@code client-id} (Kafka's {@code
 * ip}), or one named twice, is refused INVALID_REQUEST here.
 *
 * <p>Threads: stateless; any thread.
 */
public final class ClientQuotaCodec {
  private ClientQuotaCodec() {}

  private static final String USER = "user";
  private static final String CLIENT_ID = "client-id";

  /**
   * The Spool request for the entries this codec could translate, and per Kafka entry either its
   * index in it or the reason it was refused.
   */
  public record AlterCall(AlterClientQuotasRequest request, int[] index, String[] refusals) {}

  /** Either a Spool request or the answer to a filter this codec refuses. */
  public record DescribeCall(DescribeClientQuotasRequest request, KafkaResponse refusal) {}

  public static AlterCall alterToSpool(KafkaRequest r, int timeoutMs) {
    AlterClientQuotasRequestData d = r.body();
    AlterClientQuotasRequest.Builder b =
        AlterClientQuotasRequest.newBuilder()
            .setValidateOnly(d.validateOnly())
            .setTimeoutMs(timeoutMs);
    int n = d.entries().size();
    int[] index = new int[n];
    String[] refusals = new String[n];
    for (int i = 0; i < n; i++) {
      AlterClientQuotasRequestData.EntryData e = d.entries().get(i);
      var entity = dev.spool.protocol.message.ClientQuotaEntity.newBuilder();
      String problem = null;
      for (AlterClientQuotasRequestData.EntityData part : e.entity()) {
        String name = part.entityName() == null ? ClientQuotaEntity.DEFAULT : part.entityName();
        if (USER.equals(part.entityType()) && !entity.hasUser()) {
          entity.setUser(name);
        } else if (CLIENT_ID.equals(part.entityType()) && !entity.hasClientId()) {
          entity.setClientId(name);
        } else {
          problem = entityTypeProblem(part.entityType());
        }
      }
      if (problem != null) {
        index[i] = -1;
        refusals[i] = problem;
        continue;
      }
      AlterClientQuotasRequest.Entry.Builder entry =
          AlterClientQuotasRequest.Entry.newBuilder().setEntity(entity);
      for (AlterClientQuotasRequestData.OpData op : e.ops()) {
        entry.addOps(
            AlterClientQuotasRequest.Op.newBuilder()
                .setKey(op.key() == null ? "" : op.key())
                .setValue(op.value())
                .setRemove(op.remove()));
      }
      index[i] = b.getEntriesCount();
      b.addEntries(entry);
    }
    return new AlterCall(b.build(), index, refusals);
  }

  private static String entityTypeProblem(String type) {
    return USER.equals(type) || CLIENT_ID.equals(type)
        ? "the entity names " + type + " twice"
        : "unknown or unsupported client quota entity type '"
            + type
            + "'; Spool has "
            + USER
            + " and "
            + CLIENT_ID;
  }

  public static KafkaResponse alterToKafka(
      KafkaRequest r, AlterCall call, AlterClientQuotasResponse resp) {
    AlterClientQuotasRequestData d = r.body();
    List<AlterClientQuotasResponseData.EntryData> out = new ArrayList<>();
    for (int i = 0; i < call.index().length; i++) {
      List<AlterClientQuotasResponseData.EntityData> entity = new ArrayList<>();
      for (AlterClientQuotasRequestData.EntityData part : d.entries().get(i).entity()) {
        entity.add(
            new AlterClientQuotasResponseData.EntityData()
                .setEntityType(part.entityType())
                .setEntityName(part.entityName()));
      }
      AlterClientQuotasResponseData.EntryData e =
          new AlterClientQuotasResponseData.EntryData().setEntity(entity);
      if (call.index()[i] < 0) {
        e.setErrorCode(KafkaErrors.code(ErrorCode.INVALID_REQUEST))
            .setErrorMessage(call.refusals()[i]);
      } else {
        AlterClientQuotasResponse.Result res = resp.getResults(call.index()[i]);
        e.setErrorCode(KafkaErrors.code(res.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(res.getErrorMessage()));
      }
      out.add(e);
    }
    return r.respond(new AlterClientQuotasResponseData().setThrottleTimeMs(0).setEntries(out));
  }

  public static DescribeCall describeToSpool(KafkaRequest r) {
    DescribeClientQuotasRequestData d = r.body();
    DescribeClientQuotasRequest.Builder b =
        DescribeClientQuotasRequest.newBuilder().setStrict(d.strict());
    for (DescribeClientQuotasRequestData.ComponentData c : d.components()) {
      String match =
          switch (c.matchType()) {
            case 0 -> "EXACT";
            case 1 -> "DEFAULT";
            case 2 -> "SPECIFIED";
            default -> null;
          };
      if (match == null) {
        return new DescribeCall(
            null, describeRefusal(r, "unknown match type " + c.matchType() + "; 0, 1 or 2"));
      }
      if (match.equals("EXACT") && c.match() == null) {
        match = "DEFAULT";
      }
      b.addComponents(
          DescribeClientQuotasRequest.Component.newBuilder()
              .setEntityType(c.entityType() == null ? "" : c.entityType())
              .setMatchType(match)
              .setMatch(c.match() == null ? "" : c.match()));
    }
    return new DescribeCall(b.build(), null);
  }

  private static KafkaResponse describeRefusal(KafkaRequest r, String message) {
    return r.respond(
        new DescribeClientQuotasResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(ErrorCode.INVALID_REQUEST))
            .setErrorMessage(message)
            .setEntries(null));
  }

  public static KafkaResponse describeToKafka(KafkaRequest r, DescribeClientQuotasResponse resp) {
    if (resp.getErrorCode() != ErrorCode.NONE) {
      return r.respond(
          new DescribeClientQuotasResponseData()
              .setThrottleTimeMs(0)
              .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(resp.getErrorMessage()))
              .setEntries(null));
    }
    List<DescribeClientQuotasResponseData.EntryData> out = new ArrayList<>();
    for (DescribeClientQuotasResponse.Entry e : resp.getEntriesList()) {
      List<DescribeClientQuotasResponseData.EntityData> entity = new ArrayList<>();
      if (e.getEntity().hasUser()) {
        entity.add(entity(USER, e.getEntity().getUser()));
      }
      if (e.getEntity().hasClientId()) {
        entity.add(entity(CLIENT_ID, e.getEntity().getClientId()));
      }
      List<DescribeClientQuotasResponseData.ValueData> values = new ArrayList<>();
      for (Map.Entry<String, Double> v : new TreeMap<>(e.getValuesMap()).entrySet()) {
        values.add(
            new DescribeClientQuotasResponseData.ValueData()
                .setKey(v.getKey())
                .setValue(v.getValue()));
      }
      out.add(new DescribeClientQuotasResponseData.EntryData().setEntity(entity).setValues(values));
    }
    return r.respond(
        new DescribeClientQuotasResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode((short) 0)
            .setEntries(out));
  }

  private static DescribeClientQuotasResponseData.EntityData entity(String type, String name) {
    return new DescribeClientQuotasResponseData.EntityData()
        .setEntityType(type)
        .setEntityName(ClientQuotaEntity.DEFAULT.equals(name) ? null : name);
  }
}
