package dev.spool.testing;

import dev.spool.testing.ExternalCommand.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real headless browser (Debian's {@code chromium}) for tests of the pages a node serves: {@link
 * #dumpDom} loads a page, lets its scripts run and returns the document as they left it.
 *
 * <p>Found on the PATH; on a fresh machine the first use installs Debian's package ({@code apt-get
 * install -y --no-install-recommends chromium}, after one {@code apt-get update} when the package
 * lists are empty), so the README's test command needs nothing set up beforehand. Installing is
 * idempotent: later runs find it on the PATH. When it cannot be had (no root, no package mirror)
 * the test fails with apt's own output; it is not skipped.
 *
 * <p>Threads: any; {@link #path} is synchronized.
 */
public final class Chromium {
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(15);
  private static final Duration PAGE_TIMEOUT = Duration.ofSeconds(60);
  private static Path found;

  private Chromium() {}

  /** The browser binary, installing it on first use. */
  public static synchronized Path path() {
    if (found != null) {
      return found;
    }
    Path p = onPath();
    if (p == null) {
      ExternalCommand.aptStep(
          "chromium is not installed and 'apt-get install chromium'",
          () ->
              ExternalCommand.run(
                  null,
                  "",
                  INSTALL_TIMEOUT,
                  "apt-get",
                  "install",
                  "-y",
                  "--no-install-recommends",
                  "chromium"));
      p = onPath();
      if (p == null) {
        throw new IllegalStateException("apt-get installed chromium but it is not on the PATH");
      }
    }
    return found = p;
  }

  private static Path onPath() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "chromium");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /**
   * Loads {@code url} headless, gives its scripts {@code scriptTime} of (virtual) time to run, and
   * returns the serialized DOM. {@code profile} is a fresh directory for the browser's profile, so
   * runs share no state and leave nothing behind outside it.
   */
  public static String dumpDom(String url, Duration scriptTime, Path profile) {
    Result r =
        ExternalCommand.run(
            null, "", PAGE_TIMEOUT, command(profile, scriptTime, "--dump-dom", url));
    if (!r.ok()) {
      throw new IllegalStateException("chromium --dump-dom " + url + " failed: " + r.output());
    }
    return r.output();
  }

  /** Saves a screenshot of {@code url} ({@code width} x {@code height}) to {@code png}. */
  public static void screenshot(
      String url, Path png, int width, int height, Duration scriptTime, Path profile) {
    Result r =
        ExternalCommand.run(
            null,
            "",
            PAGE_TIMEOUT,
            command(
                profile,
                scriptTime,
                "--screenshot=" + png.toAbsolutePath(),
                "--window-size=" + width + "," + height,
                "--hide-scrollbars",
                url));
    if (!r.ok() || !Files.exists(png)) {
      throw new IllegalStateException("chromium --screenshot " + url + " failed: " + r.output());
    }
  }

  private static String[] command(Path profile, Duration scriptTime, String... rest) {
    List<String> cmd = new ArrayList<>();
    cmd.add(path().toString());
    // --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start.
    cmd.addAll(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--user-data-dir=" + profile.toAbsolutePath(),
            "--virtual-time-budget=" + scriptTime.toMillis()));
    cmd.addAll(List.of(rest));
    return cmd.toArray(String[]::new);
  }
}
