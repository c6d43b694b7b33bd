package dev.spool.broker.request;

/**
 * One instance of every request handler of a broker. Spool's listener registers them with its
 * dispatcher; the Kafka listener's adapter calls the very same instances, so a request behaves the
 * same whichever protocol it came in by.
 *
 * <p>Threads: immutable; handlers are called on Netty event loops.
 */
public record Handlers(
    BrokerContext context,
    ApiVersionsHandler apiVersions,
    MetadataHandler metadata,
    ProduceHandler produce,
    FetchHandler fetch,
    ListOffsetsHandler listOffsets,
    OffsetForLeaderEpochHandler offsetForLeaderEpoch,
    InitProducerIdHandler initProducerId,
    CreateTopicsHandler createTopics,
    CreatePartitionsHandler createPartitions,
    DeleteTopicsHandler deleteTopics,
    ElectLeadersHandler electLeaders,
    AlterConfigsHandler alterConfigs,
    DescribeClusterHandler describeCluster,
    DescribeConfigsHandler describeConfigs,
    DescribeLogsHandler describeLogs,
    DeleteRecordsHandler deleteRecords,
    DescribeProducersHandler describeProducers,
    AlterUserScramCredentialsHandler alterUserScramCredentials,
    DescribeUserScramCredentialsHandler describeUserScramCredentials,
    DescribeFeaturesHandler describeFeatures,
    UpdateFeaturesHandler updateFeatures,
    UnregisterBrokerHandler unregisterBroker,
    AlterPartitionReassignmentsHandler alterPartitionReassignments,
    ListPartitionReassignmentsHandler listPartitionReassignments,
    CreateAclsHandler createAcls,
    DescribeAclsHandler describeAcls,
    DeleteAclsHandler deleteAcls,
    AlterClientQuotasHandler alterClientQuotas,
    DescribeClientQuotasHandler describeClientQuotas) {

  public static Handlers create(BrokerContext ctx) {
    return new Handlers(
        ctx,
        new ApiVersionsHandler(),
        new MetadataHandler(ctx),
        new ProduceHandler(ctx),
        new FetchHandler(ctx),
        new ListOffsetsHandler(ctx),
        new OffsetForLeaderEpochHandler(ctx),
        new InitProducerIdHandler(ctx),
        new CreateTopicsHandler(ctx),
        new CreatePartitionsHandler(ctx),
        new DeleteTopicsHandler(ctx),
        new ElectLeadersHandler(ctx),
        new AlterConfigsHandler(ctx),
        new DescribeClusterHandler(ctx),
        new DescribeConfigsHandler(ctx),
        new DescribeLogsHandler(ctx),
        new DeleteRecordsHandler(ctx),
        new DescribeProducersHandler(ctx),
        new AlterUserScramCredentialsHandler(ctx),
        new DescribeUserScramCredentialsHandler(ctx),
        new DescribeFeaturesHandler(ctx),
        new UpdateFeaturesHandler(ctx),
        new UnregisterBrokerHandler(ctx),
        new AlterPartitionReassignmentsHandler(ctx),
        new ListPartitionReassignmentsHandler(ctx),
        new CreateAclsHandler(ctx),
        new DescribeAclsHandler(ctx),
        new DeleteAclsHandler(ctx),
        new AlterClientQuotasHandler(ctx),
        new DescribeClientQuotasHandler(ctx));
  }
}
