package dev.spool.client.internal.consumer;

import dev.spool.common.SpoolException;
import dev.spool.record.RecordCursor;
import java.util.ArrayDeque;

/**
 * What the consumer knows about one assigned partition; owned by the application thread.
 *
 * <p>Two positions: {@link #position} is the next offset poll returns (the consumed position) with
 * {@link #positionEpoch}, the leader epoch of the last batch it came from; {@link #fetchPosition}
 * is where the next fetch starts, ahead of {@code position} by whatever is buffered, with {@link
 * #fetchEpoch} sent as {@code last_fetched_epoch}. A seek, reset or truncation bumps {@link
 * #generation}, which makes answers to older fetches (and buffered data) void.
 */
final class PartitionFetchState {
  /** How to find a position: by the earliest or latest offset. */
  enum Reset {
    EARLIEST,
    LATEST
  }

  long position = -1;
  int positionEpoch = -1;
  long fetchPosition = -1;
  int fetchEpoch = -1;
  int generation;
  Reset reset;
  boolean resetInFlight;
  boolean fetchInFlight;
  long retryAfterMs;
  int failures;
  long highWatermark = -1;
  SpoolException pendingError;
  final ArrayDeque<CompletedFetch> buffered = new ArrayDeque<>();

  /**
   * Decodes this partition's buffered fetches, one batch at a time; kept so that a compressed batch
   * inflates into the array the previous fetch's batches grew.
   */
  final RecordCursor cursor = new RecordCursor();

  boolean hasPosition() {
    return position >= 0 && reset == null;
  }

  void advanceTo(long offset, int epoch) {
    if (offset > position) {
      position = offset;
    }
    if (epoch >= 0) {
      positionEpoch = epoch;
    }
  }

  /** Moves both positions to {@code offset} and voids buffered data and fetches in flight. */
  void seek(long offset, int epoch) {
    generation++;
    dropBuffered();
    position = offset;
    positionEpoch = epoch;
    fetchPosition = offset;
    fetchEpoch = epoch;
    reset = null;
    resetInFlight = false;
    pendingError = null;
    fetchInFlight = false;
  }

  void requestReset(Reset strategy) {
    generation++;
    dropBuffered();
    position = -1;
    fetchPosition = -1;
    positionEpoch = -1;
    fetchEpoch = -1;
    reset = strategy;
    resetInFlight = false;
    pendingError = null;
    fetchInFlight = false;
  }

  void dropBuffered() {
    buffered.forEach(CompletedFetch::release);
    buffered.clear();
  }
}
