package dev.spool.chaos.history;

/** Where a {@link HistoryRecorder} puts entries: a file while a run goes on, a list in tests. */
public interface HistorySink {
  /** Stores one entry; called with the recorder's lock held, so entries arrive in index order. */
  void append(HistoryEntry entry);
}
