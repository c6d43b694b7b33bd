package dev.spool.broker.kafka.codec;

import java.util.Set;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions on the Kafka listener: the APIs it serves, each with the versions it implements
 * (nothing more: Kafka's clients take the highest common version and would send a version the
 * listener cannot serve). Kafka 4.4's checks come first: from version 3 the client's software name
 * and version must be well formed (else INVALID_REQUEST), and from version 5 a client that names
 * the cluster and node it means to reach must have reached them (else REBOOTSTRAP_REQUIRED,
 * KIP-1242). Finalized features are not announced: Spool's own metadata.version counts its levels
 * from 1 (docs/architecture.md#versioned-metadata), where Kafka's level 1 means 3.0-IV1, so a Kafka
 * tool would misread it; Spool's levels are shown by {@code spool features describe}.
 *
 * <p>Threads: stateless; the connection's event loop.
 */
public final class ApiVersionsCodec {
  private ApiVersionsCodec() {}

  /**
   * The answer to an ApiVersions request, for broker {@code nodeId} of cluster {@code clusterId}.
   */
  public static KafkaResponse answer(
      KafkaRequest request, Set<KafkaApi> served, String clusterId, int nodeId) {
    ApiVersionsRequest req = (ApiVersionsRequest) request.request();
    if (!req.isValid()) {
      return request.errorResponse(
          Errors.INVALID_REQUEST,
          "client software name and version must match [a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");
    }
    if (request.version() >= 5
        && ((req.data().clusterId() != null && !req.data().clusterId().equals(clusterId))
            || (req.data().nodeId() >= 0 && req.data().nodeId() != nodeId))) {
      return request.errorResponse(
          Errors.REBOOTSTRAP_REQUIRED,
          "this is node "
              + nodeId
              + " of cluster "
              + clusterId
              + ", not node "
              + req.data().nodeId()
              + " of cluster "
              + req.data().clusterId());
    }
    ApiVersionsResponseData.ApiVersionCollection keys =
        new ApiVersionsResponseData.ApiVersionCollection();
    for (KafkaApi api : KafkaApi.values()) {
      if (served.contains(api)) {
        keys.add(
            new ApiVersionsResponseData.ApiVersion()
                .setApiKey(api.id())
                .setMinVersion(api.advertisedMin())
                .setMaxVersion(api.max()));
      }
    }
    return request.respond(
        new ApiVersionsResponseData()
            .setErrorCode(Errors.NONE.code())
            .setApiKeys(keys)
            .setThrottleTimeMs(0));
  }
}
