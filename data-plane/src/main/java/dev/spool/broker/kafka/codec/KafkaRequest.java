package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * One decoded request of the Kafka listener: header fields, the parsed body (Kafka's generated
 * class, seen only by this package) or, when the request is answered without being served (an
 * unsupported version, an API the listener does not serve), that answer. Record data in the body
 * (Produce) are views into the received frame, which the connection keeps until the answer is
 * written.
 *
 * <p>Threads: created on the connection's event loop; read by whichever thread serves it.
 */
public final class KafkaRequest {
  private final ApiKeys key;
  private final short version;
  private final int correlationId;
  private final String clientId;
  private final AbstractRequest request;
  private final KafkaResponse immediate;
  // How long decoding took on the event loop (request quotas count it); set once, on that loop.
  private long decodeNanos;

  KafkaRequest(
      ApiKeys key,
      short version,
      int correlationId,
      String clientId,
      AbstractRequest request,
      KafkaResponse immediate) {
    this.key = key;
    this.version = version;
    this.correlationId = correlationId;
    this.clientId = clientId == null ? "" : clientId;
    this.request = request;
    this.immediate = immediate;
  }

  /** The API to serve; empty when {@link #immediateAnswer} decides the answer. */
  public Optional<KafkaApi> api() {
    return immediate == null ? KafkaApi.forId(key.id) : Optional.empty();
  }

  /** Kafka's number of the API, whether or not the listener serves it. */
  public short apiKey() {
    return key.id;
  }

  /** Kafka's name of the API ({@code Produce}, {@code ListOffsets}), the metrics label. */
  public String apiName() {
    return key.name;
  }

  public short version() {
    return version;
  }

  public int correlationId() {
    return correlationId;
  }

  /** The client id of the header; "" when the client sent none (as Kafka does). */
  public String clientId() {
    return clientId;
  }

  /**
   * False for Produce with acks=0: Kafka's clients expect no answer at all, and a failure can only
   * be signalled by closing the connection.
   */
  public boolean expectsResponse() {
    return !(request instanceof ProduceRequest p && p.acks() == 0);
  }

  /**
   * Whether request quotas leave this request alone (docs/security.md#quotas): ApiVersions, which a
   * client sends before it can learn of any throttle, and the SASL exchange, which Kafka's brokers
   * serve before a request is ever metered.
   */
  public boolean requestQuotaExempt() {
    return key == ApiKeys.API_VERSIONS
        || key == ApiKeys.SASL_HANDSHAKE
        || key == ApiKeys.SASL_AUTHENTICATE;
  }

  /** The event loop's time decoding this request, in nanoseconds (request quotas). */
  public long decodeNanos() {
    return decodeNanos;
  }

  /** Sets {@link #decodeNanos}, on the event loop that decoded the request. */
  public void decodeNanos(long nanos) {
    decodeNanos = nanos;
  }

  /** The answer decided while decoding (no handler runs), or null. */
  public KafkaResponse immediateAnswer() {
    return immediate;
  }

  /** For log lines: {@code Produce v9 (correlation id 7, client "producer-1")}. */
  public String describe() {
    return key.name
        + " v"
        + version
        + " (correlation id "
        + correlationId
        + ", client \""
        + clientId
        + "\")";
  }

  /**
   * Kafka's answer to this request when the whole request fails with {@code code}: every partition,
   * topic or group in it carries the error, as Kafka's own brokers answer (the request classes'
   * {@code getErrorResponse}).
   */
  public KafkaResponse errorResponse(ErrorCode code, String message) {
    return errorResponse(KafkaErrors.kafka(code), message);
  }

  KafkaResponse errorResponse(Errors error, String message) {
    AbstractResponse r = request.getErrorResponse(0, error.exception(message));
    // Kafka's ProduceRequest has no error answer for acks=0: its broker closes the connection.
    return r == null
        ? KafkaResponse.closeWithoutAnswer()
        : respond(r.data()).withError(error.name());
  }

  @SuppressWarnings("unchecked")
  <T extends ApiMessage> T body() {
    return (T) request.data();
  }

  /** Kafka's request object (for its own checks, such as ApiVersions' {@code isValid}). */
  AbstractRequest request() {
    return request;
  }

  KafkaResponse respond(ApiMessage body) {
    return respond(body, List.of());
  }

  KafkaResponse respond(ApiMessage body, List<RegionRecords> regions) {
    return new KafkaResponse(
        correlationId, body, version, key.responseHeaderVersion(version), regions, false);
  }
}
