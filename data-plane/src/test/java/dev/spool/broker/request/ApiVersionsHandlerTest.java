package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.common.SpoolVersion;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.RequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ApiVersionsHandlerTest {

  @Test
  void shouldAnswerWithTheVersionTheBuildStamped() throws Exception {
    RequestHeader h =
        RequestHeader.newBuilder().setApiKey(ApiKey.API_VERSIONS).setCorrelationId(1).build();
    ByteBuf frame =
        Frame.encodePrefix(ByteBufAllocator.DEFAULT, h, ApiVersionsRequest.getDefaultInstance(), 0);
    frame.skipBytes(4);
    try {
      BrokerResponse r =
          new ApiVersionsHandler()
              .handle(new RequestContext(h, Frame.parse(frame), frame, "test", null, 0))
              .get(5, TimeUnit.SECONDS);
      String version = ((ApiVersionsResponse) r.body()).getServerSoftwareVersion();
      assertEquals(SpoolVersion.describe(), version);
      assertNotEquals("spool unknown", version, "the client's filtered version resource is there");
    } finally {
      frame.release();
    }
  }
}
