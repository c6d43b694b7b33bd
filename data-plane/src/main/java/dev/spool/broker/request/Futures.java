package dev.spool.broker.request;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Joins the per-partition (or per-topic) answers of a request in request order, once all are in.
 * Stateless; any thread.
 */
final class Futures {
  private Futures() {}

  static <R> CompletableFuture<List<R>> all(List<CompletableFuture<R>> each) {
    return CompletableFuture.allOf(each.toArray(new CompletableFuture[0]))
        .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
  }
}
