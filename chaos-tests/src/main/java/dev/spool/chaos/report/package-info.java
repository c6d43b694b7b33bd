/**
 * The run folder a person opens after a chaos run: {@code history.jsonl}, {@code verdict.json},
 * {@code run.json}, {@code nemesis.jsonl}, {@code nodes/} and a self-contained {@code index.html}
 * whose SVG plot shows acknowledged writes per second and send latency (p50/p99) over time, with
 * fault windows shaded and anomalies marked ({@link dev.spool.chaos.report.RunReport}). Rendering
 * ({@link dev.spool.chaos.report.HtmlReport}) is pure; only {@code RunReport} writes files.
 */
package dev.spool.chaos.report;
