package dev.spool.network;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.SpoolVersion;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import java.util.Optional;

/**
 * The ApiVersions exchange that opens every connection, and what it decides: the request this
 * client sends (its software name and the version the build stamped), whether the broker's answer
 * lets the connection become ready at all (not when the broker refused, nor when it shares no API
 * version with this client), and then, for each request, the highest version of its API both sides
 * speak. A failure is the UNSUPPORTED_VERSION that closes the connection or fails the one request,
 * naming both sides' ranges.
 *
 * <p>Threads: stateless; the {@link NetworkClient} calls it on its I/O thread.
 */
final class ApiVersionsHandshake {
  static final String SOFTWARE_NAME = "spool-java";

  private ApiVersionsHandshake() {}

  /** The first request on every connection. */
  static ApiVersionsRequest request() {
    return ApiVersionsRequest.newBuilder()
        .setClientSoftwareName(SOFTWARE_NAME)
        .setClientSoftwareVersion(SpoolVersion.version())
        .build();
  }

  /**
   * The versions {@code node} speaks, from its ApiVersions answer.
   *
   * @throws SpoolException UNSUPPORTED_VERSION when the broker refused the handshake or shares no
   *     API version with this client: the connection cannot be used
   */
  static ApiVersionTable accept(Node node, ApiVersionsResponse response) {
    if (response.getErrorCode() != ErrorCode.NONE) {
      throw new SpoolException(
          ErrorCode.UNSUPPORTED_VERSION,
          "ApiVersions with " + node + " failed with " + response.getErrorCode());
    }
    ApiVersionTable theirs = ApiVersionTable.fromResponse(response);
    for (ApiKey k : ApiKey.values()) {
      if (k != ApiKey.API_KEY_UNSPECIFIED
          && k != ApiKey.UNRECOGNIZED
          && ApiVersionTable.CURRENT.highestCommon(k, theirs).isPresent()) {
        return theirs;
      }
    }
    throw new SpoolException(
        ErrorCode.UNSUPPORTED_VERSION,
        node
            + " (software "
            + response.getServerSoftwareVersion()
            + ") shares no API version with this client");
  }

  /**
   * The version to send {@code api} in to {@code node}, which speaks {@code theirs}.
   *
   * @throws SpoolException UNSUPPORTED_VERSION, naming both ranges, when there is none in common
   */
  static int versionFor(ApiKey api, Node node, ApiVersionTable theirs) {
    Optional<Integer> version = ApiVersionTable.CURRENT.highestCommon(api, theirs);
    if (version.isPresent()) {
      return version.get();
    }
    throw new SpoolException(
        ErrorCode.UNSUPPORTED_VERSION,
        node
            + " has no version of "
            + api
            + " in common with this client (broker: "
            + theirs.range(api).map(Object::toString).orElse("none")
            + ", client: "
            + ApiVersionTable.CURRENT.range(api).map(Object::toString).orElse("none")
            + ")");
  }
}
