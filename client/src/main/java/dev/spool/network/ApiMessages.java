package dev.spool.network;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.ConsumerGroupHeartbeatResponse;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteGroupsRequest;
import dev.spool.protocol.message.DeleteGroupsResponse;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteRecordsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.protocol.message.DescribeGroupsRequest;
import dev.spool.protocol.message.DescribeGroupsResponse;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.DescribeProducersRequest;
import dev.spool.protocol.message.DescribeProducersResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.FindCoordinatorResponse;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.ListGroupsRequest;
import dev.spool.protocol.message.ListGroupsResponse;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.OffsetCommitRequest;
import dev.spool.protocol.message.OffsetCommitResponse;
import dev.spool.protocol.message.OffsetDeleteRequest;
import dev.spool.protocol.message.OffsetDeleteResponse;
import dev.spool.protocol.message.OffsetFetchRequest;
import dev.spool.protocol.message.OffsetFetchResponse;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.OffsetForLeaderEpochResponse;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import java.util.EnumMap;
import java.util.Map;

/** Which protobuf message is the request and the response body of each API (version 0 of all). */
public final class ApiMessages {
  private ApiMessages() {}

  private record Pair(
      Parser<? extends MessageLite> request, Parser<? extends MessageLite> response) {}

  private static final Map<ApiKey, Pair> PARSERS = new EnumMap<>(ApiKey.class);

  static {
    PARSERS.put(
        ApiKey.API_VERSIONS, new Pair(ApiVersionsRequest.parser(), ApiVersionsResponse.parser()));
    PARSERS.put(ApiKey.METADATA, new Pair(MetadataRequest.parser(), MetadataResponse.parser()));
    PARSERS.put(ApiKey.PRODUCE, new Pair(ProduceRequest.parser(), ProduceResponse.parser()));
    PARSERS.put(ApiKey.FETCH, new Pair(FetchRequest.parser(), FetchResponse.parser()));
    PARSERS.put(
        ApiKey.LIST_OFFSETS, new Pair(ListOffsetsRequest.parser(), ListOffsetsResponse.parser()));
    PARSERS.put(
        ApiKey.OFFSET_FOR_LEADER_EPOCH,
        new Pair(OffsetForLeaderEpochRequest.parser(), OffsetForLeaderEpochResponse.parser()));
    PARSERS.put(
        ApiKey.INIT_PRODUCER_ID,
        new Pair(InitProducerIdRequest.parser(), InitProducerIdResponse.parser()));
    PARSERS.put(
        ApiKey.CREATE_TOPICS,
        new Pair(CreateTopicsRequest.parser(), CreateTopicsResponse.parser()));
    PARSERS.put(
        ApiKey.CREATE_PARTITIONS,
        new Pair(CreatePartitionsRequest.parser(), CreatePartitionsResponse.parser()));
    PARSERS.put(
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        new Pair(
            dev.spool.protocol.message.AlterUserScramCredentialsRequest.parser(),
            dev.spool.protocol.message.AlterUserScramCredentialsResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
        new Pair(
            dev.spool.protocol.message.DescribeUserScramCredentialsRequest.parser(),
            dev.spool.protocol.message.DescribeUserScramCredentialsResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_FEATURES,
        new Pair(
            dev.spool.protocol.message.DescribeFeaturesRequest.parser(),
            dev.spool.protocol.message.DescribeFeaturesResponse.parser()));
    PARSERS.put(
        ApiKey.UPDATE_FEATURES,
        new Pair(
            dev.spool.protocol.message.UpdateFeaturesRequest.parser(),
            dev.spool.protocol.message.UpdateFeaturesResponse.parser()));
    PARSERS.put(
        ApiKey.UNREGISTER_BROKER,
        new Pair(
            dev.spool.protocol.message.UnregisterBrokerRequest.parser(),
            dev.spool.protocol.message.UnregisterBrokerResponse.parser()));
    PARSERS.put(
        ApiKey.ALTER_PARTITION_REASSIGNMENTS,
        new Pair(
            dev.spool.protocol.message.AlterPartitionReassignmentsRequest.parser(),
            dev.spool.protocol.message.AlterPartitionReassignmentsResponse.parser()));
    PARSERS.put(
        ApiKey.LIST_PARTITION_REASSIGNMENTS,
        new Pair(
            dev.spool.protocol.message.ListPartitionReassignmentsRequest.parser(),
            dev.spool.protocol.message.ListPartitionReassignmentsResponse.parser()));
    PARSERS.put(
        ApiKey.CREATE_ACLS,
        new Pair(
            dev.spool.protocol.message.CreateAclsRequest.parser(),
            dev.spool.protocol.message.CreateAclsResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_ACLS,
        new Pair(
            dev.spool.protocol.message.DescribeAclsRequest.parser(),
            dev.spool.protocol.message.DescribeAclsResponse.parser()));
    PARSERS.put(
        ApiKey.DELETE_ACLS,
        new Pair(
            dev.spool.protocol.message.DeleteAclsRequest.parser(),
            dev.spool.protocol.message.DeleteAclsResponse.parser()));
    PARSERS.put(
        ApiKey.ALTER_CLIENT_QUOTAS,
        new Pair(
            dev.spool.protocol.message.AlterClientQuotasRequest.parser(),
            dev.spool.protocol.message.AlterClientQuotasResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_CLIENT_QUOTAS,
        new Pair(
            dev.spool.protocol.message.DescribeClientQuotasRequest.parser(),
            dev.spool.protocol.message.DescribeClientQuotasResponse.parser()));
    PARSERS.put(
        ApiKey.SASL_HANDSHAKE,
        new Pair(
            dev.spool.protocol.message.SaslHandshakeRequest.parser(),
            dev.spool.protocol.message.SaslHandshakeResponse.parser()));
    PARSERS.put(
        ApiKey.SASL_AUTHENTICATE,
        new Pair(
            dev.spool.protocol.message.SaslAuthenticateRequest.parser(),
            dev.spool.protocol.message.SaslAuthenticateResponse.parser()));
    PARSERS.put(
        ApiKey.DELETE_TOPICS,
        new Pair(DeleteTopicsRequest.parser(), DeleteTopicsResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_CLUSTER,
        new Pair(DescribeClusterRequest.parser(), DescribeClusterResponse.parser()));
    PARSERS.put(
        ApiKey.ELECT_LEADERS,
        new Pair(ElectLeadersRequest.parser(), ElectLeadersResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_CONFIGS,
        new Pair(DescribeConfigsRequest.parser(), DescribeConfigsResponse.parser()));
    PARSERS.put(
        ApiKey.ALTER_CONFIGS,
        new Pair(AlterConfigsRequest.parser(), AlterConfigsResponse.parser()));
    PARSERS.put(
        ApiKey.FIND_COORDINATOR,
        new Pair(FindCoordinatorRequest.parser(), FindCoordinatorResponse.parser()));
    PARSERS.put(
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        new Pair(ConsumerGroupHeartbeatRequest.parser(), ConsumerGroupHeartbeatResponse.parser()));
    PARSERS.put(
        ApiKey.OFFSET_COMMIT,
        new Pair(OffsetCommitRequest.parser(), OffsetCommitResponse.parser()));
    PARSERS.put(
        ApiKey.OFFSET_FETCH, new Pair(OffsetFetchRequest.parser(), OffsetFetchResponse.parser()));
    PARSERS.put(
        ApiKey.LIST_GROUPS, new Pair(ListGroupsRequest.parser(), ListGroupsResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_GROUPS,
        new Pair(DescribeGroupsRequest.parser(), DescribeGroupsResponse.parser()));
    PARSERS.put(
        ApiKey.DELETE_GROUPS,
        new Pair(DeleteGroupsRequest.parser(), DeleteGroupsResponse.parser()));
    PARSERS.put(
        ApiKey.OFFSET_DELETE,
        new Pair(OffsetDeleteRequest.parser(), OffsetDeleteResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_LOGS,
        new Pair(DescribeLogsRequest.parser(), DescribeLogsResponse.parser()));
    PARSERS.put(
        ApiKey.DELETE_RECORDS,
        new Pair(DeleteRecordsRequest.parser(), DeleteRecordsResponse.parser()));
    PARSERS.put(
        ApiKey.DESCRIBE_PRODUCERS,
        new Pair(DescribeProducersRequest.parser(), DescribeProducersResponse.parser()));
    for (ApiKey k : ApiKey.values()) {
      if (k != ApiKey.API_KEY_UNSPECIFIED && k != ApiKey.UNRECOGNIZED && !PARSERS.containsKey(k)) {
        throw new ExceptionInInitializerError("no message types for API " + k);
      }
    }
  }

  public static Parser<? extends MessageLite> requestParser(ApiKey api) {
    return pair(api).request();
  }

  public static Parser<? extends MessageLite> responseParser(ApiKey api) {
    return pair(api).response();
  }

  private static Pair pair(ApiKey api) {
    Pair p = PARSERS.get(api);
    if (p == null) {
      throw new IllegalArgumentException("not an API: " + api);
    }
    return p;
  }
}
