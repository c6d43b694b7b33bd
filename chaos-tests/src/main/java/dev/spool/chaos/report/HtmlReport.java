package dev.spool.chaos.report;

import dev.spool.chaos.checker.Anomaly;
import dev.spool.chaos.checker.Availability;
import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.Counts;
import dev.spool.chaos.checker.FaultTimeline;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.nemesis.FaultWindow;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders {@code index.html}: one self-contained page (inline CSS and SVG, no scripts, no external
 * assets) that a person opens first. Top to bottom: the verdict, what to run to repeat it, the
 * counts, the plot, the checkers, every anomaly with its details, and the fault timeline with
 * availability per fault. Pure.
 */
public final class HtmlReport {
  /** Anomalies listed per checker; the rest are in verdict.json (also capped, with the count). */
  static final int MAX_ANOMALIES_PER_CHECKER = 50;

  private static final DateTimeFormatter WHEN =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private HtmlReport() {}

  public static String render(RunInfo info, Verdict verdict, List<FaultWindow> faults) {
    StringBuilder h = new StringBuilder(64 * 1024);
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>")
        .append(esc(verdictWord(verdict.valid()) + " — Spool chaos run " + info.runId()))
        .append("</title>")
        .append("<style>")
        .append(CSS)
        .append("</style></head><body><main>");
    header(h, info, verdict);
    counts(h, verdict);
    chart(h, verdict, faults);
    checkers(h, verdict);
    anomalies(h, verdict);
    faultTable(h, verdict.availability());
    timelineTable(h, verdict.timelines());
    h.append(
        "<footer>Files in this folder: <code>history.jsonl</code> (every op, JSON lines) · <code>verdict.json</code>"
            + " · <code>run.json</code> (seed, re-run command) · <code>nemesis.jsonl</code> (fault timeline) · <code>nodes/</code> (node logs). Times are seconds since the run started."
            + " Anomaly names and meanings follow Jepsen's Kafka workload (jepsen.tests.kafka).</footer>");
    h.append("</main></body></html>\n");
    return h.toString();
  }

  private static void header(StringBuilder h, RunInfo info, Verdict v) {
    String cls =
        switch (v.valid()) {
          case TRUE -> "ok";
          case FALSE -> "bad";
          case UNKNOWN -> "unknown";
        };
    h.append("<header><div class=\"badge ")
        .append(cls)
        .append("\">")
        .append(verdictWord(v.valid()))
        .append("</div><div>")
        .append("<h1>Spool chaos run <span class=\"mono\">")
        .append(esc(info.runId()))
        .append("</span></h1>")
        .append("<p class=\"sub\">");
    if (v.valid() == Validity.FALSE) {
      h.append("<strong>")
          .append(v.anomalyCount())
          .append(" anomal")
          .append(v.anomalyCount() == 1 ? "y" : "ies")
          .append("</strong> in ")
          .append(failedCheckers(v))
          .append(" · ");
    }
    h.append("seed <span class=\"mono\">")
        .append(info.seed())
        .append("</span> · started ")
        .append(WHEN.format(Instant.ofEpochMilli(info.startedAtMs())))
        .append(" · ")
        .append(secs(v.availability().runEndNs()))
        .append(" s");
    if (info.cluster() != null) {
      h.append(" · ").append(esc(info.cluster()));
    }
    if (info.nemeses() != null) {
      h.append(" · nemeses: ").append(esc(info.nemeses()));
    }
    h.append("</p></div></header>");
    h.append("<section class=\"rerun\"><div class=\"label\">Re-run exactly this run</div><pre>")
        .append(esc(info.rerunCommand()))
        .append("</pre></section>");
    for (String note : info.notes()) {
      h.append("<p class=\"note\">").append(esc(note)).append("</p>");
    }
  }

  private static String failedCheckers(Verdict v) {
    List<String> names = new ArrayList<>();
    v.results()
        .forEach(
            (name, r) -> {
              if (r.valid() == Validity.FALSE) {
                names.add(name);
              }
            });
    return esc(String.join(", ", names));
  }

  private static void counts(StringBuilder h, Verdict v) {
    Counts c = v.counts();
    Availability.Report a = v.availability();
    h.append("<section class=\"cards\">");
    card(h, "acknowledged writes", Integer.toString(c.sendOk()), c.sends() + " sends invoked");
    card(h, "failed sends", Integer.toString(c.sendFail()), "definitely not written");
    card(
        h,
        "indeterminate sends",
        Integer.toString(c.sendInfo() + c.sendIncomplete()),
        c.sendInfo() + " info, " + c.sendIncomplete() + " never completed");
    card(
        h,
        "polls",
        Integer.toString(c.polls()),
        c.valuesRead() + " records read, " + c.distinctValuesRead() + " distinct");
    card(
        h,
        "longest outage",
        a.longestGap() == null ? "–" : secs(a.longestGap().durationNs()) + " s",
        a.longestGap() == null
            ? ""
            : "no acked write from "
                + secs(a.longestGap().startNs())
                + " s to "
                + secs(a.longestGap().endNs())
                + " s");
    card(h, "faults", Integer.toString(a.faults().size()), c.ops() + " ops in the history");
    h.append("</section>");
  }

  private static void card(StringBuilder h, String label, String value, String detail) {
    h.append("<div class=\"card\"><div class=\"label\">")
        .append(esc(label))
        .append("</div><div class=\"value\">")
        .append(esc(value))
        .append("</div><div class=\"detail\">")
        .append(esc(detail))
        .append("</div></div>");
  }

  private static void chart(StringBuilder h, Verdict v, List<FaultWindow> faults) {
    List<Anomaly> all = new ArrayList<>();
    v.results().values().forEach(r -> all.addAll(r.anomalies()));
    h.append("<section><h2>Throughput and latency</h2><div class=\"chart\">")
        .append(
            SvgChart.render(v.availability().series(), faults, all, v.availability().runEndNs()))
        .append("</div><div class=\"legend\">")
        .append(
            "<span><i class=\"sw\" style=\"background:#2da44e99\"></i>acknowledged writes per second</span>")
        .append(
            "<span><i class=\"sw\" style=\"background:#cf222e\"></i>failed or indeterminate sends per second</span>")
        .append("<span><i class=\"ln\" style=\"background:#0969da\"></i>p50 latency</span>")
        .append("<span><i class=\"ln\" style=\"background:#bf8700\"></i>p99 latency</span>")
        .append("<span><b style=\"color:#cf222e\">▼</b> anomaly (first op)</span>")
        .append(
            "<span><i class=\"sw\" style=\"background:#8250df22;border:1px solid #8250df\"></i>fault window (colour by family)</span>")
        .append("</div></section>");
  }

  private static void checkers(StringBuilder h, Verdict v) {
    h.append(
        "<section><h2>Checkers</h2><table><thead><tr><th>checker</th><th>result</th><th class=\"num\">anomalies</th><th>note</th></tr></thead><tbody>");
    for (Map.Entry<String, CheckResult> e : v.results().entrySet()) {
      CheckResult r = e.getValue();
      h.append("<tr><td class=\"mono\"><a href=\"#")
          .append(esc(e.getKey()))
          .append("\">")
          .append(esc(e.getKey()))
          .append("</a></td><td>")
          .append(pill(r.valid()))
          .append("</td><td class=\"num\">")
          .append(r.anomalyCount())
          .append("</td><td>")
          .append(esc(r.note() == null ? "" : r.note()))
          .append("</td></tr>");
    }
    h.append("</tbody></table></section>");
  }

  private static void anomalies(StringBuilder h, Verdict v) {
    h.append("<section><h2>Anomalies</h2>");
    if (v.anomalyCount() == 0) {
      h.append("<p class=\"none\">None found.</p></section>");
      return;
    }
    for (Map.Entry<String, CheckResult> e : v.results().entrySet()) {
      CheckResult r = e.getValue();
      if (r.anomalyCount() == 0) {
        continue;
      }
      h.append("<h3 id=\"")
          .append(esc(e.getKey()))
          .append("\"><span class=\"mono\">")
          .append(esc(e.getKey()))
          .append("</span> <span class=\"count\">")
          .append(r.anomalyCount())
          .append("</span></h3><ol class=\"anomalies\">");
      List<Anomaly> shown =
          r.anomalies().subList(0, Math.min(r.anomalies().size(), MAX_ANOMALIES_PER_CHECKER));
      for (Anomaly a : shown) {
        h.append("<li><div class=\"summary\">").append(esc(a.summary())).append("</div><dl>");
        if (a.partition() != null) {
          dd(h, "partition", a.partition().toString());
        }
        if (!a.offsets().isEmpty()) {
          dd(h, "offsets", a.offsets().toString());
        }
        if (!a.values().isEmpty()) {
          dd(h, "values", a.values().toString());
        }
        if (!a.ops().isEmpty()) {
          List<String> ops = new ArrayList<>();
          for (int i = 0; i < a.ops().size(); i++) {
            ops.add(
                "#"
                    + a.ops().get(i)
                    + (i < a.timesNs().size() ? " @ " + secs3(a.timesNs().get(i)) + " s" : ""));
          }
          dd(h, "ops", String.join(", ", ops));
        }
        a.details().forEach((k, val) -> dd(h, k, String.valueOf(val)));
        h.append("</dl></li>");
      }
      h.append("</ol>");
      if (r.anomalyCount() > shown.size()) {
        h.append("<p class=\"more\">… and ")
            .append(r.anomalyCount() - shown.size())
            .append(" more (see verdict.json for up to ")
            .append(CheckResult.MAX_LISTED)
            .append(").</p>");
      }
    }
    h.append("</section>");
  }

  private static void dd(StringBuilder h, String k, String v) {
    h.append("<dt>")
        .append(esc(k))
        .append("</dt><dd class=\"mono\">")
        .append(esc(v))
        .append("</dd>");
  }

  private static void faultTable(StringBuilder h, Availability.Report a) {
    h.append("<section><h2>Faults and availability</h2>");
    if (a.faults().isEmpty()) {
      h.append("<p class=\"none\">No faults were injected.</p></section>");
      return;
    }
    h.append(
        "<table><thead><tr><th class=\"num\">#</th><th>fault</th><th>targets</th><th class=\"num\">start</th><th class=\"num\">end</th>"
            + "<th class=\"num\">acked during</th><th class=\"num\">longest outage</th><th class=\"num\">recovery after heal</th></tr></thead><tbody>");
    for (Availability.WindowAvailability w : a.faults()) {
      h.append("<tr><td class=\"num\">")
          .append(w.faultId())
          .append("</td><td><i class=\"dot\" style=\"background:")
          .append(SvgChart.color(w.kind().family()))
          .append("\"></i>")
          .append(esc(w.kind().label()))
          .append("</td><td class=\"mono\">")
          .append(
              esc(
                  w.label()
                      .substring(Math.min(w.label().length(), w.kind().label().length()))
                      .strip()))
          .append("</td><td class=\"num\">")
          .append(secs(w.startNs()))
          .append("</td><td class=\"num\">")
          .append(w.endNs() < 0 ? "not healed" : secs(w.endNs()))
          .append("</td><td class=\"num\">")
          .append(w.acknowledgedDuring())
          .append("</td><td class=\"num\">")
          .append(w.longestGap() == null ? "–" : secs(w.longestGap().durationNs()) + " s")
          .append("</td><td class=\"num\">")
          .append(w.recoveryNs() == null ? "–" : secs(w.recoveryNs()) + " s")
          .append("</td></tr>");
    }
    h.append("</tbody></table></section>");
  }

  /**
   * Where each fault's time went: detection, decision, takeover, client switch and first
   * acknowledged write, in ms after the fault started, each with what happened beneath it.
   */
  private static void timelineTable(StringBuilder h, List<FaultTimeline> timelines) {
    if (timelines.isEmpty()) {
      return;
    }
    h.append("<section><h2>Where each second went</h2>")
        .append(
            "<p class=\"sub\">Milliseconds from the fault's start to each step of the recovery,"
                + " from the node logs and the producers' metadata; – where a step did not happen"
                + " (a fault that fenced nobody needs no decision).</p>")
        .append(
            "<table><thead><tr><th class=\"num\">#</th><th>fault</th><th class=\"num\">start</th>"
                + "<th class=\"num\">detection</th><th class=\"num\">decision</th>"
                + "<th class=\"num\">takeover</th><th class=\"num\">client switch</th>"
                + "<th class=\"num\">first ack</th></tr></thead><tbody>");
    for (FaultTimeline t : timelines) {
      h.append("<tr><td class=\"num\">")
          .append(t.faultId())
          .append("</td><td><i class=\"dot\" style=\"background:")
          .append(SvgChart.color(t.kind().family()))
          .append("\"></i>")
          .append(esc(t.label()))
          .append("</td><td class=\"num\">")
          .append(secs(t.startNs()))
          .append(" s</td>");
      stepCell(h, t.detection(), null);
      stepCell(h, t.decision(), null);
      stepCell(h, t.takeover(), null);
      stepCell(
          h,
          t.clientSwitch(),
          t.clientSwitch() == null
              ? null
              : t.clientsSwitched() + " producer(s), the last at +" + t.lastClientSwitchMs());
      stepCell(h, t.firstAck(), null);
      h.append("</tr>");
    }
    h.append("</tbody></table></section>");
  }

  private static void stepCell(StringBuilder h, FaultTimeline.Step step, String more) {
    h.append("<td class=\"num\">");
    if (step == null) {
      h.append("–</td>");
      return;
    }
    h.append(FaultTimeline.cell(step))
        .append(" ms<div class=\"step\">")
        .append(esc(step.what()))
        .append(more == null ? "" : "; " + esc(more))
        .append("</div></td>");
  }

  private static String pill(Validity v) {
    return switch (v) {
      case TRUE -> "<span class=\"pill ok\">valid</span>";
      case FALSE -> "<span class=\"pill bad\">INVALID</span>";
      case UNKNOWN -> "<span class=\"pill unknown\">unknown</span>";
    };
  }

  private static String verdictWord(Validity v) {
    return switch (v) {
      case TRUE -> "VALID";
      case FALSE -> "INVALID";
      case UNKNOWN -> "UNKNOWN";
    };
  }

  private static String secs(long ns) {
    return String.format(Locale.ROOT, "%.1f", ns / 1e9);
  }

  private static String secs3(long ns) {
    return String.format(Locale.ROOT, "%.3f", ns / 1e9);
  }

  /** Escapes text for HTML element content and attribute values. */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static final String CSS =
      String.join(
          "",
          ":root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa}",
          "*{box-sizing:border-box}body{margin:0;background:#fff;color:var(--fg);",
          "font:14px/1.5 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif}",
          "main{max-width:1180px;margin:0 auto;padding:24px 28px 48px}",
          "header{display:flex;gap:18px;align-items:center;margin-bottom:14px}",
          "h1{font-size:22px;margin:0}h2{font-size:17px;margin:28px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}",
          "h3{font-size:15px;margin:18px 0 8px}.sub{margin:2px 0 0;color:var(--muted)}",
          ".mono,code,pre,dd{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}",
          ".badge{font-weight:800;font-size:20px;letter-spacing:.04em;color:#fff;padding:12px 18px;border-radius:10px}",
          ".badge.ok{background:#1a7f37}.badge.bad{background:#cf222e}.badge.unknown{background:#9a6700}",
          ".rerun{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:8px 0}",
          ".rerun pre{margin:2px 0 0;white-space:pre-wrap;word-break:break-all}",
          ".label{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);font-weight:600}",
          ".note{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:8px 12px;margin:8px 0;font-weight:600}",
          ".cards{display:grid;grid-template-columns:repeat(6,1fr);gap:10px;margin:14px 0}",
          ".card{border:1px solid var(--line);border-radius:8px;padding:10px 12px}",
          ".card .value{font-size:22px;font-weight:700;margin:2px 0}.card .detail{color:var(--muted);font-size:12px}",
          ".chart{border:1px solid var(--line);border-radius:8px;padding:6px;overflow-x:auto}.chart svg{display:block;max-width:100%;height:auto}",
          ".legend{display:flex;flex-wrap:wrap;gap:18px;color:var(--muted);font-size:12.5px;margin:8px 4px}",
          ".legend span{display:inline-flex;align-items:center;gap:6px}",
          ".sw{display:inline-block;width:14px;height:10px;border-radius:2px}.ln{display:inline-block;width:18px;height:3px;border-radius:2px}",
          ".dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:7px}",
          "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}",
          "th{font-size:12px;color:var(--muted);font-weight:600;background:var(--bg)}tbody tr:nth-child(even){background:#fbfcfd}",
          ".num{text-align:right;font-variant-numeric:tabular-nums}",
          ".pill{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:700}",
          ".pill.ok{background:#dafbe1;color:#1a7f37}.pill.bad{background:#ffebe9;color:#cf222e}.pill.unknown{background:#fff8c5;color:#9a6700}",
          ".count{background:#ffebe9;color:#cf222e;border-radius:10px;padding:0 8px;font-size:12px}",
          "ol.anomalies{padding-left:22px}ol.anomalies li{margin:0 0 10px;padding:8px 12px;border-left:3px solid #cf222e;background:#fff5f5;border-radius:0 6px 6px 0}",
          ".summary{font-weight:600;margin-bottom:4px}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}",
          "dt{color:var(--muted);font-size:12px}dd{margin:0;word-break:break-all}",
          ".step{color:var(--muted);font-size:11.5px;text-align:right}",
          ".none{color:var(--muted)}.more{color:var(--muted);font-style:italic}",
          "footer{margin-top:32px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:10px}",
          "a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}");
}
