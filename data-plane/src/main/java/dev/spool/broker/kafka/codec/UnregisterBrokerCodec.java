package dev.spool.broker.kafka.codec;

import dev.spool.protocol.message.UnregisterBrokerRequest;
import dev.spool.protocol.message.UnregisterBrokerResponse;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.message.UnregisterBrokerResponseData;

/**
 * Kafka's UnregisterBroker (API key 64; {@code kafka-cluster.sh unregister --id N} sends it) as
 * Spool's message of the same name. The fields are the same; Spool's refusals of a live broker or
 * one that still holds replicas, which Kafka does not make, reach a Kafka client as INVALID_REQUEST
 * with Spool's message (KafkaErrors).
 *
 * <p>Threads: stateless; any thread.
 */
public final class UnregisterBrokerCodec {
  private UnregisterBrokerCodec() {}

  public static UnregisterBrokerRequest toSpool(KafkaRequest request, int timeoutMs) {
    UnregisterBrokerRequestData d = request.body();
    return UnregisterBrokerRequest.newBuilder()
        .setBrokerId(d.brokerId())
        .setTimeoutMs(timeoutMs)
        .build();
  }

  public static KafkaResponse toKafka(KafkaRequest request, UnregisterBrokerResponse resp) {
    return request.respond(
        new UnregisterBrokerResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(resp.getErrorMessage())));
  }
}
