/**
 * The group coordinator's protocol-neutral API: requests and results as plain Java values, errors
 * as {@link dev.spool.common.ErrorCode}s. Spool's own request handlers translate the protobuf
 * messages of {@code protocol.proto} to and from these types; a Kafka-protocol listener does the
 * same with Kafka's messages. Nothing here knows a wire format. Immutable; any thread.
 */
package dev.spool.coordinator.group.api;
