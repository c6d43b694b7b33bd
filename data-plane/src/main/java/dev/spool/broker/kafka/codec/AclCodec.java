package dev.spool.broker.kafka.codec;

import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.AclFilter;
import dev.spool.protocol.message.CreateAclsRequest;
import dev.spool.protocol.message.CreateAclsResponse;
import dev.spool.protocol.message.DeleteAclsRequest;
import dev.spool.protocol.message.DeleteAclsResponse;
import dev.spool.protocol.message.DescribeAclsRequest;
import dev.spool.protocol.message.DescribeAclsResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;

/**
 * Kafka's CreateAcls, DescribeAcls and DeleteAcls as Spool's messages of the same names, so Kafka's
 * Admin and {@code kafka-acls.sh} manage Spool's ACLs (docs/security.md#acls). Kafka numbers the
 * resource types, pattern types, operations and permissions; Spool names them. ANY (1) is an empty
 * field of a filter; a number Spool does not know becomes {@code UNKNOWN(n)}, which the broker or
 * the controller refuses INVALID_ACL (Kafka's clients see INVALID_REQUEST) with the reason.
 *
 * <p>Threads: stateless; any thread.
 */
public final class AclCodec {
  private AclCodec() {}

  private static final int ANY = 1;

  static String resourceType(byte code) {
    return code == ANY
        ? ""
        : AclResourceType.forKafkaCode(code).map(Enum::name).orElse("UNKNOWN(" + code + ")");
  }

  static String patternType(byte code) {
    if (code == ANY) {
      return "";
    }
    if (code == 2) {
      return "MATCH";
    }
    return AclBinding.PatternType.forKafkaCode(code)
        .map(Enum::name)
        .orElse("UNKNOWN(" + code + ")");
  }

  static String operation(byte code) {
    return code == ANY
        ? ""
        : AclOperation.forKafkaCode(code).map(Enum::name).orElse("UNKNOWN(" + code + ")");
  }

  static String permission(byte code) {
    return code == ANY
        ? ""
        : AclBinding.Permission.forKafkaCode(code).map(Enum::name).orElse("UNKNOWN(" + code + ")");
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  // ---------------------------------------------------------------- CreateAcls

  public static CreateAclsRequest createToSpool(KafkaRequest r, int timeoutMs) {
    CreateAclsRequestData d = r.body();
    CreateAclsRequest.Builder b = CreateAclsRequest.newBuilder().setTimeoutMs(timeoutMs);
    for (CreateAclsRequestData.AclCreation c : d.creations()) {
      b.addCreations(
          Acl.newBuilder()
              .setResourceType(resourceType(c.resourceType()))
              .setResourceName(orEmpty(c.resourceName()))
              .setPatternType(patternType(c.resourcePatternType()))
              .setPrincipal(orEmpty(c.principal()))
              .setHost(orEmpty(c.host()))
              .setOperation(operation(c.operation()))
              .setPermission(permission(c.permissionType())));
    }
    return b.build();
  }

  public static KafkaResponse createToKafka(KafkaRequest r, CreateAclsResponse resp) {
    List<CreateAclsResponseData.AclCreationResult> results = new ArrayList<>();
    for (CreateAclsResponse.Result res : resp.getResultsList()) {
      results.add(
          new CreateAclsResponseData.AclCreationResult()
              .setErrorCode(KafkaErrors.code(res.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(res.getErrorMessage())));
    }
    return r.respond(new CreateAclsResponseData().setThrottleTimeMs(0).setResults(results));
  }

  // ---------------------------------------------------------------- DescribeAcls

  public static DescribeAclsRequest describeToSpool(KafkaRequest r) {
    DescribeAclsRequestData d = r.body();
    return DescribeAclsRequest.newBuilder()
        .setFilter(
            AclFilter.newBuilder()
                .setResourceType(resourceType(d.resourceTypeFilter()))
                .setResourceName(orEmpty(d.resourceNameFilter()))
                .setPatternType(patternType(d.patternTypeFilter()))
                .setPrincipal(orEmpty(d.principalFilter()))
                .setHost(orEmpty(d.hostFilter()))
                .setOperation(operation(d.operation()))
                .setPermission(permission(d.permissionType())))
        .build();
  }

  public static KafkaResponse describeToKafka(KafkaRequest r, DescribeAclsResponse resp) {
    Map<List<Object>, DescribeAclsResponseData.DescribeAclsResource> resources =
        new LinkedHashMap<>();
    for (Acl a : resp.getAclsList()) {
      AclBinding b = binding(a);
      resources
          .computeIfAbsent(
              List.of(b.resourceType(), b.resourceName(), b.patternType()),
              k ->
                  new DescribeAclsResponseData.DescribeAclsResource()
                      .setResourceType((byte) b.resourceType().kafkaCode())
                      .setResourceName(b.resourceName())
                      .setPatternType((byte) b.patternType().kafkaCode()))
          .acls()
          .add(
              new DescribeAclsResponseData.AclDescription()
                  .setPrincipal(b.principal())
                  .setHost(b.host())
                  .setOperation((byte) b.operation().kafkaCode())
                  .setPermissionType((byte) b.permission().kafkaCode()));
    }
    return r.respond(
        new DescribeAclsResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(resp.getErrorMessage()))
            .setResources(new ArrayList<>(resources.values())));
  }

  /** An ACL the image holds: always a known binding. */
  private static AclBinding binding(Acl a) {
    return dev.spool.protocol.AclMessages.parse(a).binding();
  }

  // ---------------------------------------------------------------- DeleteAcls

  public static DeleteAclsRequest deleteToSpool(KafkaRequest r, int timeoutMs) {
    DeleteAclsRequestData d = r.body();
    DeleteAclsRequest.Builder b = DeleteAclsRequest.newBuilder().setTimeoutMs(timeoutMs);
    for (DeleteAclsRequestData.DeleteAclsFilter f : d.filters()) {
      b.addFilters(
          AclFilter.newBuilder()
              .setResourceType(resourceType(f.resourceTypeFilter()))
              .setResourceName(orEmpty(f.resourceNameFilter()))
              .setPatternType(patternType(f.patternTypeFilter()))
              .setPrincipal(orEmpty(f.principalFilter()))
              .setHost(orEmpty(f.hostFilter()))
              .setOperation(operation(f.operation()))
              .setPermission(permission(f.permissionType())));
    }
    return b.build();
  }

  public static KafkaResponse deleteToKafka(KafkaRequest r, DeleteAclsResponse resp) {
    List<DeleteAclsResponseData.DeleteAclsFilterResult> results = new ArrayList<>();
    for (DeleteAclsResponse.Result res : resp.getResultsList()) {
      List<DeleteAclsResponseData.DeleteAclsMatchingAcl> matches = new ArrayList<>();
      for (Acl a : res.getMatchesList()) {
        AclBinding b = binding(a);
        matches.add(
            new DeleteAclsResponseData.DeleteAclsMatchingAcl()
                .setErrorCode((short) 0)
                .setResourceType((byte) b.resourceType().kafkaCode())
                .setResourceName(b.resourceName())
                .setPatternType((byte) b.patternType().kafkaCode())
                .setPrincipal(b.principal())
                .setHost(b.host())
                .setOperation((byte) b.operation().kafkaCode())
                .setPermissionType((byte) b.permission().kafkaCode()));
      }
      results.add(
          new DeleteAclsResponseData.DeleteAclsFilterResult()
              .setErrorCode(KafkaErrors.code(res.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(res.getErrorMessage()))
              .setMatchingAcls(matches));
    }
    return r.respond(new DeleteAclsResponseData().setThrottleTimeMs(0).setFilterResults(results));
  }
}
