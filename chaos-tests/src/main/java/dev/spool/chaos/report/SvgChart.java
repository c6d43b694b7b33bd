package dev.spool.chaos.report;

import dev.spool.chaos.checker.Anomaly;
import dev.spool.chaos.checker.Availability;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.nemesis.NemesisFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The run's picture as one inline SVG: acknowledged writes per second (and failed or indeterminate
 * sends) above, send latency p50/p99 per second on a log scale below, fault windows shaded across
 * both with their labels on top, anomalies marked by red triangles at the time of their first op.
 * Pure: data in, markup out.
 */
final class SvgChart {
  static final int WIDTH = 1120;
  private static final int LEFT = 64;
  private static final int RIGHT = 20;
  private static final int LABEL_ROWS = 3;
  private static final int LABEL_ROW_PX = 15;
  private static final int TOP = 12 + LABEL_ROWS * LABEL_ROW_PX;
  private static final int THROUGHPUT_PX = 200;
  private static final int GAP_PX = 34;
  private static final int LATENCY_PX = 170;
  private static final int BOTTOM_PX = 40;
  static final int HEIGHT = TOP + THROUGHPUT_PX + GAP_PX + LATENCY_PX + BOTTOM_PX;
  private static final int MAX_MARKERS = 300;

  private final List<Availability.Bucket> series;
  private final List<FaultWindow> faults;
  private final List<Anomaly> anomalies;
  private final double seconds;
  private final StringBuilder svg = new StringBuilder();

  private SvgChart(
      List<Availability.Bucket> series,
      List<FaultWindow> faults,
      List<Anomaly> anomalies,
      long runEndNs) {
    this.series = series;
    this.faults = faults;
    this.anomalies = anomalies;
    this.seconds = Math.max(1.0, Math.max(series.size(), runEndNs / 1e9));
  }

  static String render(
      List<Availability.Bucket> series,
      List<FaultWindow> faults,
      List<Anomaly> anomalies,
      long runEndNs) {
    return new SvgChart(series, faults, anomalies, runEndNs).draw();
  }

  /** The colour of a fault family, shared with the HTML tables. */
  static String color(NemesisFamily f) {
    return switch (f) {
      case KILL -> "#d1242f";
      case PAUSE -> "#bc4c00";
      case PARTITION -> "#8250df";
      case DISK -> "#7d4e00";
      case RESTART -> "#a40e26";
      case PROXY -> "#1b7c83";
      case FLAP -> "#4d2d8e";
    };
  }

  private String draw() {
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                + "font-family=\"system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif\" font-size=\"11\" role=\"img\" "
                + "aria-label=\"throughput and latency over time with fault windows\">",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>");
    faultBands();
    throughputPanel();
    latencyPanel();
    timeAxis();
    anomalyMarkers();
    svg.append("</svg>");
    return svg.toString();
  }

  private double x(double sec) {
    return LEFT + sec / seconds * (WIDTH - LEFT - RIGHT);
  }

  private void faultBands() {
    int bottom = TOP + THROUGHPUT_PX + GAP_PX + LATENCY_PX;
    int row = 0;
    double[] rowEnd = new double[LABEL_ROWS];
    for (FaultWindow f : faults) {
      double x0 = x(f.startNs() / 1e9);
      double x1 = x(f.endOr((long) (seconds * 1e9)) / 1e9);
      if (x1 - x0 < 1.5) {
        x1 = x0 + 1.5; // a skipped or instant fault still shows as a hairline
      }
      String c = color(f.kind().family());
      String tip =
          HtmlReport.esc(
              "#" + f.id() + " " + f.label() + (f.note() == null ? "" : " — " + f.note()));
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.13\"><title>%s</title></rect>",
              x0,
              TOP,
              x1 - x0,
              bottom - TOP,
              c,
              tip));
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-opacity=\"0.55\"/>",
              x0,
              x0,
              TOP,
              bottom,
              c));
      // Labels go to the first row where they do not overlap the previous label.
      String label = f.kind().label();
      double width = label.length() * 6.2 + 6;
      int r = 0;
      while (r < LABEL_ROWS && rowEnd[r] > x0) {
        r++;
      }
      if (r == LABEL_ROWS) {
        r = row++ % LABEL_ROWS;
      }
      rowEnd[r] = x0 + width;
      int y = 12 + r * LABEL_ROW_PX + 9;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" font-weight=\"600\">%s<title>%s</title></text>",
              x0 + 2,
              y,
              c,
              HtmlReport.esc(label),
              tip));
    }
  }

  private void throughputPanel() {
    int top = TOP;
    int base = TOP + THROUGHPUT_PX;
    double max = 1;
    for (Availability.Bucket b : series) {
      max = Math.max(max, Math.max(b.sendOk(), b.sendFail() + b.sendInfo()));
    }
    double yMax = niceCeil(max);
    grid(top, base, yMax, "acked writes / s");
    StringBuilder area = new StringBuilder(String.format(Locale.ROOT, "M%.1f %d", x(0), base));
    for (Availability.Bucket b : series) {
      double y = base - b.sendOk() / yMax * THROUGHPUT_PX;
      area.append(
          String.format(
              Locale.ROOT, " L%.1f %.1f L%.1f %.1f", x(b.second()), y, x(b.second() + 1), y));
    }
    area.append(String.format(Locale.ROOT, " L%.1f %d Z", x(series.size()), base));
    svg.append("<path d=\"")
        .append(area)
        .append(
            "\" fill=\"#2da44e\" fill-opacity=\"0.35\" stroke=\"#1a7f37\" stroke-width=\"1.2\"/>");
    for (Availability.Bucket b : series) {
      int bad = b.sendFail() + b.sendInfo();
      if (bad > 0) {
        double h = Math.max(1.5, bad / yMax * THROUGHPUT_PX);
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#cf222e\" fill-opacity=\"0.8\"><title>%ds: %d failed, %d indeterminate</title></rect>",
                x(b.second()) + 0.5,
                base - h,
                Math.max(1, x(b.second() + 1) - x(b.second()) - 1),
                h,
                b.second(),
                b.sendFail(),
                b.sendInfo()));
      }
    }
  }

  private void grid(int top, int base, double yMax, String title) {
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#57606a\"/>",
            LEFT,
            WIDTH - RIGHT,
            base,
            base));
    for (int i = 0; i <= 4; i++) {
      double v = yMax * i / 4;
      double y = base - (double) THROUGHPUT_PX * i / 4;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d0d7de\" stroke-dasharray=\"%s\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#57606a\">%s</text>",
              LEFT,
              WIDTH - RIGHT,
              y,
              y,
              i == 0 ? "none" : "2 3",
              LEFT - 6,
              y + 4,
              fmt(v)));
    }
    axisTitle(top, top + THROUGHPUT_PX, title);
  }

  private void axisTitle(int top, int bottom, String title) {
    int cy = (top + bottom) / 2;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text transform=\"translate(14 %d) rotate(-90)\" text-anchor=\"middle\" fill=\"#24292f\" font-weight=\"600\">%s</text>",
            cy,
            title));
  }

  private void latencyPanel() {
    int top = TOP + THROUGHPUT_PX + GAP_PX;
    int base = top + LATENCY_PX;
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Availability.Bucket b : series) {
      if (b.latencyP50Ms() != null) {
        lo = Math.min(lo, Math.max(0.1, b.latencyP50Ms()));
        hi = Math.max(hi, b.latencyP99Ms());
      }
    }
    if (hi == 0) {
      lo = 1;
      hi = 1000;
    }
    double logLo = Math.floor(Math.log10(lo));
    double logHi = Math.max(logLo + 1, Math.ceil(Math.log10(hi)));
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#57606a\"/>",
            LEFT,
            WIDTH - RIGHT,
            base,
            base));
    for (double e = logLo; e <= logHi; e++) {
      double y = base - (e - logLo) / (logHi - logLo) * LATENCY_PX;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d0d7de\" stroke-dasharray=\"2 3\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#57606a\">%s</text>",
              LEFT,
              WIDTH - RIGHT,
              y,
              y,
              LEFT - 6,
              y + 4,
              msLabel(Math.pow(10, e))));
    }
    axisTitle(top, base, "send latency");
    line(top, base, logLo, logHi, true, "#0969da", 1.6);
    line(top, base, logLo, logHi, false, "#bf8700", 1.3);
  }

  private void line(
      int top, int base, double logLo, double logHi, boolean p50, String color, double width) {
    StringBuilder d = new StringBuilder();
    boolean pen = false;
    for (Availability.Bucket b : series) {
      Double v = p50 ? b.latencyP50Ms() : b.latencyP99Ms();
      if (v == null) {
        pen = false;
        continue;
      }
      double lv = Math.log10(Math.max(v, Math.pow(10, logLo)));
      double y = base - (lv - logLo) / (logHi - logLo) * LATENCY_PX;
      d.append(String.format(Locale.ROOT, "%s%.1f %.1f ", pen ? "L" : "M", x(b.second() + 0.5), y));
      pen = true;
    }
    if (d.length() > 0) {
      svg.append("<path d=\"")
          .append(d)
          .append("\" fill=\"none\" stroke=\"")
          .append(color)
          .append("\" stroke-width=\"")
          .append(width)
          .append("\" stroke-linejoin=\"round\"/>");
    }
  }

  private void timeAxis() {
    int y = TOP + THROUGHPUT_PX + GAP_PX + LATENCY_PX;
    double step = niceStep(seconds / 10);
    for (double s = 0; s <= seconds + 1e-9; s += step) {
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#57606a\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#57606a\">%s</text>",
              x(s),
              x(s),
              y,
              y + 4,
              x(s),
              y + 16,
              timeLabel(s)));
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#57606a\"/>",
              x(s),
              x(s),
              TOP + THROUGHPUT_PX,
              TOP + THROUGHPUT_PX + 4));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#24292f\" font-weight=\"600\">time since start</text>",
            (LEFT + WIDTH - RIGHT) / 2,
            y + 33));
  }

  private void anomalyMarkers() {
    List<Anomaly> shown = new ArrayList<>();
    for (Anomaly a : anomalies) {
      if (!a.timesNs().isEmpty() && shown.size() < MAX_MARKERS) {
        shown.add(a);
      }
    }
    for (Anomaly a : shown) {
      double cx = x(a.timesNs().get(0) / 1e9);
      int y = TOP;
      svg.append(
          String.format(
              Locale.ROOT,
              "<path d=\"M%.1f %d l-5 -8 h10 z\" fill=\"#cf222e\" stroke=\"#ffffff\" stroke-width=\"0.8\"><title>%s</title></path>",
              cx,
              y + 1,
              HtmlReport.esc(a.kind() + ": " + a.summary())));
    }
  }

  static double niceCeil(double v) {
    double exp = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * exp >= v) {
        return m * exp;
      }
    }
    return 10 * exp;
  }

  private static double niceStep(double raw) {
    for (double s : new double[] {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}) {
      if (s >= raw) {
        return s;
      }
    }
    return 7200;
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static String msLabel(double ms) {
    if (ms >= 1000) {
      return fmt(ms / 1000) + " s";
    }
    return (ms < 1 ? String.format(Locale.ROOT, "%.1f", ms) : fmt(ms)) + " ms";
  }

  static String timeLabel(double s) {
    long sec = Math.round(s);
    return sec < 60 ? sec + "s" : String.format(Locale.ROOT, "%d:%02d", sec / 60, sec % 60);
  }
}
