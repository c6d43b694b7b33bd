package dev.spool.network;

import com.google.protobuf.MessageLite;
import dev.spool.protocol.message.ApiKey;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/**
 * One request of the {@link NetworkClient} while it waits, is written and is answered: its future,
 * its deadline and the record data it owns until written. {@code handshake}: ApiVersions or a SASL
 * login step, written while the connection is not READY yet.
 *
 * <p>Threads: the network client's I/O thread (the future completes there).
 */
final class Request {
  final Node node;
  final ApiKey api;
  final MessageLite body;
  ByteBuf recordData;
  final long timeoutMs;
  final boolean expectResponse;
  final boolean handshake;
  final CompletableFuture<ClientResponse> future = new CompletableFuture<>();
  long deadlineNs;
  long sentNs;
  int correlationId;

  Request(
      Node node,
      ApiKey api,
      MessageLite body,
      ByteBuf recordData,
      long timeoutMs,
      boolean expectResponse,
      boolean handshake) {
    this.node = node;
    this.api = api;
    this.body = body;
    this.recordData = recordData;
    this.timeoutMs = timeoutMs;
    this.expectResponse = expectResponse;
    this.handshake = handshake;
  }

  void releaseData() {
    ByteBuf d = recordData;
    recordData = null;
    if (d != null && d.refCnt() > 0) {
      d.release();
    }
  }
}
