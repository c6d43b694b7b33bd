package dev.spool.coordinator.group.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Keyed timers on a manual clock: {@link #advance} runs what fell due, in deadline order. */
final class ManualTimers implements CoordinatorTimers {
  private record Entry(long deadlineMs, Runnable task) {}

  private final Map<String, Entry> entries = new HashMap<>();
  private long nowMs;

  @Override
  public void schedule(String key, long delayMs, Runnable task) {
    entries.put(key, new Entry(nowMs + delayMs, task));
  }

  @Override
  public void cancel(String key) {
    entries.remove(key);
  }

  boolean has(String key) {
    return entries.containsKey(key);
  }

  void advance(long ms) {
    long target = nowMs + ms;
    while (true) {
      List<Map.Entry<String, Entry>> due = new ArrayList<>();
      for (Map.Entry<String, Entry> e : entries.entrySet()) {
        if (e.getValue().deadlineMs() <= target) {
          due.add(e);
        }
      }
      if (due.isEmpty()) {
        break;
      }
      due.sort(Comparator.comparingLong(e -> e.getValue().deadlineMs()));
      Map.Entry<String, Entry> first = due.get(0);
      entries.remove(first.getKey());
      nowMs = first.getValue().deadlineMs();
      first.getValue().task().run();
    }
    nowMs = target;
  }
}
