package dev.spool.broker.kafka.codec;

import dev.spool.broker.request.ProduceHandler;
import dev.spool.protocol.InvalidFrameException;
import io.netty.buffer.ByteBuf;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Turns a Kafka request frame into a {@link KafkaRequest}, deciding first what Kafka 4.4's broker
 * decides before it serves anything:
 *
 * <pre>
 * Request frame (after the int32 size the frame decoder consumed; all integers big-endian):
 *   int16  request_api_key
 *   int16  request_api_version
 *   int32  correlation_id
 *   string client_id        int16 length, -1 = null (never compact, even in header version 2)
 *   tagged fields           header version 2 only (the API version is flexible)
 *   body                   the API's request schema at request_api_version
 * </pre>
 *
 * <ul>
 *   <li>SaslHandshake or SaslAuthenticate on a listener without SASL: the connection closes with a
 *       line that says so (a SASL client cannot go on without it). On a SASL listener they are
 *       served like any other API.
 *   <li>An API key Kafka does not know, or a version Kafka's codec of this build does not know: the
 *       connection closes, as on Kafka; ApiVersions is the exception (KIP-511): a version newer
 *       than ours is answered with UNSUPPORTED_VERSION in the version 0 schema, listing
 *       ApiVersions' own range, so the client retries at that version.
 *   <li>An API Kafka's brokers do not serve (controller-only APIs): the connection closes.
 *   <li>An API this listener does not serve, or a version of it the listener does not implement:
 *       answered with UNSUPPORTED_VERSION in that version's schema (every partition, topic or group
 *       carries it). The transactional APIs are answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED
 *       instead: the clients treat it as fatal, so a transactional producer fails at once with a
 *       clear error rather than retrying until its timeout (Spool has no transactions).
 *   <li>A body that does not parse: the connection closes. Kafka's generated readers check every
 *       length and count against the bytes remaining, so no field allocates beyond the frame.
 * </ul>
 *
 * Bytes after a complete body are ignored, as Kafka does.
 *
 * <p>Threads: immutable; the connections' event loops.
 */
public final class KafkaRequestDecoder {
  /** The transactional APIs a client may send; see the class comment for the answer they get. */
  private static final Set<ApiKeys> TRANSACTIONAL =
      EnumSet.of(
          ApiKeys.ADD_PARTITIONS_TO_TXN,
          ApiKeys.ADD_OFFSETS_TO_TXN,
          ApiKeys.END_TXN,
          ApiKeys.TXN_OFFSET_COMMIT);

  private final Set<KafkaApi> served;

  public KafkaRequestDecoder(Set<KafkaApi> served) {
    this.served = Set.copyOf(served);
  }

  public KafkaRequest decode(ByteBuf frame) {
    ByteBuffer nio = ProduceHandler.nioView(frame);
    if (nio.remaining() < 8) {
      throw new InvalidFrameException(
          "a request of " + nio.remaining() + " bytes is shorter than a request header");
    }
    short keyId = nio.getShort(nio.position());
    short version = nio.getShort(nio.position() + 2);
    if ((keyId == ApiKeys.SASL_HANDSHAKE.id || keyId == ApiKeys.SASL_AUTHENTICATE.id)
        && !served.contains(KafkaApi.SASL_HANDSHAKE)) {
      throw new InvalidFrameException(
          "the client wants SASL authentication, which this Kafka listener does not offer"
              + " (listener.security.protocol.map has KAFKA as PLAINTEXT or SSL): use a client"
              + " configuration without SASL");
    }
    if (!ApiKeys.hasId(keyId)) {
      throw new InvalidFrameException("unknown Kafka API key " + keyId);
    }
    ApiKeys key = ApiKeys.forId(keyId);
    ByteBufferAccessor in = new ByteBufferAccessor(nio);
    boolean codecKnows = version >= key.oldestVersion() && version <= key.latestVersion(true);
    if (!codecKnows && key != ApiKeys.API_VERSIONS) {
      throw new InvalidFrameException(
          key.name
              + " version "
              + version
              + " is not supported (Kafka 4.x brokers speak "
              + key.oldestVersion()
              + "-"
              + key.latestVersion()
              + ")");
    }
    RequestHeaderData header = parseHeader(in, key, version);
    if (!codecKnows) {
      return new KafkaRequest(
          key,
          version,
          header.correlationId(),
          header.clientId(),
          null,
          apiVersionsFallback(header.correlationId()));
    }
    if (!key.inScope(ApiMessageType.ListenerType.BROKER)) {
      throw new InvalidFrameException(key.name + " is not an API Kafka's brokers serve");
    }
    AbstractRequest body = parseBody(in, key, version);
    KafkaRequest request =
        new KafkaRequest(key, version, header.correlationId(), header.clientId(), body, null);
    Optional<KafkaApi> api = KafkaApi.forId(keyId).filter(served::contains);
    KafkaResponse immediate = null;
    if (TRANSACTIONAL.contains(key)) {
      immediate =
          request.errorResponse(
              Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "Spool does not support transactions");
    } else if (api.isEmpty()) {
      immediate = request.errorResponse(Errors.UNSUPPORTED_VERSION, key.name + " is not supported");
    } else if (!api.get().accepts(version)) {
      immediate =
          request.errorResponse(
              Errors.UNSUPPORTED_VERSION,
              key.name + " version " + version + " is not supported; see ApiVersions");
    }
    if (immediate == null) {
      return request;
    }
    return new KafkaRequest(
        key, version, header.correlationId(), header.clientId(), body, immediate);
  }

  private static RequestHeaderData parseHeader(ByteBufferAccessor in, ApiKeys key, short version) {
    try {
      return new RequestHeaderData(in, key.requestHeaderVersion(version));
    } catch (RuntimeException e) {
      throw new InvalidFrameException("malformed request header: " + reason(e), e);
    }
  }

  private static AbstractRequest parseBody(ByteBufferAccessor in, ApiKeys key, short version) {
    try {
      return AbstractRequest.parseRequest(key, version, in).request;
    } catch (RuntimeException e) {
      throw new InvalidFrameException(
          "malformed " + key.name + " v" + version + " request: " + reason(e), e);
    }
  }

  /**
   * What was wrong, for the one log line: Kafka's readers name the field when a length is bad, but
   * a frame that ends early surfaces as a BufferUnderflowException without a message.
   */
  private static String reason(RuntimeException e) {
    if (e instanceof BufferUnderflowException) {
      return "the frame ends before the request does";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  /**
   * Kafka's answer to an ApiVersions request newer than it knows: error UNSUPPORTED_VERSION in the
   * version 0 schema with header version 0, listing only ApiVersions' own range (KIP-511), so the
   * client sends its request again at our newest version.
   */
  private static KafkaResponse apiVersionsFallback(int correlationId) {
    ApiVersionsResponseData.ApiVersionCollection keys =
        new ApiVersionsResponseData.ApiVersionCollection();
    keys.add(
        new ApiVersionsResponseData.ApiVersion()
            .setApiKey(ApiKeys.API_VERSIONS.id)
            .setMinVersion(KafkaApi.API_VERSIONS.advertisedMin())
            .setMaxVersion(KafkaApi.API_VERSIONS.max()));
    return new KafkaResponse(
        correlationId,
        new ApiVersionsResponseData()
            .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
            .setApiKeys(keys),
        (short) 0,
        (short) 0,
        List.of(),
        false);
  }
}
