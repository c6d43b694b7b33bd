package dev.spool.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.SpoolVersion;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What the ApiVersions exchange decides, without a connection. */
@Tag("unit")
class ApiVersionsHandshakeTest {
  private static final Node NODE = new Node(3, "127.0.0.1", 9092);

  private static ApiVersionsResponse.Builder broker(ApiKey api, int min, int max) {
    return ApiVersionsResponse.newBuilder()
        .setServerSoftwareVersion("spool 9")
        .addApiVersions(
            ApiVersionsResponse.ApiVersionRange.newBuilder()
                .setApiKey(api)
                .setMinVersion(min)
                .setMaxVersion(max));
  }

  @Test
  void shouldNameThisClientAndTheVersionTheBuildStamped() {
    assertEquals(
        ApiVersionsHandshake.SOFTWARE_NAME, ApiVersionsHandshake.request().getClientSoftwareName());
    assertEquals(SpoolVersion.version(), ApiVersionsHandshake.request().getClientSoftwareVersion());
  }

  @Test
  void shouldRefuseAConnectionTheBrokerRefused() {
    SpoolException e =
        assertThrows(
            SpoolException.class,
            () ->
                ApiVersionsHandshake.accept(
                    NODE,
                    ApiVersionTable.CURRENT
                        .toResponse()
                        .setErrorCode(ErrorCode.UNSUPPORTED_VERSION)
                        .build()));
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.errorCode());
  }

  @Test
  void shouldRefuseABrokerThatSharesNoVersion() {
    SpoolException e =
        assertThrows(
            SpoolException.class,
            () -> ApiVersionsHandshake.accept(NODE, broker(ApiKey.FETCH, 5, 9).build()));
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.errorCode());
    assertTrue(e.getMessage().contains("spool 9"), e.getMessage());
  }

  @Test
  void shouldPickTheHighestCommonVersionAndNameBothRangesWhenThereIsNone() {
    ApiVersionTable theirs =
        ApiVersionsHandshake.accept(NODE, broker(ApiKey.METADATA, 0, 4).build());
    assertEquals(0, ApiVersionsHandshake.versionFor(ApiKey.METADATA, NODE, theirs));
    SpoolException e =
        assertThrows(
            SpoolException.class,
            () -> ApiVersionsHandshake.versionFor(ApiKey.PRODUCE, NODE, theirs));
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.errorCode());
    assertTrue(e.getMessage().contains("broker: none"), e.getMessage());
    assertTrue(e.getMessage().contains("client: Range[min=0, max=0]"), e.getMessage());
  }
}
